"""Run in each rank of a gloo group by tests/engine/test_tensor_parallel.py: a whole model and its shard, same
weights, give the same logits through a prefill and a decode step of the paged cache."""

from __future__ import annotations

import copy
import dataclasses

import torch
import torch.distributed as dist

from engine.model.config import ModelConfig
from engine.model.dummy import initialize_dummy_weights
from engine.model.registry import build_model
from engine.model.tensor_parallel import TPGroup
from engine.model.tp_shard import shard_model


def sharded_logits_match(rank: int, world: int, init_file: str, config: ModelConfig, runner_cls: type) -> None:
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=world)
    try:
        whole = build_model(config, torch.float32, torch.device("cpu"))
        initialize_dummy_weights(whole, seed=0, low=-0.2, high=0.2)  # same seed: the same model on every rank
        shard = shard_model(copy.deepcopy(whole), TPGroup(rank, world))
        assert shard.model.layers[0].self_attn.num_kv_heads == max(1, config.num_key_value_heads // world)
        ref, tp = runner_cls(whole), runner_cls(shard)
        for chunks in ([(0, [5, 17, 900, 3, 42]), (1, [7, 1000])], [(0, [11]), (1, [999])]):
            want, got = ref.step(chunks), tp.step(chunks)
            assert got.shape == want.shape == (sum(len(t) for _, t in chunks), config.vocab_size)
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    finally:
        dist.destroy_process_group()


def odd_config(base: ModelConfig) -> ModelConfig:
    """One KV head (replicated on both ranks) and a vocab of 1001 (padded to 2 x 501)."""
    return dataclasses.replace(base, num_key_value_heads=1, vocab_size=1001, tie_word_embeddings=True)

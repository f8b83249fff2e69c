"""Tensor parallelism on CPU over gloo: two ranks give the greedy tokens one rank gives; a sharded model gives the
whole model's logits (KV head replicated, vocab padded); a size that does not fit the model is refused with the flag
and the sizes that fit, before any process starts."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch.multiprocessing as mp

from engine.errors import EngineError
from engine.llm import LLM
from engine.model.config import read_config_json
from engine.model.tensor_parallel import check_tensor_parallel, kv_head_start, rank_config
from engine.sampling_params import SamplingParams
from tp_check import odd_config, sharded_logits_match

pytestmark = pytest.mark.usefixtures("one_torch_thread")

PROMPTS = [
    {"prompt_token_ids": [5, 17, 900, 3, 42, 8]},
    {"prompt_token_ids": [7, 1, 250]},
    {"prompt_token_ids": list(range(100, 121))},
]


def _greedy(model_dir, **kwargs) -> list[list[int]]:
    llm = LLM(
        str(model_dir),
        device="cpu",
        dtype="float32",
        attention_backend="torch",
        max_num_seqs=4,
        max_model_len=64,
        block_size=4,
        num_blocks=64,
        **kwargs,
    )
    try:
        outs = llm.generate(PROMPTS, SamplingParams(temperature=0.0, max_tokens=12, ignore_eos=True), use_tqdm=False)
    finally:
        llm.engine_core.shutdown()
    return [list(o.outputs[0].token_ids) for o in outs]


def test_two_ranks_give_the_greedy_tokens_of_one(tiny_qwen3_dir, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # the spawned rank inherits it
    one = _greedy(tiny_qwen3_dir)
    two = _greedy(tiny_qwen3_dir, tensor_parallel_size=2)
    assert all(len(t) == 12 for t in one)
    assert two == one


def test_replicated_kv_head_and_padded_vocab_give_whole_model_logits(tiny_qwen3_dir, paged_runner, tmp_path):
    config = odd_config(read_config_json(tiny_qwen3_dir / "config.json"))
    mp.spawn(sharded_logits_match, args=(2, str(tmp_path / "rendezvous"), config, paged_runner), nprocs=2)


def test_size_that_does_not_divide_the_heads_is_refused_before_any_process_starts(tiny_qwen3_dir):
    with pytest.raises(
        EngineError,
        match=r"--tensor-parallel-size 3 does not divide the model's 4 attention heads; "
        r"use one of 1, 2, 4",
    ):
        LLM(str(tiny_qwen3_dir), device="cpu", tensor_parallel_size=3)


def test_kv_heads_are_split_when_enough_and_replicated_when_fewer(tiny_qwen3_dir):
    config = read_config_json(tiny_qwen3_dir / "config.json")  # 4 heads, 2 KV heads
    check_tensor_parallel(4, config)  # each KV head on two ranks: no error
    assert rank_config(config, 2).num_key_value_heads == rank_config(config, 4).num_key_value_heads == 1
    assert rank_config(config, 4).kv_cache_bytes_per_token(4) * 2 == config.kv_cache_bytes_per_token(4)
    assert rank_config(config, 1) is config
    assert [kv_head_start(2, r, 2) for r in range(2)] == [0, 1]
    assert [kv_head_start(2, r, 4) for r in range(4)] == [0, 0, 1, 1]
    assert [kv_head_start(8, r, 4) for r in range(4)] == [0, 2, 4, 6]


@pytest.mark.parametrize(
    "heads, kv_heads, size, message",
    [
        (12, 3, 2, "--tensor-parallel-size 2 does not divide the model's 3 KV heads"),
        (12, 4, 6, "--tensor-parallel-size 6 exceeds the model's 4 KV heads and is not a multiple of them"),
    ],
)
def test_kv_heads_that_neither_split_nor_replicate_evenly_are_refused(tiny_qwen3_dir, heads, kv_heads, size, message):
    config = replace(
        read_config_json(tiny_qwen3_dir / "config.json"),
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        intermediate_size=120,
    )
    check_tensor_parallel(6, replace(config, num_key_value_heads=3))  # 3 KV heads, each on two of six ranks
    with pytest.raises(EngineError, match=message):
        check_tensor_parallel(size, config)


@pytest.mark.parametrize("size", [0, -2])
def test_size_below_one_is_refused(size):
    with pytest.raises(EngineError, match="tensor_parallel_size must be an integer >= 1"):
        LLM("Qwen3-0.6B", load_format="dummy", device="cpu", tensor_parallel_size=size)

"""Tensor parallelism on CPU over gloo: a sharded model gives the whole model's logits, the split a size gives, and sizes that do not fit the model refused."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch.multiprocessing as mp

from engine.errors import EngineError
from engine.llm import LLM
from engine.model.config import read_config_json
from engine.model.tensor_parallel import check_tensor_parallel, kv_head_start, rank_config
from tp_check import odd_config, sharded_logits_match

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_replicated_kv_head_and_padded_vocab_give_whole_model_logits(tiny_qwen3_dir, paged_runner, tmp_path):
    config = odd_config(read_config_json(tiny_qwen3_dir / "config.json"))
    mp.spawn(sharded_logits_match, args=(2, str(tmp_path / "rendezvous"), config, paged_runner), nprocs=2)


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

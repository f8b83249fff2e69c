"""Tensor parallelism's arithmetic: which heads, KV heads, MLP columns and vocab rows a rank holds, the check that a
size fits a model, and the collectives the sharded layers call (Megatron-LM's split, vLLM's names).

Nothing here starts processes; engine/worker/tp_launch.py does, and hands the model a `TPGroup`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch
import torch.distributed as dist

from engine.errors import EngineError
from engine.model.config import ModelConfig
from engine.utils import cdiv


@dataclass(frozen=True)
class TPGroup:
    """This process's place in the tensor-parallel group; collectives over the default process group."""

    rank: int
    size: int

    def all_reduce(self, x: torch.Tensor) -> torch.Tensor:  # summed over ranks, in place
        dist.all_reduce(x)
        return x

    def all_gather(self, x: torch.Tensor) -> torch.Tensor:  # [N, C] per rank -> [N, size * C], rank order
        parts = [torch.empty_like(x) for _ in range(self.size)]
        dist.all_gather(parts, x.contiguous())
        return torch.cat(parts, dim=-1)


def check_tensor_parallel(size: int, config: ModelConfig) -> None:
    """A size the model can be split by: heads and MLP columns divide evenly; KV heads divide, or (fewer KV heads
    than ranks) each is replicated on size / num_kv_heads ranks. The vocab is padded, so any size fits it."""
    flag = f"--tensor-parallel-size {size}"
    heads, kv = config.num_attention_heads, config.num_key_value_heads
    if heads % size:
        fits = [n for n in range(1, heads + 1) if heads % n == 0]
        raise EngineError(
            f"{flag} does not divide the model's {heads} attention heads; use one of {', '.join(map(str, fits))}"
        )
    if kv >= size and kv % size:
        raise EngineError(
            f"{flag} does not divide the model's {kv} KV heads; use a size that divides {kv}, "
            f"or a multiple of it that divides {heads}"
        )
    if kv < size and size % kv:
        raise EngineError(
            f"{flag} exceeds the model's {kv} KV heads and is not a multiple of them, so they cannot "
            f"be replicated evenly; use a multiple of {kv} that divides {heads}"
        )
    if config.intermediate_size % size:
        raise EngineError(
            f"{flag} does not divide the model's intermediate_size {config.intermediate_size}; "
            f"use a size that divides it"
        )


def num_local_kv_heads(num_kv_heads: int, size: int) -> int:
    return max(1, num_kv_heads // size)


def kv_head_start(num_kv_heads: int, rank: int, size: int) -> int:
    """The first KV head of a rank; with fewer KV heads than ranks, ranks r*k .. r*k+k-1 share head r (k =
    size / num_kv_heads), the head their query heads read."""
    if num_kv_heads >= size:
        return rank * (num_kv_heads // size)
    return rank // (size // num_kv_heads)


def padded_vocab_per_rank(vocab_size: int, size: int) -> int:
    return cdiv(vocab_size, size)


def rank_config(config: ModelConfig, size: int) -> ModelConfig:
    """The model as one rank sees it: its heads and KV heads (which size its KV cache) and MLP columns; the vocab
    stays whole because the LM head gathers the full logits."""
    if size == 1:
        return config
    return replace(
        config,
        num_attention_heads=config.num_attention_heads // size,
        num_key_value_heads=num_local_kv_heads(config.num_key_value_heads, size),
        intermediate_size=config.intermediate_size // size,
    )

"""EngineConfig: the engine's settings once resolved (dtype, device, context length fixed), frozen.

`EngineArgs` (engine/args.py) is where a setting is declared, with its default, help and choices; it builds this
record once the model is known. The value tables every layer shares live here too: dtype spellings, load formats
and attention backends, each defined once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch

from engine.errors import EngineError

# Accepted spellings of a dtype -> the torch dtype; "auto" is resolved by resolve_dtype.
DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "fp32": torch.float32,
    "float": torch.float32,
    "bfloat16": torch.bfloat16,
    "bf16": torch.bfloat16,
    "float16": torch.float16,
    "fp16": torch.float16,
    "half": torch.float16,
}
LOAD_FORMATS = ("auto", "hf", "gguf", "dummy")
ATTENTION_BACKENDS = ("auto", "triton", "torch")  # auto: triton on cuda when it can run, torch otherwise


ENV_ASYNC_SCHEDULING = "ENGINE_ASYNC_SCHEDULING"  # the rollback switch of the async scheduler (engine_core.py)
_ON, _OFF = ("1", "true", "on", "yes"), ("0", "false", "off", "no")


def resolve_async_scheduling(asked: bool | None) -> bool:
    """The flag when given; otherwise ENGINE_ASYNC_SCHEDULING (0/1), and on when that is unset."""
    if asked is not None:
        return asked
    value = os.environ.get(ENV_ASYNC_SCHEDULING, "").strip().lower()
    if value in _ON or not value:
        return True
    if value in _OFF:
        return False
    raise EngineError(
        f"{ENV_ASYNC_SCHEDULING}={value!r} is neither 0 nor 1; set it to 0 (one step at a time) or 1, or unset it"
    )


def dtype_name(dtype: torch.dtype) -> str:
    """torch.bfloat16 -> "bfloat16" (how settings and evidence spell a dtype)."""
    return str(dtype).removeprefix("torch.")


def resolve_dtype(dtype: str | torch.dtype | None, device: torch.device | str) -> torch.dtype:
    """The torch dtype a setting names; "auto" (or None) is float32 on cpu, where bf16 matmuls are slow, and
    bfloat16 on cuda."""
    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype is None or dtype == "auto":
        return torch.bfloat16 if torch.device(device).type == "cuda" else torch.float32
    if dtype not in DTYPES:
        raise EngineError(f"dtype must be auto, float32, bfloat16 or float16, got {dtype!r}")
    return DTYPES[dtype]


@dataclass(frozen=True)
class EngineConfig:
    """Every field of EngineArgs, with dtype, device and max_model_len resolved (tests/engine/test_args.py keeps
    the two field lists equal)."""

    model: str | None  # as given; None: the embedded default model
    load_format: str
    dtype: torch.dtype  # the loaded model's dtype
    device: torch.device
    seed: int
    max_num_seqs: int
    max_num_batched_tokens: int
    max_model_len: int  # the model's context length unless a shorter one was asked for
    block_size: int
    enable_prefix_caching: bool
    enable_chunked_prefill: bool
    gpu_memory_utilization: float
    num_blocks: int | None  # None: CUDA profiles, CPU caps the cache at cpu_kv_cache_gib
    cpu_kv_cache_gib: float
    enforce_eager: bool | None  # None: CUDA graphs where they can run (engine/worker/cuda_graphs.py)
    async_scheduling: bool  # resolved: the flag, else ENGINE_ASYNC_SCHEDULING, else on
    attention_backend: str  # as asked for; the runner records what "auto" picked
    max_capture_size: int | None
    tensor_parallel_size: int  # 1: one process, no distributed calls

"""EngineArgs: every engine setting declared once, with vLLM's name, its type, default, help and choices.

From this one table come the engine flags of `engine generate`, `engine serve` and `engine bench throughput|latency`
(`add_cli_args`), the keywords of `LLM(model, **kwargs)` (`from_kwargs`), and the frozen EngineConfig once the model
is known (`create_engine_config`: the dtype the model loaded in and its context length).
"""

from __future__ import annotations

import argparse
import difflib
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

import torch

from engine.config import (
    ATTENTION_BACKENDS,
    DTYPES,
    ENV_ASYNC_SCHEDULING,
    LOAD_FORMATS,
    EngineConfig,
    resolve_async_scheduling,
)
from engine.errors import EngineError

_POSITIVE_INTS = ("max_num_seqs", "block_size", "tensor_parallel_size")
_OPTIONAL_POSITIVE_INTS = ("max_model_len", "max_capture_size", "num_blocks", "max_num_batched_tokens")

# A step's token budget when none is given, by use, as vLLM's defaults (EngineArgs.get_batch_defaults): offline use
# (LLM, engine generate, engine bench) on a CUDA device of >= 70 GiB other than an A100 gets 16384, everything else
# 8192 (vLLM gives its server 8192 there; on smaller GPUs 2048, where this engine keeps 8192). On an H200 the nano
# pass of Qwen3-0.6B ran 25,782-25,817 output tok/s with 16384 against 24,837-25,496 with 8192 (three passes each,
# one machine, tools/device_nano_timeline.py): prefill takes half the steps, each reading the weights once.
DEFAULT_BATCHED_TOKENS, OFFLINE_LARGE_GPU_BATCHED_TOKENS, LARGE_GPU_BYTES = 8192, 16384, 70 * 2**30


def default_max_num_batched_tokens(device: torch.device, offline: bool) -> int:
    if not offline or device.type != "cuda":
        return DEFAULT_BATCHED_TOKENS
    props = torch.cuda.get_device_properties(device)
    large = props.total_memory >= LARGE_GPU_BYTES and "a100" not in props.name.lower()
    return OFFLINE_LARGE_GPU_BATCHED_TOKENS if large else DEFAULT_BATCHED_TOKENS


def _setting(default: Any, help: str, choices: tuple[str, ...] | None = None) -> Any:
    return field(default=default, metadata={"help": help, "choices": choices})


@dataclass(frozen=True)
class EngineArgs:
    model: str | None = _setting(
        None,
        "HF model directory, .gguf file, or a Qwen3 config name (or config .json) with --load-format dummy "
        "(default: the embedded SmolLM2-135M-Instruct GGUF)",
    )
    load_format: str = _setting(
        "auto", "how to read --model: auto (from the path), hf, gguf, or dummy (seeded random weights)", LOAD_FORMATS
    )
    dtype: str | torch.dtype = _setting(
        "auto", "auto (bfloat16 on cuda, float32 on cpu), float32, bfloat16, float16", ("auto", *DTYPES)
    )
    device: str | torch.device | None = _setting(None, "cuda or cpu (default: cuda if available)")
    seed: int = _setting(0, "seed of dummy weights and of requests that bring none (engine bench: of the workload too)")
    max_num_seqs: int = _setting(256, "requests running at once")
    max_num_batched_tokens: int | None = _setting(
        None,
        "token budget of one step (default: 16384 offline (LLM, generate, bench) on a CUDA device of >= 70 GiB other "
        "than an A100, as vLLM; 8192 otherwise)",
    )
    max_model_len: int | None = _setting(None, "context length (default: the model's)")
    block_size: int = _setting(16, "tokens per KV-cache block")
    enable_prefix_caching: bool = _setting(True, "reuse the KV blocks of a prompt prefix seen before")
    enable_chunked_prefill: bool = _setting(True, "split a long prompt across steps")
    gpu_memory_utilization: float = _setting(0.9, "CUDA: fraction of device memory the engine may use")
    num_blocks: int | None = _setting(
        None, "KV-cache blocks (default: CUDA sizes them from free memory, CPU from --cpu-kv-cache-gib)"
    )
    cpu_kv_cache_gib: float = _setting(1.0, "CPU: cap on the KV cache when --num-blocks is not given")
    enforce_eager: bool | None = _setting(
        None,
        "--enforce-eager: never CUDA graphs; --no-enforce-eager: ask for them (default: graphs for pure-decode "
        "steps on CUDA with the Triton kernels, eager elsewhere)",
    )
    async_scheduling: bool | None = _setting(
        None,
        "--async-scheduling: schedule and launch step N+1 while the device runs step N, its sampled ids "
        "read one step late; --no-async-scheduling: one step at a time (default: on, unless "
        "ENGINE_ASYNC_SCHEDULING=0)",
    )
    attention_backend: str = _setting(
        "auto", "attention kernels: auto (triton on cuda, torch otherwise), triton, torch", ATTENTION_BACKENDS
    )
    max_capture_size: int | None = _setting(
        None, "largest decode batch run as a CUDA graph (default: min(--max-num-seqs, 512))"
    )
    tensor_parallel_size: int = _setting(
        1,
        "ranks the model is split over (Megatron-style; docs/tensor-parallel.md): one process per rank, gloo on "
        "CPU, NCCL on CUDA; under torchrun, its WORLD_SIZE",
    )

    def __post_init__(self) -> None:
        """Each setting on its own; what needs the model (max_model_len against the context) waits for it."""
        if self.device is not None:
            try:
                device = torch.device(self.device)
            except (RuntimeError, TypeError):
                raise EngineError(f"device must be cpu, cuda or cuda:N, got {self.device!r}") from None
            if device.type == "cuda" and not torch.cuda.is_available():
                raise EngineError(f"device={device} requested but CUDA is not available; use --device cpu")
        if not isinstance(self.dtype, torch.dtype) and self.dtype != "auto" and self.dtype not in DTYPES:
            raise EngineError(f"dtype must be auto, float32, bfloat16 or float16, got {self.dtype!r}")
        for name in ("load_format", "attention_backend"):
            choices = _choices(name)
            if getattr(self, name) not in choices:
                raise EngineError(f"{name} must be one of {', '.join(choices)}, got {getattr(self, name)!r}")
        for name in _POSITIVE_INTS + _OPTIONAL_POSITIVE_INTS:
            value = getattr(self, name)
            if (value is not None or name in _POSITIVE_INTS) and (not isinstance(value, int) or value < 1):
                raise EngineError(f"{name} must be an integer >= 1, got {value!r}")
        if not 0.0 < self.gpu_memory_utilization <= 1.0:
            raise EngineError(f"gpu_memory_utilization must be in (0, 1], got {self.gpu_memory_utilization!r}")
        if self.enforce_eager is not None and not isinstance(self.enforce_eager, bool):
            raise EngineError(
                f"enforce_eager must be True, False or None (graphs where they can run), got {self.enforce_eager!r}"
            )
        if self.async_scheduling is not None and not isinstance(self.async_scheduling, bool):
            raise EngineError(
                f"async_scheduling must be True, False or None (the default, "
                f"{ENV_ASYNC_SCHEDULING} or on), got {self.async_scheduling!r}"
            )

    # ---- what the model fixes ----------------------------------------------------------------------
    def resolve_device(self) -> torch.device:
        if self.device is None:
            return torch.device("cuda" if torch.cuda.is_available() else "cpu")
        return torch.device(self.device)

    def for_offline(self) -> EngineArgs:
        """These settings for offline use (LLM): an unset step budget takes the offline default of the device."""
        if self.max_num_batched_tokens is not None:
            return self
        return replace(self, max_num_batched_tokens=default_max_num_batched_tokens(self.resolve_device(), True))

    def create_engine_config(self, *, dtype: torch.dtype, max_position_embeddings: int) -> EngineConfig:
        """The frozen config, given the dtype the model loaded in and its context length. An unset step budget is
        the server's default here; LLM resolves the offline one first (for_offline)."""
        if self.max_num_batched_tokens is None:
            return replace(
                self, max_num_batched_tokens=default_max_num_batched_tokens(self.resolve_device(), False)
            ).create_engine_config(dtype=dtype, max_position_embeddings=max_position_embeddings)
        max_model_len = self.max_model_len if self.max_model_len is not None else max_position_embeddings
        if max_model_len > max_position_embeddings:
            raise EngineError(
                f"max_model_len={max_model_len} exceeds the model's "
                f"max_position_embeddings={max_position_embeddings}; lower --max-model-len"
            )
        if not self.enable_chunked_prefill and self.max_num_batched_tokens < max_model_len:
            raise EngineError(
                f"without chunked prefill, max_num_batched_tokens ({self.max_num_batched_tokens}) must "
                f"be >= max_model_len ({max_model_len}): a whole prompt runs in one step; raise "
                f"--max-num-batched-tokens, lower --max-model-len or enable chunked prefill"
            )
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values.update(
            dtype=dtype,
            device=self.resolve_device(),
            max_model_len=max_model_len,
            async_scheduling=resolve_async_scheduling(self.async_scheduling),
        )
        return EngineConfig(**values)

    # ---- the keywords of LLM(...) ------------------------------------------------------------------
    @classmethod
    def from_kwargs(cls, kwargs: Mapping[str, Any], caller: str = "EngineArgs") -> EngineArgs:
        """EngineArgs(**kwargs), where an unknown keyword is a TypeError naming the nearest setting."""
        names = [f.name for f in fields(cls)]
        for key in kwargs:
            if key not in names:
                near = difflib.get_close_matches(key, names, n=1)
                hint = f"; did you mean {near[0]!r}?" if near else f"; the settings are: {', '.join(names)}"
                raise TypeError(f"{caller}() got an unexpected keyword argument {key!r}{hint}")
        return cls(**kwargs)

    # ---- the flags of the CLI ----------------------------------------------------------------------
    @classmethod
    def add_cli_args(
        cls, parser: argparse.ArgumentParser, defaults: Mapping[str, Any] | None = None
    ) -> argparse._ArgumentGroup:
        """One flag per setting (`--max-num-seqs`, `--enable-prefix-caching/--no-...`), in an "engine" group.

        `defaults` replaces a setting's default for one command (bench runs "Qwen3-0.6B" dummy weights)."""
        defaults = dict(defaults or {})
        unknown = set(defaults) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"defaults for settings that do not exist: {sorted(unknown)}")
        hints = typing.get_type_hints(cls)
        group = parser.add_argument_group("engine")
        for f in fields(cls):
            flag = "--" + f.name.replace("_", "-")
            default = defaults.get(f.name, f.default)
            kind = _cli_type(hints[f.name])
            help_text = str(f.metadata["help"])
            if kind is bool:
                group.add_argument(flag, action=argparse.BooleanOptionalAction, default=default, help=help_text)
                continue
            if default is not None and "default" not in help_text:
                help_text += f" (default: {default})"
            group.add_argument(flag, type=kind, default=default, choices=f.metadata["choices"], help=help_text)
        return group

    @classmethod
    def from_cli_args(cls, args: argparse.Namespace) -> EngineArgs:
        """The settings among the parsed flags (add_cli_args made one flag per setting)."""
        return cls(**{f.name: getattr(args, f.name) for f in fields(cls)})


def _choices(name: str) -> tuple[str, ...]:
    choices = next(f.metadata["choices"] for f in fields(EngineArgs) if f.name == name)
    assert choices is not None
    return tuple(choices)


def _cli_type(hint: Any) -> type:
    """bool, int or float when the annotation allows one (after None); a string otherwise (dtype, device)."""
    members = typing.get_args(hint) or (hint,)
    return next((t for t in (bool, int, float) if t in members), str)

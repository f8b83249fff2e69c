"""Our engine under the bench: build the LLM from the CLI flags, run a workload, turn outputs into timings."""
from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import fields
from typing import Any

import torch

from engine.bench.metrics import RequestTiming
from engine.bench.workloads import Workload

# EngineConfig fields recorded in result.json's `engine` block (every setting that changes speed).
ENGINE_SETTINGS = ("load_format", "dtype", "device", "seed", "max_num_seqs", "max_num_batched_tokens",
                   "max_model_len", "block_size", "enable_prefix_caching", "enable_chunked_prefill",
                   "gpu_memory_utilization", "num_blocks", "cpu_kv_cache_gib", "enforce_eager", "async_scheduling",
                   "attention_backend", "max_capture_size")


def engine_kwargs(args: Any) -> dict[str, Any]:
    """LLM(...) keywords from the CLI; a flag left unset keeps the engine's default."""
    kw: dict[str, Any] = {"model": args.model, "load_format": args.load_format, "dtype": args.dtype,
                          "seed": args.seed}
    for name in ("device", "max_num_seqs", "max_num_batched_tokens", "max_model_len", "gpu_memory_utilization",
                 "num_blocks", "enforce_eager", "attention_backend"):
        value = getattr(args, name, None)
        if value is not None:
            kw[name] = value
    return kw


def engine_defaults() -> dict[str, Any]:
    """EngineConfig's declared defaults (used for the roofline of a peer-only run)."""
    from engine.config import EngineConfig
    return {f.name: f.default for f in fields(EngineConfig) if not callable(f.default)}


def build_llm(kwargs: dict[str, Any]) -> Any:
    from engine import LLM
    return LLM(**kwargs)


def settings_of(llm: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The resolved EngineConfig where the LLM exposes it, else the keywords it was built with."""
    cfg = getattr(llm, "config", None) or getattr(getattr(llm, "engine_core", None), "config", None)
    if cfg is None:
        return {k: _jsonable(v) for k, v in kwargs.items() if k != "model"}
    out = {k: _jsonable(getattr(cfg, k)) for k in ENGINE_SETTINGS if hasattr(cfg, k)}
    core = getattr(llm, "engine_core", None)
    if core is not None and getattr(core, "num_blocks", None) is not None:
        out["num_blocks"] = core.num_blocks   # resolved by profiling
    kernels = getattr(getattr(core, "runner", None), "attention_kernels", None)
    if kernels is not None:
        out["attention_kernels"] = kernels.name   # what "auto" resolved to
    mode = getattr(getattr(core, "runner", None), "graph_mode", None)
    if mode is not None:
        out["graph_mode"] = mode                  # what enforce_eager resolved to: off | capture | replay
    return out


def _jsonable(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v).removeprefix("torch.")


def generate(llm: Any, workload: Workload, on_progress: Callable[[int, int], None] | None = None
             ) -> tuple[list[RequestTiming], float]:
    """One timed pass over the workload: (per-request timings, wall seconds of generate())."""
    from engine import SamplingParams
    prompts = [{"prompt_token_ids": p} for p in workload.prompts]
    params = [SamplingParams(max_tokens=n, ignore_eos=True, temperature=0.0) for n in workload.output_lens]
    t0 = time.perf_counter()
    outputs = llm.generate(prompts, params, **_progress_kwargs(llm, workload.num_requests, on_progress))
    elapsed = time.perf_counter() - t0
    timings = []
    for out, prompt, want in zip(outputs, workload.prompts, workload.output_lens):
        m = out.metrics
        n = len(out.outputs[0].token_ids)
        stamps = list(m.token_times)
        timings.append(RequestTiming(m.arrival_time, stamps if len(stamps) == n else [], len(prompt), n == want,
                                     None if len(stamps) == n else n))
    return timings, elapsed



def timed_run(llm: Any, workload: Workload, device: torch.device,
              on_progress: Callable[[int, int], None] | None = None
              ) -> tuple[list[RequestTiming], float, int | None]:
    """generate() with the device's peak memory measured over that pass alone: (timings, seconds, peak bytes)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
    timings, elapsed = generate(llm, workload, on_progress)
    peak = torch.cuda.max_memory_allocated(device) if device.type == "cuda" else None
    return timings, elapsed, peak

def _progress_kwargs(llm: Any, total: int, on_progress: Callable[[int, int], None] | None) -> dict[str, Any]:
    """vLLM's generate(use_tqdm=...) takes a callable; pass our progress through it when the engine does too."""
    import inspect
    params = inspect.signature(llm.generate).parameters
    if on_progress is None:
        return {"use_tqdm": False} if "use_tqdm" in params else {}
    if "on_request_finished" in params:
        done = [0]

        def tick(*_: Any) -> None:
            done[0] += 1
            on_progress(done[0], total)
        return {"on_request_finished": tick, **({"use_tqdm": False} if "use_tqdm" in params else {})}
    if "use_tqdm" in params:
        return {"use_tqdm": False}
    return {}


WARMUP_REQUESTS, WARMUP_TOKENS = 16, 8


def warmup(llm: Any, workload: Workload) -> None:
    """The workload's first prompts, a few tokens each, untimed: first launches, kernel compilation and allocator
    growth at the workload's own shapes stay out of the timed runs."""
    from engine import SamplingParams
    prompts = [{"prompt_token_ids": p} for p in workload.prompts[:WARMUP_REQUESTS]]
    llm.generate(prompts, SamplingParams(max_tokens=WARMUP_TOKENS, ignore_eos=True, temperature=0.0),
                 **_progress_kwargs(llm, len(prompts), None))


def release(device: torch.device) -> None:
    """Give a dropped engine's memory back before the next model (the peer) loads; the caller drops its LLM."""
    gc.collect()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.empty_cache()

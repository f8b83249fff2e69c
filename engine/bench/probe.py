"""Measured ceilings for the roofline: copy bandwidth and dense matmul throughput, a few hundred ms in all.

CUDA: a 1 GiB device-to-device copy and an 8192^3 matmul, timed with CUDA events after warm-up (random data:
zeros run faster on some GPUs). CPU: the same ops at small sizes, timed with perf_counter. Bandwidth counts
bytes read plus bytes written, as a roofline needs.
"""

from __future__ import annotations

import functools
import time
from typing import Any, Callable

import torch

from engine.bench.roofline import Ceilings


def time_ms(fn: Callable[[], Any], device: torch.device, warmup: int, iters: int) -> float:
    """Median milliseconds per call."""
    for _ in range(warmup):
        fn()
    times = []
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        for _ in range(iters):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
    else:
        for _ in range(iters):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def copy_gbps(device: torch.device, nbytes: int | None = None) -> tuple[float, dict[str, Any]]:
    nbytes = nbytes or (1 << 30 if device.type == "cuda" else 64 << 20)
    src = torch.empty(nbytes, dtype=torch.uint8, device=device).random_()
    dst = torch.empty_like(src)
    ms = time_ms(functools.partial(dst.copy_, src), device, warmup=3, iters=10 if device.type == "cuda" else 5)
    del src, dst
    return 2 * nbytes / (ms * 1e-3) / 1e9, {"copy_bytes": nbytes, "copy_ms": round(ms, 4)}


def matmul_tflops(device: torch.device, dtype: torch.dtype, n: int | None = None) -> tuple[float, dict[str, Any]]:
    n = n or (8192 if device.type == "cuda" else 512)
    gen = torch.Generator(device=device).manual_seed(0)
    a = torch.randn(n, n, device=device, dtype=dtype, generator=gen)
    b = torch.randn(n, n, device=device, dtype=dtype, generator=gen)
    ms = time_ms(functools.partial(torch.mm, a, b), device, warmup=3, iters=10 if device.type == "cuda" else 3)
    del a, b
    return 2 * n**3 / (ms * 1e-3) / 1e12, {"matmul_n": n, "matmul_ms": round(ms, 4)}


def measure(device: torch.device | str, dtype: torch.dtype) -> tuple[Ceilings, dict[str, Any]]:
    """Ceilings for the run's dtype, plus the details recorded in result.json (bf16 TFLOP/s always)."""
    device = torch.device(device)
    t0 = time.perf_counter()
    gbps, copy_info = copy_gbps(device)
    bf16, mm_info = matmul_tflops(device, torch.bfloat16)
    details: dict[str, Any] = {"bf16_tflops": float(f"{bf16:.4g}"), **copy_info, **mm_info}
    peak = bf16
    if dtype != torch.bfloat16:
        peak, _ = matmul_tflops(device, dtype)
        details["matmul_dtype"] = str(dtype).removeprefix("torch.")
    if device.type == "cuda":
        torch.cuda.empty_cache()  # hand the probe's buffers back before the engine sizes its KV cache
    details["probe_s"] = round(time.perf_counter() - t0, 3)
    return Ceilings(copy_gbps=gbps, matmul_tflops=peak), details

"""What a profiled window of engine steps cost on the device, from a torch.profiler Chrome trace (a pure function).

Device events are the trace's `kernel`, `gpu_memcpy` and `gpu_memset` events (CUPTI reports each kernel of a CUDA
graph replay one by one); host launches are the `cuda_runtime` / `cuda_driver` calls that put work on the device.
Busy time is the union of the device intervals, so kernels that overlap (a side-stream copy) count once; idle time
is the gaps inside the window from the first device event to the last. Times in the trace are microseconds.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

DEVICE_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")
HOST_LAUNCHES = (
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "cuLaunchKernel",
    "cuLaunchKernelEx",
    "cudaGraphLaunch",
    "cudaMemcpyAsync",
    "cudaMemsetAsync",
)
TOP_KERNELS = 15


def busy_us(intervals: Iterable[tuple[float, float]]) -> float:
    """Length of the union of [start, end) intervals."""
    total, end = 0.0, None
    for start, stop in sorted(intervals):
        if end is None or start > end:
            total += stop - start
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total


def summarize(events: list[dict[str, Any]], num_steps: int, wall_s: float) -> dict[str, Any]:
    """Per-step figures of `num_steps` steps that took `wall_s` seconds of host time, from the trace's events."""
    kernels: dict[str, list[float]] = defaultdict(list)  # name -> durations (us)
    intervals: list[tuple[float, float]] = []
    counts = {"gpu_memcpy": 0, "gpu_memset": 0}
    launches = 0
    for e in events:
        cat, dur = e.get("cat"), e.get("dur")
        if e.get("ph") != "X" or dur is None:
            continue
        if cat in DEVICE_CATEGORIES:
            intervals.append((float(e["ts"]), float(e["ts"]) + float(dur)))
            if cat == "kernel":
                kernels[e.get("name", "?")].append(float(dur))
            else:
                counts[cat] += 1
        elif cat in ("cuda_runtime", "cuda_driver") and e.get("name") in HOST_LAUNCHES:
            launches += 1
    step_ms = wall_s * 1e3 / num_steps
    out: dict[str, Any] = {
        "steps": num_steps,
        "step_ms": round(step_ms, 4),
        "host_launch_calls_per_step": round(launches / num_steps, 1),
    }
    if not intervals:  # no device activity recorded (CPU): the device figures do not exist
        return {
            **out,
            "kernels_per_step": 0,
            "memcpy_per_step": 0,
            "memset_per_step": 0,
            "gpu_busy_ms_per_step": None,
            "gpu_busy_fraction": None,
            "gpu_window_ms_per_step": None,
            "gpu_idle_fraction": None,
            "top_kernels": [],
        }
    busy = busy_us(intervals)
    window = max(stop for _, stop in intervals) - min(start for start, _ in intervals)
    kernel_us = sum(sum(d) for d in kernels.values())
    top = sorted(kernels.items(), key=lambda kv: -sum(kv[1]))[:TOP_KERNELS]
    return {
        **out,
        "kernels_per_step": round(sum(len(d) for d in kernels.values()) / num_steps, 1),
        "memcpy_per_step": round(counts["gpu_memcpy"] / num_steps, 1),
        "memset_per_step": round(counts["gpu_memset"] / num_steps, 1),
        "gpu_busy_ms_per_step": round(busy / 1e3 / num_steps, 4),
        "gpu_busy_fraction": round(busy / 1e3 / num_steps / step_ms, 4),  # of the host's wall time
        "gpu_window_ms_per_step": round(window / 1e3 / num_steps, 4),
        "gpu_idle_fraction": round(1 - busy / window, 4) if window > 0 else 0.0,  # gaps between device work
        "top_kernels": [
            {
                "name": name,
                "ms_per_step": round(sum(d) / 1e3 / num_steps, 4),
                "calls_per_step": round(len(d) / num_steps, 2),
                "share_of_kernel_time": round(sum(d) / kernel_us, 4) if kernel_us else None,
            }
            for name, d in top
        ],
    }

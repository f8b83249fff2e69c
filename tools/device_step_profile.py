"""What one steady decode step costs on the GPU (ENG-FUSED-STEP; a measurement, not a test): kernels per step, how
much of the step's wall time the GPU is busy, the top kernels by time, and the step against its memory bound.

    PYTHONPATH=. python3 tools/device_step_profile.py --out $OUT/step_profile.json            # H200, ~3 min
    PYTHONPATH=. python3 tools/device_step_profile.py --tiny --out /tmp/step_profile.json    # CPU smoke check

For each model (dummy weights, bf16, CUDA graphs on, the Triton kernels) and each batch size: BATCH requests of
--input-len random prompt tokens start together; once every request has its first token (prefill done) and
--warmup-steps decode steps ran, --steps steps are timed plainly (step_ms: wall time, host included), then
--steps more are recorded by torch.profiler (CUPTI reports the kernels a graph replay runs one by one), then --steps
more with timers around the phases of a step (host_phases_ms: schedule, input preparation, launches, the wait for
the oldest step's tokens). The profiler's figures:
kernels_per_step, memcpy/memset per step, host launch calls per step (cudaLaunchKernel, cudaGraphLaunch, ...),
gpu_busy_ms_per_step (the union of kernel and copy intervals, so overlap is not counted twice) and
gpu_busy_fraction = gpu_busy_ms_per_step / step_ms. The bound is the step's bytes (every weight a step reads once,
the K/V of every context token) over a measured device-to-device copy bandwidth. ENGINE_COMPILE=1 in the
environment (or --compile) measures the torch.compile alternative, --eager the path without graphs, and
--input-len 2048 the long-context path (small batches replay split-KV graphs once max_model_len >= 1024).

--tiny runs a 2-layer Qwen3 on CPU (graphs in replay mode, Triton under TRITON_INTERPRET=1): it checks this script,
not the engine's speed; the CPU profiler sees no kernels there, so kernels_per_step is 0.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import torch
from engine.model.tiny import TINY_QWEN3

HOST_LAUNCHES = (
    "cudaLaunchKernel",
    "cuLaunchKernel",
    "cuLaunchKernelEx",
    "cudaLaunchKernelExC",
    "cudaGraphLaunch",
    "cudaMemcpyAsync",
    "cudaMemsetAsync",
)


def sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def copy_gbps(device: str) -> float:
    """Device-to-device copy bandwidth, bytes read + written per second / 1e9 (median of 10 after 3 warm-ups)."""
    nbytes = (1 << 30) if device == "cuda" else (64 << 20)
    src = torch.empty(nbytes, dtype=torch.uint8, device=device).random_()
    dst = torch.empty_like(src)
    times = []
    for i in range(13):
        sync(device)
        t0 = time.perf_counter()
        dst.copy_(src)
        sync(device)
        if i >= 3:
            times.append(time.perf_counter() - t0)
    del src, dst
    return 2 * nbytes / sorted(times)[len(times) // 2] / 1e9


def build(model: str, batch: int, args: argparse.Namespace, device: str) -> Any:
    from engine.args import EngineArgs
    from engine.engine_core import EngineCore
    from engine.model import load_model

    dtype = "float32" if args.tiny else "bfloat16"
    loaded = load_model(model, load_format="dummy", dtype=dtype, device=device, seed=0)
    max_model_len = args.input_len + args.warmup_steps + 3 * args.steps + 8
    blocks = batch * -(-max_model_len // 16) + 16
    engine_args = EngineArgs(
        model=model,
        load_format="dummy",
        device=device,
        dtype=dtype,
        max_num_seqs=batch,
        max_model_len=max_model_len,
        max_num_batched_tokens=max(2048, max_model_len),
        num_blocks=blocks if device == "cpu" else None,
        attention_backend="triton",
        enforce_eager=args.eager,
    )
    return EngineCore.from_args(engine_args, loaded=loaded)


def start_decode(core: Any, batch: int, args: argparse.Namespace) -> list[Any]:
    """Admit the batch, step until every request has its first token, then --warmup-steps decode steps."""
    from engine.sampling_params import SamplingParams

    rng = random.Random(0)
    vocab = min(core.vocab_size, 10000)
    params = SamplingParams(max_tokens=args.warmup_steps + 3 * args.steps + 4, temperature=0.0, ignore_eos=True)
    reqs = [
        core.add_request(str(i), [rng.randrange(vocab) for _ in range(args.input_len)], params) for i in range(batch)
    ]
    while any(r.num_output_tokens == 0 for r in reqs):
        core.step()
    for _ in range(args.warmup_steps):
        core.step()
    return reqs


def timed_steps(core: Any, steps: int, device: str) -> float:
    sync(device)
    t0 = time.perf_counter()
    for _ in range(steps):
        core.step()
    sync(device)
    return (time.perf_counter() - t0) / steps


def host_phases(core: Any, steps: int, device: str) -> dict[str, Any]:
    """Host wall time per step of each phase of EngineCore.step (timers wrapped around the engine's own methods,
    no profiler): what the host spends scheduling, preparing inputs, launching, and waiting for the oldest step's
    tokens (get_output: the only wait). Host work per step = step - get_output."""
    import engine.worker.model_runner as model_runner
    from engine.worker.async_output import AsyncModelRunnerOutput

    totals: dict[str, float] = defaultdict(float)
    undo: list[tuple[Any, str, Any]] = []  # (owner, name, what to put back)

    def wrap(owner: Any, name: str, label: str) -> None:
        fn = getattr(owner, name)

        def timed(*a: Any, **k: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                totals[label] += time.perf_counter() - t0

        undo.append((owner, name, vars(owner).get(name)))
        setattr(owner, name, timed)

    runner = core.runner
    wrap(core.scheduler, "schedule", "schedule")
    wrap(core.scheduler, "update_from_output", "update_from_output")
    wrap(runner, "execute_model", "execute_model")
    wrap(model_runner, "prepare_inputs", "execute_model/prepare_inputs")
    if runner.decode_graphs is not None:
        wrap(runner.decode_graphs, "run", "execute_model/graph_run")
    wrap(runner.model, "compute_logits", "execute_model/compute_logits")
    wrap(runner.logits_processors, "sample", "execute_model/sample")
    wrap(runner.output_copier, "start", "execute_model/copy_start")
    wrap(AsyncModelRunnerOutput, "get_output", "get_output (wait)")
    sync(device)
    t0 = time.perf_counter()
    try:
        for _ in range(steps):
            core.step()
        sync(device)
    finally:
        for owner, name, original in reversed(undo):
            if original is None:
                delattr(owner, name)  # the instance's attribute: the class's method shows again
            else:
                setattr(owner, name, original)
    wall = (time.perf_counter() - t0) / steps
    out = {k: round(v / steps * 1e3, 4) for k, v in sorted(totals.items())}
    out["step"] = round(wall * 1e3, 4)
    out["host_work"] = round((wall - totals["get_output (wait)"] / steps) * 1e3, 4)
    return out


def profiled_steps(core: Any, steps: int, device: str) -> dict[str, Any]:
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    sync(device)
    with profile(activities=activities) as prof:
        for _ in range(steps):
            core.step()
        sync(device)
    kernels: dict[str, list[float]] = defaultdict(list)  # name -> durations (ms)
    intervals, memcpy, memset, host = [], 0, 0, 0
    for e in prof.profiler.kineto_results.events():
        name = e.name()
        if e.device_type() == torch.autograd.DeviceType.CUDA:
            intervals.append((e.start_ns(), e.start_ns() + e.duration_ns()))
            if name.startswith("Memcpy"):
                memcpy += 1
            elif name.startswith("Memset"):
                memset += 1
            else:
                kernels[name].append(e.duration_ns() / 1e6)
        elif name in HOST_LAUNCHES:
            host += 1
    busy_ns, end = 0, None
    for start, stop in sorted(intervals):  # union of the intervals: overlapping kernels count once
        if end is None or start > end:
            busy_ns += stop - start
            end = stop
        elif stop > end:
            busy_ns += stop - end
            end = stop
    gpu_ms = sum(sum(d) for d in kernels.values())
    top = sorted(kernels.items(), key=lambda kv: -sum(kv[1]))[:40]
    return {
        "kernels_per_step": round(sum(len(d) for d in kernels.values()) / steps, 1),
        "memcpy_per_step": round(memcpy / steps, 1),
        "memset_per_step": round(memset / steps, 1),
        "host_launch_calls_per_step": round(host / steps, 1),
        "gpu_busy_ms_per_step": round(busy_ns / 1e6 / steps, 4),
        "top_kernels": [
            {
                "name": name,
                "ms_per_step": round(sum(d) / steps, 4),
                "calls_per_step": round(len(d) / steps, 2),
                "share_of_kernel_time": round(sum(d) / gpu_ms, 4) if gpu_ms else None,
            }
            for name, d in top
        ],
    }


def step_bytes(core: Any, reqs: list[Any], dtype_bytes: int) -> tuple[int, float]:
    """(weight bytes a decode step reads, mean K/V bytes it reads): the embedding is read a row per token, not whole."""
    mc = core.model_config
    weights = mc.num_parameters() - (0 if mc.tie_word_embeddings else mc.vocab_size * mc.hidden_size)
    context = sum(r.num_tokens for r in reqs)  # at the end of the measured steps; the mean is a few tokens lower
    return weights * dtype_bytes, context * mc.kv_cache_bytes_per_token(dtype_bytes)


def profile_one(model: str, batch: int, args: argparse.Namespace, device: str, gbps: float) -> dict[str, Any]:
    core = build(model, batch, args, device)
    runner = core.runner
    reqs = start_decode(core, batch, args)
    graphs = runner.decode_graphs
    replays_before = sum(graphs.replays.values()) if graphs else 0
    step_s = timed_steps(core, args.steps, device)
    prof = profiled_steps(core, args.steps, device)
    phases = host_phases(core, args.steps, device)
    dtype_bytes = next(runner.model.parameters()).element_size()
    weight_bytes, kv_bytes = step_bytes(core, reqs, dtype_bytes)
    bound_ms = (weight_bytes + kv_bytes) / (gbps * 1e9) * 1e3
    step_ms = step_s * 1e3
    out = {
        "model": Path(model).stem if args.tiny else model,
        "batch": batch,
        "input_len": args.input_len,
        "context_tokens_per_row": round(sum(r.num_tokens for r in reqs) / batch, 1),
        "steps": args.steps,
        "graph_mode": runner.graph_mode,
        "attention_kernels": runner.attention_kernels.name,
        "graph_steps": (sum(graphs.replays.values()) - replays_before) if graphs else 0,
        "split_kv_graph_steps": sum(graphs.split_replays.values()) if graphs else 0,
        "step_ms": round(step_ms, 4),
        "bound_ms": round(bound_ms, 4),
        "bound_fraction": round(bound_ms / step_ms, 4),
        "step_weight_bytes": weight_bytes,
        "step_kv_bytes": kv_bytes,
        **prof,
        "host_phases_ms": phases,
    }
    out["gpu_busy_fraction"] = round(out["gpu_busy_ms_per_step"] / step_ms, 4)
    del core, runner, reqs, graphs
    gc.collect()
    if device == "cuda":
        torch.cuda.empty_cache()
    return out


def print_table(result: dict[str, Any]) -> None:
    print(f"{result['gpu'] or 'cpu'}: copy {result['copy_gbps']:,.0f} GB/s (the bound's bandwidth)")
    print(
        f"{'model':<14}{'batch':>6}{'step ms':>10}{'bound ms':>10}{'of bound':>9}{'kernels':>9}{'memcpy':>8}"
        f"{'host calls':>11}{'GPU busy':>10}  top kernel"
    )
    for r in result["runs"]:
        top = r["top_kernels"][0] if r["top_kernels"] else {"name": "-", "share_of_kernel_time": 0}
        print(
            f"{r['model']:<14}{r['batch']:>6}{r['step_ms']:>10.3f}{r['bound_ms']:>10.3f}{r['bound_fraction']:>9.1%}"
            f"{r['kernels_per_step']:>9.0f}{r['memcpy_per_step']:>8.0f}{r['host_launch_calls_per_step']:>11.0f}"
            f"{r['gpu_busy_fraction']:>10.1%}  {top['name'][:48]} ({top['share_of_kernel_time'] or 0:.0%})"
        )
    for r in result["runs"]:
        print(f"\n{r['model']} batch {r['batch']}: top kernels (ms per step, calls per step)")
        for k in r["top_kernels"][:8]:
            print(f"  {k['ms_per_step']:>9.4f} {k['calls_per_step']:>7.1f}  {k['name'][:100]}")
        print("  host phases (ms per step): " + ", ".join(f"{k} {v}" for k, v in r["host_phases_ms"].items()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=["Qwen3-0.6B", "Qwen3-4B"], help="shipped config names (dummy)")
    ap.add_argument("--batches", nargs="+", type=int, default=[1, 256])
    ap.add_argument("--input-len", type=int, default=512, help="prompt tokens per request (the decode context)")
    ap.add_argument("--warmup-steps", type=int, default=8)
    ap.add_argument("--steps", type=int, default=20, help="decode steps timed, and as many profiled")
    ap.add_argument("--eager", action="store_true", help="no CUDA graphs (enforce_eager=True)")
    ap.add_argument("--compile", action="store_true", help="set ENGINE_COMPILE=1: torch.compile the layers")
    ap.add_argument("--tiny", action="store_true", help="CPU smoke check: a 2-layer Qwen3, small batches")
    ap.add_argument("--out", required=True, help="JSON result path")
    args = ap.parse_args()
    args.eager = True if args.eager else False  # False asks for graphs (replay mode on CPU)
    device = "cuda" if torch.cuda.is_available() and not args.tiny else "cpu"
    if device == "cpu" and not args.tiny:
        print("device_step_profile: error: no CUDA device; on CPU run with --tiny", file=sys.stderr)
        return 2
    if args.compile:
        os.environ["ENGINE_COMPILE"] = "1"
    if device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"  # before the kernel modules are imported (engine/kernels/backends.py)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        models = args.models
        if args.tiny:
            models = [str(Path(tmp) / "tiny-qwen3.json")]
            Path(models[0]).write_text(json.dumps(TINY_QWEN3))
            args.batches = [min(b, 3) for b in dict.fromkeys(args.batches)]
            args.input_len, args.warmup_steps, args.steps = (
                min(args.input_len, 4),
                min(args.warmup_steps, 1),
                min(args.steps, 2),
            )
        gbps = copy_gbps(device)
        runs = [profile_one(m, b, args, device, gbps) for m in models for b in args.batches]
    result = {
        "device": device,
        "gpu": torch.cuda.get_device_name() if device == "cuda" else None,
        "torch": torch.__version__,
        "engine_compile": os.environ.get("ENGINE_COMPILE", "0"),
        "copy_gbps": round(gbps, 1),
        "runs": runs,
        "wall_s": round(time.perf_counter() - t0, 1),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())

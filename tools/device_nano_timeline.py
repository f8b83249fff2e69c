"""Where a nano pass loses time against its bound, step by step (ENG-FUSED-STEP; a measurement, not a test).

    PYTHONPATH=. python3 tools/device_nano_timeline.py --model Qwen3-0.6B --out $OUT/timeline-0.6B.json
    PYTHONPATH=. python3 tools/device_nano_timeline.py --tiny --out /tmp/timeline.json      # CPU smoke check

The bench gives one figure per pass (output tok/s, a share of the bound of engine/bench/roofline.py). This splits
the pass: after the bench's warm-up and one untimed pass, a pass of the nano workload runs with the scheduler's
`schedule()` wrapped, so every step is recorded as it is scheduled (requests, tokens, prefill tokens, the context
its attention reads) with the time to the next step's scheduling. Each step also gets its own bound, the roofline's
max(bytes / copy bandwidth, FLOPs / matmul peak) for the work actually scheduled, so the report says which steps
(prefill, mixed, decode by batch size) lose how much, in milliseconds, against what. With async scheduling the
interval between two schedule() calls is the pipeline's step time once it is full. `--profile` adds a pass under
torch.profiler and sums kernel time by kernel name (the profiler slows the host: its wall time is not the pass's).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

BUCKETS = (1, 8, 32, 64, 128, 192, 256, 10**9)


def bucket_of(n: int) -> str:
    lo = 0
    for hi in BUCKETS:
        if n <= hi:
            return f"{lo + 1}-{hi}" if hi < 10**9 else f">{lo}"
        lo = hi
    return "?"


class StepLog:
    """schedule() wrapped: per step, what was scheduled and when."""

    def __init__(self, core: Any) -> None:
        self.core = core
        self.steps: list[dict[str, Any]] = []
        self._orig = core.scheduler.schedule

    def __enter__(self) -> StepLog:
        sched = self.core.scheduler

        def wrapped() -> Any:
            t = time.perf_counter()
            out = self._orig()
            reqs = tokens = prefill_tokens = ctx = pairs = heads = 0
            for rid, n in out.num_scheduled_tokens.items():
                r = sched.requests.get(rid)
                if r is None:
                    continue
                done = r.num_computed_tokens - n  # schedule() already counted this step's tokens
                reqs += 1
                tokens += n
                prompt_left = max(0, r.num_prompt_tokens - done)
                if prompt_left > 0:
                    prefill_tokens += min(n, prompt_left)
                    heads += int(done + n >= r.num_prompt_tokens)
                else:
                    heads += 1
                ctx += done + n
                pairs += n * done + n * (n + 1) // 2
            self.steps.append(
                {
                    "t": t,
                    "reqs": reqs,
                    "tokens": tokens,
                    "prefill_tokens": prefill_tokens,
                    "ctx": ctx,
                    "pairs": pairs,
                    "heads": heads,
                }
            )
            return out

        sched.schedule = wrapped
        return self

    def __exit__(self, *exc: Any) -> None:
        self.core.scheduler.schedule = self._orig


def per_step_bounds(
    steps: list[dict[str, Any]], shape: Any, dtype_bytes: int, copy_gbps: float, tflops: float, end_t: float
) -> list[dict[str, Any]]:
    bw, peak = copy_gbps * 1e9, tflops * 1e12
    weight_bytes = shape.step_weight_params * dtype_bytes
    kv_tok = shape.kv_bytes_per_token(dtype_bytes)
    mm_tok = 2 * shape.num_layers * shape.layer_matmul_params
    head = 2 * shape.lm_head_params
    pair = shape.attn_flops_per_pair()
    rows = []
    for i, s in enumerate(steps):
        if not s["tokens"]:
            continue
        nxt = steps[i + 1]["t"] if i + 1 < len(steps) else end_t
        nbytes = weight_bytes + s["ctx"] * kv_tok
        flops = s["tokens"] * mm_tok + s["pairs"] * pair + s["heads"] * head
        bound = max(nbytes / bw, flops / peak)
        kind = "decode" if s["prefill_tokens"] == 0 else ("prefill" if s["prefill_tokens"] == s["tokens"] else "mixed")
        rows.append(
            {
                **s,
                "ms": (nxt - s["t"]) * 1e3,
                "bound_ms": bound * 1e3,
                "kind": kind,
                "bytes_bound": nbytes / bw >= flops / peak,
            }
        )
    return rows


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    groups: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for r in rows:
        key = r["kind"] if r["kind"] != "decode" else f"decode {bucket_of(r['reqs'])}"
        g = groups[key]
        g["steps"] += 1
        g["ms"] += r["ms"]
        g["bound_ms"] += r["bound_ms"]
        g["tokens"] += r["tokens"]
        g["reqs"] += r["reqs"]
        g["ctx"] += r["ctx"]
    total_ms = sum(r["ms"] for r in rows)
    total_bound = sum(r["bound_ms"] for r in rows)
    out = {}
    for key in sorted(groups, key=lambda k: (not k.startswith("prefill"), not k.startswith("mixed"), k)):
        g = groups[key]
        out[key] = {
            "steps": int(g["steps"]),
            "ms": round(g["ms"], 1),
            "bound_ms": round(g["bound_ms"], 1),
            "lost_ms": round(g["ms"] - g["bound_ms"], 1),
            "efficiency": round(g["bound_ms"] / g["ms"], 3) if g["ms"] else None,
            "ms_per_step": round(g["ms"] / g["steps"], 3),
            "bound_ms_per_step": round(g["bound_ms"] / g["steps"], 3),
            "mean_reqs": round(g["reqs"] / g["steps"], 1),
            "mean_tokens": round(g["tokens"] / g["steps"], 1),
            "mean_ctx_per_req": round(g["ctx"] / max(g["reqs"], 1), 1),
        }
    return {
        "total_ms": round(total_ms, 1),
        "total_bound_ms": round(total_bound, 1),
        "efficiency": round(total_bound / total_ms, 3) if total_ms else None,
        "groups": out,
    }


def kernel_table(prof: Any, top: int = 25) -> list[dict[str, Any]]:
    rows = []
    for ev in prof.key_averages():
        dev = getattr(ev, "device_time_total", None)
        if dev is None:
            dev = getattr(ev, "cuda_time_total", 0)
        if dev and getattr(ev, "device_type", None) is not None and "CUDA" in str(ev.device_type):
            rows.append({"name": ev.key[:120], "count": ev.count, "ms": round(dev / 1e3, 2)})
    rows.sort(key=lambda r: -r["ms"])
    return rows[:top]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="Qwen3-0.6B")
    ap.add_argument(
        "--engine-flags", default=None, help="engine flags (default: the bench's nano --max-model-len 4096; 256 tiny)"
    )
    ap.add_argument("--num-prompts", type=int, default=256)
    ap.add_argument("--passes", type=int, default=2, help="timed passes recorded (after one untimed)")
    ap.add_argument("--copy-gbps", type=float, default=None, help="default: probed as the bench does")
    ap.add_argument("--tflops", type=float, default=None)
    ap.add_argument("--profile", action="store_true", help="one more pass under torch.profiler")
    ap.add_argument("--tiny", action="store_true", help="a 2-layer Qwen3 on CPU: checks this script only")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)

    import torch

    from engine.args import EngineArgs
    from engine.bench import ours, probe, roofline, workloads
    from engine.model.loader import get_model_config

    flags = (args.engine_flags or f"--max-model-len {256 if args.tiny else 4096}").split()
    model = args.model
    if args.tiny:
        from engine.model.tiny import TINY_QWEN3
        import tempfile

        cfg = Path(tempfile.mkdtemp()) / "config.json"
        cfg.write_text(json.dumps(TINY_QWEN3))
        model = str(cfg)
        flags += ["--device", "cpu"]
    p = argparse.ArgumentParser()
    EngineArgs.add_cli_args(p)
    eargs = EngineArgs.from_cli_args(p.parse_args(["--model", model, "--load-format", "dummy", *flags]))
    n_prompts = 8 if args.tiny else args.num_prompts
    w = workloads.build("nano", n_prompts, 128 if args.tiny else 1024, 128 if args.tiny else 1024, 0)
    if args.tiny:  # the tiny vocabulary is smaller than nano's token ids
        w.prompts[:] = [[t % TINY_QWEN3["vocab_size"] for t in p] for p in w.prompts]
    llm, settings = ours.build_llm(eargs)
    core = llm.engine_core
    shape = roofline.ModelShape.from_config(get_model_config(model))
    dtype_bytes = torch.tensor([], dtype=core.config.dtype).element_size()
    copy_gbps, tflops = args.copy_gbps, args.tflops
    if copy_gbps is None or tflops is None:
        c, _details = probe.measure(core.config.device, core.config.dtype)
        copy_gbps = copy_gbps or c.copy_gbps
        tflops = tflops or c.matmul_tflops
    ours.warmup(llm, w)
    ours.generate(llm, w)  # untimed
    passes = []
    for i in range(args.passes):
        with StepLog(core) as log:
            timings, elapsed = ours.generate(llm, w)
        if core.config.device.type == "cuda":
            torch.cuda.synchronize()
        end_t = time.perf_counter()
        rows = per_step_bounds(log.steps, shape, dtype_bytes, copy_gbps, tflops, end_t)
        s = summarize(rows)
        s.update(
            pass_=i + 1,
            elapsed_s=round(elapsed, 3),
            output_tok_per_s=round(w.output_tokens / elapsed, 1),
            steps=len(rows),
        )
        passes.append(
            {
                "summary": s,
                "steps": [
                    {k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items() if k != "t"} for r in rows
                ],
            }
        )
        print(
            f"pass {i + 1}: {elapsed:.3f} s, {w.output_tokens / elapsed:.0f} tok/s, {len(rows)} steps, "
            f"step efficiency {s['efficiency']}",
            flush=True,
        )
        for k, g in s["groups"].items():
            print(
                f"   {k:>14}: {g['steps']:5d} steps {g['ms']:8.1f} ms (bound {g['bound_ms']:7.1f}, lost "
                f"{g['lost_ms']:7.1f}) {g['ms_per_step']:.3f} ms/step vs {g['bound_ms_per_step']:.3f}; "
                f"reqs {g['mean_reqs']}, tokens {g['mean_tokens']}, ctx/req {g['mean_ctx_per_req']}",
                flush=True,
            )
    kernels = None
    if args.profile and core.config.device.type == "cuda":
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            t0 = time.perf_counter()
            ours.generate(llm, w)
            torch.cuda.synchronize()
            profiled_s = time.perf_counter() - t0
        kernels = kernel_table(prof, top=10**6)
        total = sum(k["ms"] for k in kernels)
        print(f"profiled pass: {profiled_s:.3f} s wall, {total / 1e3:.3f} s of device kernels and copies", flush=True)
        kernels = {"profiled_pass_s": round(profiled_s, 3), "device_ms": round(total, 1), "top": kernels[:40]}
        for k in kernels["top"][:25]:
            print(f"   {k['ms']:9.2f} ms  {k['count']:7d}  {k['name']}", flush=True)
    result = {
        "model": args.model,
        "engine": settings,
        "copy_gbps": copy_gbps,
        "matmul_tflops": tflops,
        "device": torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu",
        "torch": torch.__version__,
        "workload": w.describe(),
        "passes": passes,
        "kernels": kernels,
    }
    Path(args.out).write_text(json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

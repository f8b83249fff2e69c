"""Time the small-batch GEMV kernel's tiles against cuBLAS on the decode GEMMs of real model shapes (a measurement,
not a test; ENG-FUSED-STEP).

    PYTHONPATH=. python3 tools/device_gemv_sweep.py --out $OUT/gemv_sweep.json              # H200, ~3 min
    PYTHONPATH=. python3 tools/device_gemv_sweep.py --models Qwen3-0.6B --rows 1 --quick --out /tmp/g.json

For each model's four layer GEMMs (qkv, o, gate_up, down: N x K from the shipped config) and each row count, every
tile of the grid below (columns per program BLOCK_N, K slice BLOCK_K, warps, software-pipelining stages) runs
engine/kernels/triton_gemv.launch, and F.linear (cuBLAS) runs the same product. Times are medians of
triton.testing.do_bench_cudagraph (the kernel replayed inside a CUDA graph, as a decode step runs it, so launch
overhead is not counted twice). Each tile's output is checked against F.linear first (a tile that computes a
wrong result is reported, not timed). Prints, per shape, cuBLAS, today's launch_shape choice and the best tiles,
with the bandwidth each reads the weight at.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

CONFIGS = Path(__file__).resolve().parents[1] / "engine" / "model" / "configs"


def shapes(model: str) -> list[tuple[str, int, int]]:
    cfg = json.loads((CONFIGS / f"{model}.json").read_text())
    h, i = cfg["hidden_size"], cfg["intermediate_size"]
    d = cfg.get("head_dim") or h // cfg["num_attention_heads"]
    q, kv = cfg["num_attention_heads"] * d, cfg["num_key_value_heads"] * d
    return [("qkv", q + 2 * kv, h), ("o", h, q), ("gate_up", 2 * i, h), ("down", h, i)]


def tiles(k: int, quick: bool) -> list[tuple[int, int, int, int | None]]:
    full_k = 1 << (k - 1).bit_length()
    block_ns = (2, 4, 8, 16) if quick else (2, 4, 8, 16, 32)
    block_ks = sorted({512, 1024, 2048, full_k})
    warps = (4, 8)
    stages: tuple[int | None, ...] = (None, 1) if quick else (None, 1, 3)
    return [
        (bn, bk, w, st)
        for bn, bk, w, st in itertools.product(block_ns, block_ks, warps, stages)
        if bn * bk <= 32768 and bk <= full_k
    ]


def bench(fn: Any) -> float:
    import triton.testing

    return float(triton.testing.do_bench_cudagraph(fn, rep=20))  # ms, median


def sweep_shape(name: str, n: int, k: int, m: int, quick: bool, deadline: float) -> dict[str, Any]:
    from engine.kernels import triton_gemv

    g = torch.Generator(device="cuda").manual_seed(n * 7 + k)
    x = torch.randn(m, k, device="cuda", generator=g).to(torch.bfloat16)
    w = (torch.randn(n, k, device="cuda", generator=g) / k**0.5).to(torch.bfloat16)
    want = F.linear(x.float(), w.float())
    nbytes = w.numel() * w.element_size()
    cublas_ms = bench(lambda: F.linear(x, w))
    default = triton_gemv.launch_shape(m, n, k, nbytes) or (0, 0)  # (0, 0): the dispatch picks cuBLAS
    rows: list[dict[str, Any]] = []
    wrong: list[str] = []
    for bn, bk, warps, stages in tiles(k, quick):
        if time.monotonic() > deadline:
            break
        label = f"BN{bn}-BK{bk}-w{warps}-s{stages}"
        try:
            got = triton_gemv.launch(x, w, None, bn, bk, warps, stages)
            if not torch.allclose(got.float(), want, atol=2e-2, rtol=2e-2):
                wrong.append(label)
                continue
            ms = bench(
                lambda bn=bn, bk=bk, warps=warps, stages=stages: triton_gemv.launch(x, w, None, bn, bk, warps, stages)
            )
        except Exception as e:  # a tile triton cannot compile (too many registers...) is skipped with its reason
            wrong.append(f"{label}: {type(e).__name__}: {str(e)[:80]}")
            continue
        rows.append({"block_n": bn, "block_k": bk, "warps": warps, "stages": stages, "ms": round(ms, 5)})
    rows.sort(key=lambda r: r["ms"])
    default_ms = next(
        (
            r["ms"]
            for r in rows
            if (r["block_n"], r["block_k"], r["warps"], r["stages"]) == (default[0], default[1], 4, None)
        ),
        None,
    )
    tb = lambda ms: round(nbytes / (ms * 1e-3) / 1e12, 3) if ms else None  # noqa: E731
    return {
        "shape": name,
        "m": m,
        "n": n,
        "k": k,
        "weight_bytes": nbytes,
        "cublas_ms": round(cublas_ms, 5),
        "cublas_tb_s": tb(cublas_ms),
        "default_tile": {"block_n": default[0], "block_k": default[1], "ms": default_ms, "tb_s": tb(default_ms)},
        "best": [{**r, "tb_s": tb(r["ms"])} for r in rows[:8]],
        "tiles_timed": len(rows),
        "failed": wrong,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=["Qwen3-0.6B", "Qwen3-4B"])
    ap.add_argument("--rows", nargs="+", type=int, default=[1, 4])
    ap.add_argument("--quick", action="store_true", help="a smaller grid of tiles")
    ap.add_argument("--budget-s", type=float, default=240.0, help="stop timing new tiles after this many seconds")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("device_gemv_sweep: error: needs a CUDA device", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    work = [(model, m, shape) for model in args.models for m in args.rows for shape in shapes(model)]
    results = []
    for i, (model, m, (name, n, k)) in enumerate(work):
        # each shape gets an equal share of what is left of the budget
        deadline = time.monotonic() + (t0 + args.budget_s - time.monotonic()) / (len(work) - i)
        r = sweep_shape(name, n, k, m, args.quick, deadline)
        r["model"] = model
        results.append(r)
        best = r["best"][0] if r["best"] else None
        d = r["default_tile"]
        print(
            f"{model:<11} m={m} {name:<8} [{n}x{k}] cuBLAS {r['cublas_ms'] * 1e3:7.1f} us "
            f"({r['cublas_tb_s']} TB/s) | today BN{d['block_n']}/BK{d['block_k']} "
            f"{(d['ms'] or 0) * 1e3:7.1f} us | best "
            + (
                f"BN{best['block_n']}-BK{best['block_k']}-w{best['warps']}-s{best['stages']} "
                f"{best['ms'] * 1e3:7.1f} us ({best['tb_s']} TB/s)"
                if best
                else "-"
            )
            + f" | {r['tiles_timed']} timed, {len(r['failed'])} failed",
            flush=True,
        )
        out = {  # written after every shape: a run cut short keeps what it measured
            "gpu": torch.cuda.get_device_name(),
            "torch": torch.__version__,
            "wall_s": round(time.monotonic() - t0, 1),
            "results": results,
        }
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

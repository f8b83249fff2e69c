"""Time the norm-fused GEMV (and its SiLU * up epilogue) on wide decode weights against the kernels it replaces
(a measurement, not a test; ENG-FUSED-STEP).

    PYTHONPATH=. python3 tools/device_fused_gemv_sweep.py --out $OUT/fused_gemv_sweep.json        # H100/H200, ~1 min

For Qwen3-4B's and Qwen3-0.6B's qkv (norm fused) and gate_up (norm and SiLU * up fused) at one row: the separate
kernels (triton_norm.rms_norm with the residual add, F.linear or the GEMV as the dispatch picks, triton_act's
SiLU * up) against triton_gemv.launch with norm (and act) over a grid of tiles. Every fused program normalises the
input row itself, so a tile with few columns per program re-reads the row (and the norm weight) from L2 many times
over: the grid runs up to 64 columns a program. Medians of triton.testing.do_bench_cudagraph (replayed inside a CUDA
graph, as a decode step runs them); each tile's output is checked against the separate kernels first.
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

CONFIGS = Path(__file__).resolve().parents[1] / "engine" / "model" / "configs"


def bench(fn: Any) -> float:
    import triton.testing

    return float(triton.testing.do_bench_cudagraph(fn, rep=20))  # ms, median


def shapes(model: str) -> list[tuple[str, int, int]]:
    cfg = json.loads((CONFIGS / f"{model}.json").read_text())
    h, i = cfg["hidden_size"], cfg["intermediate_size"]
    d = cfg.get("head_dim") or h // cfg["num_attention_heads"]
    q, kv = cfg["num_attention_heads"] * d, cfg["num_key_value_heads"] * d
    return [("qkv", q + 2 * kv, h), ("gate_up", 2 * i, h)]


def sweep(model: str, name: str, n: int, k: int) -> dict[str, Any]:
    from engine.kernels import triton_act, triton_gemv, triton_norm

    act = name == "gate_up"
    g = torch.Generator(device="cuda").manual_seed(n + k)
    x = torch.randn(1, k, device="cuda", generator=g).to(torch.bfloat16)
    res = torch.randn(1, k, device="cuda", generator=g).to(torch.bfloat16)
    nw = (1 + 0.1 * torch.randn(k, device="cuda", generator=g)).to(torch.bfloat16)
    w = (torch.randn(n, k, device="cuda", generator=g) / k**0.5).to(torch.bfloat16)
    res_out = torch.empty_like(x)

    def separate() -> torch.Tensor:
        normed, _ = triton_norm.rms_norm(x, nw, 1e-6, res)
        y = triton_gemv.linear(normed, w)
        return triton_act.silu_and_mul(y) if act else y

    def fused(bn: int, bk: int, warps: int) -> torch.Tensor:
        return triton_gemv.launch(x, w, None, bn, bk, warps, norm=(nw, 1e-6, res, res_out), act=act)

    want = separate().float()
    separate_ms = bench(separate)
    rows, wrong = [], []
    for bn, bk, warps in itertools.product((4, 8, 16, 32, 64), (128, 256, 512, 1024), (4, 8)):
        if bn * bk > 32768 or bk > triton_gemv.triton.next_power_of_2(k):
            continue
        label = f"BN{bn}-BK{bk}-w{warps}"
        try:
            got = fused(bn, bk, warps).float()
            if not torch.allclose(got, want, atol=3e-2, rtol=3e-2):
                wrong.append(label)
                continue
            ms = bench(lambda bn=bn, bk=bk, warps=warps: fused(bn, bk, warps))
        except Exception as e:  # a tile triton cannot compile is reported, not timed
            wrong.append(f"{label}: {type(e).__name__}: {str(e)[:80]}")
            continue
        rows.append({"block_n": bn, "block_k": bk, "warps": warps, "ms": round(ms, 5)})
    rows.sort(key=lambda r: r["ms"])
    nbytes = w.numel() * w.element_size()
    tb = lambda ms: round(nbytes / (ms * 1e-3) / 1e12, 3)  # noqa: E731
    return {
        "model": model,
        "shape": name,
        "n": n,
        "k": k,
        "act": act,
        "weight_bytes": nbytes,
        "separate_ms": round(separate_ms, 5),
        "separate_tb_s": tb(separate_ms),
        "dispatch_today": "gemv" if triton_gemv.runs_gemv(x, w) else "cublas",
        "best": [{**r, "tb_s": tb(r["ms"])} for r in rows[:10]],
        "failed": wrong,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=["Qwen3-4B", "Qwen3-0.6B"])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("device_fused_gemv_sweep: error: needs a CUDA device", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    results = [sweep(m, name, n, k) for m in args.models for name, n, k in shapes(m)]
    out = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "results": results}
    out["wall_s"] = round(time.monotonic() - t0, 1)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    for r in results:
        best = r["best"][0] if r["best"] else None
        print(
            f"{r['model']} {r['shape']} [{r['n']}x{r['k']}] separate ({r['dispatch_today']}) {r['separate_ms'] * 1e3:.1f} us"
            + (
                f"; fused best BN{best['block_n']} BK{best['block_k']} w{best['warps']} {best['ms'] * 1e3:.1f} us"
                if best
                else ""
            )
        )
        for b in r["best"][1:5]:
            print(f"    BN{b['block_n']} BK{b['block_k']} w{b['warps']} {b['ms'] * 1e3:.1f} us")
        if r["failed"]:
            print(f"    failed: {r['failed'][:4]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

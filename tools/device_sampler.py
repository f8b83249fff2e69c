"""The fused Triton sampler vs the torch sampler on the GPU: time, achieved bandwidth, same tokens, right
distribution (ENG-FUSED-STEP).

    PYTHONPATH=. python3 tools/device_sampler.py --out $OUT/sampler.json
    TRITON_INTERPRET=1 PYTHONPATH=. python3 tools/device_sampler.py --device cpu --small --out /tmp/sampler.json

Timed cases: N in {1, 32, 256} rows x V = 151,936 (Qwen3's vocabulary) bf16 logits drawn N(0, 2.5^2), a seed and a
position per row:
  greedy        temperature 0. torch: argmax (what the engine runs for an all-greedy batch); fused: the kernel's
                greedy rows (what a greedy row costs inside a mixed batch)
  temperature   T = 0.8
  top-p         T = 0.8, p = 0.9 (the OpenAI API's knob alone)
  top-k+top-p   T = 0.8, k = 50, p = 0.9
torch is engine/worker/sampler.py's sample_reference (what ENGINE_FUSED_SAMPLER=0 runs, its fp32 upcast included);
fused is engine/kernels/triton_sampling.py at its default block and warps; a tuning table times it at each
(block, num_warps) of TUNING too. `--baseline FILE` times another version of the kernel module (a copy of
engine/kernels/triton_sampling.py from an earlier commit, say) on the same inputs, side by side, and counts the rows
where both draw the same token (an A/B in one run). Times are CUDA-event medians of 50 calls after 5 warm-ups; the bound is reading the
logits once at the measured device copy bandwidth.
Checks: greedy rows equal torch.argmax exactly; fused and torch draw the same token on >= 99% of the timed rows
(they share the noise, so only exp/log rounding can part them); and on a 64-token vocabulary with known
probabilities, 100,000 seeded draws from each sampler pass a chi-square test against the exact distribution, for
temperature, top-k, top-p and both. Writes one JSON to --out, prints tables, exits 1 when a check fails (2 on a usage
error). About a minute on an H200.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from typing import Any

import torch

# torch only: importing it does not import triton (the kernels must be imported after TRITON_INTERPRET is read)
from engine.bench.probe import copy_gbps, time_ms

CASES = {
    "greedy": (0.0, None, 1.0),
    "temperature": (0.8, None, 1.0),
    "top-p": (0.8, None, 0.9),
    "top-k+top-p": (0.8, 50, 0.9),
}
# (temperature, top_k, top_p) for the distribution check on a small vocabulary with known probabilities.
DISTRIBUTIONS = {
    "temperature": (0.9, None, 1.0),
    "top-k": (1.0, 9, 1.0),
    "top-p": (1.0, None, 0.8),
    "top-k+top-p": (0.7, 20, 0.9),
}
MIN_AGREEMENT = 0.99
TUNING = [(1024, 8), (2048, 8), (4096, 16)]  # (block, num_warps) of the fused kernel, timed side by side


def sampling_tensors(
    n: int, temperature: float, top_k: int | None, top_p: float, device: torch.device, seed_offset: int = 0
) -> Any:
    from engine.worker.sampler import SamplingTensors

    f32: dict[str, Any] = {"dtype": torch.float32, "device": device}
    off = torch.iinfo(torch.int64).max
    return SamplingTensors(
        temperature=torch.full((n,), temperature, **f32),
        top_k=torch.full((n,), off if top_k is None else top_k, dtype=torch.int64, device=device),
        top_p=torch.full((n,), top_p, **f32),
        seeds=torch.arange(n, dtype=torch.int64, device=device) * 7919 + seed_offset,
        positions=torch.arange(n, dtype=torch.int64, device=device) % 1000,
        all_greedy=temperature == 0,
        any_greedy=temperature == 0,
        need_top_k=top_k is not None,
        need_top_p=top_p < 1.0,
    )


def fused(logits: torch.Tensor, t: Any, config: tuple[int, int] | None = None, module: Any = None) -> torch.Tensor:
    from engine.kernels import triton_sampling

    triton_sampling = module or triton_sampling
    block, num_warps = config or (triton_sampling.DEFAULT_BLOCK, triton_sampling.DEFAULT_NUM_WARPS)
    return triton_sampling.sample(
        logits,
        t.temperature,
        t.top_k,
        t.top_p,
        t.seeds,
        t.positions,
        has_top_k=t.need_top_k,
        has_top_p=t.need_top_p,
        block=block,
        num_warps=num_warps,
    )


def fused_default() -> str:
    from engine.kernels import triton_sampling

    return f"{triton_sampling.DEFAULT_BLOCK}x{triton_sampling.DEFAULT_NUM_WARPS}"


def exact_distribution(logits: torch.Tensor, temperature: float, top_k: int | None, top_p: float) -> torch.Tensor:
    """[V] float64: softmax(x / T) over what top-k (logits >= the k-th largest) and then top-p (logits whose
    strictly larger kept tokens hold < top_p of the renormalised mass) keep. Written apart from the sampler."""
    x = logits.double().cpu()
    keep = torch.ones_like(x, dtype=torch.bool)
    if top_k is not None and top_k < x.numel():
        keep = x >= x.sort(descending=True).values[top_k - 1]
    w = torch.where(keep, ((x - x[keep].max()) / temperature).exp(), torch.zeros_like(x))
    if top_p < 1.0:
        above = torch.stack([w[x > v].sum() for v in x.tolist()]) / w.sum()
        keep &= above < top_p
        w = torch.where(keep, w, torch.zeros_like(w))
    return w / w.sum()


def chi_square(samples: torch.Tensor, probs: torch.Tensor, z: float = 5.0) -> dict[str, Any]:
    """Pearson's chi-square against probs (the rarest tokens pooled until every bin expects >= 5 draws), its
    Wilson-Hilferty limit at z (a correct sampler exceeds it with probability ~3e-7), draws of probability-0 tokens,
    and the total variation distance."""
    n = samples.numel()
    counts = torch.bincount(samples.cpu(), minlength=probs.numel()).double()
    stray = int(counts[probs == 0].sum().item())
    bins = sorted(((c, p) for c, p in zip(counts.tolist(), probs.tolist()) if p > 0), key=lambda cp: cp[1])
    while len(bins) > 1 and n * bins[0][1] < 5:
        (c0, p0), (c1, p1) = bins[:2]
        bins = sorted([(c0 + c1, p0 + p1)] + bins[2:], key=lambda cp: cp[1])
    df = max(len(bins) - 1, 1)
    stat = sum((c - n * p) ** 2 / (n * p) for c, p in bins) if len(bins) > 1 else 0.0
    limit = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
    tv = 0.5 * (counts / n - probs).abs().sum().item()
    return {
        "chi2": round(stat, 2),
        "df": df,
        "limit": round(limit, 2),
        "zero_prob_draws": stray,
        "tv": round(tv, 4),
        "ok": bool(stat <= limit and stray == 0),
    }


def load_baseline(path: str) -> Any:
    """The kernel module of another version, loaded from its file under a name of its own."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("triton_sampling_baseline", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"device_sampler: error: cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed_cases(
    rows: list[int],
    vocab: int,
    device: torch.device,
    warmup: int,
    iters: int,
    bandwidth: float,
    baseline: Any = None,
) -> list[dict[str, Any]]:
    from engine.worker.sampler import sample_reference

    out = []
    for n in rows:
        g = torch.Generator(device=device).manual_seed(n)
        logits = (torch.randn(n, vocab, generator=g, device=device) * 2.5).bfloat16()
        for name, (temperature, top_k, top_p) in CASES.items():
            t = sampling_tensors(n, temperature, top_k, top_p, device)
            row: dict[str, Any] = {"case": name, "rows": n, "vocab": vocab}
            try:
                want, got = sample_reference(logits, t), fused(logits, t)
                if name == "greedy":
                    row["greedy_equal"] = bool(torch.equal(got, logits.argmax(dim=-1)))
                    row["ok"] = row["greedy_equal"]
                else:
                    row["agreement"] = round((got == want).double().mean().item(), 4)
                    row["ok"] = row["agreement"] >= MIN_AGREEMENT
                row["torch_ms"] = time_ms(lambda x=logits, t=t: sample_reference(x, t), device, warmup, iters)
                row["fused_ms"] = time_ms(lambda x=logits, t=t: fused(x, t), device, warmup, iters)
                if baseline is not None:
                    base = fused(logits, t, module=baseline)
                    row["baseline_same_token"] = round((base == got).double().mean().item(), 4)
                    row["baseline_ms"] = time_ms(
                        lambda x=logits, t=t: fused(x, t, module=baseline), device, warmup, iters
                    )
                row["fused_ms_by_config"] = {
                    f"{b}x{w}": time_ms(lambda x=logits, t=t, c=(b, w): fused(x, t, c), device, warmup, iters)
                    for b, w in TUNING
                }
                nbytes = logits.numel() * logits.element_size()
                bound_ms = nbytes / (bandwidth * 1e9) * 1e3
                row.update(
                    bytes=nbytes,
                    bound_ms=round(bound_ms, 4),
                    speedup=round(row["torch_ms"] / row["fused_ms"], 2),
                    fused_fraction_of_bound=round(bound_ms / row["fused_ms"], 3),
                )
            except Exception as e:  # noqa: BLE001 - one broken case must not hide the others' figures
                row.update(ok=False, error=f"{type(e).__name__}: {e}")
            out.append(row)
    return out


def distribution_checks(draws: int, device: torch.device) -> list[dict[str, Any]]:
    from engine.worker.sampler import sample_reference

    g = torch.Generator().manual_seed(0)
    one = (torch.randn(64, generator=g) * 1.5).bfloat16()  # bf16 values: the exact law uses the same numbers
    one[5] = float("-inf")
    logits = one.to(device).expand(draws, 64).contiguous()
    out = []
    for name, (temperature, top_k, top_p) in DISTRIBUTIONS.items():
        t = sampling_tensors(draws, temperature, top_k, top_p, device, seed_offset=12345)
        probs = exact_distribution(one.float(), temperature, top_k, top_p)
        row: dict[str, Any] = {
            "case": name,
            "draws": draws,
            "temperature": temperature,
            "top_k": top_k,
            "top_p": top_p,
            "support": int((probs > 0).sum().item()),
        }
        try:
            row["fused"] = chi_square(fused(logits, t), probs)
            row["torch"] = chi_square(sample_reference(logits, t), probs)
            row["ok"] = row["fused"]["ok"] and row["torch"]["ok"]
        except Exception as e:  # noqa: BLE001 - as above
            row.update(ok=False, error=f"{type(e).__name__}: {e}")
        out.append(row)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="where to write the JSON")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--small", action="store_true", help="small vocabulary and few rows (for the CPU interpreter)")
    ap.add_argument("--baseline", metavar="FILE", help="another triton_sampling.py to time side by side (an A/B)")
    args = ap.parse_args()
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print(
            "device_sampler: error: CUDA is not available; use --device cpu --small with TRITON_INTERPRET=1",
            file=sys.stderr,
        )
        return 2
    if device.type == "cpu" and os.environ.get("TRITON_INTERPRET") != "1":
        print("device_sampler: error: --device cpu needs TRITON_INTERPRET=1 in the environment", file=sys.stderr)
        return 2
    t_start = time.perf_counter()
    rows, vocab, draws = ([1, 3], 2048, 200) if args.small else ([1, 32, 256], 151_936, 100_000)
    warmup, iters = (5, 50) if device.type == "cuda" else (1, 1)
    bandwidth, _ = copy_gbps(device)
    baseline = load_baseline(args.baseline) if args.baseline else None
    cases = timed_cases(rows, vocab, device, warmup, iters, bandwidth, baseline)
    dists = distribution_checks(draws, device)

    import triton

    report = {
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu (triton interpreter)",
        "torch": torch.__version__,
        "triton": triton.__version__,
        "dtype": "bfloat16",
        "vocab": vocab,
        "copy_gbps": round(bandwidth, 1),
        "fused_default": fused_default(),
        "cases": cases,
        "distribution": dists,
        "ok": all(r["ok"] for r in cases + dists),
        "wall_s": round(time.perf_counter() - t_start, 1),
    }
    with open(args.out, "w") as f:
        json.dump(report, f, indent=2)
    print(
        f"{report['device']}, torch {torch.__version__}, triton {triton.__version__}, bf16 logits, "
        f"V = {vocab:,}; device copy {bandwidth:,.0f} GB/s"
    )
    print(
        f"{'case':12} {'rows':>5} {'torch ms':>9} {'fused ms':>9} {'speedup':>7} {'1-read ms':>9} {'of bound':>8} "
        f"{'same token':>10}  ok"
    )
    for r in cases:
        if "error" in r:
            print(f"{r['case']:12} {r['rows']:5d} FAILED: {r['error']}")
            continue
        same = "exact" if r["case"] == "greedy" and r["greedy_equal"] else f"{r.get('agreement', 0.0):.2%}"
        print(
            f"{r['case']:12} {r['rows']:5d} {r['torch_ms']:9.4f} {r['fused_ms']:9.4f} {r['speedup']:7.2f} "
            f"{r['bound_ms']:9.4f} {r['fused_fraction_of_bound']:8.1%} {same:>10}  {'yes' if r['ok'] else 'NO'}"
        )
    if any("baseline_ms" in r for r in cases):
        print(
            f"\n{'case':12} {'rows':>5} {'baseline ms':>11} {'fused ms':>9} {'baseline/fused':>14} {'same token':>10}"
        )
        for r in cases:
            if "baseline_ms" in r:
                print(
                    f"{r['case']:12} {r['rows']:5d} {r['baseline_ms']:11.4f} {r['fused_ms']:9.4f} "
                    f"{r['baseline_ms'] / r['fused_ms']:14.2f} {r['baseline_same_token']:10.2%}"
                )
    print(f"\nfused ms by (block x num_warps); default {fused_default()}")
    print(f"{'case':12} {'rows':>5} " + " ".join(f"{b}x{w}".rjust(10) for b, w in TUNING))
    for r in cases:
        if "fused_ms_by_config" in r:
            times = " ".join(f"{ms:10.4f}" for ms in r["fused_ms_by_config"].values())
            print(f"{r['case']:12} {r['rows']:5d} {times}")
    print(
        f"\n{'distribution':12} {'draws':>7} {'support':>7}  {'fused chi2/limit':>16} {'tv':>6}  "
        f"{'torch chi2/limit':>16} {'tv':>6}  ok"
    )
    for r in dists:
        if "error" in r:
            print(f"{r['case']:12} FAILED: {r['error']}")
            continue
        f, t = r["fused"], r["torch"]
        print(
            f"{r['case']:12} {r['draws']:7d} {r['support']:7d}  {f['chi2']:7.1f}/{f['limit']:<8.1f} {f['tv']:6.4f}  "
            f"{t['chi2']:7.1f}/{t['limit']:<8.1f} {t['tv']:6.4f}  {'yes' if r['ok'] else 'NO'}"
        )
    print(f"{'all checks pass' if report['ok'] else 'SOME CHECKS FAILED'} ({report['wall_s']} s); wrote {args.out}")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())

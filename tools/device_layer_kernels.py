"""The fused layer kernels against their torch references on the GPU (ENG-FUSED-STEP; a kernel check, not a test):
bit-identical fraction, largest difference in units in the last place, time both ways, achieved bandwidth.

    PYTHONPATH=. python3 tools/device_layer_kernels.py --out $OUT/layer_kernels.json        # H200, < 1 min
    PYTHONPATH=. python3 tools/device_layer_kernels.py --small --out /tmp/layer_kernels.json  # CPU, interpreter

Shapes of Qwen3-0.6B (hidden 1024, 16/8 heads of 128, intermediate 3072) and Qwen3-4B (2560, 32/8, 9728), bf16,
at 1 and 256 decode rows and a 2048-token prefill chunk: add + RMSNorm (engine/kernels/triton_norm.py), q/k norm +
rotary + KV write with every 7th row a padding slot (triton_rope_kv.py), SiLU * up (triton_act.py). The kernels
round where the references round, so outputs should be bit-identical but for float32 sums taken in another order:
a check fails below 98% identical, or on any difference above 1% of the output's largest magnitude (max_ulp is
printed too, but a one-ulp difference before a cancellation in the rotary sum can be many ulps after it). Times
are CUDA-event medians of 50 calls after 5 warm-ups; bandwidth counts the bytes a kernel must read and write,
against a measured device copy. --small runs tiny float32 shapes on CPU under TRITON_INTERPRET=1 (the interpreter
truncates bf16 casts; its times mean nothing).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

MODELS = {"Qwen3-0.6B": (1024, 16, 8, 128, 3072), "Qwen3-4B": (2560, 32, 8, 128, 9728)}
SMALL = {"tiny": (96, 4, 2, 64, 80)}


def median_ms(fn: Callable[[], Any], device: str, warmup: int = 5, iters: int = 50) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iters):
        if device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        else:
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
    return sorted(times)[len(times) // 2]


def copy_gbps(device: str) -> float:
    src = torch.empty((1 << 30) if device == "cuda" else (16 << 20), dtype=torch.uint8, device=device).random_()
    dst = torch.empty_like(src)
    ms = median_ms(lambda: dst.copy_(src), device, warmup=3, iters=10)
    return 2 * src.numel() / (ms * 1e-3) / 1e9


def compare(got: torch.Tensor, want: torch.Tensor) -> dict[str, Any]:
    """Bit-identical fraction, and the largest difference in ulps of the reference value (bf16: 8-bit mantissa)."""
    g, w = got.float(), want.float()
    mantissa = {torch.bfloat16: 7, torch.float16: 10, torch.float32: 23}[want.dtype]
    ulp = torch.exp2(torch.floor(torch.log2(w.abs().clamp_min(torch.finfo(want.dtype).tiny))) - mantissa)
    return {
        "identical": round((got == want).float().mean().item(), 6),
        "max_abs_diff": (g - w).abs().max().item(),
        "max_abs_ref": w.abs().max().item(),
        "max_ulp": round(((g - w).abs() / ulp).max().item(), 3),
    }


def cases(shape: tuple[int, ...], tokens: int, dtype: torch.dtype, device: str) -> dict[str, Any]:
    """name -> (triton call, reference call, bytes moved); each call returns what is compared."""
    from engine.kernels import layer_reference, triton_act, triton_norm, triton_rope_kv
    from engine.kernels.attention_metadata import kv_cache_shape

    hidden, heads, kv_heads, head_dim, inter = shape
    g = torch.Generator(device=device).manual_seed(tokens)
    rnd = lambda *s: torch.randn(*s, generator=g, device=device).to(dtype)  # noqa: E731 - a local shorthand
    x, res, w = rnd(tokens, hidden), rnd(tokens, hidden), 1 + 0.1 * rnd(hidden)
    qkv = rnd(tokens, (heads + 2 * kv_heads) * head_dim)
    qw, kw = 1 + 0.1 * rnd(head_dim), 1 + 0.1 * rnd(head_dim)
    positions = torch.randint(0, 4096, (tokens,), generator=g, device=device)
    inv = 1.0 / (1e6 ** (torch.arange(0, head_dim, 2, device=device).float() / head_dim))
    freqs = torch.outer(torch.arange(4096, device=device, dtype=torch.float32), inv)
    cos_sin = torch.cat((freqs.cos(), freqs.sin()), dim=-1)
    num_blocks = tokens // 16 + 2
    cache_t = torch.zeros(kv_cache_shape(num_blocks, 16, kv_heads, head_dim), dtype=dtype, device=device)
    cache_r = cache_t.clone()
    slots = torch.randperm(num_blocks * 16, generator=g, device=device)[:tokens]
    slots[::7] = -1
    gate_up = rnd(tokens, 2 * inter)
    e = torch.finfo(dtype).bits // 8
    rope_args = (qkv, positions, cos_sin, qw, kw, 1e-6, heads, kv_heads)
    return {
        "add_rms_norm": (
            lambda: triton_norm.rms_norm(x, w, 1e-6, res),
            lambda: layer_reference.rms_norm(x, w, 1e-6, res),
            4 * tokens * hidden * e,
        ),
        "rope_write_kv": (
            lambda: (triton_rope_kv.rope_write_kv(*rope_args, cache_t, slots), cache_t),
            lambda: (layer_reference.rope_write_kv(*rope_args, cache_r, slots), cache_r),
            (2 * heads + 4 * kv_heads) * head_dim * tokens * e,
        ),
        "silu_and_mul": (
            lambda: triton_act.silu_and_mul(gate_up),
            lambda: layer_reference.silu_and_mul(gate_up),
            3 * tokens * inter * e,
        ),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--small", action="store_true", help="CPU: tiny float32 shapes under the Triton interpreter")
    ap.add_argument("--out", required=True, help="JSON result path")
    args = ap.parse_args()
    device = "cuda" if torch.cuda.is_available() and not args.small else "cpu"
    if device == "cpu" and not args.small:
        print("device_layer_kernels: error: no CUDA device; on CPU run with --small", file=sys.stderr)
        return 2
    if device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"  # before the kernel modules are imported (engine/kernels/backends.py)
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    models, token_counts = (MODELS, [1, 256, 2048]) if device == "cuda" else (SMALL, [1, 5])
    gbps = copy_gbps(device)
    rows, ok = [], True
    for model, shape in models.items():
        for tokens in token_counts:
            for name, (fused, ref, nbytes) in cases(shape, tokens, dtype, device).items():
                got, want = fused(), ref()
                checks = [compare(a, b) for a, b in zip(got, want)] if isinstance(got, tuple) else [compare(got, want)]
                worst = min(checks, key=lambda c: c["identical"])
                passed = all(
                    (c["identical"] >= 0.98 and c["max_abs_diff"] <= 0.01 * c["max_abs_ref"])
                    if dtype != torch.float32
                    else c["max_abs_diff"] <= 1e-4
                    for c in checks
                )
                ok &= passed
                t_ms, r_ms = median_ms(fused, device), median_ms(ref, device)
                rows.append(
                    {
                        "model": model,
                        "tokens": tokens,
                        "kernel": name,
                        "passed": passed,
                        **worst,
                        "triton_ms": round(t_ms, 4),
                        "reference_ms": round(r_ms, 4),
                        "speedup": round(r_ms / t_ms, 2),
                        "bytes": nbytes,
                        "gbps": round(nbytes / (t_ms * 1e-3) / 1e9, 1),
                        "fraction_of_copy": round(nbytes / (t_ms * 1e-3) / 1e9 / gbps, 3),
                    }
                )
    result = {
        "device": device,
        "gpu": torch.cuda.get_device_name() if device == "cuda" else None,
        "dtype": str(dtype).removeprefix("torch."),
        "copy_gbps": round(gbps, 1),
        "passed": ok,
        "rows": rows,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"{result['gpu'] or 'cpu'} {result['dtype']}: copy {gbps:,.0f} GB/s")
    print(
        f"{'model':<12}{'tokens':>7} {'kernel':<15}{'identical':>10}{'max ulp':>9}{'triton ms':>11}{'torch ms':>10}"
        f"{'speedup':>9}{'GB/s':>9}{'of copy':>9}"
    )
    for r in rows:
        print(
            f"{r['model']:<12}{r['tokens']:>7} {r['kernel']:<15}{r['identical']:>10.4f}{r['max_ulp']:>9.2f}"
            f"{r['triton_ms']:>11.4f}{r['reference_ms']:>10.4f}{r['speedup']:>9.2f}{r['gbps']:>9.1f}"
            f"{r['fraction_of_copy']:>9.1%}{'' if r['passed'] else '  FAIL'}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Triton attention kernels vs the reference kernels on the GPU: max error, time, achieved bandwidth (ENG-TRITON).

    PYTHONPATH=. python3 tools/device_kernels.py --out $OUT/kernels.json
    TRITON_INTERPRET=1 PYTHONPATH=. python3 tools/device_kernels.py --device cpu --small --out /tmp/kernels.json

Qwen3-0.6B attention shapes (16 query heads, 8 KV heads, head_dim 128, bf16, 16-token blocks), random K/V in
shuffled blocks, block tables padded with -1:
  decode         256 decode rows, contexts 100..1100 (the kernels' own choice of path)
  mixed          4 prefill chunks of 512 tokens over 256..2048 cached tokens, plus 64 decode rows
  decode-long    8 decode rows over 4096..8192 tokens, unified kernel and split-KV forced in turn
  write_kv       the mixed batch's 2112 new tokens (every 37th a padded -1 slot) into the cache
Errors are max |out - exact| against the reference run in float32 on the same inputs (the reference's own error
in the run dtype is printed beside it); times are CUDA-event medians of 20 calls after 3 warm-ups; bandwidth
counts the bytes a kernel must move (K/V of every context + Q + output), against a measured device copy.
Writes one JSON to --out, prints a table, exits 1 when a check fails (2 on a usage error). Under a minute on an H200.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from typing import Any

import torch

from engine.bench.probe import time_ms  # torch only: importing it does not import triton


def build_batch(
    q_lens: list[int],
    seq_lens: list[int],
    heads: int,
    kv_heads: int,
    head_dim: int,
    block_size: int,
    dtype: torch.dtype,
    device: torch.device,
    seed: int,
) -> tuple[torch.Tensor, torch.Tensor, Any]:
    """(q [T, Hq, D], cache [2, blocks, block_size, Hkv, D], AttentionMetadata) with every sequence's blocks
    drawn at random from one pool."""
    from engine.kernels.attention_metadata import AttentionMetadata, kv_cache_shape

    g = torch.Generator().manual_seed(seed)
    per_seq = [-(-s // block_size) for s in seq_lens]
    num_blocks = sum(per_seq) + 1
    order = torch.randperm(num_blocks, generator=g).tolist()
    width = max(per_seq) + 1
    tables, slots, used = [], [], 0
    for n, s, nb in zip(q_lens, seq_lens, per_seq):
        table = order[used : used + nb]
        used += nb
        tables.append(table + [-1] * (width - nb))
        slots += [table[p // block_size] * block_size + p % block_size for p in range(s - n, s)]
    cu = [0]
    for n in q_lens:
        cu.append(cu[-1] + n)
    cache = torch.randn(kv_cache_shape(num_blocks, block_size, kv_heads, head_dim), generator=g).to(dtype)
    q = torch.randn(cu[-1], heads, head_dim, generator=g).to(dtype)
    i32 = dict(dtype=torch.int32, device=device)
    attn = AttentionMetadata(
        torch.tensor(cu, **i32),
        torch.tensor(seq_lens, **i32),
        torch.tensor(tables, **i32),
        torch.tensor(slots, dtype=torch.int64, device=device),
        max(q_lens),
        max(seq_lens),
        list(q_lens),
        list(seq_lens),
    )
    return q.to(device), cache.to(device), attn


def attention_bytes(q: torch.Tensor, cache: torch.Tensor, seq_lens: list[int]) -> int:
    """What attention must move at least: every context's K and V, the queries, and the output."""
    _, _, _, kv_heads, head_dim = cache.shape
    return 2 * sum(seq_lens) * kv_heads * head_dim * cache.element_size() + 2 * q.numel() * q.element_size()


class Runner:
    def __init__(self, args: argparse.Namespace, device: torch.device, dtype: torch.dtype) -> None:
        from engine.kernels import reference, triton_attention

        self.ref, self.tri = reference, triton_attention
        self.device, self.dtype = device, dtype
        self.warmup, self.iters = (3, 20) if device.type == "cuda" else (1, 3)
        self.tol = 2e-2 if dtype != torch.float32 else 1e-4
        self.rows: list[dict[str, Any]] = []

    def attention(
        self, name: str, q: torch.Tensor, cache: torch.Tensor, attn: Any, split_kv: bool | None, copy_gbps: float
    ) -> None:
        scale = q.shape[-1] ** -0.5
        exact = self.ref.paged_attention(q.float(), cache.float(), attn, scale)
        row: dict[str, Any] = {
            "case": name,
            "rows": attn.num_seqs,
            "tokens": q.shape[0],
            "split_kv": split_kv if split_kv is not None else self.tri.use_split_kv(attn, cache.shape[3], q.device),
        }
        try:
            out = self.tri.paged_attention(q, cache, attn, scale, split_kv=split_kv)
            ref_out = self.ref.paged_attention(q, cache, attn, scale)
            row["max_abs_err"] = (out.float() - exact).abs().max().item()
            row["reference_max_abs_err"] = (ref_out.float() - exact).abs().max().item()
            row["ok"] = bool(row["max_abs_err"] <= self.tol)
            row["triton_ms"] = time_ms(
                lambda: self.tri.paged_attention(q, cache, attn, scale, split_kv=split_kv),
                self.device,
                self.warmup,
                self.iters,
            )
            row["reference_ms"] = time_ms(
                lambda: self.ref.paged_attention(q, cache, attn, scale), self.device, self.warmup, self.iters
            )
            nbytes = attention_bytes(q, cache, attn.seq_lens_cpu)
            row.update(self._rates(nbytes, row["triton_ms"], row["reference_ms"], copy_gbps))
        except Exception as e:  # one broken case must not hide the others' figures
            row.update(ok=False, error=f"{type(e).__name__}: {e}")
        self.rows.append(row)

    def write_kv(self, name: str, q: torch.Tensor, cache: torch.Tensor, attn: Any, copy_gbps: float) -> None:
        g = torch.Generator().manual_seed(1)
        tokens, kv_heads, head_dim = q.shape[0], cache.shape[3], cache.shape[4]
        qkv = torch.randn(tokens, q.shape[1] + 2 * kv_heads, head_dim, generator=g).to(self.dtype).to(self.device)
        k, v = qkv[:, q.shape[1] : q.shape[1] + kv_heads], qkv[:, q.shape[1] + kv_heads :]  # strided, as the model
        slots = attn.slot_mapping.clone()
        slots[::37] = -1
        row: dict[str, Any] = {"case": name, "rows": attn.num_seqs, "tokens": tokens, "split_kv": None}
        try:
            want, got = cache.clone(), cache.clone()
            self.ref.write_kv(k, v, want, slots)
            self.tri.write_kv(k, v, got, slots)
            row["max_abs_err"] = (got.float() - want.float()).abs().max().item()
            row["reference_max_abs_err"] = 0.0
            row["ok"] = bool(row["max_abs_err"] == 0.0)
            row["triton_ms"] = time_ms(
                lambda: self.tri.write_kv(k, v, got, slots), self.device, self.warmup, self.iters
            )
            row["reference_ms"] = time_ms(
                lambda: self.ref.write_kv(k, v, want, slots), self.device, self.warmup, self.iters
            )
            nbytes = 2 * 2 * tokens * kv_heads * head_dim * cache.element_size()  # K and V, read and written
            row.update(self._rates(nbytes, row["triton_ms"], row["reference_ms"], copy_gbps))
        except Exception as e:
            row.update(ok=False, error=f"{type(e).__name__}: {e}")
        self.rows.append(row)

    @staticmethod
    def _rates(nbytes: int, triton_ms: float, reference_ms: float, copy_gbps: float) -> dict[str, Any]:
        gbps = nbytes / (triton_ms * 1e-3) / 1e9
        return {
            "bytes": nbytes,
            "triton_gbps": round(gbps, 1),
            "copy_gbps": round(copy_gbps, 1),
            "fraction_of_copy": round(gbps / copy_gbps, 3),
            "speedup": round(reference_ms / triton_ms, 2),
        }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="where to write the JSON")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--small", action="store_true", help="tiny shapes (for the CPU interpreter)")
    ap.add_argument(
        "--dtype",
        default=None,
        choices=["bfloat16", "float16", "float32"],
        help="default bfloat16 on cuda; float16 on cpu, where the interpreter's bf16 tl.dot is wrong",
    )
    args = ap.parse_args()
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print(
            "device_kernels: error: CUDA is not available; use --device cpu --small with TRITON_INTERPRET=1",
            file=sys.stderr,
        )
        return 2
    if device.type == "cpu" and os.environ.get("TRITON_INTERPRET") != "1":
        print("device_kernels: error: --device cpu needs TRITON_INTERPRET=1 in the environment", file=sys.stderr)
        return 2
    dtype = getattr(torch, args.dtype or ("bfloat16" if device.type == "cuda" else "float16"))
    t_start = time.perf_counter()
    from engine.bench.probe import copy_gbps

    if args.small:
        heads, kv_heads, head_dim, block = 4, 2, 64, 16
        n_decode, decode_ctx, chunks, chunk, long_rows, long_ctx = 8, (10, 100), [24, 48], 32, 2, (300, 400)
        mixed_decode = 4
    else:
        heads, kv_heads, head_dim, block = 16, 8, 128, 16
        n_decode, decode_ctx, chunks, chunk, long_rows, long_ctx = (
            256,
            (100, 1100),
            [256, 512, 1024, 2048],
            512,
            8,
            (4096, 8192),
        )
        mixed_decode = 64
    bandwidth, _ = copy_gbps(device)
    rng = random.Random(0)
    shape = dict(heads=heads, kv_heads=kv_heads, head_dim=head_dim, block_size=block, dtype=dtype, device=device)
    run = Runner(args, device, dtype)

    ctx = [rng.randint(*decode_ctx) for _ in range(n_decode)]
    run.attention("decode", *build_batch([1] * n_decode, [c + 1 for c in ctx], seed=1, **shape), None, bandwidth)

    dec = [rng.randint(*decode_ctx) + 1 for _ in range(mixed_decode)]
    q_lens = [1] * mixed_decode + [chunk] * len(chunks)
    mixed = build_batch(q_lens, dec + [c + chunk for c in chunks], seed=2, **shape)
    run.attention("mixed", *mixed, None, bandwidth)

    long = [rng.randint(*long_ctx) for _ in range(long_rows)]
    long_batch = build_batch([1] * long_rows, long, seed=3, **shape)
    run.attention("decode-long/unified", *long_batch, False, bandwidth)
    run.attention("decode-long/split-kv", *long_batch, True, bandwidth)
    run.write_kv("write_kv", *mixed, bandwidth)

    import triton

    report = {
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu (triton interpreter)",
        "torch": torch.__version__,
        "triton": triton.__version__,
        "shapes": {k: str(v).removeprefix("torch.") for k, v in shape.items()},
        "copy_gbps": round(bandwidth, 1),
        "cases": run.rows,
        "ok": all(r["ok"] for r in run.rows),
        "wall_s": round(time.perf_counter() - t_start, 1),
    }
    with open(args.out, "w") as f:
        json.dump(report, f, indent=2)
    print(
        f"{report['device']}, torch {torch.__version__}, triton {triton.__version__}, {report['shapes']}; "
        f"device copy {bandwidth:,.0f} GB/s"
    )
    print(
        f"{'case':22} {'rows':>5} {'tokens':>6} {'triton ms':>10} {'torch ms':>9} {'speedup':>7} "
        f"{'err':>9} {'torch err':>9} {'GB/s':>8} {'of copy':>7}  ok"
    )
    for r in run.rows:
        if "error" in r:
            print(f"{r['case']:22} FAILED: {r['error']}")
            continue
        print(
            f"{r['case']:22} {r['rows']:5d} {r['tokens']:6d} {r['triton_ms']:10.4f} {r['reference_ms']:9.4f} "
            f"{r['speedup']:7.2f} {r['max_abs_err']:9.2e} {r['reference_max_abs_err']:9.2e} "
            f"{r['triton_gbps']:8.1f} {r['fraction_of_copy']:7.1%}  {'yes' if r['ok'] else 'NO'}"
        )
    print(f"{'all checks pass' if report['ok'] else 'SOME CHECKS FAILED'} ({report['wall_s']} s); wrote {args.out}")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())

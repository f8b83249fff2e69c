"""Decode attention launch configurations on the GPU (ENG-FUSED-STEP; a measurement, not a test).

    PYTHONPATH=. python3 tools/device_attn_sweep.py --out $OUT/attn-sweep.json

Qwen3-0.6B's attention shape (16 query heads, 8 KV heads, head 128, 16-token blocks, bf16). Two questions:
unified   for a full decode batch (256 sequences; contexts all 512, and mixed 100-2048 as the nano workload
          leaves them), which TILE_N / num_warps / num_stages reads the KV cache fastest; figures as GB/s of
          K and V read, beside the device's peak.
split     for small decode batches (1-32 sequences; contexts 128-2048), the unified kernel against split-KV
          decode with 4-32 segments: where the split starts to pay (decode_split.MIN_SPLIT_SEQLEN).
layout    the KV cache token-major (NHD, [blocks, block_size, Hkv, D] in memory) against head-major (HND,
          [blocks, Hkv, block_size, D]; attention_metadata.allocate_kv_cache), same values: the decode launches
          as the engine makes them (unified at 256 rows, split-KV at 1), 16- and 32-token blocks, and a small
          launch grid around the default for each layout.
decode    the bytes each program keeps in flight (tile x stages) for full decode batches, each configuration
          timed twice, interleaved, in both layouts; prints the fastest on the nano-like mixed batch.
midsize   decode batches of 16-256 sequences with nano-like contexts (600-2048 keys up to 128 rows, 100-2048
          above), head-major cache: the unified kernel in batch order against longest first (decode_order) with
          seven launch configurations, each timed twice, interleaved.
kernel    the one-token rows' kernels on nano-like decode batches (48-256 sequences, Qwen3-0.6B's group of 2 and
          Qwen3-4B's of 4, head-major cache, longest first): the unified kernel's ONE_TOKEN_ROWS launch against
          triton_paged_decode with both of its changes, with each alone, and with five launch configurations;
          each timed three times, interleaved.
mixed     a chunked-prefill step (decode rows beside 16,384 prefill tokens, and prefill alone): the prefill rows'
          launch (rows per program, tile, warps, stages; ENGINE_PREFILL_LAUNCH) against the default.
Every configuration's output is compared with the default's (max abs difference); timings are CUDA-event medians
of 50 launches after 5 untimed ones. The JSON holds every figure; the best of each case is printed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import torch

from engine.kernels.attention_metadata import as_layout
from engine.kernels.triton_decode import split_kv_decode
from engine.kernels.triton_paged_decode import paged_decode
from engine.kernels.triton_unified import ONE_TOKEN_ROWS, _launch, unified_attention

HQ, HKV, D, BLOCK = 16, 8, 128, 16


def make_batch(ctx: list[int], seed: int, layout: str = "NHD", block: int = BLOCK, hq: int = HQ) -> dict[str, Any]:
    g = torch.Generator(device="cuda").manual_seed(seed)
    b = len(ctx)
    blocks = [(c + block - 1) // block for c in ctx]
    total = sum(blocks)
    perm = torch.randperm(total, device="cuda", generator=g).to(torch.int32)  # scattered blocks, like a busy pool
    table = torch.zeros(b, max(blocks), dtype=torch.int32, device="cuda")
    at = 0
    for i, n in enumerate(blocks):
        table[i, :n] = perm[at : at + n]
        at += n
    cache = as_layout(torch.randn(2, total, block, HKV, D, device="cuda", dtype=torch.bfloat16, generator=g), layout)
    q = torch.randn(b, hq, D, device="cuda", dtype=torch.bfloat16, generator=g)
    return dict(
        q=q,
        cache=cache,
        table=table,
        seq_lens=torch.tensor(ctx, dtype=torch.int32, device="cuda"),
        cu=torch.arange(b + 1, dtype=torch.int32, device="cuda"),
        kv_bytes=2 * sum(ctx) * HKV * D * 2,
    )


def time_ms(fn: Callable[[], None]) -> float:
    for _ in range(5):
        fn()
    times = []
    for _ in range(50):
        a, z = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        z.record()
        z.synchronize()
        times.append(a.elapsed_time(z))
    return statistics.median(times)


def run_unified(bt: dict[str, Any], out: torch.Tensor, **kw: Any) -> Callable[[], None]:
    return lambda: unified_attention(bt["q"], bt["cache"], bt["table"], bt["seq_lens"], bt["cu"], 1, D**-0.5, out, **kw)


def run_split(bt: dict[str, Any], out: torch.Tensor, **kw: Any) -> Callable[[], None]:
    return lambda: split_kv_decode(bt["q"], bt["cache"], bt["table"], bt["seq_lens"], bt["cu"], D**-0.5, out, **kw)


def measure(
    bt: dict[str, Any], runner: Callable[..., Callable[[], None]], ref: torch.Tensor, **kw: Any
) -> dict[str, Any]:
    out = torch.empty_like(bt["q"])
    try:
        fn = runner(bt, out, **kw)
        ms = time_ms(fn)
    except Exception as exc:  # a configuration Triton cannot build (shared memory): recorded, not fatal
        config = {k: (v if not isinstance(v, torch.Tensor) else "given") for k, v in kw.items()}
        return dict(config=config, error=f"{type(exc).__name__}: {str(exc)[:200]}")
    diff = (out.float() - ref.float()).abs().max().item()
    config = {k: (v if not isinstance(v, torch.Tensor) else "given") for k, v in kw.items()}
    return dict(config=config, ms=round(ms, 4), gbps=round(bt["kv_bytes"] / ms / 1e6, 1), max_abs_diff=diff)


def unified_section(seed: int) -> list[dict[str, Any]]:
    rng = torch.Generator().manual_seed(seed)
    mixed = torch.randint(100, 2049, (256,), generator=rng).tolist()
    cases = {"b256-ctx512": [512] * 256, "b256-mixed": mixed}
    results = []
    for name, ctx in cases.items():
        bt = make_batch(ctx, seed)
        ref = torch.empty_like(bt["q"])
        run_unified(bt, ref)()
        rows = [measure(bt, run_unified, ref)]
        rows[0]["config"] = "default"
        for tile, warps, stages in itertools.product([32, 64, 128], [2, 4, 8], [2, 3, 4]):
            rows.append(measure(bt, run_unified, ref, tile=tile, num_warps=warps, num_stages=stages))
        ok = [r for r in rows if "ms" in r and r["max_abs_diff"] < 2e-2]
        best = min(ok, key=lambda r: r["ms"])
        print(
            f"unified {name}: default {rows[0]['ms']:.3f} ms ({rows[0]['gbps']} GB/s); "
            f"best {best['ms']:.3f} ms ({best['gbps']} GB/s) {best['config']}",
            flush=True,
        )
        results.append(dict(case=name, batch=len(ctx), mean_context=sum(ctx) / len(ctx), rows=rows, best=best))
    return results


def split_section(seed: int) -> list[dict[str, Any]]:
    results = []
    for b, c in itertools.product([1, 4, 16, 32], [128, 256, 512, 1024, 2048]):
        bt = make_batch([c] * b, seed)
        ref = torch.empty_like(bt["q"])
        run_unified(bt, ref)()
        rows = [dict(measure(bt, run_unified, ref), path="unified")]
        for seg, tile, warps in itertools.product([4, 8, 16, 32], [32, 64], [4]):
            rows.append(dict(measure(bt, run_split, ref, segments=seg, tile=tile, num_warps=warps), path="split"))
        ok = [r for r in rows if "ms" in r and r["max_abs_diff"] < 2e-2]
        best = min(ok, key=lambda r: r["ms"])
        print(
            f"split b{b:<3} ctx {c:<5}: unified {rows[0]['ms']:.4f} ms; best {best['path']} {best['ms']:.4f} ms "
            f"{best['config']}",
            flush=True,
        )
        results.append(dict(batch=b, context=c, rows=rows, best=best))
    return results


def layout_section(seed: int) -> list[dict[str, Any]]:
    rng = torch.Generator().manual_seed(seed)
    mixed = torch.randint(100, 2049, (256,), generator=rng).tolist()
    cases: dict[str, tuple[list[int], Callable[..., Callable[[], None]]]] = {
        "b256-ctx512": ([512] * 256, run_unified),
        "b256-mixed": (mixed, run_unified),
        "b64-ctx2048": ([2048] * 64, run_unified),
        "b1-ctx512-split": ([512], run_split),
        "b1-ctx2048-split": ([2048], run_split),
    }
    grid = [dict(tile=t, num_warps=w, num_stages=st) for t in (64, 128) for w in (4, 8) for st in (2, 3)]
    results = []
    for name, (ctx, runner) in cases.items():
        ref_bt = make_batch(ctx, seed)
        ref = torch.empty_like(ref_bt["q"])
        runner(ref_bt, ref)()
        del ref_bt
        for block in (16, 32):
            for layout in ("NHD", "HND"):
                bt = make_batch(ctx, seed, layout, block)
                if block != BLOCK:  # other blocks hold the same keys in another order: its own reference
                    ref = torch.empty_like(bt["q"])
                    make_ref = make_batch(ctx, seed, "NHD", block)
                    runner(make_ref, ref)()
                    del make_ref
                rows = [dict(measure(bt, runner, ref), config="default")]
                if runner is run_unified and block == BLOCK and name != "b64-ctx2048":
                    rows += [measure(bt, runner, ref, **kw) for kw in grid]
                ok = [r for r in rows if "ms" in r and r["max_abs_diff"] < 2e-2]
                best = min(ok, key=lambda r: r["ms"]) if ok else None
                print(
                    f"layout {name} block {block} {layout}: default {rows[0].get('ms')} ms "
                    f"({rows[0].get('gbps')} GB/s)"
                    + (f"; best {best['ms']} ms ({best['gbps']} GB/s) {best['config']}" if best else ""),
                    flush=True,
                )
                results.append(dict(case=name, block=block, layout=layout, rows=rows, best=best))
                del bt
    return results


DECODE_GRID = [
    (64, 4, 3),
    (64, 4, 4),
    (64, 4, 5),
    (64, 4, 6),
    (128, 4, 2),
    (128, 4, 3),
    (128, 2, 3),
    (128, 8, 3),
    (32, 4, 8),
    (32, 2, 8),
    (256, 8, 1),
    (256, 4, 1),
]


def decode_section(seed: int) -> list[dict[str, Any]]:
    rng = torch.Generator().manual_seed(seed)
    mixed = torch.randint(100, 2049, (256,), generator=rng).tolist()
    cases = {"b256-mixed": mixed, "b256-ctx512": [512] * 256, "b128-ctx1024": [1024] * 128}
    results = []
    for name, ctx in cases.items():
        for layout in ("NHD", "HND"):
            bt = make_batch(ctx, seed, layout)
            ref = torch.empty_like(bt["q"])
            run_unified(bt, ref, tile=64, num_warps=4, num_stages=3)()
            rows = {cfg: [] for cfg in DECODE_GRID}
            for _ in range(2):  # interleaved: a drift of the clocks hits every configuration alike
                for cfg in DECODE_GRID:
                    tile, warps, stages = cfg
                    rows[cfg].append(measure(bt, run_unified, ref, tile=tile, num_warps=warps, num_stages=stages))
            table = []
            for cfg, runs in rows.items():
                ok = [r for r in runs if "ms" in r and r["max_abs_diff"] < 2e-2]
                entry = dict(config=list(cfg), runs=runs)
                if ok:
                    entry["ms"] = min(r["ms"] for r in ok)
                    entry["gbps"] = round(bt["kv_bytes"] / entry["ms"] / 1e6, 1)
                table.append(entry)
            timed = sorted((e for e in table if "ms" in e), key=lambda e: e["ms"])
            print(
                f"decode {name} {layout}: "
                + "; ".join(f"{tuple(e['config'])} {e['ms']} ms {e['gbps']} GB/s" for e in timed[:5]),
                flush=True,
            )
            results.append(dict(case=name, layout=layout, rows=table, best=timed[0] if timed else None))
            del bt
    return results


def interleaved(bt: dict[str, Any], ref: torch.Tensor, configs: dict[str, Callable[[torch.Tensor], Any]]) -> list:
    """Each named launch timed twice, interleaved; the faster of its two runs kept."""
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in configs}
    for _ in range(2):
        for name, make in configs.items():
            runs[name].append(make(ref))
    table = []
    for name, rs in runs.items():
        ok = [r for r in rs if "ms" in r and r["max_abs_diff"] < 2e-2]
        entry: dict[str, Any] = dict(config=name, runs=rs)
        if ok:
            entry["ms"] = min(r["ms"] for r in ok)
            entry["gbps"] = round(bt["kv_bytes"] / entry["ms"] / 1e6, 1)
        table.append(entry)
    return table


ORDERED_GRID = [(128, 4, 3), (128, 4, 2), (64, 4, 3), (64, 4, 4), (64, 8, 3), (128, 8, 3), (32, 4, 4)]


def midsize_section(seed: int) -> list[dict[str, Any]]:
    results = []
    for b in (16, 48, 96, 160, 256):
        rng = torch.Generator().manual_seed(seed + b)
        ctx = torch.randint(600 if b <= 128 else 100, 2049, (b,), generator=rng).tolist()
        bt = make_batch(ctx, seed, "HND")
        longest = torch.argsort(bt["seq_lens"], descending=True, stable=True).to(torch.int32)
        ref = torch.empty_like(bt["q"])
        run_unified(bt, ref)()
        configs: dict[str, Callable[[torch.Tensor], Any]] = {"batch order": lambda r: measure(bt, run_unified, r)}
        for tile, warps, stages in ORDERED_GRID:
            configs[f"longest-first {tile},{warps},{stages}"] = lambda r, tile=tile, warps=warps, stages=stages: (
                measure(bt, run_unified, r, order=longest, tile=tile, num_warps=warps, num_stages=stages)
            )
        table = interleaved(bt, ref, configs)
        timed = sorted((e for e in table if "ms" in e), key=lambda e: e["ms"])
        print(
            f"midsize b{b} (mean ctx {sum(ctx) / b:.0f}): "
            + "; ".join(f"{e['config']} {e['ms']} ms {e['gbps']} GB/s" for e in timed[:5]),
            flush=True,
        )
        results.append(dict(batch=b, mean_context=sum(ctx) / b, rows=table, best=timed[0] if timed else None))
    return results


def run_one_token_unified(bt: dict[str, Any], out: torch.Tensor, **kw: Any) -> Callable[[], None]:
    """The unified kernel's launch for a decode batch before triton_paged_decode (128-key tiles, 4 warps, 3 stages)."""
    return lambda: _launch(
        bt["q"], bt["cache"], bt["table"], bt["seq_lens"], bt["cu"], 1, D**-0.5, out, 128, 4, 3, ONE_TOKEN_ROWS,
        kw["order"],
    )  # fmt: skip


def run_paged(bt: dict[str, Any], out: torch.Tensor, **kw: Any) -> Callable[[], None]:
    return lambda: paged_decode(bt["q"], bt["cache"], bt["table"], bt["seq_lens"], bt["cu"], D**-0.5, out, **kw)


KERNEL_GRID = [(128, 4, 3), (64, 4, 4), (128, 8, 3)]


def kernel_section(seed: int) -> list[dict[str, Any]]:
    results = []
    cases = [(256, 100, 2048), (234, 107, 1300), (96, 600, 2048), (48, 600, 2048)]
    for hq in (16, 32):
        for b, lo, hi in cases:
            rng = torch.Generator().manual_seed(seed + b)
            ctx = torch.randint(lo, hi + 1, (b,), generator=rng).tolist()
            bt = make_batch(ctx, seed, "HND", hq=hq)
            longest = torch.argsort(bt["seq_lens"], descending=True, stable=True).to(torch.int32)
            ref = torch.empty_like(bt["q"])
            run_one_token_unified(bt, ref, order=longest)()
            configs: dict[str, Callable[[torch.Tensor], Any]] = {
                "unified 128,4,3": lambda r: measure(bt, run_one_token_unified, r, order=longest),
                "paged, masked K columns (neither change) 128,4,3": lambda r: measure(
                    bt, run_paged, r, order=longest, k_rows=False, tail=False
                ),
                "paged, K rows only 128,4,3": lambda r: measure(bt, run_paged, r, order=longest, tail=False),
                "paged, unmasked tiles only 128,4,3": lambda r: measure(bt, run_paged, r, order=longest, k_rows=False),
            }
            for tile, warps, stages in KERNEL_GRID:
                configs[f"paged {tile},{warps},{stages}"] = lambda r, tile=tile, warps=warps, stages=stages: measure(
                    bt, run_paged, r, order=longest, tile=tile, num_warps=warps, num_stages=stages
                )
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name in configs}
            for _ in range(3):
                for name, make in configs.items():
                    runs[name].append(make(ref))
            table = []
            for name, rs in runs.items():
                ok = [r for r in rs if "ms" in r and r["max_abs_diff"] < 2e-2]
                entry: dict[str, Any] = dict(config=name, runs=rs)
                if ok:
                    entry["ms"] = statistics.median(r["ms"] for r in ok)
                    entry["gbps"] = round(bt["kv_bytes"] / entry["ms"] / 1e6, 1)
                table.append(entry)
            timed = sorted((e for e in table if "ms" in e), key=lambda e: e["ms"])
            print(
                f"kernel hq{hq} b{b} (mean ctx {sum(ctx) / b:.0f}): "
                + "; ".join(f"{e['config']} {e['ms']} ms {e['gbps']} GB/s" for e in timed),
                flush=True,
            )
            results.append(
                dict(hq=hq, batch=b, mean_context=sum(ctx) / b, rows=table, best=timed[0] if timed else None)
            )
        for b in (4, 24):  # split-KV decode's batches: its segments with either tile loop
            rng = torch.Generator().manual_seed(seed + b)
            ctx = torch.randint(1000, 2049, (b,), generator=rng).tolist()
            sbt = make_batch(ctx, seed, "HND", hq=hq)
            sref = torch.empty_like(sbt["q"])
            run_split(sbt, sref, fast=False)()
            split_configs: dict[str, Callable[[torch.Tensor], Any]] = {
                "split-KV, unified tiles": lambda r, bt=sbt: measure(bt, run_split, r, fast=False),
                "split-KV, paged tiles": lambda r, bt=sbt: measure(bt, run_split, r, fast=True),
            }
            split_table = interleaved(sbt, sref, split_configs)
            print(
                f"kernel hq{hq} split b{b}: "
                + "; ".join(f"{e['config']} {e.get('ms')} ms {e.get('gbps')} GB/s" for e in split_table),
                flush=True,
            )
            results.append(dict(hq=hq, batch=b, mean_context=sum(ctx) / b, split=True, rows=split_table))
    return results


def make_step(q_lens: list[int], ctx: list[int], seed: int) -> dict[str, Any]:
    """A chunked-prefill step: row i has q_lens[i] new tokens at the end of ctx[i] keys (head-major cache)."""
    bt = make_batch(ctx, seed, "HND")
    g = torch.Generator(device="cuda").manual_seed(seed + 1)
    bt["q"] = torch.randn(sum(q_lens), HQ, D, device="cuda", dtype=torch.bfloat16, generator=g)
    cu = [0]
    for n in q_lens:
        cu.append(cu[-1] + n)
    bt["cu"] = torch.tensor(cu, dtype=torch.int32, device="cuda")
    bt["max_q"] = max(q_lens)
    return bt


def run_step(bt: dict[str, Any], out: torch.Tensor, **kw: Any) -> Callable[[], None]:
    return lambda: unified_attention(
        bt["q"], bt["cache"], bt["table"], bt["seq_lens"], bt["cu"], bt["max_q"], D**-0.5, out, **kw
    )


def mixed_section(seed: int) -> list[dict[str, Any]]:
    rng = torch.Generator().manual_seed(seed)
    decode_ctx = torch.randint(100, 2049, (130,), generator=rng).tolist()
    prefill = torch.randint(100, 1025, (64,), generator=rng).tolist()
    chunks, total = [], 0
    for n in prefill:  # fresh prompts up to 16,384 new tokens in all, as a 16,384-token step takes them
        take = min(n, 16384 - total)
        if take <= 0:
            break
        chunks.append(take)
        total += take
    cases = {
        "130 decode rows + 16,384 prefill tokens": ([1] * 130 + chunks, decode_ctx + chunks),
        "16,384 prefill tokens alone": (chunks, chunks),
    }
    results = []
    for name, (q_lens, ctx) in cases.items():
        bt = make_step(q_lens, ctx, seed)
        ref = torch.empty_like(bt["q"])
        run_step(bt, ref, split_mixed=False)()
        configs: dict[str, Callable[[torch.Tensor], Any]] = {
            "default": lambda r: measure(bt, run_step, r, split_mixed=True),
        }
        for rows, tile, warps, stages in itertools.product([64, 128], [32, 64], [4, 8], [2, 3]):
            configs[f"{rows},{tile},{warps},{stages}"] = lambda r, rows=rows, tile=tile, warps=warps, stages=stages: (
                measure(bt, run_step, r, split_mixed=True, block_m=rows, tile=tile, num_warps=warps, num_stages=stages)
            )
        table = interleaved(bt, ref, configs)
        timed = sorted((e for e in table if "ms" in e), key=lambda e: e["ms"])
        print(f"mixed {name}: " + "; ".join(f"{e['config']} {e.get('ms')} ms" for e in timed[:5]), flush=True)
        results.append(dict(case=name, rows=table))
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--sections",
        nargs="+",
        default=["unified", "split"],
        choices=["unified", "split", "layout", "decode", "midsize", "kernel", "mixed"],
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        print("device_attn_sweep: needs a CUDA device", file=sys.stderr)
        return 2
    t0 = time.time()
    result: dict[str, Any] = dict(device=torch.cuda.get_device_name(), torch=torch.__version__)
    if "unified" in args.sections:
        result["unified"] = unified_section(args.seed)
    if "split" in args.sections:
        result["split"] = split_section(args.seed)
    if "layout" in args.sections:
        result["layout"] = layout_section(args.seed)
    if "decode" in args.sections:
        result["decode"] = decode_section(args.seed)
    if "midsize" in args.sections:
        result["midsize"] = midsize_section(args.seed)
    if "kernel" in args.sections:
        result["kernel"] = kernel_section(args.seed)
    if "mixed" in args.sections:
        result["mixed"] = mixed_section(args.seed)
    result["wall_s"] = round(time.time() - t0, 1)
    Path(args.out).write_text(json.dumps(result, indent=1))
    print(f"wall {result['wall_s']} s; {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

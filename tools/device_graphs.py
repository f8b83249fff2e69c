"""CUDA graphs vs eager on the GPU (ENG-CUDA-GRAPHS, not a test): same greedy tokens, and decode speed both ways.

    PYTHONPATH=. python3 tools/device_graphs.py --out $OUT/graphs.json            # Qwen3-0.6B dummy, < 90 s on an H200
    PYTHONPATH=. python3 tools/device_graphs.py --tiny --out /tmp/graphs.json    # CPU: tiny Qwen3, replay mode

Parity: --parity-prompts prompts of varied lengths (9 by default: decode batches of 9 and fewer pad to buckets)
decode greedily in float32 with enforce_eager True and then False; the tokens must be identical (float32 because
padding changes GEMM shapes, and bf16 rounding could flip the near-ties of dummy weights without any bug).
Timing: --num-prompts prompts of --input-len random tokens, --output-len tokens each (ignore_eos), in --dtype, both
ways, after one small warm-up generate per engine. On CPU --tiny runs the padded path without capture
(TRITON_INTERPRET=1 for the Triton kernels), so the script itself is checked without a GPU; its timings mean
nothing there.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch
from engine.model.tiny import TINY_QWEN3


def build(model: str, dtype: str, device: str, enforce_eager: bool, args: argparse.Namespace, spread: bool) -> Any:
    from engine.args import EngineArgs
    from engine.engine_core import EngineCore
    from engine.llm import LLM
    from engine.model import load_model
    from engine.model.dummy import initialize_dummy_weights

    loaded = load_model(model, load_format="dummy", dtype=dtype, device=device, seed=args.seed)
    if spread:  # ±0.2 instead of ±1e-3: logits with real gaps, so greedy parity is a meaningful check
        initialize_dummy_weights(loaded.model, seed=args.seed, low=-0.2, high=0.2)
    cfg = EngineArgs(
        model=model,
        load_format="dummy",
        device=device,
        dtype=dtype,
        seed=args.seed,
        max_num_seqs=args.max_num_seqs,
        max_model_len=args.max_model_len,
        num_blocks=args.num_blocks,
        max_num_batched_tokens=args.max_num_batched_tokens,
        attention_backend="triton",
        enforce_eager=enforce_eager,
    )
    return LLM.from_engine_core(EngineCore.from_args(cfg, loaded=loaded))


def release(llm: Any) -> None:
    del llm
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def graph_info(llm: Any) -> dict[str, Any]:
    runner = llm.engine_core.runner
    graphs = runner.decode_graphs
    return {
        "graph_mode": runner.graph_mode,
        "buckets": graphs.sizes if graphs else [],
        "capture_seconds": round(graphs.capture_seconds, 3) if graphs else 0.0,
        "graph_decode_steps": sum(graphs.replays.values()) if graphs else 0,
        "steps_per_bucket": {str(b): n for b, n in sorted(graphs.replays.items())} if graphs else {},
    }


def parity(model: str, device: str, args: argparse.Namespace) -> dict[str, Any]:
    from engine.sampling_params import SamplingParams

    rng = random.Random(args.seed)
    vocab = args.vocab
    prompts = [
        {"prompt_token_ids": [rng.randrange(3, vocab) for _ in range(rng.randint(1, 3 * args.input_len))]}
        for _ in range(args.parity_prompts)
    ]
    # Staggered lengths: the decode batch shrinks as requests finish, so several buckets (and padding) are used.
    params = [
        SamplingParams(max_tokens=args.parity_tokens // (1 + i % 3), temperature=0.0, ignore_eos=True)
        for i in range(len(prompts))
    ]
    tokens, info = {}, {}
    for eager in (True, False):
        llm = build(model, "float32", device, eager, args, spread=True)
        outs = llm.generate(prompts, params, use_tqdm=False)
        tokens[eager] = [o.outputs[0].token_ids for o in outs]
        info[eager] = graph_info(llm)
        release(llm)
    equal = [a == b for a, b in zip(tokens[True], tokens[False])]
    lead = [
        next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), len(a)) for a, b in zip(tokens[True], tokens[False])
    ]
    return {
        "dtype": "float32",
        "num_prompts": len(prompts),
        "max_tokens": [p.max_tokens for p in params],
        "identical": all(equal),
        "equal_per_prompt": equal,
        "leading_equal_tokens": lead,
        **info[False],
    }


def timing(model: str, device: str, dtype: str, args: argparse.Namespace) -> dict[str, Any]:
    from engine.sampling_params import SamplingParams

    rng = random.Random(args.seed + 1)
    prompts = [
        {"prompt_token_ids": [rng.randrange(3, args.vocab) for _ in range(args.input_len)]}
        for _ in range(args.num_prompts)
    ]
    params = SamplingParams(max_tokens=args.output_len, temperature=0.0, ignore_eos=True)
    out: dict[str, Any] = {
        "dtype": dtype,
        "num_prompts": args.num_prompts,
        "input_len": args.input_len,
        "output_len": args.output_len,
    }
    for eager in (True, False):
        llm = build(model, dtype, device, eager, args, spread=False)
        llm.generate(prompts[:2], SamplingParams(max_tokens=4, ignore_eos=True), use_tqdm=False)  # warm-up
        if device == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        outs = llm.generate(prompts, params, use_tqdm=False)
        if device == "cuda":
            torch.cuda.synchronize()
        elapsed = time.perf_counter() - t0
        n_out = sum(len(o.outputs[0].token_ids) for o in outs)
        out["eager" if eager else "graphs"] = {
            "elapsed_s": round(elapsed, 3),
            "output_tokens": n_out,
            "output_tok_per_s": round(n_out / elapsed, 1),
            **graph_info(llm),
        }
        release(llm)
    out["speedup"] = round(out["eager"]["elapsed_s"] / out["graphs"]["elapsed_s"], 3)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="Qwen3-0.6B", help="a shipped config name (dummy weights)")
    ap.add_argument("--tiny", action="store_true", help="a 2-layer Qwen3 (CPU: replay mode, Triton interpreter)")
    ap.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float32"], help="dtype of the timing run")
    ap.add_argument("--num-prompts", type=int, default=64)
    ap.add_argument("--input-len", type=int, default=16)
    ap.add_argument("--output-len", type=int, default=256)
    ap.add_argument("--parity-prompts", type=int, default=9)
    ap.add_argument("--parity-tokens", type=int, default=32)
    ap.add_argument("--max-num-seqs", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True, help="JSON result path")
    args = ap.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu" and not args.tiny:
        print("device_graphs: error: no CUDA device; on CPU run with --tiny", file=sys.stderr)
        return 2
    if device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"  # before the kernel modules are imported (see engine/kernels/backends.py)
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")  # the capture log line
    with tempfile.TemporaryDirectory() as tmp:
        model = args.model
        if args.tiny:
            model = str(Path(tmp) / "tiny-qwen3.json")
            Path(model).write_text(json.dumps(TINY_QWEN3))
            args.num_prompts, args.input_len, args.output_len = (
                min(args.num_prompts, 6),
                min(args.input_len, 8),
                min(args.output_len, 6),
            )
            args.parity_tokens, args.max_num_seqs = min(args.parity_tokens, 6), min(args.max_num_seqs, 12)
            args.dtype = "float32"
        from engine.model.loader import get_model_config

        args.vocab = min(get_model_config(model).vocab_size, 10000)
        args.max_model_len = 3 * args.input_len + max(args.output_len, args.parity_tokens) + 16
        args.max_num_batched_tokens = max(2048, args.max_model_len)
        args.num_blocks = args.max_num_seqs * -(-args.max_model_len // 16) + 16  # every request fits at once
        t0 = time.perf_counter()
        result = {
            "model": "tiny-qwen3" if args.tiny else args.model,
            "device": device,
            "gpu": torch.cuda.get_device_name() if device == "cuda" else None,
            "parity": parity(model, device, args),
            "timing": timing(model, device, args.dtype, args),
        }
    result["identical"] = result["parity"]["identical"]
    result["graph_mode"] = result["parity"]["graph_mode"]
    result["graph_decode_steps"] = result["parity"]["graph_decode_steps"]
    result["wall_s"] = round(time.perf_counter() - t0, 1)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    t = result["timing"]
    print(
        f"parity (float32, {result['parity']['num_prompts']} prompts): identical={result['identical']}, "
        f"{result['graph_decode_steps']} decode steps through {result['graph_mode']}"
    )
    print(
        f"timing ({t['dtype']}, {t['num_prompts']}x{t['input_len']} in, {t['output_len']} out): eager "
        f"{t['eager']['output_tok_per_s']} tok/s, graphs {t['graphs']['output_tok_per_s']} tok/s, "
        f"speedup {t['speedup']}x; capture {t['graphs']['capture_seconds']} s; wall {result['wall_s']} s"
    )
    return 0 if result["identical"] else 1


if __name__ == "__main__":
    sys.exit(main())

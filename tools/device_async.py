"""Async scheduling on the GPU (ENG-ASYNC-SCHED; a measurement, not a test): parity, no host syncs, GPU idle, ablation.

    PYTHONPATH=. python3 tools/device_async.py --sections parity decode --out $OUT/async-decode.json
    PYTHONPATH=. python3 tools/device_async.py --sections ablation --out $OUT/async-ablation.json
    PYTHONPATH=. python3 tools/device_async.py --tiny --out /tmp/async.json      # CPU smoke check (~15 s)

On the H200 each of the first two is estimated at 3-5 minutes (engine builds with graph capture dominate; not yet
run there): one device-tool call each.

parity    float32, --parity-prompts prompts (16; three share a prefix), greedy: async and sync must give identical
          tokens, with stop token ids that end some requests mid-way (taken from a free run: a stop seen one step
          late), on the default engine and on a constrained one (a 64-token step budget: chunked prefill; a KV pool
          too small for the batch: preemption; prefix caching on). Dummy weights spread +-0.2 so logits have real
          gaps (bf16 rounding or padding could flip near-ties of +-1e-3 weights without any bug); --model-path runs
          a real checkpoint instead.
decode    bf16, each of --models, async and sync: batch-1 TPOT (--input-len -> --output-len, greedy, the median of
          3 after a warm-up); then at batch 1 and at --batch (256) with --context-len-token contexts: a timed window
          of steady decode steps (step_ms, decode tok/s), a profiled window (engine/bench/step_profile.py: GPU busy
          and idle fraction of the device timeline, kernels and launches per step, host ms per phase), and a window
          under torch.cuda.set_sync_debug_mode("error") (the first host sync raises; its stack is recorded).
ablation  Qwen3-0.6B bf16 over every combination of the axes: ENGINE_ASYNC_SCHEDULING 1/0, ENGINE_FUSED_SAMPLER 1/0
          (the torch sampler), ENGINE_FUSED_OPS 1/0 (the layer ops as torch references around the Triton attention),
          and any --axis NAME=v1,v2 (an environment switch read when an engine is built, e.g. ENGINE_COMPILE=0,1;
          naming an axis above replaces its values); sampled decoding (T 0.8, top-k 50, top-p 0.95: greedy batches
          skip the sampler): batch-1 TPOT, and --batch prompts of --input-len -> --output-len end to end: one
          untimed pass at the full batch (Triton JIT and graph buckets), then the median of --reps timed passes;
          --ablation-profile adds a profiled steady window of sampled decoding at --batch.
The JSON holds every figure; a table is printed. Exit 1 when parity fails or a sync was caught, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import random
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

import torch
from engine.model.tiny import TINY_QWEN3 as _TINY

TINY_QWEN3 = {**_TINY, "max_position_embeddings": 1024}  # the decode windows need longer contexts
SAMPLED = dict(temperature=0.8, top_k=50, top_p=0.95)


class Env:
    """Environment switches set while an engine is built (the sampler and the kernels read them then)."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values, self.saved = values, {}

    def __enter__(self) -> None:
        for k, v in self.values.items():
            self.saved[k] = os.environ.get(k)
            os.environ[k] = v

    def __exit__(self, *exc: Any) -> None:
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def build(
    args: argparse.Namespace,
    model: str,
    dtype: str,
    async_scheduling: bool,
    max_num_seqs: int,
    max_model_len: int,
    env: dict[str, str] | None = None,
    spread: bool = False,
    **settings: Any,
) -> Any:
    from engine.args import EngineArgs
    from engine.engine_core import EngineCore
    from engine.model import load_model
    from engine.model.dummy import initialize_dummy_weights

    fmt = "auto" if args.model_path and model == args.model_path else "dummy"
    settings.setdefault("num_blocks", max_num_seqs * -(-max_model_len // 16) + 16)  # all fit: no profiling run
    with Env(env or {}):
        loaded = load_model(model, load_format=fmt, dtype=dtype, device=args.device, seed=0)
        if spread and fmt == "dummy":
            initialize_dummy_weights(loaded.model, seed=0, low=-0.2, high=0.2)
        engine_args = EngineArgs(
            model=model,
            load_format=fmt,
            device=args.device,
            dtype=dtype,
            max_num_seqs=max_num_seqs,
            max_model_len=max_model_len,
            attention_backend=args.attention_backend,
            async_scheduling=async_scheduling,
            **settings,
        )
        return EngineCore.from_args(engine_args, loaded=loaded)


def release(*objs: Any) -> None:
    del objs
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def generate(core: Any, prompts: list[list[int]], params: Any) -> list[Any]:
    from engine.llm import LLM

    llm = LLM.from_engine_core(core)
    return llm.generate([{"prompt_token_ids": p} for p in prompts], params, use_tqdm=False)


def random_prompts(n: int, length: int, vocab: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [[rng.randrange(3, vocab) for _ in range(length)] for _ in range(n)]


# ---- parity -----------------------------------------------------------------------------------------------------
def parity(args: argparse.Namespace, model: str, vocab: int) -> dict[str, Any]:
    from engine.sampling_params import SamplingParams

    rng = random.Random(1)
    prompts = [
        [rng.randrange(3, vocab) for _ in range(rng.randint(1, 3 * args.parity_len))]
        for _ in range(args.parity_prompts)
    ]
    for i in (1, 2, 3):  # a shared prefix: prefix-cache hits
        prompts[i] = prompts[0][: args.parity_len] + prompts[i]
    max_tokens = [args.parity_tokens // (1 + i % 3) for i in range(len(prompts))]
    max_len = max(map(len, prompts)) + args.parity_tokens + 8
    n = len(prompts)
    demand = sum(-(-(len(p) + m) // 16) for p, m in zip(prompts, max_tokens))  # KV blocks the batch needs at once
    constrained = dict(
        max_num_batched_tokens=64, num_blocks=max(-(-max_len // 16) + 1, demand // 2), enable_prefix_caching=True
    )
    free_params = [SamplingParams(temperature=0.0, max_tokens=m, ignore_eos=True) for m in max_tokens]
    core = build(args, model, "float32", False, n, max_len, spread=True)
    free = [o.outputs[0].token_ids for o in generate(core, prompts, free_params)]
    # Every third request stops at a token it produces mid-way: found one step late under async scheduling.
    stops = [[f[len(f) // 2]] if i % 3 == 1 and len(f) > 2 else [] for i, f in enumerate(free)]
    params = [
        SamplingParams(temperature=0.0, max_tokens=m, ignore_eos=True, stop_token_ids=s)
        for m, s in zip(max_tokens, stops)
    ]
    runs: dict[str, list[list[int]]] = {"sync": [o.outputs[0].token_ids for o in generate(core, prompts, params)]}
    release(core)
    info: dict[str, Any] = {}
    for name, a, extra in (
        ("async", True, {}),
        ("sync-constrained", False, constrained),
        ("async-constrained", True, constrained),
    ):
        core = build(args, model, "float32", a, n, max_len, spread=True, **extra)
        runs[name] = [o.outputs[0].token_ids for o in generate(core, prompts, params)]
        info[name] = {
            "preemptions": core.scheduler.num_preemptions,
            "prefix_hits": core.scheduler.kv.prefix_hits,
            "graph_mode": core.runner.graph_mode,
        }
        release(core)
    expected = [f[: f.index(s[0]) + 1] if s else f for f, s in zip(free, stops)]

    def compare(a: list[list[int]], b: list[list[int]]) -> dict[str, Any]:
        lead = [next((i for i, (x, y) in enumerate(zip(p, q)) if x != y), min(len(p), len(q))) for p, q in zip(a, b)]
        return {"identical": a == b, "equal_per_prompt": [p == q for p, q in zip(a, b)], "leading_equal": lead}

    return {
        "dtype": "float32",
        "num_prompts": n,
        "max_tokens": max_tokens,
        "stop_token_ids": stops,
        "constrained": constrained,
        "engines": info,
        "stops_honoured": runs["sync"] == expected,
        "async_vs_sync": compare(runs["async"], runs["sync"]),
        "constrained_async_vs_sync": compare(runs["async-constrained"], runs["sync-constrained"]),
        "identical": runs["async"] == runs["sync"] and runs["async-constrained"] == runs["sync-constrained"],
    }


# ---- decode windows ---------------------------------------------------------------------------------------------
def sync_debug_window(core: Any, steps: int) -> dict[str, Any]:
    """`steps` engine steps with CUDA's sync debug mode at "error": the first synchronising call raises."""
    if not torch.cuda.is_available():
        return {"checked": False, "why": "no CUDA device"}
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        for i in range(steps):  # noqa: B007 (read by the handler below: the step that synced)
            core.step()
    except RuntimeError as e:
        return {
            "checked": True,
            "raised": True,
            "at_step": i,
            "error": str(e).splitlines()[0][:300],
            "stack": traceback.format_exc().splitlines()[-14:],
        }
    finally:
        torch.cuda.set_sync_debug_mode("default")
    return {"checked": True, "raised": False, "steps": steps}


def decode_windows(
    args: argparse.Namespace, core: Any, batch: int, context: int, vocab: int, params: Any, sync_debug: bool = True
) -> dict[str, Any]:
    """Admit `batch` requests, step to steady decode, then the timed, profiled and sync-debug windows."""
    from engine.bench import step_profile

    steps = args.window_steps
    for i, p in enumerate(random_prompts(batch, context, vocab, seed=2)):
        core.add_request(f"w{batch}-{i}", p, params)
    warm = step_profile.step_until_steady(core, 10_000)
    for _ in range(4):  # past the first decode steps (a graph bucket's first replay)
        core.step()
    step_profile.sync(core)
    t0 = time.perf_counter()
    for _ in range(steps):
        core.step()
    step_profile.sync(core)
    step_ms = (time.perf_counter() - t0) * 1e3 / steps
    prof = step_profile.profile_steps(core, steps).summary
    out = {
        "batch": batch,
        "context": context,
        "steps_to_steady": warm,
        "step_ms": round(step_ms, 4),
        "decode_tok_per_s": round(batch * 1e3 / step_ms, 1),
        "profile": prof,
        "sync_debug": sync_debug_window(core, steps) if sync_debug else {"checked": False},
    }
    step_profile.drain(core)
    return out


def tpot(core: Any, args: argparse.Namespace, vocab: int, params: Any, reps: int = 3) -> dict[str, Any]:
    prompt = random_prompts(1, args.input_len, vocab, seed=3)
    generate(core, prompt, params)  # warm-up
    values = []
    for _ in range(reps):
        out = generate(core, prompt, params)[0]
        values.append(out.metrics.tpot * 1e3)
    return {
        "tpot_ms": round(statistics.median(values), 4),
        "runs_ms": [round(v, 4) for v in values],
        "output_len": args.output_len,
        "input_len": args.input_len,
    }


def decode(args: argparse.Namespace, models: list[str], vocab_of: dict[str, int]) -> list[dict[str, Any]]:
    from engine.sampling_params import SamplingParams

    rows = []
    for model in models:
        vocab = vocab_of[model]
        max_len = max(args.input_len + args.output_len, args.context_len + 4 * args.window_steps + 64) + 16
        for a in (True, False):
            t0 = time.perf_counter()
            core = build(args, model, args.dtype, a, args.batch, max_len)
            built_s = time.perf_counter() - t0
            greedy = SamplingParams(temperature=0.0, max_tokens=args.output_len, ignore_eos=True, detokenize=False)
            long = SamplingParams(
                temperature=0.0, max_tokens=4 * args.window_steps + 48, ignore_eos=True, detokenize=False
            )
            row = {
                "model": Path(model).stem if args.tiny else model,
                "async_scheduling": a,
                "build_s": round(built_s, 1),
                "graph_mode": core.runner.graph_mode,
                "batch1": tpot(core, args, vocab, greedy),
                "windows": [
                    decode_windows(args, core, b, args.context_len, vocab, long) for b in dict.fromkeys((1, args.batch))
                ],
            }
            rows.append(row)
            release(core)
    return rows


# ---- ablation -----------------------------------------------------------------------------------------------------
def ablation(args: argparse.Namespace, model: str, vocab: int) -> list[dict[str, Any]]:
    from engine.sampling_params import SamplingParams

    axes: dict[str, list[str]] = {
        "ENGINE_ASYNC_SCHEDULING": ["1", "0"],
        "ENGINE_FUSED_SAMPLER": ["1", "0"],
        "ENGINE_FUSED_OPS": ["1", "0"],
    }
    for spec in args.axis:
        name, _, values = spec.partition("=")
        axes[name] = values.split(",")
    max_len = args.input_len + args.output_len + 16
    prompts = random_prompts(args.batch, args.input_len, vocab, seed=4)
    rows = []
    for combo in itertools.product(*axes.values()):
        env = dict(zip(axes, combo))
        core = build(args, model, args.dtype, None, args.batch, max_len, env=env)  # async from the environment
        sampled = SamplingParams(max_tokens=args.output_len, ignore_eos=True, detokenize=False, seed=None, **SAMPLED)
        row: dict[str, Any] = {
            "env": env,
            "async_scheduling": core.config.async_scheduling,
            "fused_sampler": core.runner.sampler.fused,
            "kernels": core.runner.attention_kernels.name,
            "batch1": tpot(core, args, vocab, sampled),
        }
        generate(core, prompts, sampled)  # untimed warm-up at the batch's own shapes (JIT, graph buckets)
        runs = []
        for _ in range(args.reps):
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            t0 = time.perf_counter()
            outs = generate(core, prompts, sampled)
            elapsed = time.perf_counter() - t0
            runs.append(sum(len(o.outputs[0].token_ids) for o in outs) / elapsed)
        row["batch"] = {
            "requests": args.batch,
            "input_len": args.input_len,
            "output_len": args.output_len,
            "output_tok_per_s": round(statistics.median(runs), 1),
            "runs_tok_per_s": [round(r, 1) for r in runs],
        }
        if args.ablation_profile:  # where a steady sampled step's time goes, device and host
            long = SamplingParams(
                max_tokens=4 * args.window_steps + 48, ignore_eos=True, detokenize=False, seed=None, **SAMPLED
            )
            row["window"] = decode_windows(args, core, args.batch, args.input_len, vocab, long, sync_debug=False)
        rows.append(row)
        release(core)
    return rows


def print_tables(result: dict[str, Any]) -> None:
    if "parity" in result:
        p = result["parity"]
        print(
            f"parity ({p['num_prompts']} prompts, fp32): identical={p['identical']} (default engine "
            f"{p['async_vs_sync']['identical']}, constrained {p['constrained_async_vs_sync']['identical']}), "
            f"stops honoured {p['stops_honoured']}, preemptions {p['engines']['async-constrained']['preemptions']}"
        )
    for r in result.get("decode", []):
        print(f"{r['model']:<12} async={r['async_scheduling']!s:<5} batch-1 TPOT {r['batch1']['tpot_ms']:.3f} ms")
        for w in r["windows"]:
            pr, sd = w["profile"], w["sync_debug"]
            idle = "-" if pr["gpu_idle_fraction"] is None else f"{pr['gpu_idle_fraction']:.1%}"
            sync_s = "-" if not sd.get("checked") else ("RAISED " + sd["error"][:60] if sd["raised"] else "none")
            print(
                f"    batch {w['batch']:>4}: step {w['step_ms']:.3f} ms, {w['decode_tok_per_s']:,.0f} tok/s, GPU idle "
                f"{idle}, {pr['kernels_per_step']:.0f} kernels/step, host {pr['host_ms_per_step']}, syncs: {sync_s}"
            )
    for r in result.get("ablation", []):
        print(
            f"ablation {r['env']}: batch-1 TPOT {r['batch1']['tpot_ms']:.3f} ms, batch {r['batch']['requests']} "
            f"{r['batch']['output_tok_per_s']:,.1f} output tok/s (runs {r['batch']['runs_tok_per_s']})"
        )
        if "window" in r:
            pr = r["window"]["profile"]
            print(f"    steady window: step {r['window']['step_ms']:.3f} ms, profile {json.dumps(pr)[:600]}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--sections", nargs="+", default=["parity", "decode", "ablation"], choices=["parity", "decode", "ablation"]
    )
    ap.add_argument("--models", nargs="+", default=["Qwen3-0.6B", "Qwen3-4B"], help="decode: shipped config names")
    ap.add_argument("--model-path", default=None, help="parity: a real checkpoint (HF dir or .gguf) instead")
    ap.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float32"])
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--input-len", type=int, default=128)
    ap.add_argument("--output-len", type=int, default=256)
    ap.add_argument("--context-len", type=int, default=512, help="decode windows: prompt tokens per request")
    ap.add_argument("--window-steps", type=int, default=32)
    ap.add_argument("--parity-prompts", type=int, default=16)
    ap.add_argument("--parity-len", type=int, default=24)
    ap.add_argument("--parity-tokens", type=int, default=48)
    ap.add_argument("--axis", action="append", default=[], metavar="NAME=V1,V2", help="ablation: one more switch")
    ap.add_argument("--reps", type=int, default=3, help="ablation: timed passes after the untimed warm-up pass")
    ap.add_argument(
        "--ablation-profile", action="store_true", help="ablation: also profile a steady sampled window at --batch"
    )
    ap.add_argument("--tiny", action="store_true", help="CPU smoke check: a 2-layer Qwen3, small sizes")
    ap.add_argument("--out", required=True, help="JSON result path")
    args = ap.parse_args()
    for spec in args.axis:
        if "=" not in spec or not spec.partition("=")[2]:
            print(f"device_async: error: --axis takes NAME=V1,V2, got {spec!r}", file=sys.stderr)
            return 2
    args.device = "cuda" if torch.cuda.is_available() else "cpu"
    if args.device == "cpu" and not args.tiny:
        print("device_async: error: no CUDA device; on CPU run with --tiny", file=sys.stderr)
        return 2
    args.attention_backend = "auto"  # Triton kernels and CUDA graphs on CUDA; the torch reference on CPU
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        if args.tiny:
            tiny = str(Path(tmp) / "tiny-qwen3.json")
            Path(tiny).write_text(json.dumps(TINY_QWEN3))
            args.models, args.dtype, args.batch = [tiny], "float32", min(args.batch, 6)
            args.input_len, args.output_len, args.context_len = 8, 6, 8
            args.window_steps, args.parity_prompts, args.parity_tokens = 3, 6, 8
        from engine.model.loader import get_model_config

        vocab_of = {m: min(get_model_config(m).vocab_size, 10000) for m in args.models}
        parity_model = args.model_path or args.models[0]
        result: dict[str, Any] = {
            "device": args.device,
            "gpu": torch.cuda.get_device_name() if args.device == "cuda" else None,
            "torch": torch.__version__,
            "args": {k: v for k, v in vars(args).items()},
        }
        if "parity" in args.sections:
            vocab = min(get_model_config(parity_model).vocab_size, 10000)
            result["parity"] = parity(args, parity_model, vocab)
        if "decode" in args.sections:
            result["decode"] = decode(args, args.models, vocab_of)
        if "ablation" in args.sections:
            result["ablation"] = ablation(args, args.models[0], vocab_of[args.models[0]])
    result["wall_s"] = round(time.perf_counter() - t0, 1)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2, default=str) + "\n")
    print_tables(result)
    print(f"wall {result['wall_s']} s; {args.out}")
    raised = any(
        w["sync_debug"].get("raised") for r in result.get("decode", []) if r["async_scheduling"] for w in r["windows"]
    )
    return 0 if result.get("parity", {}).get("identical", True) and not raised else 1


if __name__ == "__main__":
    sys.exit(main())

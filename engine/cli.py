"""`engine generate | serve | bench`: vLLM's flag names; a user mistake is one line on stderr and exit code 2."""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from engine.bench import cli as bench_cli
from engine.errors import EngineError
from engine.serve import cli as serve_cli


def add_engine_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default=None,
                   help="HF model directory, .gguf file, or a Qwen3 config name with --load-format dummy "
                        "(default: the embedded SmolLM2-135M-Instruct GGUF)")
    p.add_argument("--load-format", default="auto", choices=["auto", "hf", "gguf", "dummy"])
    p.add_argument("--dtype", default="auto", help="auto (bfloat16 on cuda, float32 on cpu), float32, bfloat16, float16")
    p.add_argument("--device", default=None, help="cuda or cpu (default: cuda if available)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-num-seqs", type=int, default=None,
                   help="requests running at once (default: 256; generate: the number of prompts)")
    p.add_argument("--max-num-batched-tokens", type=int, default=8192, help="token budget of one step")
    p.add_argument("--max-model-len", type=int, default=None, help="context length (default: the model's)")
    p.add_argument("--block-size", type=int, default=16, help="tokens per KV-cache block")
    p.add_argument("--enable-prefix-caching", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--enable-chunked-prefill", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--gpu-memory-utilization", type=float, default=0.9)
    p.add_argument("--num-blocks", type=int, default=None, help="KV-cache blocks (default: sized from memory)")
    p.add_argument("--attention-backend", default="auto", choices=["auto", "triton", "torch"],
                   help="attention kernels: auto (triton on cuda, torch otherwise), triton, torch")
    p.add_argument("--enforce-eager", action=argparse.BooleanOptionalAction, default=None,
                   help="--enforce-eager: never CUDA graphs; --no-enforce-eager: ask for them (default: graphs for "
                        "pure-decode steps on CUDA with the Triton kernels, eager elsewhere)")


def _generate_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("generate", help="generate text for one or more prompts",
                       description="Generate a completion for each PROMPT and print it, then a tokens/s line.")
    p.add_argument("prompts", nargs="+", metavar="PROMPT")
    add_engine_args(p)
    p.add_argument("--max-tokens", type=int, default=256)
    p.add_argument("--temperature", type=float, default=0.0, help="0 = greedy (the default here)")
    p.add_argument("--top-p", type=float, default=1.0)
    p.add_argument("--top-k", type=int, default=0)
    p.add_argument("--ignore-eos", action="store_true")
    p.add_argument("--no-chat-template", dest="chat_template", action="store_false",
                   help="send the prompt as raw text instead of a chat turn")
    p.add_argument("--cpu-threads", type=int, default=None,
                   help="torch threads on CPU (default: the cores not already busy, from the load average; "
                        "OMP_NUM_THREADS, when set, wins)")
    p.set_defaults(func=run_generate)


def cpu_threads(requested: int | None) -> int | None:
    """How many torch threads to run on CPU, or None to leave torch's choice (OMP_NUM_THREADS set).

    OpenMP threads that outnumber the free cores spin against each other: on a 2-core machine with one core
    busy, SmolLM2 decoded at 0.7 tok/s with 2 threads and 16.7 tok/s with 1 (measured here)."""
    if requested is not None:
        if requested < 1:
            raise EngineError(f"--cpu-threads must be >= 1, got {requested}")
        return requested
    if os.environ.get("OMP_NUM_THREADS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        busy = os.getloadavg()[0]
    except OSError:
        busy = 0.0
    return max(1, min(cores, cores - int(busy + 0.5)))


def run_generate(args: argparse.Namespace) -> int:
    from engine.llm import LLM
    from engine.sampling_params import SamplingParams

    import torch
    on_cpu = (args.device or ("cuda" if torch.cuda.is_available() else "cpu")) == "cpu"
    threads = cpu_threads(args.cpu_threads) if on_cpu else None
    if threads is not None:
        torch.set_num_threads(threads)
    sp = SamplingParams(max_tokens=args.max_tokens, temperature=args.temperature, top_p=args.top_p,
                        top_k=args.top_k, seed=None, ignore_eos=args.ignore_eos)
    llm = LLM(args.model, load_format=args.load_format, dtype=args.dtype, device=args.device, seed=args.seed,
              max_num_seqs=args.max_num_seqs or min(len(args.prompts), 256),
              max_num_batched_tokens=args.max_num_batched_tokens, max_model_len=args.max_model_len,
              block_size=args.block_size, enable_prefix_caching=args.enable_prefix_caching,
              enable_chunked_prefill=args.enable_chunked_prefill,
              gpu_memory_utilization=args.gpu_memory_utilization, num_blocks=args.num_blocks,
              attention_backend=args.attention_backend, enforce_eager=args.enforce_eager)
    tok = llm.get_tokenizer()
    if args.chat_template and tok is not None and tok.chat_template is not None:
        outputs = llm.chat([[{"role": "user", "content": p}] for p in args.prompts], sp, use_tqdm=False)
    else:
        outputs = llm.generate(list(args.prompts), sp, use_tqdm=False)
    for i, out in enumerate(outputs):
        if len(outputs) > 1:
            print(f"--- [{i}] {args.prompts[i]}")
        comp = out.outputs[0]
        print(comp.text if tok is not None else " ".join(map(str, comp.token_ids)))
    print(throughput_line(llm, outputs), file=sys.stderr)
    return 0


def throughput_line(llm, outputs) -> str:
    """Prefill: prompt tokens computed / (first scheduled -> last first token); decode: later tokens / the rest."""
    ms = [o.metrics for o in outputs]
    prompt = sum(m.num_prompt_tokens - m.num_cached_tokens for m in ms)
    out = sum(len(o.outputs[0].token_ids) for o in outputs)
    t0 = min(m.first_scheduled_time for m in ms)
    t1 = max(m.first_token_time for m in ms)
    t2 = max(m.token_times[-1] for m in ms)
    decode_tokens = out - len(outputs)
    prefill = f"{prompt / (t1 - t0):,.1f} tok/s" if t1 > t0 else "n/a"
    decode = f"{decode_tokens / (t2 - t1):,.1f} tok/s" if t2 > t1 and decode_tokens > 0 else "n/a"
    cfg = llm.config
    name = llm.engine_core.loaded.name
    return (f"[engine] {name} on {cfg.device.type} ({str(cfg.dtype).removeprefix('torch.')}): "
            f"prefill {prompt} tok at {prefill}, decode {decode_tokens} tok at {decode}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="engine", description="A reference LLM inference engine (vLLM-style).")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{generate,bench,serve}")
    _generate_parser(sub)
    bench_cli.add_parser(sub)
    serve_cli.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except EngineError as e:
        print(f"engine: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("engine: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

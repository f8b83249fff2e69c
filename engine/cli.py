"""`engine generate | serve | bench`: vLLM's flag names; a user mistake is one line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from engine.errors import EngineError
from engine.provenance.version import engine_version
from engine.utils import cpu_threads, require_engine_extra


def _generate_parser(sub: argparse._SubParsersAction) -> None:
    from engine.args import EngineArgs

    p = sub.add_parser(
        "generate",
        help="generate text for one or more prompts",
        description="Generate a completion for each PROMPT and print it, then a tokens/s line. "
        "--max-num-seqs defaults to the number of prompts (at most 256).",
    )
    p.add_argument("prompts", nargs="+", metavar="PROMPT")
    EngineArgs.add_cli_args(p, defaults={"max_num_seqs": None})  # None: the number of prompts, at most 256
    p.add_argument("--max-tokens", type=int, default=256)
    p.add_argument("--temperature", type=float, default=0.0, help="0 = greedy (the default here)")
    p.add_argument("--top-p", type=float, default=1.0)
    p.add_argument("--top-k", type=int, default=0)
    p.add_argument("--ignore-eos", action="store_true")
    p.add_argument(
        "--no-chat-template",
        dest="chat_template",
        action="store_false",
        help="send the prompt as raw text instead of a chat turn",
    )
    p.add_argument(
        "--cpu-threads",
        type=int,
        default=None,
        help="torch threads on CPU (default: the cores not already busy, from the load average; "
        "OMP_NUM_THREADS, when set, wins)",
    )
    p.set_defaults(func=run_generate)


def run_generate(args: argparse.Namespace) -> int:
    import torch

    from engine.args import EngineArgs
    from engine.llm import LLM
    from engine.sampling_params import SamplingParams

    if args.max_num_seqs is None:
        args.max_num_seqs = min(len(args.prompts), 256)
    eargs = EngineArgs.from_cli_args(args)
    threads = cpu_threads(args.cpu_threads) if eargs.resolve_device().type == "cpu" else None
    if threads is not None:
        torch.set_num_threads(threads)
    sp = SamplingParams(
        max_tokens=args.max_tokens,
        temperature=args.temperature,
        top_p=args.top_p,
        top_k=args.top_k,
        seed=None,
        ignore_eos=args.ignore_eos,
    )
    llm = LLM.from_engine_args(eargs)
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
    return (
        f"[engine] {name} on {cfg.device.type} ({str(cfg.dtype).removeprefix('torch.')}): "
        f"prefill {prompt} tok at {prefill}, decode {decode_tokens} tok at {decode}"
    )


def build_parser() -> argparse.ArgumentParser:
    # here, not at the top: without the `engine` extra (torch) main() says which extra to install
    from engine.bench import cli as bench_cli
    from engine.serve import cli as serve_cli

    parser = argparse.ArgumentParser(prog="engine", description="A reference LLM inference engine (vLLM-style).")
    parser.add_argument("--version", action="version", version=f"engine {engine_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{generate,bench,serve}")
    _generate_parser(sub)
    bench_cli.add_parser(sub)
    serve_cli.add_parser(sub)
    return parser


def _version_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="engine")
    parser.add_argument("--version", action="version", version=f"engine {engine_version()}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["--version"]:  # answered without the `engine` extra
            _version_parser().parse_args(argv)
        require_engine_extra()
        args = build_parser().parse_args(argv)
        return int(args.func(args) or 0)
    except EngineError as e:
        print(f"engine: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("engine: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

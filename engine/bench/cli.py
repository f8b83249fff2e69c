"""`engine bench throughput | latency | render`: vLLM's flag names where they exist, plus the evidence flags.

engine/cli.py calls `add_parser(subparsers)` and then `args.func(args)`; `python -m engine.bench.cli ...` runs the
same commands without it (tools/device_bench.sh does, on the GPU machine).
"""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any, Sequence

DEFAULT_OUTPUT_DIR = "docs/bench-evidence"
DEFAULT_ROW = "ENG-BENCH"
# Flags that only say where evidence goes, not what was measured: left out of the reproduce command.
NOT_IN_COMMAND = {"output_dir", "result_only"}


def _engine_args(p: argparse.ArgumentParser) -> None:
    from engine.config import LOAD_FORMATS
    g = p.add_argument_group("engine")
    g.add_argument("--model", default="Qwen3-0.6B",
                   help="HF directory, .gguf file, config .json, or a shipped config name with --load-format dummy")
    g.add_argument("--load-format", default="dummy", choices=LOAD_FORMATS)
    g.add_argument("--dtype", default="auto", help="auto (bfloat16 on CUDA, float32 on CPU), bfloat16, float16, "
                                                   "float32")
    g.add_argument("--device", default=None, help="cuda or cpu (default: cuda when available)")
    g.add_argument("--seed", type=int, default=0, help="workload and dummy-weight seed")
    g.add_argument("--enforce-eager", action=argparse.BooleanOptionalAction, default=None,
                   help="--enforce-eager: never CUDA graphs; --no-enforce-eager: ask for them (default: graphs for "
                        "pure-decode steps on CUDA with the Triton kernels, eager elsewhere)")
    g.add_argument("--max-num-seqs", type=int, default=None)
    g.add_argument("--max-num-batched-tokens", type=int, default=None)
    g.add_argument("--max-model-len", type=int, default=None)
    g.add_argument("--gpu-memory-utilization", type=float, default=None)
    g.add_argument("--attention-backend", default=None, choices=("auto", "triton", "torch"),
                   help="attention kernels (default: the engine's, auto: triton on cuda, torch otherwise)")


def add_provenance_args(g: Any, commit_help: str, tree: str) -> None:
    """--commit and --dirty/--clean: which code a measurement (or a server) ran; shared by bench and serve."""
    g.add_argument("--commit", default=None, help=commit_help)
    dirty = g.add_mutually_exclusive_group()
    dirty.add_argument("--dirty", dest="dirty", action="store_const", const=True, default=None,
                       help=f"the tree {tree} had uncommitted changes")
    dirty.add_argument("--clean", dest="dirty", action="store_const", const=False,
                       help=f"the tree {tree} is exactly --commit (the default when --commit is given)")


def _evidence_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("evidence")
    add_provenance_args(g, "40-hex sha of the code measured (default: git rev-parse HEAD; required where there is "
                           "no .git)", "measured")
    g.add_argument("--row", default=DEFAULT_ROW, help="records row id the evidence belongs to")
    g.add_argument("--series", default=None, help="stable series key (default derived from kind, workload, model)")
    g.add_argument("--output-dir", default=DEFAULT_OUTPUT_DIR, help="evidence root; writes <YYYYMMDD>-<series>/")
    g.add_argument("--result-only", action="store_true",
                   help="write result.json alone (render summary.md and plot.png later with `engine bench render`)")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    bench = subparsers.add_parser("bench", help="benchmark the engine and write evidence")
    sub = bench.add_subparsers(dest="bench_command", required=True)

    tp = sub.add_parser("throughput", help="offline throughput on a workload, against a peer and the hardware bound")
    _engine_args(tp)
    g = tp.add_argument_group("workload")
    g.add_argument("--dataset-name", default="nano", choices=("random", "nano"))
    g.add_argument("--num-prompts", type=int, default=None, help="default: 256 (nano), 1000 (random)")
    g.add_argument("--input-len", type=int, default=None, help="random: every prompt; nano: the longest (1024)")
    g.add_argument("--output-len", type=int, default=None, help="random: every output; nano: the longest (1024)")
    g = tp.add_argument_group("runs and peer")
    g.add_argument("--repeat", type=int, default=1, help="timed passes over the workload (all kept in `runs`)")
    g.add_argument("--peer", default="none", choices=("transformers-cb", "none"))
    g.add_argument("--peer-timeout", type=float, default=None, help="stop the peer after S s of generation")
    g.add_argument("--peer-evidence", default=None, help="cite a peer's evidence dir instead of running it")
    g.add_argument("--peer-only", action="store_true", help="run only the peer, into its own evidence dir")
    g.add_argument("--time-budget", type=float, default=None,
                   help="seconds for the whole command: the peer is stopped early to fit")
    _evidence_args(tp)
    tp.set_defaults(func=_run("throughput", tp))

    lat = sub.add_parser("latency", help="latency of one fixed batch over iterations")
    _engine_args(lat)
    g = lat.add_argument_group("batch")
    g.add_argument("--batch-size", type=int, default=8)
    g.add_argument("--input-len", type=int, default=32)
    g.add_argument("--output-len", type=int, default=128)
    g.add_argument("--num-iters-warmup", type=int, default=10)
    g.add_argument("--num-iters", type=int, default=30)
    _evidence_args(lat)
    lat.set_defaults(func=_run("latency", lat))

    ren = sub.add_parser("render", help="(re)write summary.md and plot.png of evidence dirs from their result.json")
    ren.add_argument("dirs", nargs="+")
    ren.set_defaults(func=_render)

    from engine.bench import serve as serve_bench   # the load client for `engine serve`
    serve_bench.add_parser(sub)
    return bench


def command_line(kind: str, parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """The canonical command that reproduces this measurement: every flag that differs from its default, plus the
    model and workload flags always."""
    always = {"model", "load_format", "dtype", "seed", "dataset_name", "repeat", "batch_size", "input_len",
              "output_len"}
    argv = ["engine", "bench", kind]
    seen: set[str] = set()
    for action in parser._actions:   # argparse has no public walk over a parser's options
        if not action.option_strings or action.dest == "help" or action.dest in NOT_IN_COMMAND | seen:
            continue
        seen.add(action.dest)
        value = getattr(args, action.dest, None)
        if value is None or (value == action.default and action.dest not in always):
            continue
        flag = action.option_strings[0]
        if action.dest == "dirty":   # two flags, one dest
            argv.append("--dirty" if value else "--clean")
        elif isinstance(action, argparse.BooleanOptionalAction):
            argv.append(flag if value else "--no-" + flag[2:])
        elif action.nargs == 0:
            argv += [flag] if value else []
        else:
            argv += [flag, str(value)]
    return shlex.join(argv)


def _run(kind: str, parser: argparse.ArgumentParser) -> Any:
    def func(args: argparse.Namespace) -> int:
        from engine.bench import latency, throughput
        command = command_line(kind, parser, args)
        return _guard(lambda: (throughput.run if kind == "throughput" else latency.run)(args, command))
    return func


def _render(args: argparse.Namespace) -> int:
    from engine.bench import evidence

    def go() -> int:
        for d in args.dirs:
            for f in evidence.render(Path(d)):
                print(f)
        return 0
    return _guard(go)


def _guard(fn: Any) -> int:
    """User mistakes (BenchError, EngineError) become one line on stderr and exit 2; bugs keep their traceback."""
    from engine.bench.errors import BenchError
    from engine.errors import EngineError
    try:
        return int(fn() or 0)
    except (BenchError, EngineError) as e:
        print(f"engine bench: error: {e}", file=sys.stderr)
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="engine")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    args = parser.parse_args(["bench", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())

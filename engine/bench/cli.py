"""`engine bench throughput | latency | render`: vLLM's flag names where they exist, plus the evidence flags.

engine/cli.py calls `add_parser(subparsers)` and then `args.func(args)`; `python -m engine.bench.cli ...` runs the
same commands without it (tools/device_bench.sh does, on the GPU machine).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Sequence

from engine.args import EngineArgs
from engine.bench.command import command_line
from engine.bench.evidence import DEFAULT_OUTPUT_DIR
from engine.provenance.commit import add_provenance_args

DEFAULT_ROW = "ENG-BENCH"
# The bench measures Qwen3-0.6B's shape with seeded random weights unless told otherwise.
BENCH_DEFAULTS = {"model": "Qwen3-0.6B", "load_format": "dummy"}


def _evidence_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("evidence")
    add_provenance_args(
        g, "40-hex sha of the code measured (default: git rev-parse HEAD; required where there is no .git)", "measured"
    )
    g.add_argument("--row", default=DEFAULT_ROW, help="records row id the evidence belongs to")
    g.add_argument("--series", default=None, help="stable series key (default derived from kind, workload, model)")
    g.add_argument(
        "--output-dir",
        default=DEFAULT_OUTPUT_DIR,
        help=f"where <YYYYMMDD>-<series>/ is written (default: {DEFAULT_OUTPUT_DIR}, gitignored); "
        f"docs/bench-evidence, the evidence root the records cite, only from a clean tree or with "
        f"--dirty",
    )
    g.add_argument(
        "--result-only",
        action="store_true",
        help="write result.json alone (render summary.md and plot.png later with `engine bench render`)",
    )


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    bench = subparsers.add_parser("bench", help="benchmark the engine and write evidence")
    sub = bench.add_subparsers(dest="bench_command", required=True)

    tp = sub.add_parser("throughput", help="offline throughput on a workload, against a peer and the hardware bound")
    EngineArgs.add_cli_args(tp, defaults=BENCH_DEFAULTS)
    g = tp.add_argument_group("workload")
    g.add_argument("--dataset-name", default="nano", choices=("random", "nano"))
    g.add_argument("--num-prompts", type=int, default=None, help="default: 256 (nano), 1000 (random)")
    g.add_argument("--input-len", type=int, default=None, help="random: every prompt; nano: the longest (1024)")
    g.add_argument("--output-len", type=int, default=None, help="random: every output; nano: the longest (1024)")
    g = tp.add_argument_group("runs and peer")
    g.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="timed passes over the workload, all kept in `runs` (default: 3 on cuda, 1 elsewhere)",
    )
    g.add_argument(
        "--warmup-passes",
        type=int,
        default=None,
        help="untimed passes over the whole workload first, so compilation and allocator growth stay out "
        "of the timed runs (default: 1 on cuda, 0 elsewhere, where a short warm-up runs alone)",
    )
    g.add_argument(
        "--profile",
        metavar="DIR",
        default=None,
        help="after the timed runs, profile --profile-steps steady steps of the workload and write "
        "DIR/profile.json (host ms per phase, kernels and launches per step, GPU busy and idle, top "
        "kernels) and DIR/trace.json.gz (the Chrome trace)",
    )
    g.add_argument("--profile-steps", type=int, default=32, help="engine steps in the --profile window")
    g.add_argument("--peer", default="none", choices=("transformers-cb", "none"))
    g.add_argument("--peer-timeout", type=float, default=None, help="stop the peer after S s of generation")
    g.add_argument("--peer-evidence", default=None, help="cite a peer's evidence dir instead of running it")
    g.add_argument("--peer-only", action="store_true", help="run only the peer, into its own evidence dir")
    g.add_argument(
        "--time-budget",
        type=float,
        default=None,
        help="seconds for the whole command: the peer is stopped early to fit",
    )
    _evidence_args(tp)
    tp.set_defaults(func=_run("throughput", tp))

    lat = sub.add_parser("latency", help="latency of one fixed batch over iterations")
    EngineArgs.add_cli_args(lat, defaults=BENCH_DEFAULTS)
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

    from engine.bench import serve as serve_bench  # the load client for `engine serve`

    serve_bench.add_parser(sub)
    return bench


def _run(kind: str, parser: argparse.ArgumentParser) -> Any:
    def func(args: argparse.Namespace) -> int:
        def go() -> int:
            if not args.result_only:  # before minutes of measuring, not when the plot is drawn
                _require_matplotlib()
            from engine.bench import latency, throughput

            if kind == "throughput":
                throughput.resolve_run_counts(args)  # device-dependent defaults, written into the command
            command = command_line(kind, parser, args)
            return (throughput.run if kind == "throughput" else latency.run)(args, command)

        return _guard(go)

    return func


def _require_matplotlib() -> None:
    from engine.utils import require_package

    require_package(
        "matplotlib", "the plots of engine bench", alternative="or pass --result-only to write result.json alone"
    )


def _render(args: argparse.Namespace) -> int:
    from engine.bench import evidence

    def go() -> int:
        _require_matplotlib()
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

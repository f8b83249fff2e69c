"""Offline engine vs `engine serve` on one workload, for the H200 (issue 12, item 7): one JSON and a table.

    PYTHONPATH=. python3 tools/device_serve.py --model Qwen3-0.6B --out $OUT/serve.json
    PYTHONPATH=. python3 tools/device_serve.py --tiny --out /tmp/serve-tiny.json      # a CPU smoke run (~30 s)

1. Offline: a child process builds the LLM (dummy weights), runs the bench's untimed warm-up and one untimed pass,
   then one timed `LLM.generate` of the workload (token-id prompts, greedy, ignore_eos; engine/bench/ours.py, as
   `engine bench throughput` measures it). A child, so its GPU memory is gone before the server loads the model.
2. Online: `engine serve` with the same engine settings in a child process, one untimed warm-up load (64 requests)
   and --warmup-passes untimed passes of the whole workload at the highest concurrency (as the offline side gets one
   untimed pass; each is recorded with "warmup": true, so the cost of a cold server's first burst stays visible),
   all on prompts of other seeds than the points' (the offline pass empties its prefix cache first; the server's
   must not hold a point's prompts either), then
   `engine bench serve`'s client (engine/bench/serve.py) at each point: concurrency 1 (on the first
   --c1-prompts prompts: one request at a time would take most of the budget on all of them), 64 and 256 with every
   request sent at once, and two Poisson request rates (default: 50% and 80% of the offline request rate).

Each point records output tok/s, online/offline (meaningful at saturation: concurrency 256, or a rate near the
offline one), TTFT/TPOT/ITL/E2EL p50 and p99. A point that would start after --budget-s seconds is skipped and says
so. No network, no .git needed: the model is a shipped config name with --load-format dummy.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run as a script from anywhere: the engine package is the repository's
from engine.model.tiny import TINY_QWEN3  # noqa: E402

# The shared tiny Qwen3, with room for the workloads' token ids (< 10000) and their lengths.
TINY = {**TINY_QWEN3, "vocab_size": 10240, "max_position_embeddings": 512}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="Qwen3-0.6B", help="a shipped config name (dummy weights) or a model path")
    p.add_argument("--out", required=True, help="the JSON to write")
    p.add_argument("--tiny", action="store_true", help="CPU smoke run: a tiny Qwen3, a small workload, small points")
    p.add_argument("--num-prompts", type=int, default=256, help="nano workload size (default: the standard 256)")
    p.add_argument("--input-len", type=int, default=1024, help="nano's longest prompt")
    p.add_argument("--output-len", type=int, default=1024, help="nano's longest output")
    p.add_argument("--concurrencies", default="1,64,256", help="points with every request sent at once")
    p.add_argument("--c1-prompts", type=int, default=16, help="prompts of the concurrency-1 point")
    p.add_argument(
        "--rates",
        default=None,
        help="request rates (req/s), comma-separated; default: 0.5x and 0.8x the offline request rate",
    )
    p.add_argument("--max-num-seqs", type=int, default=256)
    p.add_argument(
        "--engine-process",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="engine serve's own flag: the engine core in its own process (default) or a thread",
    )
    p.add_argument("--budget-s", type=float, default=420.0, help="start no point after this many seconds")
    p.add_argument(
        "--warmup-passes",
        type=int,
        default=1,
        help="untimed passes of the whole workload at the highest concurrency before the points (default 1, as "
        "the offline side's one untimed pass)",
    )
    p.add_argument("--offline-child", default=None, help=argparse.SUPPRESS)  # internal: run step 1, write here
    if "--tiny" in (sys.argv[1:] if argv is None else argv):  # smaller defaults; flags given still win
        p.set_defaults(
            num_prompts=48, input_len=128, output_len=100, concurrencies="1,16,48", c1_prompts=4, max_num_seqs=48
        )
    return p.parse_args(argv)


def log(msg: str) -> None:
    print(f"[device_serve {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def model_and_settings(args: argparse.Namespace, tmp: Path) -> tuple[str, list[str]]:
    """The model argument and the engine flags both sides use (the same settings offline and online)."""
    model = args.model
    flags = ["--load-format", "dummy", "--max-num-seqs", str(args.max_num_seqs)]
    if args.tiny:
        path = tmp / "tiny-qwen3.json"
        path.write_text(json.dumps(TINY))
        model = str(path)
        flags += ["--device", "cpu", "--max-model-len", "256"]
    else:
        flags += ["--max-model-len", str(args.input_len + args.output_len)]
    return model, flags


def workload(args: argparse.Namespace):
    from engine.bench import workloads

    return workloads.build("nano", args.num_prompts, args.input_len, args.output_len, 0)


# ---- 1. offline ----------------------------------------------------------------------------------------------
def offline_child(args: argparse.Namespace, model: str, flags: list[str]) -> None:
    from engine.args import EngineArgs
    from engine.bench import metrics, ours

    p = argparse.ArgumentParser()
    EngineArgs.add_cli_args(p)
    eargs = EngineArgs.from_cli_args(p.parse_args(["--model", model, *flags]))
    if eargs.resolve_device().type == "cpu":  # as engine serve sizes its torch threads on CPU
        import torch

        from engine.utils import cpu_threads

        threads = cpu_threads(None)
        if threads is not None:
            torch.set_num_threads(threads)
    w = workload(args)
    llm, settings = ours.build_llm(eargs)
    ours.warmup(llm, w)
    ours.generate(llm, w)  # one untimed pass, as `engine bench throughput --warmup-passes 1`
    timings, elapsed = ours.generate(llm, w)
    m = metrics.run_metrics(timings, elapsed, None)
    Path(args.offline_child).write_text(
        json.dumps(
            {
                "output_tok_per_s": m["output_tok_per_s"],
                "requests_per_s": m["requests_per_s"],
                "duration_s": elapsed,
                "output_tokens": m["output_tokens"],
                "engine": settings,
            },
            default=str,
        )
    )


def run_offline(args: argparse.Namespace, model: str, flags: list[str], tmp: Path) -> dict[str, Any]:
    out = tmp / "offline.json"
    argv = [
        sys.executable,
        __file__,
        "--model",
        args.model,
        "--out",
        args.out,
        "--offline-child",
        str(out),
        "--num-prompts",
        str(args.num_prompts),
        "--input-len",
        str(args.input_len),
        "--output-len",
        str(args.output_len),
        "--max-num-seqs",
        str(args.max_num_seqs),
    ]
    # the child builds its own tiny config file: the same one (TINY), in its own temporary directory
    subprocess.run(argv + (["--tiny"] if args.tiny else []), check=True, env=_env())
    return json.loads(out.read_text())


# ---- 2. online -----------------------------------------------------------------------------------------------
def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(args: argparse.Namespace, model: str, flags: list[str], port: int, log_path: Path) -> subprocess.Popen:
    argv = [
        sys.executable,
        "-m",
        "engine",
        "serve",
        model,
        *flags,
        "--port",
        str(port),
        "--served-model-name",
        "bench",
        "--max-queued-requests",
        "4096",
        "--drain-timeout",
        "5",
    ]
    if not args.engine_process:
        argv.append("--no-engine-process")
    proc = subprocess.Popen(
        argv, env=_env(), stdout=log_path.open("w"), stderr=subprocess.STDOUT, start_new_session=True
    )
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(
                f"engine serve exited with {proc.returncode} while starting; its log:\n{log_path.read_text()[-4000:]}"
            )
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            pass
        time.sleep(0.5)
    proc.kill()
    raise SystemExit(f"engine serve did not answer /health within 600 s; its log:\n{log_path.read_text()[-4000:]}")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def bench_point(
    port: int, args: argparse.Namespace, num_prompts: int, concurrency: int | None, rate: float, seed: int
) -> dict[str, Any]:
    from engine.bench import serve as bench

    ns = argparse.Namespace(
        base_url=f"http://127.0.0.1:{port}",
        host="127.0.0.1",
        port=port,
        endpoint="/v1/completions",
        model="bench",
        dataset_name="nano",
        num_prompts=num_prompts,
        random_input_len=args.input_len,
        random_output_len=args.output_len,
        seed=seed,
        request_rate=rate,
        max_concurrency=concurrency,
        disable_tqdm=True,
    )
    return asyncio.run(bench.benchmark(ns))


def point_row(result: dict[str, Any], offline: dict[str, Any]) -> dict[str, Any]:
    m = result["metrics"]

    def pct(key: str) -> dict[str, float] | None:
        s = m.get(key)
        return None if not s else {"p50": round(s["p50"], 3), "p99": round(s["p99"], 3)}

    tok_s = m.get("output_tok_per_s")
    return {
        "max_concurrency": result["max_concurrency"],
        "request_rate": result["request_rate"],
        "num_prompts": result["num_prompts"],
        "completed": result["completed"],
        "failed": result["failed"],
        "errors": result["errors"],
        "duration_s": result["duration_s"],
        "output_tok_per_s": None if tok_s is None else round(tok_s, 2),
        "online_over_offline": None if tok_s is None else round(tok_s / offline["output_tok_per_s"], 4),
        "ttft_ms": pct("ttft_ms"),
        "tpot_ms": pct("tpot_ms"),
        "itl_ms": pct("itl_ms"),
        "e2el_ms": pct("e2el_ms"),
    }


def run_online(
    args: argparse.Namespace, model: str, flags: list[str], offline: dict[str, Any], tmp: Path, t_start: float
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    rates = (
        [float(r) for r in args.rates.split(",")]
        if args.rates
        else [round(offline["requests_per_s"] * f, 2) for f in (0.5, 0.8)]
    )
    points: list[tuple[int, int | None, float]] = []  # (prompts, concurrency, rate)
    for c in (int(c) for c in args.concurrencies.split(",")):
        points.append((args.c1_prompts if c == 1 else args.num_prompts, c, math.inf))
    points += [(args.num_prompts, None, r) for r in rates]
    port = _free_port()
    server_log = tmp / "serve.log"
    log(f"engine serve {model} on port {port} ...")
    proc = start_server(args, model, flags, port, server_log)
    rows: list[dict[str, Any]] = []
    warm: list[dict[str, Any]] = []
    try:
        log("warm-up load (untimed)")
        # Warm-ups draw other prompts (seeds 101, 102, ...) than the points: the server's prefix cache must not hold
        # a point's prompts before it runs, as the offline side empties its cache before its timed pass.
        bench_point(port, args, min(args.num_prompts, 64), 64, math.inf, seed=101)
        top = max(int(c) for c in args.concurrencies.split(","))
        for i in range(args.warmup_passes):
            log(f"warm-up pass {i + 1}/{args.warmup_passes}: {args.num_prompts} prompts, concurrency {top} (untimed)")
            res = bench_point(port, args, args.num_prompts, top, math.inf, seed=102 + i)
            warm.append(dict(point_row(res, offline), warmup=True))
            log(f"  {warm[-1]['output_tok_per_s']} output tok/s, ratio {warm[-1]['online_over_offline']} (warm-up)")
        for prompts, c, rate in points:
            if time.monotonic() - t_start > args.budget_s:
                rows.append(
                    {
                        "max_concurrency": c,
                        "request_rate": "inf" if math.isinf(rate) else rate,
                        "skipped": f"past --budget-s {args.budget_s:g}",
                    }
                )
                continue
            log(f"point: {prompts} prompts, concurrency {c}, rate {rate}")
            # The offline workload's own prompts (seed 0) for the first point at the top concurrency, the one
            # compared with offline; fresh ones (seeds 200, 201, ...) for every other point.
            seed = 0 if c == top and not any(r.get("seed") == 0 for r in rows) else 200 + len(rows)
            rows.append(dict(point_row(bench_point(port, args, prompts, c, rate, seed), offline), seed=seed))
            log(f"  {rows[-1]['output_tok_per_s']} output tok/s, ratio {rows[-1]['online_over_offline']}")
    finally:
        stop_server(proc)
    return rows, warm, server_log.read_text()[-3000:]


def table(offline: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    head = (
        f"{'point':<22}{'tok/s':>10}{'/offline':>10}{'TTFT p50':>10}{'p99':>9}{'TPOT p50':>10}{'p99':>8}"
        f"{'ITL p50':>9}{'p99':>8}"
    )
    lines = [f"offline: {offline['output_tok_per_s']:.1f} output tok/s, {offline['requests_per_s']:.2f} req/s", head]
    for r in rows:
        name = f"c={r['max_concurrency']}" if r["max_concurrency"] else f"rate={r['request_rate']}"
        name = f"warm-up {name}" if r.get("warmup") else name
        if "skipped" in r:
            lines.append(f"{name:<22}skipped ({r['skipped']})")
            continue
        f = lambda s, k: "-" if not s else f"{s[k]:.1f}"
        lines.append(
            f"{name + ' n=' + str(r['num_prompts']):<22}{r['output_tok_per_s'] or 0:>10.1f}"
            f"{r['online_over_offline'] or 0:>10.3f}{f(r['ttft_ms'], 'p50'):>10}{f(r['ttft_ms'], 'p99'):>9}"
            f"{f(r['tpot_ms'], 'p50'):>10}{f(r['tpot_ms'], 'p99'):>8}{f(r['itl_ms'], 'p50'):>9}"
            f"{f(r['itl_ms'], 'p99'):>8}"
        )
    return "\n".join(lines)


SERVER_MODULES = ("aiohttp", "pydantic", "prometheus_client")  # what engine serve imports beyond the engine


def preflight() -> None:
    """Fail in a second, before any model loads, when engine serve could not start here."""
    import importlib.util

    missing = [m for m in SERVER_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise SystemExit(
            f"device_serve: engine serve needs {', '.join(missing)}, not installed here; install them "
            f"(pip install aiohttp pydantic prometheus-client) or carry their wheels"
        )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t_start = time.monotonic()
    if not args.offline_child:
        preflight()
    with tempfile.TemporaryDirectory(prefix="device-serve-") as d:
        tmp = Path(d)
        model, flags = model_and_settings(args, tmp)
        if args.offline_child:
            offline_child(args, model, flags)
            return 0
        log(f"offline engine: {model} {' '.join(flags)}")
        offline = run_offline(args, model, flags, tmp)
        log(f"offline: {offline['output_tok_per_s']:.1f} output tok/s")
        rows, warm, server_tail = run_online(args, model, flags, offline, tmp, t_start)
    import torch

    result = {
        "schema": "evident.device-serve/1",
        "model": args.model,
        "tiny": args.tiny,
        "workload": workload(args).describe(),
        "engine_flags": flags,
        "engine_process": args.engine_process,
        "machine": {
            "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
            "torch": torch.__version__,
            "python": platform.python_version(),
        },
        "offline": offline,
        "warmup_points": warm,
        "points": rows,
        "server_log_tail": server_tail,
        "wall_s": round(time.monotonic() - t_start, 1),
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, default=str) + "\n")
    print(table(offline, warm + rows))
    log(f"wrote {out} in {result['wall_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`engine bench serve`: load an OpenAI-compatible server with streamed requests (vLLM's `vllm bench serve` flags).

Every request streams (`stream_options.include_usage`), so each SSE chunk is stamped on arrival: TTFT = first chunk -
send, ITL = gaps between chunks, TPOT = (last chunk - first chunk) / (chunks - 1), E2EL = last byte - send; metrics.py
turns the stamps into percentiles. Requests are sent all at once (--request-rate inf) or with Poisson arrivals, at
most --max-concurrency at a time. The result is a table on stdout and, with --save-result, a JSON file. With
--output-dir it also writes an evidence directory (serve_evidence.py): the server says what it runs through
GET /v1/engine, read before the first request, and the workload runs --repeat times, each run kept raw.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from engine.bench import metrics, workloads
from engine.bench.errors import BenchError
from engine.bench.evidence import slug
from engine.errors import EngineError
from engine.utils import require_package

SCHEMA = "evident.bench-serve/1"


@dataclass
class Outcome:
    """One request as the client saw it (perf_counter seconds)."""

    sent: float
    prompt_tokens: int
    chunk_times: list[float] = field(default_factory=list)
    output_tokens: int = 0
    done: float | None = None
    error: str | None = None


def add_parser(bench_sub: Any) -> argparse.ArgumentParser:
    p = bench_sub.add_parser(
        "serve",
        help="load an `engine serve` (or any OpenAI-compatible) server; TTFT/TPOT/ITL",
        description="Stream --num-prompts requests to a running server and report latency percentiles and throughput.",
    )
    g = p.add_argument_group("server")
    g.add_argument("--base-url", default=None, help="server URL, e.g. http://gpu-box:8000 (default: --host/--port)")
    g.add_argument("--host", default="127.0.0.1")
    g.add_argument("--port", type=int, default=8000)
    g.add_argument(
        "--endpoint",
        default="/v1/completions",
        help="/v1/completions (the token-id datasets here need it: prompts are token ids)",
    )
    g.add_argument("--model", default=None, help="model name to send (default: the first of GET /v1/models)")
    g = p.add_argument_group("workload")
    g.add_argument("--dataset-name", default="random", choices=("random", "nano"))
    g.add_argument("--num-prompts", type=int, default=None, help="default: 1000 (random), 256 (nano)")
    g.add_argument(
        "--random-input-len",
        type=int,
        default=None,
        help="random: every prompt (default 1024); nano: the longest (default 1024)",
    )
    g.add_argument(
        "--random-output-len",
        type=int,
        default=None,
        help="random: every output (default 128); nano: the longest (default 1024)",
    )
    g.add_argument("--seed", type=int, default=0, help="workload and arrival-time seed")
    g = p.add_argument_group("load")
    g.add_argument(
        "--request-rate",
        type=float,
        default=math.inf,
        help="requests per second, Poisson arrivals; inf (default) sends all at once",
    )
    g.add_argument("--max-concurrency", type=int, default=None, help="requests in flight at most (default: no cap)")
    g.add_argument("--disable-tqdm", action="store_true", help="no progress bar")
    g = p.add_argument_group("result")
    g.add_argument("--save-result", action="store_true", help="write the result JSON")
    g.add_argument("--result-dir", default=".", help="where --save-result writes")
    g.add_argument("--result-filename", default=None, help="default: serve-<dataset>-<model>-<YYYYMMDD-HHMMSS>.json")
    g = p.add_argument_group("evidence (needs a server started with `engine serve --commit SHA`)")
    g.add_argument(
        "--output-dir",
        default=None,
        help="evidence root: writes <YYYYMMDD>-<series>/ with result.json, summary.md, plot.png",
    )
    g.add_argument(
        "--series", default=None, help="stable series key (default: serve-<workload>-<model>-r<rate>-c<concurrency>)"
    )
    g.add_argument("--row", default=None, help="records row id the evidence belongs to (default: ENG-SERVE)")
    g.add_argument("--repeat", type=int, default=1, help="timed runs of the workload, each kept raw (default 1)")
    p.set_defaults(func=lambda args: run_cli(args, p))
    return p


def run_cli(args: argparse.Namespace, parser: argparse.ArgumentParser | None = None) -> int:
    try:
        require_package("aiohttp", "engine bench serve")
        if getattr(args, "output_dir", None) is not None:  # before the runs, not when the plot is drawn
            require_package("matplotlib", "the plots of an evidence directory", alternative="or drop --output-dir")
    except EngineError as e:
        print(f"engine bench: error: {e}", file=sys.stderr)
        return 2
    if getattr(args, "output_dir", None) is not None:
        return _evidence_cli(args, parser)
    try:
        _check_evidence_flags(args)
        result = asyncio.run(benchmark(args))
    except BenchError as e:
        print(f"engine bench: error: {e}", file=sys.stderr)
        return 2
    print(table(result))
    if args.save_result:
        print(f"result: {save(result, args)}", file=sys.stderr)
    return 0 if result["completed"] else 1


def _check_evidence_flags(args: argparse.Namespace) -> None:
    if getattr(args, "repeat", 1) != 1 or getattr(args, "series", None) or getattr(args, "row", None):
        raise BenchError("--repeat, --series and --row describe an evidence directory; pass --output-dir DIR too")


def _evidence_cli(args: argparse.Namespace, parser: argparse.ArgumentParser | None) -> int:
    """Provenance and the directory are settled first (from /v1/engine), then --repeat runs, then the evidence."""
    from engine.bench import serve_evidence as ev
    from engine.bench.command import command_line

    try:
        if args.repeat < 1:
            raise BenchError(f"--repeat must be >= 1, got {args.repeat}")
        plan, results = asyncio.run(_evidence_runs(args))
        ev.check_runs(results)
        command = command_line("serve", parser, args) if parser is not None else "engine bench serve ..."
        result = ev.build(
            info=plan.info,
            results=results,
            work=plan.work,
            request_rate=args.request_rate,
            max_concurrency=args.max_concurrency,
            series=plan.series,
            row=args.row or ev.DEFAULT_ROW,
            created=plan.created,
            client_command=command,
            url=base_url(args),
            endpoint=args.endpoint,
            model=results[0]["model"],
        )
        ev.evidence.write(plan.path, result)
    except BenchError as e:
        print(f"engine bench: error: {e}", file=sys.stderr)
        return 2
    print(f"evidence: {plan.path}", file=sys.stderr)
    return 0


async def _evidence_runs(args: argparse.Namespace) -> tuple[Any, list[dict[str, Any]]]:
    import aiohttp
    from engine.bench import serve_evidence as ev

    _check(args)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session:
        info = await ev.fetch_engine(session, base_url(args))
    plan = ev.plan(args, info)
    results = []
    for i in range(args.repeat):
        r = await benchmark(args)
        print(f"run {i + 1}/{args.repeat}", file=sys.stderr)
        print(table(r))
        results.append(r)
    return plan, results


def base_url(args: argparse.Namespace) -> str:
    return (args.base_url or f"http://{args.host}:{args.port}").rstrip("/")


def _check(args: argparse.Namespace) -> None:
    if args.endpoint != "/v1/completions":
        raise BenchError(
            f"--endpoint {args.endpoint}: the random and nano datasets send token-id prompts, which "
            f"only /v1/completions takes; use --endpoint /v1/completions"
        )
    if not (args.request_rate > 0):
        raise BenchError(f"--request-rate must be > 0 (or inf), got {args.request_rate}")
    if args.max_concurrency is not None and args.max_concurrency < 1:
        raise BenchError(f"--max-concurrency must be >= 1, got {args.max_concurrency}")


async def benchmark(args: argparse.Namespace) -> dict[str, Any]:
    import aiohttp

    _check(args)
    work = workloads.build(
        args.dataset_name, args.num_prompts, args.random_input_len, args.random_output_len, args.seed
    )
    url = base_url(args)
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=10, sock_read=600)
    # aiohttp's default connector holds at most 100 connections: past that, requests queue in the client while
    # their clock runs (vLLM's client sizes it to the concurrency too).
    connector = aiohttp.TCPConnector(limit=args.max_concurrency or 0, limit_per_host=args.max_concurrency or 0)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
        model = args.model or await served_model(session, url)
        limit = asyncio.Semaphore(args.max_concurrency or work.num_requests)
        arrivals = random.Random(args.seed)
        bar = _Bar(work.num_requests, disabled=args.disable_tqdm)

        async def one(prompt: list[int], max_tokens: int) -> Outcome:
            async with limit:
                out = await send(session, url + args.endpoint, model, prompt, max_tokens)
            bar.advance()
            return out

        start = time.perf_counter()
        tasks = []
        for i, (prompt, out_len) in enumerate(zip(work.prompts, work.output_lens)):
            if i and math.isfinite(args.request_rate):
                await asyncio.sleep(arrivals.expovariate(args.request_rate))
            tasks.append(asyncio.create_task(one(prompt, out_len)))
        outcomes = await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - start
        bar.close()
    return summarize(outcomes, elapsed, args, url, model, work)


async def served_model(session, url: str) -> str:
    import aiohttp

    try:
        async with session.get(url + "/v1/models") as resp:
            data = await resp.json(content_type=None)
    except (aiohttp.ClientError, OSError, json.JSONDecodeError) as e:
        raise BenchError(
            f"cannot reach {url}/v1/models ({e}); is `engine serve` running there? pass --base-url or --host/--port"
        ) from None
    try:
        return data["data"][0]["id"]
    except (KeyError, IndexError, TypeError):
        raise BenchError(f"{url}/v1/models lists no model; pass --model") from None


async def send(session, url: str, model: str, prompt: list[int], max_tokens: int) -> Outcome:
    """One streamed completion; every chunk with choices is one arrival stamp."""
    import aiohttp

    body = {
        "model": model,
        "prompt": prompt,
        "max_tokens": max_tokens,
        "temperature": 0.0,
        "ignore_eos": True,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    out = Outcome(sent=time.perf_counter(), prompt_tokens=len(prompt))
    try:
        async with session.post(url, json=body) as resp:
            if resp.status != 200:
                text = await resp.text()
                out.error = f"HTTP {resp.status}: {text[:300]}"
                return out
            async for raw in resp.content:
                now = time.perf_counter()
                line = raw.strip()
                if not line.startswith(b"data:"):
                    continue
                data = line[5:].strip()
                if data == b"[DONE]":
                    break
                chunk = json.loads(data)
                if "error" in chunk:
                    out.error = str(chunk["error"].get("message", chunk["error"]))
                    return out
                if chunk.get("choices"):
                    out.chunk_times.append(now)
                if chunk.get("usage"):
                    out.output_tokens = int(chunk["usage"]["completion_tokens"])
            out.done = time.perf_counter()
    except (aiohttp.ClientError, OSError, asyncio.TimeoutError, json.JSONDecodeError) as e:
        out.error = f"{type(e).__name__}: {e}"
        return out
    if not out.output_tokens:  # a server without include_usage: one chunk per token
        out.output_tokens = len(out.chunk_times)
    return out


def summarize(
    outcomes: list[Outcome], elapsed: float, args: argparse.Namespace, url: str, model: str, work: workloads.Workload
) -> dict[str, Any]:
    ok = [o for o in outcomes if o.error is None and o.chunk_times]
    failed = [o for o in outcomes if o.error is not None or not o.chunk_times]
    timings = [
        metrics.RequestTiming(
            arrival=o.sent, token_times=o.chunk_times, prompt_tokens=o.prompt_tokens, num_output=o.output_tokens
        )
        for o in ok
    ]
    m = metrics.run_metrics(timings, elapsed, None) if ok else {}
    m.pop("peak_vram_gib", None)  # the server's memory is not visible from the client
    if ok:
        m["e2el_ms"] = metrics.summary(o.done - o.sent for o in ok)
        m["cdf_ms"]["e2el"] = metrics.cdf(o.done - o.sent for o in ok)
    return {
        "schema": SCHEMA,
        "created": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "base_url": url,
        "endpoint": args.endpoint,
        "model": model,
        "workload": work.describe(),
        "request_rate": "inf" if math.isinf(args.request_rate) else args.request_rate,
        "max_concurrency": args.max_concurrency,
        "num_prompts": len(outcomes),
        "completed": len(ok),
        "failed": len(failed),
        "errors": sorted({o.error or "no tokens" for o in failed})[:5],
        "duration_s": round(elapsed, 6),
        "metrics": m,
    }


def table(result: dict[str, Any]) -> str:
    """vLLM's result block: counts, throughput, then mean/median/p90/p99 of each latency."""
    m = result["metrics"]
    rows = [
        ("Successful requests:", result["completed"]),
        ("Failed requests:", result["failed"]),
        ("Request rate (req/s):", result["request_rate"]),
        ("Max concurrency:", result["max_concurrency"] or "none"),
        ("Benchmark duration (s):", f"{result['duration_s']:.2f}"),
    ]
    if m:
        rows += [
            ("Total input tokens:", m["prompt_tokens"]),
            ("Total generated tokens:", m["output_tokens"]),
            ("Request throughput (req/s):", f"{m['requests_per_s']:.2f}"),
            ("Output token throughput (tok/s):", f"{m['output_tok_per_s']:.2f}"),
            ("Total token throughput (tok/s):", f"{m['total_tok_per_s']:.2f}"),
        ]
    lines = ["{s:{c}^50}".format(s=" Serving Benchmark Result ", c="=")]
    lines += [f"{k:<40}{v:<10}" for k, v in rows]
    for key, title in (
        ("ttft_ms", "Time to First Token"),
        ("tpot_ms", "Time per Output Token (excl. 1st token)"),
        ("itl_ms", "Inter-token Latency"),
        ("e2el_ms", "End-to-end Latency"),
    ):
        s = m.get(key)
        if not s:
            continue
        name = key.split("_")[0].upper()
        lines.append("{s:{c}^50}".format(s=f" {title} ", c="-"))
        lines += [
            f"{f'Mean {name} (ms):':<40}{s['mean']:<10.2f}",
            f"{f'Median {name} (ms):':<40}{s['p50']:<10.2f}",
            f"{f'P90 {name} (ms):':<40}{s['p90']:<10.2f}",
            f"{f'P99 {name} (ms):':<40}{s['p99']:<10.2f}",
        ]
    for err in result["errors"]:
        lines.append(f"error: {err}")
    lines.append("=" * 50)
    return "\n".join(lines)


def save(result: dict[str, Any], args: argparse.Namespace) -> Path:
    name = args.result_filename or (
        f"serve-{result['workload']['name']}-{slug(result['model'])}-{datetime.now():%Y%m%d-%H%M%S}.json"
    )
    path = Path(args.result_dir) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    return path


class _Bar:
    """A rich progress bar on stderr, drawn only on a terminal."""

    def __init__(self, total: int, disabled: bool) -> None:
        self._bar = None
        if not disabled and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import Progress

            self._bar = Progress(console=Console(stderr=True), transient=True)
            self._task = self._bar.add_task("requests", total=total)
            self._bar.start()

    def advance(self) -> None:
        if self._bar is not None:
            self._bar.update(self._task, advance=1)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()

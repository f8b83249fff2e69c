"""`engine bench serve --output-dir DIR`: the serving runs as an evidence directory (result.json as
roadmap/evidence/schema.py validates it).

The server says what it runs (`GET /v1/engine`: model, engine settings, machine, commit, dirty, version); the client
adds the workload (with request_rate and max_concurrency), every run raw and their aggregate (metrics.aggregate, as
throughput does). No roofline: the hardware bound needs a probe of the server's device, which the client cannot run,
and a bound for Poisson arrivals or a concurrency cap would need a queueing model the roofline does not have.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.bench import evidence, metrics, workloads
from engine.bench.errors import BenchError
from engine.bench.result import assemble

DEFAULT_ROW = "ENG-SERVE"
SUBJECT_KIND = "serve"


async def fetch_engine(session: Any, url: str) -> dict[str, Any]:
    """The server's /v1/engine block, refused (with the fix) when it cannot back evidence."""
    import aiohttp

    try:
        async with session.get(url + "/v1/engine") as resp:
            status = resp.status
            data = await resp.json(content_type=None) if status == 200 else None
    except (aiohttp.ClientError, OSError, json.JSONDecodeError) as e:
        raise BenchError(
            f"cannot read {url}/v1/engine ({e}); is `engine serve` running there? pass --base-url or --host/--port"
        ) from None
    if status != 200 or not isinstance(data, dict) or not isinstance(data.get("engine"), dict):
        raise BenchError(
            f"{url}/v1/engine answered HTTP {status} without an engine block: --output-dir needs an "
            f"`engine serve` server, which says what it runs; drop --output-dir to only measure"
        )
    if not data.get("commit"):
        raise BenchError(
            f"the server at {url} was started without --commit, so evidence could not say which code "
            f"it measured; restart it with `engine serve ... --commit $(git rev-parse HEAD) --clean` "
            f"(or --dirty), or drop --output-dir"
        )
    return data


def workload_block(work: workloads.Workload, request_rate: float, max_concurrency: int | None) -> dict[str, Any]:
    return {
        **work.describe(),
        "request_rate": "inf" if math.isinf(request_rate) else request_rate,
        "max_concurrency": max_concurrency,
    }


def default_series(
    work: workloads.Workload, request_rate: float, max_concurrency: int | None, info: dict[str, Any]
) -> str:
    """serve-<workload>-<model>-r<rate>-c<concurrency>[-<device type>] (the device suffix off CUDA, as throughput)."""
    rate = "inf" if math.isinf(request_rate) else f"{request_rate:g}"
    device = str((info.get("machine") or {}).get("device") or "cuda").split(":")[0]
    suffix = "" if device == "cuda" else f"-{device}"
    return (
        f"serve-{workloads.slug(work)}-{evidence.slug(str(info['model']['name']))}-r{rate}"
        f"-c{max_concurrency or 'none'}{suffix}"
    )


@dataclass(frozen=True)
class Plan:
    """What an evidence run settles before its first request: the server's block, workload, series, directory."""

    info: dict[str, Any]
    work: workloads.Workload
    series: str
    created: datetime
    path: Path


def plan(args: Any, info: dict[str, Any]) -> Plan:
    """The directory is refused if taken before any request is sent."""
    work = workloads.build(
        args.dataset_name, args.num_prompts, args.random_input_len, args.random_output_len, args.seed
    )
    created = evidence.utc_now()
    series = args.series or default_series(work, args.request_rate, args.max_concurrency, info)
    return Plan(info, work, series, created, evidence.evidence_dir(Path(args.output_dir), created, series))


def check_runs(results: list[dict[str, Any]]) -> None:
    """Evidence is of complete runs only: a failed request would make its throughput a different workload's."""
    for i, r in enumerate(results):
        if r["failed"]:
            raise BenchError(
                f"run {i + 1}: {r['failed']} of {r['num_prompts']} requests failed "
                f"({'; '.join(r['errors'])}); no evidence written: fix the server or lower the load"
            )


def aggregate(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """metrics.aggregate, plus end-to-end latency (a serving figure throughput does not have) the same way."""
    agg = metrics.aggregate(runs)
    per_run = [r["e2el_ms"] for r in runs if r.get("e2el_ms")]
    agg["e2el_ms"] = {k: round(statistics.median(p[k] for p in per_run), 4) for k in per_run[0]} if per_run else None
    return agg


def build(
    *,
    info: dict[str, Any],
    results: list[dict[str, Any]],
    work: workloads.Workload,
    request_rate: float,
    max_concurrency: int | None,
    series: str,
    row: str,
    created: datetime,
    client_command: str,
    url: str,
    endpoint: str,
    model: str,
) -> dict[str, Any]:
    """result.json: the server's blocks as it reported them, the client's workload and runs."""
    runs = [
        {**r["metrics"], "duration_s": r["duration_s"], "completed": r["completed"], "failed": r["failed"]}
        for r in results
    ]
    server_command = info.get("command") or "engine serve ..."  # started other than by `engine serve`
    command = f"{server_command} &\n{client_command}"
    subject = {
        "kind": SUBJECT_KIND,
        "name": "engine",
        "version": info.get("version"),
        "complete": True,
        "base_url": url,
        "endpoint": endpoint,
        "served_model_name": model,
    }
    return assemble(
        series=series,
        row=row,
        created=created.isoformat().replace("+00:00", "Z"),
        commit=info["commit"],
        dirty=bool(info.get("dirty")),
        command=command,
        machine=info["machine"],
        model=info["model"],
        workload=workload_block(work, request_rate, max_concurrency),
        engine=info["engine"],
        runs=runs,
        metrics=aggregate(runs),
        roofline=None,
        peers=[],
        subject=subject,
    )

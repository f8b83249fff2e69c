"""Throughput and latency metrics from per-token timestamps (vLLM's definitions).

TTFT = first token time - arrival time, per request. TPOT = (last token - first token) / (tokens - 1), per request
with at least two tokens. ITL = every gap between consecutive tokens of a request, pooled over requests.
Percentiles interpolate linearly between order statistics (numpy's default). Times in, milliseconds out.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

PERCENTILES = (50, 90, 99)
CDF_POINTS = (0, 1, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 99, 100)
SPREAD_KEYS = ("output_tok_per_s", "elapsed_s")  # {median, min, max} over runs
MEDIAN_KEYS = ("total_tok_per_s", "requests_per_s")  # a number (the median over runs): roadmap/evidence/schema.py
LATENCY_KEYS = ("ttft_ms", "tpot_ms", "itl_ms")


@dataclass
class RequestTiming:
    arrival: float  # seconds, the same clock as token_times
    token_times: list[float] = field(default_factory=list)  # host arrival of every output token
    prompt_tokens: int = 0
    finished: bool = True  # False: cut short (a peer stopped at its timeout)
    num_output: int | None = None  # tokens produced, where no per-token stamps exist

    @property
    def output_tokens(self) -> int:
        return len(self.token_times) if self.num_output is None else self.num_output


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """q in [0, 100], linear interpolation between order statistics."""
    if not sorted_values:
        raise ValueError("quantile of no values")
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def summary(values: Iterable[float], scale: float = 1000.0) -> dict[str, float] | None:
    """{p50, p90, p99, mean} of values x scale (seconds -> ms by default); None when there are no values."""
    vals = sorted(v * scale for v in values)
    if not vals:
        return None
    out = {f"p{p}": round(quantile(vals, p), 4) for p in PERCENTILES}
    out["mean"] = round(sum(vals) / len(vals), 4)
    return out


def cdf(values: Iterable[float], scale: float = 1000.0) -> list[float] | None:
    """Quantiles at CDF_POINTS, kept per run so a plot can be redrawn from result.json alone."""
    vals = sorted(v * scale for v in values)
    return [round(quantile(vals, p), 4) for p in CDF_POINTS] if vals else None


def latency_samples(timings: Sequence[RequestTiming]) -> dict[str, list[float]]:
    """Seconds: ttft per request with a token, tpot per request with >= 2 tokens, every inter-token gap."""
    ttft, tpot, itl = [], [], []
    for t in timings:
        ts = t.token_times
        if ts:
            ttft.append(ts[0] - t.arrival)
        if len(ts) >= 2:
            tpot.append((ts[-1] - ts[0]) / (len(ts) - 1))
            itl.extend(b - a for a, b in zip(ts, ts[1:]))
    return {"ttft": ttft, "tpot": tpot, "itl": itl}


def run_metrics(timings: Sequence[RequestTiming], elapsed_s: float, peak_vram_bytes: int | None) -> dict[str, Any]:
    """One repetition: throughput over the wall time `elapsed_s`, latency distributions, peak device memory."""
    if elapsed_s <= 0:
        raise ValueError(f"elapsed_s must be > 0, got {elapsed_s}")
    prompt_tokens = sum(t.prompt_tokens for t in timings)
    output_tokens = sum(t.output_tokens for t in timings)
    completed = sum(1 for t in timings if t.finished)
    s = latency_samples(timings)
    return {
        "elapsed_s": round(elapsed_s, 6),
        "num_requests": len(timings),
        "completed_requests": completed,
        "prompt_tokens": prompt_tokens,
        "output_tokens": output_tokens,
        "output_tok_per_s": round(output_tokens / elapsed_s, 3),
        # prompt tokens count once a request got its first token (its prefill is done)
        "total_tok_per_s": round(
            (output_tokens + sum(t.prompt_tokens for t in timings if t.output_tokens)) / elapsed_s, 3
        ),
        "requests_per_s": round(completed / elapsed_s, 4),
        "ttft_ms": summary(s["ttft"]),
        "tpot_ms": summary(s["tpot"]),
        "itl_ms": summary(s["itl"]),
        "peak_vram_gib": None if peak_vram_bytes is None else round(peak_vram_bytes / 2**30, 3),
        "cdf_ms": {"points": list(CDF_POINTS), "ttft": cdf(s["ttft"]), "itl": cdf(s["itl"])},
    }


def spread(values: Sequence[float]) -> dict[str, float] | None:
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return {"median": round(statistics.median(vals), 4), "min": round(min(vals), 4), "max": round(max(vals), 4)}


def aggregate(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The `metrics` block: median/min/max of output tok/s and elapsed time over runs, the median of total tok/s
    and requests/s; each latency percentile is the median over runs of that percentile; peak VRAM is the largest
    of any run."""
    if not runs:
        raise ValueError("no runs to aggregate")
    out: dict[str, Any] = {k: spread([r[k] for r in runs]) for k in SPREAD_KEYS}
    out.update({k: round(statistics.median(r[k] for r in runs), 4) for k in MEDIAN_KEYS})
    for key in LATENCY_KEYS:
        per_run = [r[key] for r in runs if r.get(key)]
        out[key] = (
            {stat: round(statistics.median(p[stat] for p in per_run), 4) for stat in per_run[0]} if per_run else None
        )
    vram = [r["peak_vram_gib"] for r in runs if r.get("peak_vram_gib") is not None]
    out["peak_vram_gib"] = max(vram) if vram else None
    out["num_runs"] = len(runs)
    return out

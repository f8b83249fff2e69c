"""Metrics from synthetic per-token timestamps, every figure worked out by hand below."""

from __future__ import annotations

import pytest

from engine.bench.metrics import RequestTiming, aggregate, quantile, run_metrics

# Three requests (seconds). A: TTFT 100 ms, gaps 10/20/30 ms. B: TTFT 200 ms, gap 40 ms. C: arrives at 50 ms,
# one token at 350 ms: TTFT 300 ms, no gap.
TIMINGS = [
    RequestTiming(arrival=0.0, token_times=[0.100, 0.110, 0.130, 0.160], prompt_tokens=10),
    RequestTiming(arrival=0.0, token_times=[0.200, 0.240], prompt_tokens=20),
    RequestTiming(arrival=0.05, token_times=[0.350], prompt_tokens=30),
]


def test_quantile_interpolates_linearly() -> None:
    assert quantile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert quantile([10.0], 99) == 10.0
    assert quantile([0.0, 10.0], 90) == pytest.approx(9.0)


def test_run_metrics_by_hand() -> None:
    m = run_metrics(TIMINGS, elapsed_s=0.5, peak_vram_bytes=3 * 2**30)
    assert m["output_tokens"] == 7 and m["prompt_tokens"] == 60
    assert m["output_tok_per_s"] == pytest.approx(14.0)  # 7 / 0.5
    assert m["total_tok_per_s"] == pytest.approx(134.0)  # (7 + 60) / 0.5
    assert m["requests_per_s"] == pytest.approx(6.0)  # 3 / 0.5
    # TTFT [100, 200, 300]: p50 200; p90 at rank 1.8 -> 280; p99 at 1.98 -> 298
    assert m["ttft_ms"] == pytest.approx({"p50": 200.0, "p90": 280.0, "p99": 298.0, "mean": 200.0})
    # ITL [10, 20, 30, 40]: p50 at rank 1.5 -> 25; p90 at 2.7 -> 37; p99 at 2.97 -> 39.7
    assert m["itl_ms"] == pytest.approx({"p50": 25.0, "p90": 37.0, "p99": 39.7, "mean": 25.0})
    # TPOT A = 60 ms / 3 = 20, B = 40: p50 30; p90 38; p99 39.8
    assert m["tpot_ms"] == pytest.approx({"p50": 30.0, "p90": 38.0, "p99": 39.8, "mean": 30.0})
    assert m["peak_vram_gib"] == 3.0
    assert m["cdf_ms"]["ttft"][0] == pytest.approx(100.0) and m["cdf_ms"]["ttft"][-1] == pytest.approx(300.0)


def test_cut_short_requests_count_tokens_not_completions() -> None:
    timings = [RequestTiming(0.0, [0.1, 0.2], 5), RequestTiming(0.0, [], 5, finished=False, num_output=3)]
    m = run_metrics(timings, elapsed_s=1.0, peak_vram_bytes=None)
    assert m["output_tokens"] == 5 and m["completed_requests"] == 1 and m["requests_per_s"] == 1.0
    assert m["peak_vram_gib"] is None


def test_aggregate_keeps_spread_and_medians() -> None:
    runs = [run_metrics(TIMINGS, e, None) for e in (0.07, 0.035, 0.0175)]  # 100, 200, 400 tok/s
    agg = aggregate(runs)
    assert agg["output_tok_per_s"] == pytest.approx({"median": 200.0, "min": 100.0, "max": 400.0})
    assert agg["total_tok_per_s"] == pytest.approx(67 / 0.035, rel=1e-4)
    assert agg["ttft_ms"]["p50"] == pytest.approx(200.0) and agg["num_runs"] == 3
    assert agg["peak_vram_gib"] is None

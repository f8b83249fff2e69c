"""A percentage is compared with another of the same row only when both are shares of the same thing or changes
of the same kind: "0.9% (0.6B) and 0.7% (4B) slower" is a slowdown, not a share of the bound that a newer
canonical row quotes ("75.7% of its bound"); what stands between a figure and its word (a parenthesis, a chained
"and 0.7%") is skipped."""

from __future__ import annotations

from roadmap.analysis.supersession import _referent, _same_referent
from roadmap.records.figures import find_figures


def _pct(text: str) -> list[tuple[str, str | None]]:
    return [(f.text, _referent(text, f)) for f in find_figures(text) if f.unit == "%"]


def test_what_a_percentage_is_of() -> None:
    assert _pct("the nano workload ran 0.9% (0.6B) and 0.7% (4B) slower with it") == [
        ("0.9%", "slower"),
        ("0.7%", "slower"),
    ]
    assert _pct("26,335 tok/s for Qwen3-0.6B (75.7% of its bound; target 27,000)") == [("75.7%", "bound")]
    assert _pct("the GPU 97% busy") == [("97%", "busy")]
    assert _pct("hit rate 41%") == [("41%", None)]  # says not of what


def test_a_slowdown_and_a_share_are_not_one_measure() -> None:
    a, b = "ran 0.9% (0.6B) slower with it", "makes 26,335 tok/s (75.7% of its bound)"
    fa = next(f for f in find_figures(a) if f.unit == "%")
    fb = next(f for f in find_figures(b) if f.unit == "%")
    assert not _same_referent(a, fa, b, fb)
    c = "now 71.2% of the bound"
    fc = next(f for f in find_figures(c) if f.unit == "%")
    assert _same_referent(c, fc, b, fb)

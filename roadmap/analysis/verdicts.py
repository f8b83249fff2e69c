"""PASS/FAIL verdicts and the bars they are judged against: "compress >= 450 MB/s: PASS" with 438.0 MB/s
measured, "340 ms against its 300 ms budget: PASS", "1.0283x FAIL against parity".

The measurement is the one figure of the bar's unit the same sentence (or table row) quotes as current, else the
one headline figure of the bar's metric in the evidence it cites.
"""

from __future__ import annotations

import re
from typing import Sequence

from roadmap.analysis.evidence_figures import EvidenceFigure
from roadmap.analysis.figure_quotes import Quote
from roadmap.analysis.metric_terms import Metric, matches, same_dimension, scale, without, words_of

VERDICT = re.compile(r"\b(PASS(?:ED|ES)?|FAIL(?:ED|S)?)\b")
_PARITY = re.compile(r"\bparity\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[A-Z(`*\d-])")


def verdict_problem(text: str, qs: Sequence[Quote], evidence: Sequence[EvidenceFigure], offset: int = 0) -> str | None:
    """What is wrong with a PASS/FAIL `text` states for the figures `qs` it quotes (their `fig.start` counted
    from `offset` before `text`), or None. In prose each sentence is judged alone: its verdict, its bars, its
    measurement; a table row (cells joined by " | ") is one sentence."""
    if VERDICT.search(text) is None:
        return None
    if " | " not in text:
        for a, b in _sentences(text):
            inside = [q for q in qs if a <= q.fig.start - offset < b]
            found = _judge(text[a:b], inside, evidence)
            if found:
                return found
        return None
    return _judge(text, qs, evidence)


def _sentences(text: str) -> list[tuple[int, int]]:
    out, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        out.append((start, m.start()))
        start = m.end()
    return out + [(start, len(text))]


def _judge(text: str, qs: Sequence[Quote], evidence: Sequence[EvidenceFigure]) -> str | None:
    m = VERDICT.search(text)
    if m is None:
        return None
    says_pass = m.group(1).upper().startswith("PASS")
    bars: list[tuple[float, str | None, str, str, Quote | None]] = [
        (q.fig.value, q.unit, q.bar, q.fig.text, q) for q in qs if q.role == "bar" and q.bar
    ]
    ratios = [q for q in qs if q.role in ("current", "dated") and q.unit == "x"]
    if not bars and len(ratios) == 1 and _PARITY.search(text):
        bars = [(1.0, "x", "min", "1x", None)]
    for value, unit, direction, written, bar in bars:
        measured = _measured(qs, evidence, unit, bar)
        if measured is None:
            continue
        got, got_text = measured
        _, a = scale(unit)
        passed = got >= value if direction == "min" else got <= value
        if passed == says_pass:
            continue
        where = "at or above" if got >= value else "below"
        if direction == "max":
            where = "at or under" if got <= value else "over"
        bar_text = (
            written if written.endswith(("x", "%")) or unit is None or written.endswith(unit) else f"{written} {unit}"
        )
        return f"says {m.group(1)} but {got_text} is {where} the {bar_text.strip()} bar"
    return None


def _measured(
    qs: Sequence[Quote], evidence: Sequence[EvidenceFigure], unit: str | None, bar: Quote | None
) -> tuple[float, str] | None:
    """(value in the bar's unit, as written) of the one measurement the verdict is about, or None."""
    mine = [
        q
        for q in qs
        if q.role in ("current", "dated")
        and same_dimension(q.unit, unit)
        and (bar is None or not (bar.metric.known and q.metric.known) or matches(bar.metric, q.metric) >= 1)
    ]
    if len(mine) == 1:
        q = mine[0]
        return q.fig.value * scale(q.unit)[1] / scale(unit)[1], _written(q.fig.text, q.unit)
    if mine or bar is None or not (bar.metric.known or bar.metric.stat):
        return None
    ignore = frozenset(w for k in bar.keys for w in words_of(k))
    pool = [
        f
        for f in evidence
        if f.headline and same_dimension(f.unit, unit) and _same(bar.metric, without(f.metric, ignore))
    ]
    values = {round(f.value * scale(f.unit)[1], 9) for f in pool}
    if len(values) != 1:
        return None
    f = pool[0]
    return f.value * scale(f.unit)[1] / scale(unit)[1], _written(f.text or f"{f.value:g}", f.unit)


def _same(a: Metric, b: Metric) -> bool:
    """One metric: the same words (or a part or an abbreviation of them), or no words and one statistic (p99)."""
    if a.known or b.known:
        return matches(a, b) >= 1
    return a.stat is not None and a.stat == b.stat


def _written(text: str, unit: str | None) -> str:
    if unit is None or text.rstrip().endswith(unit):
        return text
    return f"{text}{unit}" if unit == "x" else f"{text} {unit}"

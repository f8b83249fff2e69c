"""Figures a record calls replaced, and the lines that still quote them as current (RL201's `marked` kind): struck
through (`~~0.9864x~~ 1.0283x`), "X, superseded by Y", "previously X", "the 95.37 % attribution is STALE". Also
which current lines echo a stale figure without naming a series (related locations of its finding)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from roadmap.analysis.figure_quotes import Quote
from roadmap.analysis.figure_stale import Dates, Stale, significant, units_agree, with_unit
from roadmap.analysis.figures_compare import close_scaled, decimals, explicitly_old
from roadmap.analysis.metric_terms import Metric, matches, same_dimension, words_of
from roadmap.records.figures import single_figure
from roadmap.records.model import Figure, Statement

if TYPE_CHECKING:
    from roadmap.analysis.context import LintContext

_STRUCK = re.compile(r"~~(.+?)~~", re.S)
_REPLACED_BY = re.compile(r"\b(?:superseded|replaced) by\b", re.I)


@dataclass(frozen=True)
class _Mark:
    st: Statement
    value: float
    text: str
    unit: str | None
    keys: frozenset[str]  # the series keys of the statement that calls it replaced
    new: tuple[tuple[float, str], ...]  # the figures it names in its place


def _marks(qs: list[Quote]) -> list[_Mark]:
    """Figures a statement calls replaced: struck through (`~~0.9864x~~ 1.0283x`), "X, superseded by Y",
    "previously X"; with the figures that replaced them when the statement names them."""
    out: list[_Mark] = []
    by_st: dict[int, list[Quote]] = {}
    for q in qs:
        by_st.setdefault(id(q.st), []).append(q)
    for group in by_st.values():
        st = group[0].st
        keys = frozenset(k for q in group for k in q.keys)
        live = [q for q in group if q.role != "bar"]
        replaced_at = [m.start() for m in _REPLACED_BY.finditer(st.text)]
        for q in live:
            after = [p for p in replaced_at if p > q.fig.start]
            named_new = [o for o in live if after and o.fig.start > after[0] and units_agree(q.unit, o.unit)]
            before_phrase = bool(after and named_new and not _REPLACED_BY.search(st.text[: q.fig.start][-30:]))
            if q.unit is not None and (explicitly_old(st.text, q.fig) or before_phrase):
                new = tuple((o.fig.value, with_unit(o.fig.text, o.unit)) for o in named_new[:2])
                out.append(_Mark(st, q.fig.value, q.fig.text, q.unit, keys, new))
        for m in _STRUCK.finditer(st.raw if "~~" in st.raw else ""):
            fig = single_figure(m.group(1)) or _last_figure(m.group(1))
            if fig is not None and fig.unit is not None:
                new = tuple(
                    (o.fig.value, with_unit(o.fig.text, o.unit))
                    for o in live
                    if o.role == "current" and units_agree(fig.unit, o.unit)
                )
                out.append(_Mark(st, fig.value, fig.text, fig.unit, keys, new[:2]))
    return out


def _last_figure(text: str) -> Figure | None:
    for token in reversed(text.split()):
        fig = single_figure(token.strip(".,;:()"))
        if fig is not None:
            return fig
    return None


def echoes(stale: Stale, q: Quote) -> bool:
    """Does current quote `q` repeat the stale figure, with nothing saying it is of another series or metric
    ("The forest p99 of 21.7 ms is driven by foliage" beside the forest row's stale 21.7 ms)?"""
    old = stale.quote
    if q.unit is None or not same_dimension(q.unit, old.unit) or not significant(q.fig.text):
        return False
    if decimals(q.fig.text) != decimals(old.fig.text) or not close_scaled(
        q.fig.value, q.fig.text, q.unit, old.fig.value, old.unit, old.fig.text
    ):
        return False
    if q.names and not q.names & old.names or q.row and old.row and q.row != old.row:
        return False
    if q.metric.stat != old.metric.stat:
        return False
    own = q.metric.terms - {w for k in old.keys for w in words_of(k)}  # "the forest p99": forest is the series
    return not (own and old.metric.known) or matches(Metric(own, q.metric.words, q.metric.stat), old.metric) >= 1


def by_marks(ctx: "LintContext", current: list[Quote], qs: list[Quote], dates: Dates) -> Iterable[Stale]:
    """A current quote of a figure that a record, no older than the quote, calls replaced: in the same row, for
    the same series, or (the same precise figure and unit) elsewhere in the same file."""
    marks = _marks(qs)
    if not marks:
        return
    for q in current:
        if q.unit is None:
            continue
        for m in marks:
            if m.st is q.st or not units_agree(q.unit, m.unit):
                continue
            row = m.st.row_id or m.st.defines
            same_row = bool(row and row == q.row)
            same_series = not same_row and bool(m.keys & q.keys)
            same_file = (
                m.st.path == q.st.path
                and significant(q.fig.text)
                and significant(m.text)
                and not (row and q.row and row != q.row)
            )
            if not (same_row or same_series or same_file):
                continue
            if decimals(q.fig.text) != decimals(m.text) or not close_scaled(
                q.fig.value, q.fig.text, q.unit, m.value, m.unit, m.text
            ):
                continue  # the same figure, written the same way: 2.65x is not "3x"
            if m.new and any(close_scaled(q.fig.value, q.fig.text, q.unit, v, m.unit) for v, _ in m.new):
                continue
            qd, md = dates.of(q.st), dates.of(m.st)
            if not (qd and md) or md < qd:
                continue
            said = f"{m.st.path}:{m.st.line} ({md}) calls {with_unit(m.text, m.unit)} replaced"
            yield Stale(
                q,
                qd,
                list(m.new),
                said,
                "marked",
                {"kind": "statement", "path": m.st.path, "line": m.st.line, "date": md, "text": m.st.text[:200]},
                strong=same_row or bool(m.keys & q.names),
            )
            break

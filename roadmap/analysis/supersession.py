"""Which current figure quotes a newer figure for the same series and metric replaced (RL201), and by what.

Four kinds of newer figure, like compared with like (same series, same metric, units converted):
- `evidence`: a newer evidence entry of the quote's series holds a figure of its metric;
- `record`: a newer record statement (its as-of date, else git blame) quotes a figure of the same series key
  and the same metric (not an abbreviation away from it: "RTF" and "real-time factor" count, "latency" and
  "p95 first-partial latency" do not);
- `canonical`: the row's statement in the canonical-state file, written after the quote, quotes other figures of
  the same unit for the row (the seed's row 2a);
- `marked`: a record calls the quoted figure itself replaced (struck through, "superseded by", "previously")
  while the quote, no newer than it, still presents it as current.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from roadmap.analysis.asof import news_for
from roadmap.analysis.evidence_figures import EvidenceFigure
from roadmap.analysis.evidence_index import cited_with_row, evidence_figures, quotes
from roadmap.analysis.figure_quotes import Quote
from roadmap.analysis.figures_compare import close_scaled, comparable, decimals, explicitly_old
from roadmap.analysis.metric_terms import Metric, matches, same_dimension, without, words_of
from roadmap.config import glob_match
from roadmap.records.figures import single_figure
from roadmap.records.model import Figure, Statement

if TYPE_CHECKING:
    from roadmap.analysis.context import LintContext
    from roadmap.evidence.store import EvidenceEntry

_QUALS = ("output", "total", "prefill", "decode", "input", "peak")
_SIDES = frozenset({"peer", "ours", "baseline", "reference", "upstream"})
_STRUCK = re.compile(r"~~(.+?)~~", re.S)
_REPLACED_BY = re.compile(r"\b(?:superseded|replaced) by\b", re.I)


@dataclass
class Stale:
    quote: Quote
    date: str                                  # the quote's as-of date
    new: list[tuple[float, str]]               # the newer figures: (value, text as written with its unit)
    source: str                                # "newer evidence 20260410-silesia-l3 (2026-04-10)"
    kind: str                                  # "evidence" | "record" | "canonical" | "marked"
    evidence: dict[str, Any] = field(default_factory=dict)
    strong: bool = True                        # False: matched on a table key alone (a warning)


def stale_quotes(ctx: "LintContext") -> list[Stale]:
    qs = quotes(ctx)
    current = [q for q in qs if q.role == "current" and (q.unit is not None or q.metric.known)]
    dates = _Dates(ctx)
    found: dict[int, Stale] = {}
    for finder in (_by_evidence, _by_canonical, _by_marks, _by_records):
        for s in finder(ctx, current, qs, dates):
            found.setdefault(id(s.quote), s)    # the first kind that finds a quote stale explains it
    return list(found.values())


class _Dates:
    """Each statement's as-of date, on first use (blame is the expensive part)."""

    def __init__(self, ctx: "LintContext"):
        self.ctx = ctx
        self.cache: dict[int, str | None] = {}

    def of(self, st: Statement) -> str | None:
        if id(st) not in self.cache:
            self.cache[id(st)] = news_for(self.ctx, st).date
        return self.cache[id(st)]


def with_unit(text: str, unit: str | None) -> str:
    """A figure as a person writes it: `412.6 MB/s`, `1.0283x`, `8.4 %`."""
    if unit is None or re.search(r"[A-Za-z%×µ]", text):
        return text                        # written with its unit already: "1730 img/s", "0.98×", "8.4 %"
    return f"{text}{unit}" if unit == "x" else f"{text} {unit}"


def _units_agree(a: str | None, b: str | None) -> bool:
    return same_dimension(a, b) or {a, b} == {None, "x"}


# --- newer evidence -------------------------------------------------------------------------------------------

def _by_evidence(ctx: "LintContext", current: list[Quote], _all: list[Quote], dates: _Dates) -> Iterable[Stale]:
    store = ctx.get_evidence()
    by_series: dict[str, list["EvidenceEntry"]] = {}
    for e in store:
        if e.date:
            by_series.setdefault(e.series.lower(), []).append(e)
    for q in current:
        pool = sorted({e.path: e for n in q.names for e in by_series.get(n, ())}.values(), key=lambda e: e.date or "")
        if not pool:
            continue
        date = dates.of(q.st)
        if not date:
            continue
        # Written from a run it cites: a newer run of that series replaced it, even one older than the text
        # (stale on arrival: the record was written after the newer run, from the old one).
        own = [e.date for e in cited_with_row(ctx, q.st) if e.date and e.series.lower() in q.names]
        since = min(date, max(own)) if own else date
        cited = [e for e in pool if e.date and e.date <= since and e.declared]
        for e in reversed([e for e in pool if e.date and e.date > since]):
            if cited and _profile(e) != _profile(cited[-1]):
                continue                       # another machine, model, workload or kind under the same name
            same = _evidence_match(q, evidence_figures(ctx, e))
            if not same:
                continue
            if not any(close_scaled(q.fig.value, q.fig.text, q.unit, f.value, f.unit, f.text) for f in same):
                new = [(f.value, with_unit(f.text or f"{f.value:g}", f.unit or q.unit)) for f in same]
                late = "" if (e.date or "") > date else f", before this was written on {date}"
                yield Stale(q, date, new, f"newer evidence {e.name} ({e.date}{late})", "evidence",
                            {"kind": "evidence", "path": e.path, "date": e.date})
            break


def _profile(e: "EvidenceEntry") -> tuple[str, ...]:
    """What one of our results measured besides its series: machine class, model, weights, workload, kind.
    Another team's evidence says nothing of the kind: its name is all there is."""
    raw = e.raw or {}
    if not e.declared:
        return ()

    def field(block: str, key: str) -> str:
        value = raw.get(block)
        return str(value.get(key) or "") if isinstance(value, dict) else ""

    gpu = field("machine", "gpu") or "cpu"
    return (gpu.lower(), field("model", "name").lower(), field("model", "load_format"), field("workload", "name"),
            e.series.split("-", 1)[0])


def _evidence_match(q: Quote, figs: list[EvidenceFigure]) -> list[EvidenceFigure]:
    """The entry's headline figures of the quote's metric (the best-agreeing metric only), or, for a quote whose
    metric is unnamed, the entry's figures of its unit when they are all of one metric."""
    pool = [f for f in figs if f.headline and _units_agree(q.unit, f.unit) and f.metric.stat == q.metric.stat]
    ignore = series_words(q)
    if q.metric.known:
        scored = [(matches(q.metric, without(f.metric, ignore)), f) for f in pool]
        best = max((s for s, _ in scored), default=0)
        if best == 0:
            return []
        picked = [f for s, f in scored if s == best]
        metrics = {f.metric.terms - _SIDES for f in picked}
        return picked if len(metrics) == 1 else []
    if q.unit is None:
        return []
    metrics = {f.metric.terms - _SIDES - ignore for f in pool}
    return pool if len(metrics) == 1 else []


def series_words(q: Quote) -> frozenset[str]:
    """The words of the series a quote is of: in its evidence's keys they name the series, not the metric."""
    return frozenset(w for k in q.keys for w in words_of(k))


# --- the canonical row ---------------------------------------------------------------------------------------

def _canonical_file(ctx: "LintContext", path: str) -> bool:
    return any(glob_match(g, path) for g in ctx.config.canonical_states)


def _quals(fig: Figure) -> set[str]:
    return {w for w in (fig.metric or "").split() if w in _QUALS}


def _by_canonical(ctx: "LintContext", current: list[Quote], qs: list[Quote], dates: _Dates) -> Iterable[Stale]:
    canon: dict[str, list[Statement]] = {}
    for st in ctx.statements():
        if _canonical_file(ctx, st.path) and not st.historical and st.mentions.figures and st.row_id:
            canon.setdefault(st.row_id, []).append(st)
    for q in current:
        if not q.row or q.row not in canon or q.unit is None:
            continue
        date = dates.of(q.st)
        newer = [(d, t) for t in canon[q.row] if t is not q.st and (d := dates.of(t)) and date and d > date]
        if not newer:
            continue
        d, t = max(newer, key=lambda x: (x[0], x[1].line))
        peers = [n for n in t.mentions.figures if comparable(q.fig, n)
                 and not (_quals(q.fig) and _quals(n) and _quals(q.fig) != _quals(n))
                 and not explicitly_old(t.text, n)]
        if peers and not any(close_scaled(q.fig.value, q.fig.text, q.unit, n.value, n.unit, n.text) for n in peers):
            new = [(n.value, with_unit(n.text, n.unit)) for n in peers]
            yield Stale(q, date or "", new, f"{_row_label(ctx, t)} ({t.path}:{t.line}, {d})", "canonical",
                        {"kind": "statement", "path": t.path, "line": t.line, "date": d, "text": t.text[:200]})


def _row_label(ctx: "LintContext", t: Statement) -> str:
    """'row 2a' when the canonical table numbers its rows in a '#' column, else the row id."""
    rf = ctx.record(t.path)
    for table in rf.tables if rf else []:
        if table.line <= t.line <= table.end_line and table.headers and table.headers[0].strip() in ("#", "No", "No."):
            for cells in table.rows:
                if cells and cells[0].line == t.line and cells[0].text.strip():
                    return f"row {cells[0].text.strip()}"
    return t.row_id or "the canonical row"


# --- a record that calls the figure replaced -----------------------------------------------------------------

@dataclass(frozen=True)
class _Mark:
    st: Statement
    value: float
    text: str
    unit: str | None
    keys: frozenset[str]                       # the series keys of the statement that calls it replaced
    new: tuple[tuple[float, str], ...]         # the figures it names in its place


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
            named_new = [o for o in live if after and o.fig.start > after[0] and _units_agree(q.unit, o.unit)]
            before_phrase = bool(after and named_new and not _REPLACED_BY.search(st.text[:q.fig.start][-30:]))
            if q.unit is not None and (explicitly_old(st.text, q.fig) or before_phrase):
                new = tuple((o.fig.value, with_unit(o.fig.text, o.unit)) for o in named_new[:2])
                out.append(_Mark(st, q.fig.value, q.fig.text, q.unit, keys, new))
        for m in _STRUCK.finditer(st.raw if "~~" in st.raw else ""):
            fig = single_figure(m.group(1)) or _last_figure(m.group(1))
            if fig is not None and fig.unit is not None:
                new = tuple((o.fig.value, with_unit(o.fig.text, o.unit)) for o in live
                            if o.role == "current" and _units_agree(fig.unit, o.unit))
                out.append(_Mark(st, fig.value, fig.text, fig.unit, keys, new[:2]))
    return out


def _last_figure(text: str) -> Figure | None:
    for token in reversed(text.split()):
        fig = single_figure(token.strip(".,;:()"))
        if fig is not None:
            return fig
    return None


def significant(text: str) -> bool:
    """A figure precise enough that the same value elsewhere is the same figure: three digits or more."""
    return sum(ch.isdigit() for ch in text.lstrip("0.,")) >= 3


def echoes(stale: Stale, q: Quote) -> bool:
    """Does current quote `q` repeat the stale figure, with nothing saying it is of another series or metric
    ("The forest p99 of 21.7 ms is driven by foliage" beside the forest row's stale 21.7 ms)?"""
    old = stale.quote
    if q.unit is None or not same_dimension(q.unit, old.unit) or not significant(q.fig.text):
        return False
    if decimals(q.fig.text) != decimals(old.fig.text) or not close_scaled(
            q.fig.value, q.fig.text, q.unit, old.fig.value, old.unit, old.fig.text):
        return False
    if q.names and not q.names & old.names or q.row and old.row and q.row != old.row:
        return False
    if q.metric.stat != old.metric.stat:
        return False
    own = q.metric.terms - {w for k in old.keys for w in words_of(k)}    # "the forest p99": forest is the series
    return not (own and old.metric.known) or matches(Metric(own, q.metric.words, q.metric.stat), old.metric) >= 1


def _by_marks(ctx: "LintContext", current: list[Quote], qs: list[Quote], dates: _Dates) -> Iterable[Stale]:
    """A current quote of a figure that a record, no older than the quote, calls replaced: in the same row, for
    the same series, or (the same precise figure and unit) elsewhere in the same file."""
    marks = _marks(qs)
    if not marks:
        return
    for q in current:
        if q.unit is None:
            continue
        for m in marks:
            if m.st is q.st or not _units_agree(q.unit, m.unit):
                continue
            row = m.st.row_id or m.st.defines
            same_row = bool(row and row == q.row)
            same_series = not same_row and bool(m.keys & q.keys)
            same_file = m.st.path == q.st.path and significant(q.fig.text) and significant(m.text) \
                and not (row and q.row and row != q.row)
            if not (same_row or same_series or same_file):
                continue
            if decimals(q.fig.text) != decimals(m.text) or not close_scaled(
                    q.fig.value, q.fig.text, q.unit, m.value, m.unit, m.text):
                continue                       # the same figure, written the same way: 2.65x is not "3x"
            if m.new and any(close_scaled(q.fig.value, q.fig.text, q.unit, v, m.unit) for v, _ in m.new):
                continue
            qd, md = dates.of(q.st), dates.of(m.st)
            if not (qd and md) or md < qd:
                continue
            said = f"{m.st.path}:{m.st.line} ({md}) calls {with_unit(m.text, m.unit)} replaced"
            yield Stale(q, qd, list(m.new), said, "marked",
                        {"kind": "statement", "path": m.st.path, "line": m.st.line, "date": md,
                         "text": m.st.text[:200]}, strong=same_row or bool(m.keys & q.names))
            break


# --- a newer record statement --------------------------------------------------------------------------------

def _distinctive_key(key: str) -> bool:
    """A table key two tables can share for one series: with a digit or a hyphen, or of two words or more."""
    return any(ch.isdigit() or ch == "-" for ch in key) or len(words_of(key)) >= 2


def _same_metric(a: Quote, b: Quote) -> bool:
    """The same words, or one's abbreviation; or, between two table cells with a unit and no metric words of
    their own ("p99 (ms)" over two series rows), the same unit and statistic."""
    if a.metric.known or b.metric.known:
        return matches(a.metric, b.metric) >= 2
    return (a.st.kind == b.st.kind == "cell" and a.unit is not None and same_dimension(a.unit, b.unit)
            and a.metric.stat == b.metric.stat)


def _by_records(ctx: "LintContext", current: list[Quote], qs: list[Quote], dates: _Dates) -> Iterable[Stale]:
    groups: dict[str, list[Quote]] = {}
    for q in qs:
        if q.role in ("current", "dated") and (q.metric.known or q.st.kind == "cell"):
            for k in q.keys:
                if _distinctive_key(k):
                    groups.setdefault(k, []).append(q)
    for q in current:
        if not (q.metric.known or q.st.kind == "cell"):
            continue
        rivals = {id(o): o for k in q.keys for o in groups.get(k, ())
                  if (o.st.path, o.st.line) != (q.st.path, q.st.line)   # another column of one row is another metric
                  and (o.row == q.row or not (o.row and q.row)) and _units_agree(q.unit, o.unit)
                  and _same_metric(q, o)}
        if not rivals:
            continue
        date = dates.of(q.st)
        if not date:
            continue
        newer = [(d, o) for o in rivals.values() if (d := dates.of(o.st)) and d > date]
        if not newer:
            continue
        top = max(d for d, _ in newer)
        latest = [o for d, o in newer if d == top]
        if any(close_scaled(q.fig.value, q.fig.text, q.unit, o.fig.value, o.unit, o.fig.text) for o in latest):
            continue
        t = latest[0].st
        new = [(o.fig.value, with_unit(o.fig.text, o.unit)) for o in latest]
        strong = bool(q.names & latest[0].names)
        yield Stale(q, date, new, f"{t.path}:{t.line} ({top})", "record",
                    {"kind": "statement", "path": t.path, "line": t.line, "date": top, "text": t.text[:200]},
                    strong=strong)

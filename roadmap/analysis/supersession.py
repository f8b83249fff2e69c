"""Which current figure quotes a newer figure for the same series and metric replaced (RL201), and by what.

Four kinds of newer figure, like compared with like (same series, same metric, units converted):
- `evidence`: a newer evidence entry of the quote's series holds a figure of its metric;
- `record`: a newer record statement (its as-of date, else git blame) quotes a figure of the same series key
  and the same metric (not an abbreviation away from it: "RTF" and "real-time factor" count, "latency" and
  "p95 first-partial latency" do not);
- `canonical`: the row's statement in the canonical-state file, written after the quote, quotes other figures of
  the same unit for the row (the seed's row 2a);
- `marked`: a record calls the quoted figure itself replaced (struck through, "superseded by", "previously")
  while the quote, no newer than it, still presents it as current;
- `best`: the quote calls its figure the best so far and a later measurement of the same metric, anywhere in the
  records (a dated log entry too), beats it (analysis/best_claims.py).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable

from roadmap.analysis.best_claims import better, claimed_metric, same_compounds, same_measure
from roadmap.analysis.evidence_figures import EvidenceFigure
from roadmap.analysis.evidence_index import cited_with_row, evidence_figures, quotes
from roadmap.analysis.figure_marks import by_marks
from roadmap.analysis.figure_quotes import Quote, dated_entry
from roadmap.analysis.figure_stale import Dates, Stale, units_agree, with_unit
from roadmap.analysis.figures_compare import close_scaled, comparable, explicitly_old
from roadmap.analysis.metric_terms import SIDES, matches, same_dimension, without, words_of
from roadmap.config import glob_match
from roadmap.records.model import Figure, Statement

if TYPE_CHECKING:
    from roadmap.analysis.context import LintContext
    from roadmap.evidence.store import EvidenceEntry

_QUALS = ("output", "total", "prefill", "decode", "input", "peak")


def stale_quotes(ctx: "LintContext") -> list[Stale]:
    qs = quotes(ctx)
    current = [q for q in qs if q.role == "current" and (q.unit is not None or q.metric.known)]
    dates = Dates(ctx)
    found: dict[int, Stale] = {}
    for finder in (_by_evidence, _by_canonical, by_marks, _by_records, _by_best):
        for s in finder(ctx, current, qs, dates):
            found.setdefault(id(s.quote), s)  # the first kind that finds a quote stale explains it
    return list(found.values())


# --- newer evidence -------------------------------------------------------------------------------------------


def _by_evidence(ctx: "LintContext", current: list[Quote], _all: list[Quote], dates: Dates) -> Iterable[Stale]:
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
        before = {e.series: e for e in pool if e.date and e.date <= since and e.declared}  # the last, per series
        for e in reversed([e for e in pool if e.date and e.date > since]):
            if e.series in before and _profile(e) != _profile(before[e.series]):
                continue  # another machine, model, workload or kind under the same name
            same = _evidence_match(q, evidence_figures(ctx, e))
            if not same:
                continue
            if not any(close_scaled(q.fig.value, q.fig.text, q.unit, f.value, f.unit, f.text) for f in same):
                new = [(f.value, with_unit(f.text or f"{f.value:g}", f.unit or q.unit)) for f in same]
                late = "" if (e.date or "") > date else f", before this was written on {date}"
                yield Stale(
                    q,
                    date,
                    new,
                    f"newer evidence {e.name} ({e.date}{late})",
                    "evidence",
                    {"kind": "evidence", "path": e.path, "date": e.date},
                )
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
    return (
        gpu.lower(),
        field("model", "name").lower(),
        field("model", "load_format"),
        field("workload", "name"),
        e.series.split("-", 1)[0],
    )


def _evidence_match(q: Quote, figs: list[EvidenceFigure]) -> list[EvidenceFigure]:
    """The entry's headline figures of the quote's metric (the best-agreeing metric only), or, for a quote whose
    metric is unnamed, the entry's figures of its unit when they are all of one metric."""
    pool = [f for f in figs if f.headline and units_agree(q.unit, f.unit) and f.metric.stat == q.metric.stat]
    ignore = series_words(q)
    if q.metric.known:
        scored = [(matches(q.metric, without(f.metric, ignore)), f) for f in pool]
        best = max((s for s, _ in scored), default=0)
        if best == 0:
            return []
        picked = [f for s, f in scored if s == best]
        metrics = {f.metric.terms - SIDES for f in picked}
        return picked if len(metrics) == 1 else []
    if q.unit is None:
        return []
    metrics = {f.metric.terms - SIDES - ignore for f in pool}
    return pool if len(metrics) == 1 else []


def series_words(q: Quote) -> frozenset[str]:
    """The words of the series a quote is of: in its evidence's keys they name the series, not the metric."""
    return frozenset(w for k in q.keys for w in words_of(k))


# --- the canonical row ---------------------------------------------------------------------------------------


def _canonical_file(ctx: "LintContext", path: str, memo: dict[str, bool]) -> bool:
    if path not in memo:
        memo[path] = any(glob_match(g, path) for g in ctx.config.canonical_states)
    return memo[path]


def _quals(fig: Figure) -> set[str]:
    return {w for w in (fig.metric or "").split() if w in _QUALS}


def _by_canonical(ctx: "LintContext", current: list[Quote], qs: list[Quote], dates: Dates) -> Iterable[Stale]:
    canon: dict[str, list[Statement]] = {}
    memo: dict[str, bool] = {}
    for st in ctx.statements():
        if _canonical_file(ctx, st.path, memo) and not st.historical and st.mentions.figures and st.row_id:
            canon.setdefault(st.row_id, []).append(st)
    for q in current:
        if not q.row or q.row not in canon or q.unit is None:
            continue
        date = dates.of(q.st)
        newer = [(d, t) for t in canon[q.row] if t is not q.st and (d := dates.of(t)) and date and d > date]
        if not newer:
            continue
        d, t = max(newer, key=lambda x: (x[0], x[1].line))
        peers = [
            n
            for n in t.mentions.figures
            if comparable(q.fig, n)
            and not (_quals(q.fig) and _quals(n) and _quals(q.fig) != _quals(n))
            and not explicitly_old(t.text, n)
            and _same_referent(q.st.text, q.fig, t.text, n)
        ]
        peers = _about_subject(q, t.text, peers)
        if peers and not any(close_scaled(q.fig.value, q.fig.text, q.unit, n.value, n.unit, n.text) for n in peers):
            new = [(n.value, with_unit(n.text, n.unit)) for n in peers]
            yield Stale(
                q,
                date or "",
                new,
                f"{_row_label(ctx, t)} ({t.path}:{t.line}, {d})",
                "canonical",
                {"kind": "statement", "path": t.path, "line": t.line, "date": d, "text": t.text[:200]},
            )


# A series name two figures of one sentence can belong to: a hyphenated token with a digit or a second hyphen
# ("Qwen3-4B", "bench-arm64", "silesia-l3"); its stem is what comes before the first hyphen.
_SUBJECT = re.compile(r"\b[A-Za-z][\w.]*-[\w.-]*\w")


def _subjects(text: str) -> list[tuple[int, str]]:
    return [(m.start(), m.group().lower()) for m in _SUBJECT.finditer(text) if any(ch.isdigit() for ch in m.group())]


def _about_subject(q: Quote, text: str, peers: list[Figure]) -> list[Figure]:
    """The figures of a canonical statement that belong to the quote's own series, where that statement names
    several of one kind ("25,097 tok/s for Qwen3-0.6B and 13,103 for Qwen3-4B" against a Qwen3-4B row): each
    figure belongs to the nearest name; a statement naming only the quote's series (or none) keeps them all."""
    own = {name for _, name in _subjects(" ".join([*q.keys, q.row_key or "", q.st.text]))}
    named = _subjects(text)
    stems = {name.split("-", 1)[0] for name in own}
    siblings = [(at, name) for at, name in named if name.split("-", 1)[0] in stems]
    if not own & {name for _, name in siblings} or all(name in own for _, name in siblings):
        return peers
    return [n for n in peers if min(siblings, key=lambda s: abs(s[0] - n.start))[1] in own]


_PARENTHESES = re.compile(r"\([^()]{0,40}\)")
_CHAINED = re.compile(r"^\s*(?:and|or|to|vs\.?|/)\s+[-+−]?\d[\d.,]*\s*%(?:\s*\([^()]{0,40}\))?", re.I)
_REFERENT_SKIP = {"of", "the", "a", "an", "its", "our", "their", "this", "that", "on", "at", "in", "to"}


def _referent(text: str, fig: Figure) -> str | None:
    """What a percentage is a share of, as the words right after it say: "77.4% of the 17,801 tok/s bound" ->
    bound, "97% busy" -> busy; None when nothing follows within its clause."""
    if fig.unit != "%":
        return None
    tail = text[fig.start + len(fig.text) : fig.start + len(fig.text) + 90]
    # past what stands between a figure and its word: "0.9% (0.6B) and 0.7% (4B) slower" -> slower
    tail = _CHAINED.sub(" ", _PARENTHESES.sub(" ", tail))
    tail = re.split(r"[;,()|]|\.\s", tail)[0]
    words = [w for w in re.findall(r"[A-Za-z]+", tail) if w.lower() not in _REFERENT_SKIP]
    unit_words = {"tok", "s", "ms", "gb", "tb", "mb"}
    words = [w for w in words if w.lower() not in unit_words]
    return words[0].lower() if words else None


def _same_referent(a_text: str, a: Figure, b_text: str, b: Figure) -> bool:
    """Two percentages are one measure only if they are shares of the same thing (or either says not of what)."""
    ra, rb = _referent(a_text, a), _referent(b_text, b)
    return ra is None or rb is None or ra == rb


def _row_label(ctx: "LintContext", t: Statement) -> str:
    """'row 2a' when the canonical table numbers its rows in a '#' column, else the row id."""
    rf = ctx.record(t.path)
    for table in rf.tables if rf else []:
        if table.line <= t.line <= table.end_line and table.headers and table.headers[0].strip() in ("#", "No", "No."):
            for cells in table.rows:
                if cells and cells[0].line == t.line and cells[0].text.strip():
                    return f"row {cells[0].text.strip()}"
    return t.row_id or "the canonical row"


# --- a newer record statement --------------------------------------------------------------------------------


def _distinctive_key(key: str) -> bool:
    """A table key two tables can share for one series: with a digit or a hyphen, or of two words or more."""
    return any(ch.isdigit() or ch == "-" for ch in key) or len(words_of(key)) >= 2


def _same_metric(a: Quote, b: Quote) -> bool:
    """The same words, or one's abbreviation; or, between two table cells with a unit and no metric words of
    their own ("p99 (ms)" over two series rows), the same unit and statistic."""
    if a.metric.known or b.metric.known:
        return matches(a.metric, b.metric) >= 2
    return (
        a.st.kind == b.st.kind == "cell"
        and a.unit is not None
        and same_dimension(a.unit, b.unit)
        and a.metric.stat == b.metric.stat
        and _alone(a)
        and _alone(b)
    )


def _keyed_alike(a: Quote, b: Quote) -> bool:
    """Two figures labelled with one series id ("kv-get-4k: 655k ops/s" and a status row "point gets, kv-get-4k")
    in one unit and statistic, one of them with no metric words of its own: the id says what they measure."""
    return (
        a.unit is not None
        and a.unit == b.unit
        and a.metric.stat == b.metric.stat
        and not (a.metric.known and b.metric.known)
        and any(_distinctive_key(k) for k in a.keys & b.keys)
        and _alone(a)
        and _alone(b)
    )


def _alone(q: Quote) -> bool:
    """The statement's only figure in its unit: "~428 GiB vs 119 GiB" quotes two quantities (a need and a
    machine's capacity), and with no metric words either could be the one another record updates."""
    return sum(1 for f in q.st.mentions.figures if f.unit == q.unit) <= 1


def _by_records(ctx: "LintContext", current: list[Quote], qs: list[Quote], dates: Dates) -> Iterable[Stale]:
    groups: dict[str, list[Quote]] = {}
    for q in qs:
        if (q.role == "current" or dated_entry(q)) and (q.metric.known or q.st.kind == "cell" or q.unit is not None):
            for k in q.keys:
                if _distinctive_key(k):
                    groups.setdefault(k, []).append(q)
    for q in current:
        if not (q.metric.known or q.st.kind == "cell"):
            continue
        rivals = {
            id(o): o
            for k in q.keys
            for o in groups.get(k, ())
            if (o.st.path, o.st.line) != (q.st.path, q.st.line)  # another column of one row is another metric
            and (o.row == q.row or not (o.row and q.row))
            and units_agree(q.unit, o.unit)
            and (_same_metric(q, o) or _keyed_alike(q, o))
        }
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
        if any(
            close_scaled(f.value, f.text, f.unit, o.fig.value, o.unit, o.fig.text)
            for o in latest
            for f in q.st.mentions.figures
            if f.unit == o.unit
        ):
            continue  # the statement quotes the newer figure itself ("~428 GiB vs 119 GiB"): it is not behind it
        t = latest[0].st
        new = [(o.fig.value, with_unit(o.fig.text, o.unit)) for o in latest]
        strong = bool(q.names & latest[0].names)
        yield Stale(
            q,
            date,
            new,
            f"{t.path}:{t.line} ({top})",
            "record",
            {"kind": "statement", "path": t.path, "line": t.line, "date": top, "text": t.text[:200]},
            strong=strong,
        )


# --- a "best so far" beaten later --------------------------------------------------------------------------------


def _by_best(ctx: "LintContext", current: list[Quote], qs: list[Quote], dates: Dates) -> Iterable[Stale]:
    for q in current:
        metric = claimed_metric(q)
        if metric is None:
            continue
        date = dates.of(q.st)
        if not date:
            continue
        beaten = [
            (d, o)
            for o in qs
            if o.st is not q.st
            and (o.role == "current" or dated_entry(o))
            and o.unit is not None
            and same_compounds(q, o)
            and units_agree(q.unit, o.unit)
            and same_measure(metric, o.metric, q.unit)
            and better(q, metric, o)
            and not close_scaled(q.fig.value, q.fig.text, q.unit, o.fig.value, o.unit, o.fig.text)
            and (d := dates.of(o.st))
            and d > date
        ]
        if not beaten:
            continue
        d, o = max(beaten, key=lambda x: (x[0], x[1].st.line))
        t = o.st
        yield Stale(
            q,
            date,
            [(o.fig.value, with_unit(o.fig.text, o.unit))],
            f"{t.path}:{t.line} ({d})",
            "record",
            {"kind": "statement", "path": t.path, "line": t.line, "date": d, "text": t.text[:200]},
        )

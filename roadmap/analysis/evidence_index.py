"""Per-run indexes over the evidence and the figures the records quote, shared by RL102, RL201 and RL202: each is
computed on first use and kept in `ctx.facts`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from roadmap.analysis.evidence_figures import EvidenceFigure, figures_of
from roadmap.analysis.evidence_series import SeriesFinder, series_keys
from roadmap.analysis.figure_quotes import Quote, quotes_in
from roadmap.records.model import Statement, Table

if TYPE_CHECKING:
    from roadmap.analysis.context import LintContext
    from roadmap.evidence.store import EvidenceEntry


def quotes(ctx: "LintContext") -> list[Quote]:
    """Every figure quote in the records."""
    if ctx.facts.figure_quotes is None:
        ctx.facts.figure_quotes = quotes_in(ctx.records, series_finder(ctx))
    return ctx.facts.figure_quotes


def evidence_figures(ctx: "LintContext", e: "EvidenceEntry") -> list[EvidenceFigure]:
    """The figures evidence entry `e` holds (analysis/evidence_figures.py)."""
    cache = ctx.facts.evidence_figures
    if e.path not in cache:
        cache[e.path] = figures_of(e, ctx.tree)
    return cache[e.path]


def series_finder(ctx: "LintContext") -> SeriesFinder:
    if ctx.facts.series_finder is None:
        keys = series_keys(t for rf in ctx.records for t in rf.tables)
        ctx.facts.series_finder = SeriesFinder(ctx.get_evidence(), keys)
    return ctx.facts.series_finder


def row_of(ctx: "LintContext", st: Statement) -> tuple[Table | None, tuple[Statement, ...]]:
    """The table and the cells of the row a table cell is in; (None, ()) for any other statement."""
    if st.kind != "cell":
        return None, ()
    rows = ctx.facts.cell_rows
    if st.path not in rows:
        rf = ctx.record(st.path)
        rows[st.path] = {cells[0].line: (t, cells) for t in (rf.tables if rf else ()) for cells in t.rows if cells}
    return rows[st.path].get(st.line, (None, ()))


def cited_with_row(ctx: "LintContext", st: Statement) -> list["EvidenceEntry"]:
    """The evidence entries a statement cites, and for a table cell the ones its row cites ("last run")."""
    finder = series_finder(ctx)
    _, cells = row_of(ctx, st)
    out = {e.path: e for c in (cells or (st,)) for e in finder.cited_entries(c)}
    return sorted(out.values(), key=lambda e: e.date or "")

"""Every figure the records quote, with what it is a figure of: its series, its metric, and its role.

A quote's *series* is what it measures, as names two places can agree on: an evidence series it names or
cites (`20260505-rnnt-small-a100`, `rnnt-small-a100`; for a table cell, anything its row names or cites; else
the one evidence series its section heading names, "Where we stand (rnnt-small, A100)"), and for a table cell
the key of its row (the Series/Config/Model/... cell, else the first cell). Its *metric* is the words right
before it, else its column header, or, in a table with a Metric column, that row's metric ("compress MB/s").
Its *role*: `current`, `bar` (a target, budget or gate it must meet: "<= 200 ms", a Target column), `dated`
(an entry that starts with its date: true as of that day) or `old` (struck, in a historical statement, or
called previous/was/superseded where it is quoted, or in a Baseline/Previous column).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from roadmap.analysis.figure_context import bar_of, metric_before
from roadmap.analysis.figures_compare import marked_historical
from roadmap.analysis.metric_terms import Metric, metric_of, words_of
from roadmap.records.figures import header_unit, single_figure
from roadmap.records.model import Figure, RecordFile, Statement, Table
from roadmap.records.patterns import ISO_DATE

if TYPE_CHECKING:
    from roadmap.evidence.store import EvidenceStore

_KEY_COLUMNS = re.compile(r"^(?:series|key|config(?:uration)?|model|name|benchmark|bench|workload|case|scenario|"
                          r"dataset|variant|setup|suite|test)s?$", re.I)
_METRIC_COLUMNS = re.compile(r"^(?:metric|measure|measurement|quantity|kpi|indicator)s?$", re.I)
_BAR_COLUMNS = re.compile(r"\b(?:target|goal|budget|gate|threshold|bar|slo|sla|limit|required|requirement|"
                          r"acceptance|floor|ceiling)s?\b", re.I)
_OLD_COLUMNS = re.compile(r"\b(?:baseline|previous|before|old|was|prior|original|initial|delta|change|diff|"
                          r"regression|improvement)\b|^Δ", re.I)
_OLD_SECTIONS = re.compile(r"\b(?:history|historical|changelog|change log|log|archive|archived|journal|"
                           r"superseded|previous|retired|old)\b", re.I)
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATED = re.compile(rf"^\W{{0,3}}(?:{ISO_DATE}|\d{{1,2}}\s+{_MONTHS}\s+\d{{4}}|{_MONTHS}\s+\d{{1,2}},?\s+\d{{4}}|"
                    r"\d{4}/\d{2}/\d{2})\b", re.I)


@dataclass(frozen=True)
class Quote:
    st: Statement
    fig: Figure
    unit: str | None
    metric: Metric
    names: frozenset[str]      # evidence series it is a figure of
    keys: frozenset[str]       # names, plus its table row's key ("silesia-l3", "nano smoke")
    row: str | None            # the row id of its statement
    role: str                  # "current" | "bar" | "dated" | "old"
    row_key: str | None = None # for a table cell: its row's key cell as written ("silesia-l3")
    bar: str | None = None     # for a bar: "min" (a floor to reach) or "max" (a ceiling), when it says which


def quotes_in(records: Iterable[RecordFile], store: "EvidenceStore") -> list[Quote]:
    """Every figure quote in `records`, its series resolved against the evidence in `store`."""
    finder = _SeriesFinder(store)
    out: list[Quote] = []
    for rf in records:
        rows = {id(c): (t, cells) for t in rf.tables for cells in t.rows for c in cells}
        for st in rf.statements:
            if st.kind == "heading" or not _has_digit(st.text):
                continue
            table, cells = rows.get(id(st), (None, ()))
            out.extend(_quotes_of(st, table, cells, finder))
    return out


def _has_digit(text: str) -> bool:
    return any(ch.isdigit() for ch in text)


def _quotes_of(st: Statement, table: Table | None, cells: tuple[Statement, ...],
               finder: "_SeriesFinder") -> list[Quote]:
    cell_metric, cell_unit = _cell_metric(st, table, cells)
    names, keys = finder.series(st, table, cells)
    row = st.row_id or st.defines
    base_role = _statement_role(st, table)
    found: list[tuple[Figure, str | None, Metric]] = []
    whole = single_figure(st.text) if st.kind == "cell" else None
    if whole is not None and table is not None and not _is_key_cell(st, table, cells):
        found.append((whole, whole.unit or cell_unit, cell_metric))
    elif whole is None:
        for fig in st.mentions.figures:
            metric = metric_before(st.text, fig.start)
            if not metric.known:
                metric = cell_metric if st.kind == "cell" and cell_metric.known else metric_of(
                    words_of(fig.metric or ""))
            found.append((fig, fig.unit or (cell_unit if st.kind == "cell" else None), metric))
    series_words = frozenset(w for k in names | keys for w in words_of(k))
    out = []
    for fig, unit, metric in found:
        if series_words & metric.terms and metric.terms - series_words:   # "rnnt-large-a100 WER" names WER
            metric = Metric(metric.terms - series_words, tuple(w for w in metric.words if w not in series_words),
                            metric.stat)
        role = base_role
        bar = None
        if role in ("bar", "current"):
            bar = bar_of(st.text, fig.start, fig.start + len(fig.text), unit, metric)
        if role == "bar":
            bar = bar or _column_bar(st.column, unit, metric)
        elif role == "current":
            if marked_historical(st.text, fig):
                role = "old"
            elif bar is not None:
                role = "bar"
        out.append(Quote(st, fig, unit, metric, names, keys | names, row, role, _row_key(st, table, cells), bar))
    return out


def _column_bar(column: str | None, unit: str | None, metric: Metric) -> str | None:
    """The direction of a figure in a Target/Budget/... column: its own operator ("≤ 200 ms") decides, else
    the column's word, else its metric (bar_of's rules)."""
    return bar_of(column or "", len(column or ""), len(column or ""), unit, metric) if column else None


def _statement_role(st: Statement, table: Table | None) -> str:
    if st.historical or any(_OLD_SECTIONS.search(s) for s in st.section[-1:]):
        return "old"
    if st.kind == "cell" and st.column:
        if _BAR_COLUMNS.search(st.column):
            return "bar"
        if _OLD_COLUMNS.search(st.column):
            return "old"
    if st.kind != "cell" and _DATED.match(st.text):
        return "dated"
    return "current"


def _metric_column(table: Table) -> int | None:
    return next((i for i, h in enumerate(table.headers) if _METRIC_COLUMNS.match(h.strip())), None)


def _cell_metric(st: Statement, table: Table | None, cells: tuple[Statement, ...]) -> tuple[Metric, str | None]:
    """The metric and unit a cell's figures are of: its row's Metric cell, else its column header."""
    if st.kind != "cell":
        return metric_of(()), None
    text = st.column or ""
    k = _metric_column(table) if table is not None else None
    if k is not None and k < len(cells) and cells[k] is not st:
        text = cells[k].text
    return metric_of(words_of(_strip_unit_words(text))), header_unit(text)


def _strip_unit_words(text: str) -> str:
    return re.sub(r"\([^)]*\)", " ", text) if "(" in text else text


def _is_key_cell(st: Statement, table: Table, cells: tuple[Statement, ...]) -> bool:
    k = _key_column(table)
    return k is not None and k < len(cells) and cells[k] is st


def _row_key(st: Statement, table: Table | None, cells: tuple[Statement, ...]) -> str | None:
    """How a person names the cell's row: its key cell, else its Metric cell ("Real-time factor")."""
    k = _key_column(table) if table is not None else None
    if k is None and table is not None:
        k = _metric_column(table)
    if k is None or k >= len(cells) or cells[k] is st or not cells[k].text.strip():
        return None
    return cells[k].text.strip()


def _key_column(table: Table) -> int | None:
    k = next((i for i, h in enumerate(table.headers) if _KEY_COLUMNS.match(h.strip())), None)
    if k is None and table.headers and not _METRIC_COLUMNS.match(table.headers[0].strip()):
        k = 0
    return k


class _SeriesFinder:
    """Evidence series names in record text, whole-token (`silesia-l3` is not in `silesia-l3-lowmem`)."""

    def __init__(self, store: "EvidenceStore"):
        self.store = store
        slugs = sorted({s.lower() for s in store.by_series if s}, key=len, reverse=True)
        self.known = set(slugs)
        self.words = {s: frozenset(words_of(s)) for s in slugs}
        alt = "|".join(re.escape(s) for s in slugs)
        self.pattern = re.compile(rf"(?<![\w-])(?:{alt})(?![\w-])") if slugs else None

    def named(self, text: str) -> set[str]:
        return set(self.pattern.findall(text.lower())) if self.pattern is not None else set()

    def cited(self, st: Statement) -> set[str]:
        out = set()
        root = self.store.root.rstrip("/") + "/"
        for name in (*st.mentions.evidence, *(p.path for p in st.mentions.paths if p.path.startswith(root))):
            e = self.store.get(name)
            if e is not None and e.series:
                out.add(e.series.lower())
        return out

    def series(self, st: Statement, table: Table | None,
               cells: tuple[Statement, ...]) -> tuple[frozenset[str], frozenset[str]]:
        """(evidence series, row keys) a statement's figures are of."""
        names = self.named(st.text) | self.cited(st)
        keys: set[str] = set()
        if table is not None and cells:
            for c in cells:
                if c is not st:
                    names |= self.cited(c)
            k = _key_column(table)
            if k is not None and k < len(cells) and cells[k] is not st:
                key = " ".join(cells[k].text.lower().split())
                if key and single_figure(key) is None:
                    keys.add(key)
                    names |= self.named(key)
        if not names and self.known:
            names |= self._from_heading(st, cells)
        return frozenset(names), frozenset(keys)

    def _from_heading(self, st: Statement, cells: tuple[Statement, ...]) -> set[str]:
        """The one series the section heading names ("Where we stand (rnnt-small, A100)"), unless the statement's
        own words, with the heading's, name another ("The large model (rnnt-large) ...")."""
        heading = frozenset(w for s in st.section for w in words_of(s))
        covered = {s for s in self.known if len(self.words[s]) >= 2 and self.words[s] <= heading}
        if len(covered) != 1:
            return set()
        own = heading | frozenset(w for c in (cells or (st,)) for w in words_of(c.text))
        with_own = {s for s in self.known if len(self.words[s]) >= 2 and self.words[s] <= own}
        return covered if with_own == covered else set()

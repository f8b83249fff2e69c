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
from dataclasses import dataclass, replace
from typing import Iterable

from roadmap.analysis.figure_context import bar_of, metric_after, metric_before
from roadmap.analysis.figures_compare import explicitly_old, marked_historical
from roadmap.analysis.evidence_series import SeriesFinder, key_column, metric_column
from roadmap.analysis.metric_terms import NO_METRIC, Metric, metric_of, symbol_metric, without, words_of
from roadmap.records.figures import header_unit, rate_unit, single_figure, strip_unit
from roadmap.records.language import language
from roadmap.records.model import Figure, RecordFile, Statement, Table
from roadmap.records.patterns import ISO_DATE

_BAR_COLUMNS = re.compile(
    r"\b(?:target|goal|budget|gate|threshold|bar|slo|sla|limit|required|requirement|"
    r"acceptance|floor|ceiling)s?\b",
    re.I,
)
_OLD_COLUMNS = re.compile(
    r"\b(?:baseline|previous|before|old|was|prior|original|initial|delta|change|diff|"
    r"regression|improvement)\b|^Δ",
    re.I,
)
_OLD_SECTIONS = re.compile(
    r"\b(?:history|historical|changelog|change log|log|archive|archived|journal|"
    r"superseded|previous|retired|old)\b",
    re.I,
)
_DIGIT = re.compile(r"\d")
_CHAIN = re.compile(r"^\s*(?:/|vs\.?|versus|->|→|to)\s*$", re.I)
_SEGMENT = re.compile(r";|(?<=[^\d\s])\.\s|(?<=\))\.\s")
_NUMBER_LIKE = re.compile(r"\s*[-+−~≈]?\d[\d,.]*\s*[^\s\d]{0,8}\s*$")  # a cell that may be one figure
_LOG_TITLE = re.compile(r"\b(?:log|journal|changelog|history|diary|append(?:-only)?)\b", re.I)
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATED = re.compile(
    rf"^\W{{0,3}}(?:{ISO_DATE}|\d{{1,2}}\s+{_MONTHS}\s+\d{{4}}|{_MONTHS}\s+\d{{1,2}},?\s+\d{{4}}|"
    r"\d{4}/\d{2}/\d{2})\b",
    re.I,
)


@dataclass(frozen=True)
class Quote:
    st: Statement
    fig: Figure
    unit: str | None
    metric: Metric
    names: frozenset[str]  # evidence series it is a figure of
    keys: frozenset[str]  # names, plus its table row's key ("silesia-l3", "nano smoke")
    row: str | None  # the row id of its statement
    role: str  # "current" | "bar" | "dated" | "old"
    row_key: str | None = None  # for a table cell: its row's key cell as written ("silesia-l3")
    bar: str | None = None  # for a bar: "min" (a floor to reach) or "max" (a ceiling), when it says which
    date_led: bool = False  # a table cell whose row is led by its date ("| 2026-03-19 | ycsb-a | 4.3x |"): one run


def quotes_in(records: Iterable[RecordFile], finder: SeriesFinder) -> list[Quote]:
    """Every figure quote in `records`, its series resolved by `finder` (the evidence series there are)."""
    out: list[Quote] = []
    for rf in records:
        rows = {cells[0].line: (t, cells) for t in rf.tables for cells in t.rows if cells}  # a row is one line
        mine: list[Quote] = []
        for st in rf.statements:
            if st.kind == "heading" or not _has_digit(st.text):
                continue
            table, cells = rows.get(st.line, (None, ())) if st.kind == "cell" else (None, ())
            mine.extend(_quotes_of(st, table, cells, finder))
        out.extend(_folder_series(rf, _restating_rows(mine, rows), finder))
    return out


def _folder_series(rf: RecordFile, quotes: list[Quote], finder: SeriesFinder) -> list[Quote]:
    """A section that points at a folder of evidence holding one series ("Raw runs are in `benches/results/`"),
    or at entries of one series ("From the 2026-04-02 run (`perf/2026-04-02-resolve.json`)"), quotes figures of
    that series: its quotes that name none take it."""
    loose = [k for k, q in enumerate(quotes) if not q.names and q.unit is not None and q.st.kind != "cell"]
    if not loose:
        return quotes
    root = finder.store.root.strip("/")
    by_section: dict[tuple[str, ...], set[str]] = {}
    scanned: dict[str, set[str]] = {}
    for st in rf.statements:
        if st.kind == "cell":
            continue
        for ref in st.mentions.paths:
            folder = ref.path.rstrip("/")
            if not (folder == root or folder.startswith(root + "/")):
                continue
            entry = finder.store.get(ref.path)
            if entry is not None:  # "From the 2026-04-02 run (`perf/2026-04-02-resolve.json`)", an entry's folder
                series = {entry.series.lower()} if entry.date else set()
            elif ref.text.rstrip("`").endswith("/"):  # a folder of entries: `benches/results/`
                if folder not in scanned:
                    scanned[folder] = {
                        e.series.lower() for e in finder.store if e.date and e.path.startswith(folder + "/")
                    }
                series = scanned[folder]
            else:
                continue
            if series:
                by_section.setdefault(st.section, set()).update(series)
    if not by_section:
        return quotes
    out = list(quotes)
    for k in loose:
        q = quotes[k]
        series = by_section.get(q.st.section, set())
        if len(series) == 1:
            out[k] = replace(q, names=frozenset(series), keys=q.keys | series)
    return out


# A size or count used as an adjective: an article before it, a noun right after ("a 10 MB file", "the 10 MB
# parse", "each 4 KiB page"). It names the workload; a result is said of something ("takes 1.9 s", "is 36 MB").
_THING_WORDS = ("a", "an", "the", "each", "every", "per", "one", "our", "their", "this", "that")
_THING_BEFORE = re.compile(rf"\b(?:{'|'.join(_THING_WORDS)})\s+$", re.I)
_THING_LONGEST = max(map(len, _THING_WORDS))  # IGNORECASE matches a letter with one letter: the same lengths
_NOUN_AFTER = re.compile(
    r"^\s+(?!(?:is|was|are|were|and|or|in|on|at|for|with|to|of|from|by|per|vs|versus|than|faster|slower|"
    r"less|more|lower|higher|down|up|median|mean|average|p\d+|figures?|numbers?|values?|results?|readings?|"
    r"measurements?|marks?|targets?|budgets?|bars?|limits?|goals?|ceilings?|floors?|ratios?|rates?|throughput|"
    r"latency|latencies|runs?|tails?|speedups?|regressions?|improvements?|gains?|drops?|wins?|loss|losses|"
    r"headroom|overhead|slowdown|peaks?|budget|sla|slo)\b)[a-z][a-z-]{2,}",
)


# The object of a sentence's opening verb when that verb names an activity: an English gerund ("Writing 10 MB back
# out ... takes 0.8 s", "Loading 7 GB of weights: 12 s"), in a Spanish or Portuguese text an infinitive used as the
# subject ("Escribir 10 MB tarda 0,8 s"), in a German one a verbal noun ("Schreiben von 10 MB dauert 0,8 s"). The
# activity is what was measured and its object the amount it worked through (a size, a duration: never a rate, a
# ratio or a share, which is what an activity achieves); the result is a later figure of the sentence, said of the
# activity ("takes 0.8 s"). A finite verb's object can be the result itself ("Uses 36 MB", "Reached 1,200 tok/s"),
# and a lone figure after a word in -ing is a label's ("Timing 1.2 s").
_OPENING = r"(?:^|[.;:!?]\s+)[^\w\s]{0,3}\s*(?:\[[ xX]\]\s*)?"  # a sentence's start, past a mark or a box
_GERUND = re.compile(_OPENING + r"[A-Za-z]{2,}ing\s+$")
_ROMANCE_SUBJECT = re.compile(_OPENING + r"[^\W\d_]{3,}(?:ar|er|ir)\s+$")
_GERMAN_SUBJECT = re.compile(_OPENING + r"(?:das\s+|beim\s+)?[A-ZÄÖÜ][a-zäöüß]{2,}en\s+von\s+$", re.I)
_SENTENCE_END = re.compile(r"[.;!?]\s")
_WORDS = re.compile(r"[^\W\d_]+")


def _names_workload(text: str, fig: Figure, figures: list[Figure]) -> bool:
    """Does the figure size what was measured ("a 10 MB file", "Writing 10 MB back out ... takes 0.8 s"), not state
    a result?"""
    end = fig.start + len(fig.text)
    if _thing_before(text, fig.start) and _NOUN_AFTER.match(text[end:]) is not None:
        return True
    if fig.unit is None or "/" in fig.unit or fig.unit in ("x", "%"):
        return False  # a rate, a ratio or a share is what an activity achieves ("Decoding 1.9x faster"), no amount
    stop = _SENTENCE_END.search(text, end)
    if not any(end <= f.start < (stop.start() if stop else len(text)) for f in figures):
        return False  # nothing said of the activity: the figure may be the result
    lo = max(0, fig.start - 40)
    if _GERUND.search(text, lo, fig.start) is not None:
        return True
    if _ROMANCE_SUBJECT.search(text, lo, fig.start) is not None:
        return language(w.lower() for w in _WORDS.findall(text)) == "es"
    if _GERMAN_SUBJECT.search(text, lo, fig.start) is not None:
        return language(w.lower() for w in _WORDS.findall(text)) == "de"
    return False


def _thing_before(text: str, at: int) -> bool:
    """`_THING_BEFORE.search(text, 0, at)`: a match is one of its words, then only whitespace (`\\s` is what
    str.isspace says) up to `at`, so it starts at most _THING_LONGEST before that whitespace. Searched from
    there (`\\b` still sees the character before), not tried at every position of a long cell before `at`."""
    word_end = len(text[:at].rstrip())
    if word_end == at:
        return False  # no whitespace right before the figure
    return _THING_BEFORE.search(text, max(0, word_end - _THING_LONGEST), at) is not None


def _restating_rows(quotes: list[Quote], rows: dict[int, tuple[Table, tuple[Statement, ...]]]) -> list[Quote]:
    """A statement outside the table that quotes, with nothing naming their series, the very figures of one table
    row of its record ("**Current best:** blocksparse-v2 at 188 TFLOP/s / 2.8 ms", the row's two figures; or one
    of them and the row's key as written) is about that row's series: its quotes take the row's series, and each
    the metric of the cell it repeats (the column's: the prose before it names the kernel, not the metric)."""
    by_row: dict[int, list[Quote]] = {}
    for q in quotes:
        if q.st.kind == "cell" and q.names and q.unit is not None:
            by_row.setdefault(q.st.line, []).append(q)
    if not by_row:
        return quotes
    loose: dict[int, list[int]] = {}  # id(statement) -> indices of its quotes without a series
    for k, q in enumerate(quotes):
        if q.st.kind != "cell" and not q.names and q.unit is not None:
            loose.setdefault(id(q.st), []).append(k)
    out = list(quotes)
    for idx in loose.values():
        st = quotes[idx[0]].st
        found = None
        for line, cells_q in by_row.items():
            same = [quotes[k] for k in idx if any(_same_figure(quotes[k], c) for c in cells_q)]
            key = rows[line][1][0].text.strip().lower() if line in rows and rows[line][1] else ""
            if len(same) >= 2 or same and len(key) >= 3 and key in st.text.lower():
                if found is not None:
                    found = None  # two rows quoted alike: which one is meant is not said
                    break
                found = cells_q
        if found is None:
            continue
        names = frozenset().union(*(c.names for c in found))
        keys = frozenset().union(*(c.keys for c in found))
        for k in idx:
            q = quotes[k]
            cell = next((c for c in found if _same_figure(q, c)), None)
            metric = cell.metric if cell is not None else q.metric
            out[k] = replace(q, metric=metric, names=names, keys=q.keys | keys)
    return out


def _same_figure(a: Quote, b: Quote) -> bool:
    return a.unit == b.unit and abs(a.fig.value - b.fig.value) <= 1e-9 * max(1.0, abs(b.fig.value))


def _has_digit(text: str) -> bool:
    return _DIGIT.search(text) is not None


_ARTICLE_BEFORE = re.compile(r"\b(?:a|an|the|one|each|every|per)\s+$", re.I)


def _figures(
    st: Statement, table: Table | None, cells: tuple[Statement, ...]
) -> list[tuple[Figure, str | None, Metric]]:
    """The statement's figures with their unit and metric; those with neither say nothing comparable."""
    found: list[tuple[Figure, str | None, Metric]] = []
    number_like = st.kind == "cell" and _NUMBER_LIKE.match(st.text) is not None
    if not number_like and not st.mentions.figures:
        return found
    if st.kind == "cell":
        cell_metric, cell_unit = _cell_metric(st, table, cells)
        # a decimal comma in a column with a unit, or in a file that writes decimals so (its figures say)
        comma = cell_unit is not None or any("," in f.text for f in st.mentions.figures)
        whole = single_figure(st.text, comma) if number_like else None
        if whole is None and not st.mentions.figures:
            return found
        if whole is not None:
            if table is not None and not _is_key_cell(st, table, cells):
                found.append((whole, whole.unit or cell_unit, cell_metric))
            return [f for f in found if f[1] is not None or f[2].known]
    else:
        cell_metric, cell_unit = NO_METRIC, None
    previous: tuple[Figure, Metric] | None = None
    for fig in st.mentions.figures:
        metric = metric_before(st.text, fig.start)
        if (
            not (metric.known or metric.stat)
            and previous is not None
            and _CHAIN.match(st.text[previous[0].start + len(previous[0].text) : fig.start])
        ):
            metric = previous[1]  # "throughput 6831.71 vs 6643.40 tok/s": one metric for the chain
        elif not (metric.known or metric.stat) and cell_metric.known:
            metric = cell_metric
        elif not (metric.known or metric.stat) and not _ARTICLE_BEFORE.search(
            st.text, max(0, fig.start - 8), fig.start
        ):
            # "runs in 41.2 min wall"; not "a 16.6 ms GPU frame", where the figure sizes a thing (a budget)
            metric = metric_after(st.text, fig.start + len(fig.text))
        found.append((fig, fig.unit or cell_unit, metric))
        previous = (fig, metric)
    return [f for f in found if f[1] is not None or f[2].known]


def _quotes_of(st: Statement, table: Table | None, cells: tuple[Statement, ...], finder: SeriesFinder) -> list[Quote]:
    found = _figures(st, table, cells)
    if not found:
        return []
    names, keys = finder.series(st, table, cells)
    row = st.row_id or st.defines
    base_role = _statement_role(st, table, cells)
    series_words = frozenset(w for k in names | keys for w in words_of(k))
    led = _date_led(st, cells)
    segments = _segments(st.text) if st.kind != "cell" and len(names) > 1 else []
    out = []
    for fig, unit, metric in found:
        if _names_workload(st.text, fig, [f for f, _, _ in found]):
            continue  # "a 10 MB file", "the 10 MB parse": the size of what was measured, not a result
        own = names
        for a, b in segments:  # "publish at 412 req/s (broker-publish-...); consume at 950 req/s (...)"
            if a <= fig.start < b:
                own = frozenset(finder.in_text(st.text[a:b])) or names
                break
        metric = without(metric, series_words)  # "rnnt-large-a100 WER 5.8 %" names WER
        role = base_role
        bar = None
        if role in ("bar", "current"):
            bar = bar_of(st.text, fig.start, fig.start + len(fig.text), unit, metric)
        if role == "bar":
            bar = bar or _column_bar(st.column, unit, metric)
        elif role == "current":
            if marked_historical(st.text, fig) or explicitly_old(st.text, fig):
                role = "old"
            elif bar is not None:
                role = "bar"
        label = _label_ids(st, fig, table, cells)
        out.append(
            Quote(st, fig, unit, metric, own, keys | own | label, row, role, _row_key(st, table, cells), bar, led)
        )
    return out


# A series id as teams write one: words joined by - or _ with a digit among them ("wal-commit-64w", "read-1k-hot",
# "rnnt-small-a100", "silesia-l3"), not a hyphenated word ("test-clean"), a number range, nor a word and a bare
# number ("top-1", "utf-8", "x86-64": two parts whose last is all digits).
_SERIES_ID = re.compile(r"(?<![\w./-])(?=[\w-]*[A-Za-z])(?=[\w-]*\d)[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)+(?![\w./-])")


def _series_ids(text: str) -> frozenset[str]:
    ids = set()
    for m in _SERIES_ID.finditer(text):
        parts = re.split(r"[-_]", m.group(0))
        if len(parts) == 2 and parts[-1].isdigit():
            continue
        ids.add(m.group(0).lower())
    return frozenset(ids)


def _label_ids(st: Statement, fig: Figure, table: Table | None, cells: tuple[Statement, ...]) -> frozenset[str]:
    """Series ids in what labels a figure: for a cell, its row's first cell; else an id written right before it
    as its label ("wal-commit-64w: 63.5k commits/s"). Two records that label a figure with one id quote the same
    series."""
    if st.kind == "cell":
        first = cells[0] if cells else None
        text = first.text if first is not None and first is not st else ""
        return _series_ids(text)
    # In prose only an id that directly labels the figure ("- wal-commit-64w: 63.5k commits/s"), not a model or
    # series named somewhere earlier in the sentence (that names the subject, not what the figure measures).
    before = st.text[: fig.start]
    if not before.rstrip().endswith((":", "=")):
        return frozenset()  # a label ends in `:` or `=` before the figure (only spaces between): no search needed
    label = _LABEL.search(before)
    return _series_ids(label.group(1)) if label else frozenset()


_LABEL = re.compile(r"(?:^|[;,(]\s*|\n)\W{0,3}([A-Za-z0-9][\w-]*)\s*[:=]\s*$")


_CLAUSE_START = re.compile(r"[;.(]\s|\n")


def _segments(text: str) -> list[tuple[int, int]]:
    """Clauses of a statement that name series apart: split at `;` and sentence ends."""
    out, start = [], 0
    for m in _SEGMENT.finditer(text):
        out.append((start, m.end()))
        start = m.end()
    return out + [(start, len(text))]


def _column_bar(column: str | None, unit: str | None, metric: Metric) -> str | None:
    """The direction of a figure in a Target/Budget/... column: its own operator ("≤ 200 ms") decides, else
    the column's word, else its metric (bar_of's rules)."""
    return bar_of(column or "", len(column or ""), len(column or ""), unit, metric) if column else None


def dated_entry(q: Quote) -> bool:
    """A figure measured on a day the record names: a `dated` quote, or one of an append-only log's dated entries
    (role `old` because the log is history: a dated section, or a table row led by its date) that no words mark
    as replaced. Newer ones supersede current figures."""
    if q.role == "dated":
        return True
    return (
        q.role == "old"
        and (q.date_led or any(_DATED.match(s) for s in q.st.section))
        and not marked_historical(q.st.text, q.fig)
        and not explicitly_old(q.st.text, q.fig)
    )


# A line labelled as the current figure ("**Current:** callvar-chr20 runs in 41.2 min"): current whatever section or
# log it sits in.
# A summary line is labelled so too, in the languages records are kept in ("Résumé : meilleur modèle à ce jour ...",
# "TL;DR:", "Zusammenfassung:", "Resumen:").
_CURRENT_LABEL = re.compile(
    r"^\W{0,3}(?:current(?:ly)?|latest|as of now|today|summary|tl;?dr|best so far|"
    r"r[ée]sum[ée]|en bref|[ée]tat actuel|zusammenfassung|aktueller stand|resumen|resumo|estado actual|"
    r"sintesi|riepilogo|samenvatting|podsumowanie)\b\W{0,3}[:—–-]",
    re.I,
)


def _statement_role(st: Statement, table: Table | None, cells: tuple[Statement, ...] = ()) -> str:
    if not st.historical and st.kind != "cell" and _CURRENT_LABEL.match(st.text):
        return "current"
    if st.historical or any(_OLD_SECTIONS.search(s) for s in st.section[-1:]):
        return "old"
    if st.section and _LOG_TITLE.search(st.section[0]) and not _standing(st):
        return "dated"  # "# State log (append; newest last)": every entry is as of its day
    if any(_DATED.match(s) for s in st.section):
        return "dated"  # under "## 2026-07-07 — re-baseline": true as of that day
    if st.kind == "cell" and st.column:
        if _BAR_COLUMNS.search(st.column):
            return "bar"
        if _OLD_COLUMNS.search(st.column):
            return "old"
    if st.kind != "cell" and _DATED.match(st.text):
        return "dated"
    if _date_led(st, cells):
        return "dated"  # a row led by its date ("| 2026-03-09 | blocksparse-v2 | 188 |"): one run, as of that day
    return "current"


_DATE_CELL = re.compile(rf"{_DATED.pattern}\W{{0,3}}$", re.I)  # a cell that is a date: "2026-03-19", "19 Mar 2026"


def _date_led(st: Statement, cells: tuple[Statement, ...]) -> bool:
    """A cell of a table row led by its date ("| 2026-03-09 | blocksparse-v2 | 188 |"), other than the date."""
    return st.kind == "cell" and bool(cells) and cells[0] is not st and _DATE_CELL.match(cells[0].text) is not None


def _standing(st: Statement) -> bool:
    """A log's section that is no entry (records/structure.py keeps it current: "## Numbers we quote" beside the
    dated entries) quotes its figures as current: an undated section that is not history."""
    return not st.historical and len(st.section) >= 2 and not any(_DATED.match(s) for s in st.section)


def _cell_metric(st: Statement, table: Table | None, cells: tuple[Statement, ...]) -> tuple[Metric, str | None]:
    """The metric and unit a cell's figures are of: its row's Metric cell, else its column header."""
    if st.kind != "cell":
        return metric_of(()), None
    text = st.column or ""
    k = metric_column(table) if table is not None else None
    if k is not None and k < len(cells) and cells[k] is not st:
        text = cells[k].text
    unit = header_unit(text)
    named = _strip_unit_words(text)
    metric = symbol_metric(named) or metric_of(w for w in words_of(named) if not _names_unit(w, unit))
    key = key_column(table) if table is not None and k is None else None
    if not (metric.known or metric.stat) and key is not None and key < len(cells) and cells[key] is not st:
        metric = metric_of(words_of(cells[key].text))  # "| p99 publish latency | ≤ 35 ms | PASS |": the row says
    return metric, unit


def _strip_unit_words(text: str) -> str:
    """The header without its unit (`κ [W/(m·K)]` -> `κ`, `Throughput in tok/s` -> `Throughput`) and without what
    it says in parentheses."""
    text = strip_unit(text)
    return re.sub(r"\([^)]*\)", " ", text) if "(" in text else text


def _names_unit(word: str, unit: str | None) -> bool:
    """Is `word` the unit's own word ("img" of img/s, "fps")? The unit says it; the metric is the rest."""
    return unit is not None and "/" in unit and (rate_unit(f"{word}/s") == unit or rate_unit(word) == unit)


def _is_key_cell(st: Statement, table: Table, cells: tuple[Statement, ...]) -> bool:
    k = key_column(table)
    return k is not None and k < len(cells) and cells[k] is st


def _row_key(st: Statement, table: Table | None, cells: tuple[Statement, ...]) -> str | None:
    """How a person names the cell's row: its key cell, else its Metric cell ("Real-time factor")."""
    k = key_column(table) if table is not None else None
    if k is None and table is not None:
        k = metric_column(table)
    if k is None or k >= len(cells) or cells[k] is st or not cells[k].text.strip():
        return None
    return cells[k].text.strip()

"""Which run a rerun request repeats when it names no series: one of the runs its own record cites, singled out by
the day or the count the request names.

A hand-off log cites its runs where it reports them ("siehe `results/2026-03-04_scaling-64n/`") and a later entry
asks, in its own words and language, to repeat one: "Skalierungslauf auf 64 Knoten wiederholen (gleiche
Einstellungen wie am 04.03.)", "rerun the March 4 sweep on 8 GPUs". The series' words (`scaling`) need not be
there; the day of the cited run (04.03., March 4, 2026-03-04) or a count its name holds (`64n` for 64 nodes, `8gpu`)
is. Only runs the record cites can be meant, what the day and the count say must agree, and one series must remain.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from roadmap.analysis.evidence_index import series_finder
from roadmap.records.kinds import month_of
from roadmap.records.model import RecordFile, Statement
from roadmap.records.patterns import DATE_RE

if TYPE_CHECKING:
    from roadmap.analysis.context import LintContext
    from roadmap.evidence.store import EvidenceEntry

# Days written without the ISO form: 04.03. / 4.3.2026 (day first, not a version "1.5.2"), 4 mars, 4. März,
# 4 de marzo; March 4th in English.
_NUMERIC_DAY = re.compile(r"(?<![\w.])(\d{1,2})\.(\d{1,2})\.(?:(\d{4})(?!\d)|(?!\d))")
_DAY_MONTH = re.compile(r"(?<![\w.])(\d{1,2})(?:\.|er|º)?\s+(?:de\s+)?([^\W\d_]{3,10})\.?(?:\s+(?:de\s+)?(\d{4}))?\b")
_MONTH_DAY = re.compile(r"\b([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4}))?")
# A count of something: a number right before a word ("64 Knoten", "8 GPUs", "64-node"), not a share or a value.
_COUNT = re.compile(r"(?<![\w.,=/])(\d+)(?:\s|-)?(?=[^\W\d_])")
# A count in a series name: one of its parts, digits with a short unit ("64n", "8gpu", "128").
_SLUG_COUNT = re.compile(r"^(\d+)[a-z]{0,4}$")

Day = tuple[int, int, int | None]  # month, day, year when written


def days_named(text: str) -> tuple[set[Day], str]:
    """The days a text names, and the text with them blanked (their numbers are no counts)."""
    days: set[Day] = set()
    spans: list[tuple[int, int]] = []
    for m in DATE_RE.finditer(text):
        y, mo, d = m.group(1).split("-")
        days.add((int(mo), int(d), int(y)))
        spans.append(m.span())
    for m in _NUMERIC_DAY.finditer(text):
        d, mo = int(m.group(1)), int(m.group(2))
        if 1 <= mo <= 12 and 1 <= d <= 31:
            days.add((mo, d, int(m.group(3)) if m.group(3) else None))
            spans.append(m.span())
    for m in _DAY_MONTH.finditer(text):
        mo = month_of(m.group(2))
        if mo is not None and 1 <= int(m.group(1)) <= 31:
            days.add((mo, int(m.group(1)), int(m.group(3)) if m.group(3) else None))
            spans.append(m.span())
    for m in _MONTH_DAY.finditer(text):
        mo = month_of(m.group(1), english=True)
        if mo is not None and 1 <= int(m.group(2)) <= 31:
            days.add((mo, int(m.group(2)), int(m.group(3)) if m.group(3) else None))
            spans.append(m.span())
    for a, b in spans:
        text = text[:a] + " " * (b - a) + text[b:]
    return days, text


def _on_day(entry: "EvidenceEntry", days: set[Day]) -> bool:
    y, mo, d = (int(x) for x in (entry.date or "0-0-0").split("-"))
    return any(mo == m and d == day and year in (None, y) for m, day, year in days)


def _slug_counts(series: str) -> set[int]:
    return {int(m.group(1)) for part in re.split(r"[-_./]", series.lower()) if (m := _SLUG_COUNT.match(part))}


def repeated_series(ctx: "LintContext", st: Statement) -> str | None:
    """The series (lower case) of the run `st` asks to repeat, among the runs its record cites; None when the
    request names no day or count of one of them, or they leave more than one series."""
    rf = ctx.record(st.path)
    if rf is None:
        return None
    days, rest = days_named(st.text)
    counts = {int(n) for n in _COUNT.findall(rest)}
    if not (days or counts):
        return None
    cited = _cited_in(ctx, rf)
    on_day = {e.path for e in cited if days and _on_day(e, days)}
    counted = {e.path for e in cited if counts & _slug_counts(e.series)}
    picked = on_day & counted if on_day and counted else on_day or counted
    series = {e.series.lower() for e in cited if e.path in picked}
    return next(iter(series)) if len(series) == 1 else None


def _cited_in(ctx: "LintContext", rf: RecordFile) -> list["EvidenceEntry"]:
    """The dated runs a record's statements cite, once per record: every rerun request of the record asks."""
    cache = ctx.facts.cited_in_record
    if rf.path not in cache:
        finder = series_finder(ctx)
        found = {e.path: e for st in rf.statements for e in finder.cited_entries(st) if e.date and e.series}
        cache[rf.path] = list(found.values())
    return cache[rf.path]

"""RL202's second case: a measurement that cites nothing, in a record whose other measurements cite evidence,
and that no evidence and no commit message of the repository holds.

A benchmark record kept as "one row per run, the Evidence column is the raw output" makes a promise: every
figure in it can be followed to its run. A prose line of that record saying "v2 measured 5.9 ms at 16k" with
no citation breaks it; when the figure is in none of the evidence files and no commit message quotes it, a
reader has nowhere to check it. Only a figure the line says was *measured* (benchmarked, clocked, timed, in
some languages) counts: targets, estimates and figures of the text's argument are not measurements.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, Iterator

from roadmap.analysis.evidence_index import evidence_figures, quotes, series_finder
from roadmap.analysis.figure_quotes import Quote
from roadmap.analysis.figures_compare import close, close_scaled, evidence_numbers
from roadmap.analysis.metric_terms import same_dimension
from roadmap.analysis.surfaces import describe
from roadmap.findings import Hit

if TYPE_CHECKING:
    from roadmap.analysis.context import LintContext
    from roadmap.evidence.store import EvidenceEntry
    from roadmap.records.model import Statement

# A past-tense measurement verb, in the languages the records are written in.
_MEASURED = re.compile(
    r"\b(?:measured|measures|benchmarked|clocked|timed|gemessen|misst|mesur[ée]e?s?|medid[oa]s?|midi[óo]|mediu|"
    r"misurat[oaie])\b",
    re.I,
)
# The measurement is not (yet) one: "to be measured", "not measured", "will be benchmarked", "if timed".
_NOT_YET = re.compile(
    r"\b(?:not|never|yet|to\s+be|will|would|should|must|could|can|cannot|can't|if|once|when|until|unless|nicht|"
    r"noch|pas|no|sin|sem|non)\s+(?:\w+\s+){0,2}$",
    re.I,
)
_SENTENCE_END = re.compile(r"[.!?;](?:\s|$)")
MIN_CITING = 2  # statements of the record that cite evidence before it is taken to promise citations


def _sentence(text: str, at: int) -> tuple[int, int]:
    start = 0
    for m in _SENTENCE_END.finditer(text, 0, at):
        start = m.end()
    end = _SENTENCE_END.search(text, at)
    return start, (end.start() if end else len(text))


def _measured(q: Quote) -> bool:
    """Is the quote's figure what its sentence says was measured (the verb before the figure, not negated)?"""
    text = q.st.text
    a, _ = _sentence(text, q.fig.start)
    verbs = list(_MEASURED.finditer(text, a, q.fig.start))
    return bool(verbs) and not _NOT_YET.search(text[a : verbs[-1].start()])


def _citing_records(
    ctx: "LintContext", cited: Callable[["Statement"], list["EvidenceEntry"]], paths: set[str]
) -> set[str]:
    """Which of the record files `paths` have MIN_CITING statements citing evidence (only those are read: a
    citation search over every statement of every record cost half a second on a large corpus)."""
    counts: dict[str, int] = {}
    for rf in ctx.records:
        if rf.path not in paths:
            continue
        for st in rf.statements:
            if cited(st):
                counts[rf.path] = counts.get(rf.path, 0) + 1
                if counts[rf.path] >= MIN_CITING:
                    break
    return {p for p, n in counts.items() if n >= MIN_CITING}


def _number(text: str) -> str | None:
    m = re.search(r"\d[\d,]*(?:\.\d+)?", text)
    return m.group().replace(",", "") if m else None


def _in_messages(ctx: "LintContext", number: str) -> bool:
    """Does any commit message quote the number (as a number, not inside a longer one)?"""
    pattern = re.compile(rf"(?<![\d.]){re.escape(number)}(?![\d]|\.\d)")
    history = ctx.get_history()
    return any(pattern.search(c.message) for c in history.commits)


def _held_by_evidence(ctx: "LintContext", q: Quote) -> bool:
    cache = ctx.facts.evidence_numbers
    f = q.fig
    for e in ctx.get_evidence():
        if e.path not in cache:
            cache[e.path] = evidence_numbers(e, ctx.tree)
        if any(close(f.value, f.text, v) for _, v in cache[e.path]):
            return True
        if any(
            same_dimension(f.unit, x.unit) and close_scaled(f.value, f.text, f.unit, x.value, x.unit, x.text)
            for x in evidence_figures(ctx, e)
        ):
            return True
    return False


def uncited_measurements(ctx: "LintContext", checked_units: set[str]) -> Iterator[Hit]:
    finder = series_finder(ctx)
    candidates = [
        q
        for q in quotes(ctx)
        if q.role in ("current", "dated")
        and q.fig.unit in checked_units
        and q.st.kind != "cell"
        and not q.st.historical
        and _measured(q)
        and not finder.cited_entries(q.st)
    ]
    if not candidates:
        return
    citing = _citing_records(ctx, finder.cited_entries, {q.st.path for q in candidates})
    for q in candidates:
        if q.st.path not in citing or _held_by_evidence(ctx, q):
            continue
        number = _number(q.fig.text)
        if number is None or _in_messages(ctx, number):
            continue
        label = describe(q.st)
        yield Hit(
            message=(
                f"{label[:1].upper()}{label[1:]} quotes a measurement, {q.fig.text}, that cites no evidence, "
                f"while the other measurements of {q.st.path} cite theirs; no evidence file and no commit "
                "message of the repository holds it"
            ),
            path=q.st.path,
            line=q.st.line,
            end_line=q.st.end_line,
            severity="warning",
            record_id=q.st.row_id,
            fix="Records-only fix: cite the run the figure comes from (commit its output), or mark it unverified",
            key=f"{q.st.row_id} uncited {q.fig.text}",
        )

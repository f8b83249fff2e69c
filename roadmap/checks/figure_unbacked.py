"""RL202 figure-unbacked: a figure quoted next to an evidence citation that the evidence does not contain."""

from __future__ import annotations

import re
from typing import Any, Iterator

from roadmap.analysis.context import LintContext
from roadmap.analysis.evidence_figures import EvidenceFigure
from roadmap.analysis.figure_quotes import Quote
from roadmap.analysis.figures_compare import close, close_scaled, evidence_numbers, explicitly_old, marked_historical
from roadmap.analysis.metric_terms import SIDES, matches, same_dimension
from roadmap.analysis.evidence_index import evidence_figures, quotes, series_finder
from roadmap.analysis.surfaces import describe
from roadmap.analysis.verdicts import VERDICT, verdict_problem
from roadmap.checks.measurement_uncited import uncited_measurements
from roadmap.evidence.store import EvidenceEntry
from roadmap.findings import Hit
from roadmap.records.model import Figure, Statement

# Units of measured results, backed by any number of a field of their kind. A figure of another unit (a
# percentage, a ratio written without `x`, a real-time factor) is checked only against a field of its metric.
CHECKED_UNITS = {
    "tok/s",
    "x",
    "ms",
    "s",
    "us",
    "req/s",
    "GiB",
    "GB",
    "ms/token",
    "ms/step",
    "ms/call",
    "TFLOP/s",
    "GB/s",
    "GiB/s",
    "TB/s",
    "MB/s",
    "MiB/s",
    "KB/s",
    "MB",
    "MiB",
    "KB",
    "KiB",
    "q/s",
}
_SENTENCE = re.compile(r"(?<=[.!?;])\s+(?=[A-Z(`])")


def cited(ctx: "LintContext", st: "Statement") -> list["EvidenceEntry"]:
    """Evidence entries a statement names (in any date style, or by a path under the evidence root)."""
    return series_finder(ctx).cited_entries(st)


def _row_citations(ctx: "LintContext", st: "Statement") -> list["EvidenceEntry"]:
    """For a table cell without a citation of its own: what the other cells of its row cite."""
    if st.kind != "cell" or st.table_row is None:
        return []
    rf = ctx.record(st.path)
    for table in rf.tables if rf else []:
        for cells in table.rows:
            if any(c is st for c in cells):
                out: list["EvidenceEntry"] = []
                for c in cells:
                    out += [e for e in cited(ctx, c) if e not in out]
                return out
    return []


def _scopes(st: "Statement", entries: list["EvidenceEntry"]) -> list[tuple[int, int]]:
    """Character spans of the text whose figures a citation backs: the sentences that carry it (a table
    cell is one scope)."""
    if st.kind == "cell":
        return [(0, len(st.text))]
    spans, pos = [], 0
    for sent in _SENTENCE.split(st.text):
        start = st.text.find(sent, pos)
        end = start + len(sent)
        pos = end
        if any(e.name in sent or e.path in sent or e.name.rsplit(".", 1)[0] in sent for e in entries):
            spans.append((start, end))
    return spans


# Which result.json fields can back a figure of a unit: a tok/s figure is never "backed" by a latency that
# happens to round to it. Numbers read from a markdown summary (path ending ":text") match any unit.
_UNIT_FIELDS = {
    "tok/s": re.compile(r"tok_per_s|tokens_per_s|throughput"),
    "req/s": re.compile(r"requests_per_s|req_per_s"),
    "x": re.compile(r"ratio|speedup|fraction"),
    "ms": re.compile(r"_ms\b|_ms\.|latency"),
    "us": re.compile(r"_us\b|_us\."),
    "s": re.compile(r"(?:^|\.)(?:elapsed|duration|time|wall)\w*_s\b|_s\b|_s\."),
    "GiB": re.compile(r"gib|vram|memory"),
    "GB": re.compile(r"_gb\b|memory"),
    "GB/s": re.compile(r"gbps|_gb_per_s|bandwidth"),
    "TFLOP/s": re.compile(r"tflops"),
    "MB/s": re.compile(r"mbps|mb_per_s|mb_s\b|bandwidth|throughput"),
    "MiB/s": re.compile(r"mibps|mib_per_s"),
    "KB": re.compile(r"kb\b|_kb|kib"),
    "MB": re.compile(r"mb\b|_mb|mib|memory|size"),
    "q/s": re.compile(r"qps|per_s"),
}
# The fields a derived ratio may be the quotient of: headline throughput figures, ours and the peers'.
_RATIO_TERMS = re.compile(
    r"(?:^|\.)metrics\.(?:output_tok_per_s|total_tok_per_s|requests_per_s)(?:\.median)?$"
    r"|output_tok_per_s_bound$"
)


def _fits(unit: str | None, path: str) -> bool:
    pattern = _UNIT_FIELDS.get(unit or "")
    return path.endswith(":text") or pattern is None or bool(pattern.search(path.lower()))


def _backed(fig: "Figure", numbers: list[tuple[str, float]]) -> bool:
    if any(close(fig.value, fig.text, v) for p, v in numbers if _fits(fig.unit, p)):
        return True
    if fig.unit == "x":  # a ratio the records derive from two headline figures of the evidence
        vals = sorted({v for p, v in numbers if v > 0 and (p.endswith(":text") or _RATIO_TERMS.search(p))})
        return any(close(fig.value, fig.text, a / b) for a in vals for b in vals if a != b)
    return False


def _nearest(fig: "Figure", numbers: list[tuple[str, float]]) -> tuple[str, float] | None:
    pool = [(p, v) for p, v in numbers if v and _fits(fig.unit, p)] or [(p, v) for p, v in numbers if v]
    return min(pool, key=lambda pv: abs(pv[1] - fig.value) / max(abs(fig.value), 1e-9)) if pool else None


def _by_metric(q: Quote, figures: list[EvidenceFigure]) -> tuple[bool, EvidenceFigure | None]:
    """(backed, nearest) for a figure checked by its metric: (True, None) when the evidence has no figure of
    that metric (unknown, not unbacked)."""
    pool = [
        f
        for f in figures
        if matches(q.metric, f.metric) >= 1 and (same_dimension(q.unit, f.unit) or {q.unit, f.unit} <= {None, "x"})
    ]
    if not pool:
        return True, None
    if any(close_scaled(q.fig.value, q.fig.text, q.unit, f.value, f.unit, f.text) for f in pool):
        return True, None
    return False, min(pool, key=lambda f: abs(f.value - q.fig.value))


def _quotes_of(ctx: "LintContext", st: "Statement") -> list[Quote]:
    by_st = ctx.facts.quotes_by_statement
    if by_st is None:
        by_st = ctx.facts.quotes_by_statement = {}
        for q in quotes(ctx):
            by_st.setdefault(id(q.st), []).append(q)
    return by_st.get(id(st), [])


def _check(ctx: "LintContext", st: "Statement") -> tuple[list[str], list[dict[str, Any]]]:
    own = cited(ctx, st)
    entries = own or _row_citations(ctx, st)
    if not entries:  # no citation: only a verdict its own figures contradict
        v = verdict_problem(st.text, _quotes_of(ctx, st), []) if st.kind != "cell" else None
        return ([v] if v else []), []
    cache = ctx.facts.evidence_numbers
    for e in entries:
        if e.path not in cache:
            cache[e.path] = evidence_numbers(e, ctx.tree)
    numbers = [n for e in entries for n in cache[e.path]]
    if not numbers:
        return [], []  # nothing readable: unknown, not unbacked
    figures = [f for e in entries for f in evidence_figures(ctx, e)]
    scopes = _scopes(st, entries) if own else [(0, len(st.text))]
    problems: list[str] = []
    qs = _quotes_of(ctx, st)
    for q in qs:
        f = q.fig
        as_of_entry = (
            q.role == "old"
            and _dated_entry(st)
            and not marked_historical(st.text, f)
            and not explicitly_old(st.text, f)
        )  # a dated entry's own figure, old by its place only
        if q.role not in ("current", "dated") and not as_of_entry or not any(a <= f.start < b for a, b in scopes):
            continue
        side = q.metric.terms & SIDES
        if side and not any(side & e.metric.terms for e in figures):
            continue  # upstream's or a baseline's figure, which the evidence does not hold
        if f.unit == "x" and not q.metric.known and _in_parentheses(st.text, f.start):
            continue  # "(NA12878, chr20, 30x)": a condition of the run (a coverage, a scale), not its result
        if f.unit in CHECKED_UNITS:
            if _backed(f, numbers) or any(
                same_dimension(f.unit, e.unit) and close_scaled(f.value, f.text, f.unit, e.value, e.unit, e.text)
                for e in figures
            ):
                continue  # a field of its kind, or any figure the evidence gives a unit
            near = _nearest(f, numbers)
            hint = f" (nearest: {near[1]:g} at {near[0]})" if near else ""
        elif q.metric.known:
            backed, nearest = _by_metric(q, figures)
            if backed:
                continue
            hint = f" (the evidence says {nearest.text or f'{nearest.value:g}'} at {nearest.key})" if nearest else ""
        else:
            continue
        problems.append(
            f"{f.text}{'' if q.unit is None or f.text.endswith(q.unit) or q.unit == 'x' else ' ' + q.unit}"
            f" is not in it{hint}"
        )
    for a, b in scopes:
        v = verdict_problem(st.text[a:b], [q for q in qs if a <= q.fig.start < b], figures, offset=a)
        if v:
            problems.append(v)
    evidence = [{"kind": "evidence", "path": e.path, "date": e.date} for e in entries]
    return problems, evidence


def _row_verdicts(ctx: "LintContext") -> Iterator[Hit]:
    """A table row whose verdict cell (PASS/FAIL) its own bar and measurement, or the evidence it cites,
    contradict: `| p99 publish latency | ≤ 35 ms | PASS | broker-publish-20260501 |` with 38.5 ms measured."""
    for rf in ctx.records:
        for table in rf.tables:
            for cells in table.rows:
                if not any(VERDICT.fullmatch(c.text.strip()) for c in cells) or any(c.historical for c in cells):
                    continue
                qs = [q for c in cells for q in _quotes_of(ctx, c)]
                if not any(q.role == "bar" for q in qs):
                    continue
                entries = _row_citations(ctx, cells[0]) if cells else []
                figures = [f for e in entries for f in evidence_figures(ctx, e)]
                text = " | ".join(c.text for c in cells)
                problem = verdict_problem(text, qs, figures)
                if problem is None:
                    continue
                st = cells[0]
                names = ", ".join(e.path for e in entries)
                yield Hit(
                    message=f"The row at line {st.line} {problem}" + (f" ({names})" if names else ""),
                    path=st.path,
                    line=st.line,
                    end_line=st.line,
                    record_id=st.row_id,
                    evidence=[{"kind": "evidence", "path": e.path, "date": e.date} for e in entries],
                    fix="Records-only fix: correct the verdict, or the bar or figure it is judged by",
                    key=f"{st.row_id} row {st.line} {problem}",
                )


def _dated_entry(st: "Statement") -> bool:
    """A dated entry of a log or a sequence, history by its place alone: it still misreports its own run when the
    evidence it cites says otherwise (one struck through or called superseded is left alone)."""
    return st.history.startswith(("an older dated entry", "the newest entry"))


def _in_parentheses(text: str, at: int) -> bool:
    """Is position `at` inside a parenthesis the text opens before it and closes after it?"""
    opened = text.rfind("(", 0, at)
    return opened >= 0 and text.rfind(")", opened, at) < 0 and text.find(")", at) >= 0


def figure_unbacked(ctx: LintContext) -> list[Hit]:
    """What it does:
    Flags a figure quoted next to an evidence citation (in the same sentence, the same table cell, or the
    same table row when the row cites evidence) that the cited evidence does not contain within the
    rounding it is written with. Evidence is ours or anyone's: a result.json field backs a figure of its
    own kind (tok/s by a `*_tok_per_s` field, ms by a `*_ms` field, MB/s by `*_mbps`, a ratio by a ratio
    field or the quotient of two headline throughputs); a figure without such a unit (a WER %, a ratio
    written bare, a real-time factor) only by the evidence's figure of the same metric; a markdown
    summary's figures back figures of their unit. Also flags a PASS/FAIL verdict that its measurement
    contradicts against the bar it states (">= 450 MB/s: PASS" with 438.0 MB/s, "340 ms against its
    300 ms budget: PASS", "1.0283x FAIL against parity"), in a sentence or in a table row with a bar and
    a verdict cell; the measurement is the sentence's (row's) own figure, else the cited evidence's.
    Bars are never read as measurements, nor is a size that names what was measured ("a 10 MB file", "Writing
    10 MB back out ... takes 0.8 s": the object of the sentence's opening activity); figures of upstream or a
    baseline are left alone unless the evidence holds that side; evidence with no readable numbers is unknown, not wrong. A dated entry of a log is
    checked too: history by its place, it still misquotes the run it cites.
    As a warning: a figure a line says was measured ("v2 measured 5.9 ms at 16k") that cites nothing, in a
    record where at least two other statements cite evidence, when no evidence file and no commit message of
    the repository holds it.

    Why:
    A figure that its own citation does not back is either a typo or from somewhere else; a reader who
    follows the citation cannot reproduce it.

    Example:
    "6902.10 tok/s with the mirror on (docs/bench-evidence/20260807-local-bf16-4b)" while that entry's
    result.json says 6831.71 tok/s (median; min 6811.16, max 6842.74).

    Fix:
    Records only: quote the figure the evidence holds, or cite the entry the figure comes from.
    """
    findings: list[Hit] = list(_row_verdicts(ctx))
    for st in ctx.statements():
        if st.historical and not _dated_entry(st) or not st.mentions.figures:
            continue
        problems, evidence = _check(ctx, st)
        if not problems:
            continue
        names = ", ".join(e["path"] for e in evidence)
        label = describe(st)
        label = label[:1].upper() + label[1:]
        findings.append(
            Hit(
                message=f"{label} cites {names}, but {'; '.join(problems)}" if names else f"{label} {problems[0]}",
                path=st.path,
                line=st.line,
                end_line=st.end_line,
                record_id=st.row_id,
                evidence=evidence,
                fix=f"Records-only fix: quote the figures {names} holds, or cite the evidence they come from",
                key=f"{st.row_id} {' '.join(problems)}",
            )
        )
    reported = {(h.path, h.line) for h in findings}
    findings += [h for h in uncited_measurements(ctx, CHECKED_UNITS) if (h.path, h.line) not in reported]
    return findings

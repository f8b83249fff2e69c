"""The report as Markdown, for a CI job summary (`roadmap report -o "$GITHUB_STEP_SUMMARY"`).

Everything that comes from the records, the history or the evidence is untrusted and goes out through
roadmap/markup.py (`_cell`/`_t` as text, `_at` as a code span), so no record can inject HTML, a heading or a
table cell into the summary; only this module's own words are markup.
"""
from __future__ import annotations

from roadmap import markup
from roadmap.report import text as t
from roadmap.report.model import Reconciliation, Report

_cell = _t = markup.text


def _at(path: str, line: int | None = None, in_table: bool = True) -> str:
    return markup.code(f"{path}:{line}" if line is not None else path, in_table)


def render_markdown(report: Report) -> str:
    out = [f"# {_t(t.title(report))}", "", _t(t.summary(report)), ""]
    out += [f"> {_t(n)}" for n in report.notes] + ([""] if report.notes else [])
    out += _rows(report) + _series(report) + _directives(report) + _claims(report) + _reconciliations(report)
    return "\n".join(out).rstrip("\n") + "\n"


def _rows(report: Report) -> list[str]:
    out = ["## Rows", ""]
    if not report.rows:
        return out + ["No row states found (no `State`/`Status` column in the records).", ""]
    series = report.series_by_name()
    out += ["| Row | State | Evidence series, newest first |", "|---|---|---|"]
    for r in report.rows:
        state = f"{_cell(r.state)} ({_at(r.path, r.line)}{'' if r.canonical else ', not canonical'})"
        lines = [_cell(t.row_evidence(series[name])) for name in r.series[:t.MAX_ROW_SERIES]]
        if len(r.series) > t.MAX_ROW_SERIES:
            lines.append(f"and {len(r.series) - t.MAX_ROW_SERIES} more (see Evidence series)")
        out.append(f"| {_cell(r.row_id)} | {state} | {'<br>'.join(lines) or '—'} |")
    return out + [""]


def _series(report: Report) -> list[str]:
    out = ["## Evidence series", ""]
    if not report.series:
        return out + ["No evidence entries.", ""]
    out += ["| Series | Row | Entries | Newest | Output | vs peer | Trend |", "|---|---|---|---|---|---|---|"]
    for s in report.series:
        p = t.newest_figure(s)
        row = _cell(s.latest.row) if s.latest.row else "—"
        out.append(f"| {_cell(s.name)} | {row} | {len(s.points)} | {_at(p.name)} | {t.tok_s(p.tok_s)} | "
                   f"{_cell(t.ratio(p))} | {_cell(t.trend(s))} |")
    return out + [""]


def _directives(report: Report) -> list[str]:
    out = ["## Open directives", ""]
    if not report.directives:
        return out + ["No open directives.", ""]
    out += ["| Verdict | Age | Row | Where | Directive |", "|---|---|---|---|---|"]
    for d in sorted(report.directives, key=lambda d: (d.verdict == "current", d.path, d.line)):
        verdict = d.verdict + (f" ({', '.join(d.codes)})" if d.codes else "")
        age = t.days(d.age_days) + (f" since {d.as_of}" if d.as_of else "")
        out.append(f"| {_cell(verdict)} | {_cell(age)} | {_cell(d.row_id) if d.row_id else '—'} | "
                   f"{_at(d.path, d.line)} {_cell(d.where)} | {_cell(d.text)} |")
    return out + [""]


def _claims(report: Report) -> list[str]:
    out = ["## Claims", ""]
    if not report.claims:
        return out + ["No active claims.", ""]
    out += [f"| Claim | Status | Idle (TTL {report.claims_ttl_days} days) | Where |", "|---|---|---|---|"]
    for c in report.claims:
        idle = t.days(c.idle_days) + (f" since {c.since}" if c.since else "")
        out.append(f"| {_cell(c.claim_id)} | {_cell(c.status)} | {_cell(idle)} | {_at(c.path, c.line)} "
                   f"({_cell(c.section)}) |")
    return out + [""]


def _reconciliations(report: Report) -> list[str]:
    out = ["## Reconciliations", ""]
    if not report.reconciliations:
        return out + ["Nothing to reconcile: `roadmap lint` reports no findings.", ""]
    for n, r in enumerate(report.reconciliations, 1):
        out += _one(n, r)
    return out


def _one(n: int, r: Reconciliation) -> list[str]:
    row = f" ({_t(r.record_id)})" if r.record_id else ""
    out = [f"### {n}. {_t(r.code)} {_t(r.name)}{row}: {_t(r.severity)}", "", _t(r.title), ""]
    if r.fix:
        out += [f"**Fix:** {_t(r.fix)}", ""]
    out.append(f"**Surfaces ({len(r.surfaces)}):**")
    out += [f"- {_at(s.path, s.line, False)} {_t(s.note)}" for s in r.surfaces]
    if r.commits or r.evidence:
        out += ["", "**Evidence:**"]
        out += [f"- commit {_at(sha[:12], None, False)} {_t(day)} {_t(subject)}".rstrip() for sha, day, subject in r.commits]
        out += [f"- {_at(where, None, False)} {_t(day)}".rstrip() for where, day in r.evidence]
    out += ["", f"<sub>fingerprint {_at(r.fingerprint, None, False)}</sub>", ""]
    return out

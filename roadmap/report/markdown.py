"""The report as Markdown, for a CI job summary (`roadmap report -o "$GITHUB_STEP_SUMMARY"`)."""
from __future__ import annotations

from roadmap.report import text as t
from roadmap.report.model import Reconciliation, Report


def _cell(s: str) -> str:
    return " ".join(s.split()).replace("\\", "\\\\").replace("|", "\\|")


def render_markdown(report: Report) -> str:
    out = [f"# {t.title(report)}", "", t.summary(report), ""]
    out += [f"> {n}" for n in report.notes] + ([""] if report.notes else [])
    out += _rows(report) + _series(report) + _directives(report) + _claims(report) + _reconciliations(report)
    return "\n".join(out).rstrip("\n") + "\n"


def _rows(report: Report) -> list[str]:
    out = ["## Rows", ""]
    if not report.rows:
        return out + ["No row states found (no `State`/`Status` column in the records).", ""]
    series = report.series_by_name()
    out += ["| Row | State | Evidence series, newest first |", "|---|---|---|"]
    for r in report.rows:
        state = f"{r.state} (`{r.path}:{r.line}`{'' if r.canonical else ', not canonical'})"
        lines = [_cell(t.row_evidence(series[name])) for name in r.series[:t.MAX_ROW_SERIES]]
        if len(r.series) > t.MAX_ROW_SERIES:
            lines.append(f"and {len(r.series) - t.MAX_ROW_SERIES} more (see Evidence series)")
        out.append(f"| {r.row_id} | {_cell(state)} | {'<br>'.join(lines) or '—'} |")
    return out + [""]


def _series(report: Report) -> list[str]:
    out = ["## Evidence series", ""]
    if not report.series:
        return out + ["No evidence entries.", ""]
    out += ["| Series | Row | Entries | Newest | Output | vs peer | Trend |", "|---|---|---|---|---|---|---|"]
    for s in report.series:
        p = t.newest_figure(s)
        row = s.latest.row or "—"
        out.append(f"| {s.name} | {row} | {len(s.points)} | `{p.name}` | {t.tok_s(p.tok_s)} | "
                   f"{t.ratio(p)} | {_cell(t.trend(s))} |")
    return out + [""]


def _directives(report: Report) -> list[str]:
    out = ["## Open directives", ""]
    if not report.directives:
        return out + ["No open directives.", ""]
    out += ["| Verdict | Age | Row | Where | Directive |", "|---|---|---|---|---|"]
    for d in sorted(report.directives, key=lambda d: (d.verdict == "current", d.path, d.line)):
        verdict = d.verdict + (f" ({', '.join(d.codes)})" if d.codes else "")
        age = t.days(d.age_days) + (f" since {d.as_of}" if d.as_of else "")
        out.append(f"| {verdict} | {age} | {d.row_id or '—'} | `{d.path}:{d.line}` {_cell(d.where)} | "
                   f"{_cell(d.text)} |")
    return out + [""]


def _claims(report: Report) -> list[str]:
    out = ["## Claims", ""]
    if not report.claims:
        return out + ["No active claims.", ""]
    out += [f"| Claim | Status | Idle (TTL {report.claims_ttl_days} days) | Where |", "|---|---|---|---|"]
    for c in report.claims:
        idle = t.days(c.idle_days) + (f" since {c.since}" if c.since else "")
        out.append(f"| {c.claim_id} | {c.status} | {idle} | `{c.path}:{c.line}` ({_cell(c.section)}) |")
    return out + [""]


def _reconciliations(report: Report) -> list[str]:
    out = ["## Reconciliations", ""]
    if not report.reconciliations:
        return out + ["Nothing to reconcile: `roadmap lint` reports no findings.", ""]
    for n, r in enumerate(report.reconciliations, 1):
        out += _one(n, r)
    return out


def _one(n: int, r: Reconciliation) -> list[str]:
    row = f" ({r.record_id})" if r.record_id else ""
    out = [f"### {n}. {r.code} {r.name}{row}: {r.severity}", "", " ".join(r.title.split()), ""]
    if r.fix:
        out += [f"**Fix:** {' '.join(r.fix.split())}", ""]
    out.append(f"**Surfaces ({len(r.surfaces)}):**")
    out += [f"- `{s.path}:{s.line}` {' '.join(s.note.split())}" for s in r.surfaces]
    if r.commits or r.evidence:
        out += ["", "**Evidence:**"]
        out += [f"- commit `{sha[:12]}` {day} {subject}".rstrip() for sha, day, subject in r.commits]
        out += [f"- `{where}` {day}".rstrip() for where, day in r.evidence]
    out += ["", f"<sub>fingerprint `{r.fingerprint}`</sub>", ""]
    return out

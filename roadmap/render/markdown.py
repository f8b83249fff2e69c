"""`--format markdown`: a table for CI job summaries (`>> $GITHUB_STEP_SUMMARY`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from roadmap import markup

if TYPE_CHECKING:
    from roadmap.lint import LintResult

ICONS = {"error": "error", "warning": "warning", "info": "info"}
_cell = markup.text  # messages quote record text: never live markup in a job summary (roadmap/markup.py)


def render(result: "LintResult", color: bool = False) -> str:
    s = result.summary()
    head = f" at {markup.code(result.head[:12])}" if result.head else ""
    out = [f"### roadmap lint{head}", ""]
    if not result.findings:
        out.append(f"No findings ({result.records} record files checked).")
        return "\n".join(out) + "\n"
    out.append(
        f"**{s['error']}** errors, **{s['warning']}** warnings, **{s['info']}** info "
        f"in {len({f.path for f in result.findings})} of {result.records} record files."
    )
    out += ["", "| Severity | Code | Location | Message | Fix |", "|---|---|---|---|---|"]
    for f in result.findings:
        loc = markup.code(f"{f.path}:{f.line}" if f.end_line == f.line else f"{f.path}:{f.line}-{f.end_line}", True)
        msg = _cell(f.message)
        if f.related:
            msg += "<br>also: " + ", ".join(markup.code(f"{r.path}:{r.line}", True) for r in f.related)
        out.append(f"| {ICONS[f.severity]} | {f.code} {f.name} | {loc} | {msg} | {_cell(f.fix or '')} |")
    return "\n".join(out) + "\n"

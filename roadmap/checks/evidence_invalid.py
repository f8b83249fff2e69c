"""RL501 evidence-invalid: an evidence result that does not parse, breaks the schema, names a commit that is
not in history, or was measured on a dirty tree."""

from __future__ import annotations

from roadmap.analysis.context import LintContext
from roadmap.evidence.verify import checked, severity, verify_entry, where
from roadmap.findings import Hit


def evidence_invalid(ctx: LintContext) -> list[Hit]:
    """What it does:
    Validates every evidence entry under the evidence root whose `result.json` (or `.json` file) declares
    one of our schemas ("evident.bench/1" or "evident.roadmap-lint/1", docs/evidence-schema.json): it must
    follow the schema, name in `commit` a commit on the linted revision's history, and say `dirty: false`.
    JSON that does not parse (invalid syntax, NaN or Infinity, not UTF-8) is reported whoever wrote it. One
    finding per entry, listing every problem; a dirty tree alone is a warning. Evidence other teams keep
    (JSON without our `schema`, a summary, a log) is read for its date, series and figures and is never
    reported here.

    Why:
    Records cite evidence to make figures checkable; a result that cannot be read, lacks the command or
    machine, or measured code that is not in history (or not committed) cannot be reproduced.

    Example:
    `docs/bench-evidence/20260807-local-bf16-4b/result.json` with `"commit": "deadbeef..."`, a sha that no
    commit on HEAD's history has.

    Fix:
    Re-take the evidence with `engine bench` from a clean, committed tree, or correct the field; never
    edit measured figures by hand.
    """
    findings: list[Hit] = []
    for entry in ctx.get_evidence().entries:
        if not checked(entry):
            continue
        problems = verify_entry(entry, ctx.get_history, ctx.at or "HEAD")
        if not problems:
            continue
        text = "; ".join(p.message for p in problems)
        findings.append(
            Hit(
                severity=severity(problems),
                message=f"Evidence {entry.name} is invalid: {text}",
                path=where(entry),
                line=problems[0].line,
                end_line=problems[0].line,
                record_id=entry.row,
                evidence=[{"kind": "evidence", "path": entry.path, "date": entry.date}],
                fix="Re-take the evidence with `engine bench` from a clean, committed tree, or correct the named "
                "field; never edit measured figures by hand",
                key=f"{entry.path} {text}",
            )
        )
    return findings

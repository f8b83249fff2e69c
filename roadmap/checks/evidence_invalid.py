"""RL501 evidence-invalid: an evidence result that does not parse, breaks the schema, names a commit that is
not in history, or was measured on a dirty tree."""
from __future__ import annotations

import re

from roadmap.analysis.context import LintContext
from roadmap.evidence.store import EvidenceEntry
from roadmap.findings import Hit
from roadmap.history.index import HistoryIndex

_LINE = re.compile(r"\(line (\d+) column \d+")


def _where(entry: EvidenceEntry) -> str:
    return entry.result_path or entry.path


def _line(problem: str) -> int:
    m = _LINE.search(problem)
    return int(m.group(1)) if m else 1


def evidence_invalid(ctx: LintContext) -> list[Hit]:
    """What it does:
    Validates every evidence entry under the evidence root that has a `result.json` (schema
    "evident.bench/1"): it must parse as JSON, carry every required field with the right type, name in
    `commit` a commit on the linted revision's history, and say `dirty: false`. One finding per entry,
    listing every problem; a dirty tree alone is a warning. Foreign evidence (a summary without
    result.json) is dated by its name and not checked here.

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
    store = ctx.get_evidence()
    history: HistoryIndex | None = None
    findings: list[Hit] = []
    for entry in store.entries:
        if entry.result_path is None and not entry.problems:
            continue
        problems = [p.split(": ", 1)[1] if p.startswith(_where(entry) + ": ") else p for p in entry.problems]
        severity = "error" if problems else "warning"
        if entry.commit and re.fullmatch(r"[0-9a-f]{40}", entry.commit):
            history = history or ctx.get_history()
            if not history.contains(entry.commit):
                problems.append(f"commit {entry.commit[:12]} is not on the history of "
                                f"{(ctx.head or 'HEAD')[:9]} (measured on an unmerged or rewritten branch?)")
                severity = "error"
        if entry.dirty:
            problems.append("taken on a dirty tree (dirty: true): the measured code is not a commit")
        if not problems:
            continue
        findings.append(Hit(
            severity=severity, message=f"Evidence {entry.name} is invalid: {'; '.join(problems)}",
            path=_where(entry), line=_line(problems[0]), end_line=_line(problems[0]), record_id=entry.row,
            evidence=[{"kind": "evidence", "path": entry.path, "date": entry.date}],
            fix="Re-take the evidence with `engine bench` from a clean, committed tree, or correct the named "
                "field; never edit measured figures by hand", key=f"{entry.path} {'; '.join(problems)}"))
    return findings

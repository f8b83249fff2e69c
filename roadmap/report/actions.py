"""The report's summary: what to act on, grouped by the row (or claim, or file) each finding is about.

    for group in act_on(report):   # most errors first
        group.key, group.kind, group.state, [(n, r.code) for n, r in group.items]

Errors and warnings only (info findings are counted, not listed); `n` is the reconciliation's number in the
report, so the summary links to the full entry below it.
"""

from __future__ import annotations

from dataclasses import dataclass

from roadmap.report.model import Reconciliation, Report

ACT_ON = ("error", "warning")


@dataclass(frozen=True)
class ActionGroup:
    key: str  # a row id, a claim id, or a record file
    kind: str  # "row" | "claim" | "file"
    state: str | None  # the row's state, when the records give it one
    items: tuple[tuple[int, Reconciliation], ...]  # (number in the report, reconciliation), as listed there

    @property
    def errors(self) -> int:
        return sum(1 for _, r in self.items if r.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for _, r in self.items if r.severity == "warning")


def act_on(report: Report) -> list[ActionGroup]:
    states = {r.row_id: r.state for r in report.rows}
    claims = {c.claim_id for c in report.claims}
    grouped: dict[tuple[str, str], list[tuple[int, Reconciliation]]] = {}
    for n, r in enumerate(report.reconciliations, 1):
        if r.severity not in ACT_ON:
            continue
        if r.record_id:
            kind = "claim" if r.record_id in claims and r.record_id not in states else "row"
            key = (kind, r.record_id)
        else:
            key = ("file", r.surfaces[0].path if r.surfaces else "?")
        grouped.setdefault(key, []).append((n, r))
    groups = [
        ActionGroup(key, kind, states.get(key) if kind == "row" else None, tuple(items))
        for (kind, key), items in grouped.items()
    ]
    return sorted(groups, key=lambda g: (-g.errors, -g.warnings, g.kind == "file", g.key))


def info_count(report: Report) -> int:
    return sum(1 for r in report.reconciliations if r.severity not in ACT_ON)

"""RL401 state-contradiction."""

from __future__ import annotations

from typing import Iterator

from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import News, Reason
from roadmap.analysis.stale import analyse, hits_for
from roadmap.analysis.states import StateCell, disagree, states
from roadmap.findings import Hit, Related
from roadmap.history.git import GitError
from roadmap.records.model import Statement


def state_contradiction(ctx: LintContext) -> Iterator[Hit]:
    """What it does:
    Compares every row's state with the row's state in its canonical file (`canonical_states`, by default
    the roadmap and development-matrix files under the record folders). A state is the leading word of a
    `State`/`Status`/`Lifecycle` cell, of a `State:`/`Status:` line, or of a title written
    `ID — STATE (@owner)`; a row without an id column is keyed by its name in the first column. A closed
    state (`closed_states`, such as DONE) against an open one is an error; two open states at different
    stages (planned, in progress, on hold: WIP and "in progress" agree) are a warning. A row whose state is
    closed but which still has an open directive (in its own table row, or anywhere for a canonical row)
    is a warning. History is not read: logs, closed specs and struck text keep the states they had.

    Why:
    When two files disagree about a row, at least one of them is wrong, and the reader cannot tell which
    without archaeology. Open directives on a closed row send people to do work that is finished.

    Example:
    ```markdown
    - FW-OTA — WIP (@jo): delta apply works on rev C.   <- agents/sprint/2026-w22.md
    | FW-OTA | Delta OTA updates over BLE | DONE | — |  <- agents/ROADMAP.md (canonical)
    ```
    `FW-OTA is WIP here but DONE in agents/ROADMAP.md:7 (canonical)`.

    Fix:
    Make the non-canonical file agree with the canonical state (or change the canonical state if that is
    what moved). For a closed row, strike through or delete its remaining directives, or reopen the row.
    """
    found = states(ctx)
    closed = found.closed
    for sc in found.cells:
        ref = found.canonical.get(sc.row_id)
        if ref is None or sc.cell is ref.cell:
            continue
        severity = disagree(sc.state, ref.state, closed)
        if severity is None:
            continue
        name = _name(sc.row_id)
        yield Hit(
            severity=severity,
            message=f"{name} is {sc.state} here but {ref.state} in {ref.cell.path}:{ref.where} (canonical)",
            path=sc.cell.path,
            line=sc.where,
            end_line=sc.where if sc.line else sc.cell.end_line,
            record_id=sc.row_id if name == sc.row_id else None,
            related=[Related(ref.cell.path, ref.where, f"canonical state of {name}: {ref.state}")],
            evidence=[{"kind": "statement", "path": ref.cell.path, "line": ref.where, "text": ref.cell.text}],
            fix=f"change the state here to {ref.state}, or update the canonical row if the state really changed",
            key=f"state:{sc.row_id}:{sc.state}:{ref.state}",
        )
    grouped: set[int] = set()
    if ctx.head is not None and any(d.code == "RL401" for d in ctx.detectors):
        try:
            grouped = {id(st) for g in analyse(ctx) for st in g.surfaces}
        except GitError:
            grouped = set()
        else:
            yield from hits_for(ctx, "RL401")
    for st, ref in found.closed_directives:  # those the stale analysis could not date (uncommitted, no git)
        if id(st) not in grouped:
            yield _closed_hit(st, ref)


def applies(st: Statement) -> bool:
    return st.directive and not st.historical


def detect(ctx: LintContext, st: Statement, news: News) -> Reason | None:
    """The closed-row reason of a stale directive: its row is closed, in its own table row or canonically."""
    ref = states(ctx).closed_rows.get(id(st))
    if ref is None:
        return None
    return Reason(
        "RL401",
        "warning",
        f"is still open while {_name(ref.row_id)} is {ref.state} in {ref.cell.path}:{ref.where}",
        "strike through or delete the directive (the row is closed), or reopen the row",
        statements=[(ref.cell, f"{_name(ref.row_id)} is {ref.state}")],
    )


def _closed_hit(st: Statement, ref: StateCell) -> Hit:
    text = " ".join((st.directive_text or st.text).split())
    short = text if len(text) <= 80 else text[:77] + "..."
    name = _name(ref.row_id)
    return Hit(
        severity="warning",
        message=f'{name} is {ref.state} in {ref.cell.path}:{ref.where}, but this directive is still open: "{short}"',
        path=st.path,
        line=st.line,
        end_line=st.end_line,
        record_id=ref.row_id if name == ref.row_id else None,
        related=[]
        if (st.path, st.line) == (ref.cell.path, ref.where)
        else [Related(ref.cell.path, ref.where, f"{name} is {ref.state}")],
        fix="strike through or delete the directive (the row is closed), or reopen the row",
        key=f"closed-directive:{ref.row_id}:{text[:200]}",
    )


def _name(key: str) -> str:
    """A row's name for messages: its id, or the name a row without an id is keyed by (`feature:compression`)."""
    return f"'{key.split(':', 1)[1]}'" if ":" in key else key

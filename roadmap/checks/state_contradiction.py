"""RL401 state-contradiction."""
from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import Iterator

from roadmap.analysis.context import LintContext
from roadmap.analysis.refs import fenced_lines
from roadmap.registry import rule
from roadmap.findings import Finding, Related
from roadmap.records.model import Statement

EMPTY_CELL = {"", "-", "—", "–", "n/a", "na", "none", "nothing", "(none)", "tbd?"}


@dataclass(frozen=True)
class StateCell:
    row_id: str
    state: str
    cell: Statement
    canonical: bool


def _state_of(text: str, vocabulary: dict[str, str]) -> str | None:
    """The first state word of the cell (`**GATING** since 2026-07-25` -> GATING), by the configured vocabulary."""
    for token in re.findall(r"[A-Za-z][A-Za-z0-9_-]*", text):
        state = vocabulary.get(token.upper())
        if state:
            return state
    return None


def state_cells(ctx: LintContext) -> list[StateCell]:
    cfg = ctx.config
    vocabulary = {s.upper(): s.upper() for s in cfg.states}
    columns = {c.lower() for c in cfg.state_columns}
    out: list[StateCell] = []
    for rf in ctx.records:
        canonical = any(fnmatch.fnmatchcase(rf.path, g) for g in cfg.canonical_states)
        fences = fenced_lines(rf)
        for table in rf.tables:
            if not any(h.strip().lower() in columns for h in table.headers) or table.line in fences:
                continue
            for row in table.rows:
                for cell in row:
                    if (cell.column or "").strip().lower() not in columns or not cell.row_id or cell.historical:
                        continue
                    state = _state_of(cell.text, vocabulary)
                    if state:
                        out.append(StateCell(cell.row_id, state, cell, canonical))
    return out


@rule("RL401", "state-contradiction", "error")
def state_contradiction(ctx: LintContext) -> Iterator[Finding]:
    """What it does:
    Compares every row's state (a cell in a `State`/`Status` column, read with the configured state
    vocabulary) with the row's state in its canonical file (`canonical_states`, by default the roadmap
    spec). A different state elsewhere is an error. A row that is closed in its canonical file (a
    `closed_states` state such as DONE) but still has open directives anywhere is a warning.

    Why:
    When two files disagree about a row, at least one of them is wrong, and the reader cannot tell which
    without archaeology. Open directives on a closed row send people to do work that is finished.

    Example:
    ```markdown
    | ROAD-V1-C2-LOCAL-BF16 | DONE | ... |          <- agents/benchmark-record.md
    | ROAD-V1-C2-LOCAL-BF16 | GATING | ... |        <- agents/roadmap.md (canonical)
    ```
    `ROAD-V1-C2-LOCAL-BF16 is DONE here but GATING in agents/roadmap.md:12 (canonical)`.

    Fix:
    Make the non-canonical file agree with the canonical state (or change the canonical state if that is
    what moved). For a closed row, strike through or delete its remaining directives, or reopen the row.
    """
    cfg = ctx.config
    cells = state_cells(ctx)
    canonical: dict[str, StateCell] = {}
    for sc in sorted((c for c in cells if c.canonical), key=lambda c: (c.cell.path, c.cell.line)):
        canonical.setdefault(sc.row_id, sc)
    for sc in cells:
        ref = canonical.get(sc.row_id)
        if ref is None or sc is ref or sc.state == ref.state:
            continue
        yield state_contradiction.rule.finding(
            message=f"{sc.row_id} is {sc.state} here but {ref.state} in {ref.cell.path}:{ref.cell.line} (canonical)",
            path=sc.cell.path, line=sc.cell.line, end_line=sc.cell.end_line, record_id=sc.row_id,
            related=[Related(ref.cell.path, ref.cell.line, f"canonical state of {sc.row_id}: {ref.state}")],
            evidence=[{"kind": "statement", "path": ref.cell.path, "line": ref.cell.line, "text": ref.cell.text}],
            fix=f"change the state here to {ref.state}, or update the canonical row if the state really changed",
            key=f"state:{sc.row_id}:{sc.state}:{ref.state}")
    closed = cfg.closed_state_set
    for rf in ctx.records:
        fences = fenced_lines(rf)
        for st in rf.statements:
            ref = canonical.get(st.row_id or "")
            if (ref is None or ref.state not in closed or not st.directive or st.historical or st.line in fences
                    or st.text.strip().strip("*_`").lower() in EMPTY_CELL):
                continue
            text = " ".join(st.text.split())
            short = text if len(text) <= 80 else text[:77] + "..."
            yield state_contradiction.rule.finding(
                severity="warning",
                message=f"{st.row_id} is {ref.state} in {ref.cell.path}:{ref.cell.line}, but this directive is "
                        f"still open: \"{short}\"",
                path=st.path, line=st.line, end_line=st.end_line, record_id=st.row_id,
                related=[Related(ref.cell.path, ref.cell.line, f"{st.row_id} is {ref.state}")],
                fix="strike through or delete the directive (the row is closed), or reopen the row",
                key=f"closed-directive:{st.row_id}:{text[:200]}")

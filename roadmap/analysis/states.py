"""Row states as the records write them: every state cell (a `State`/`Status` column, read with the configured
vocabulary) and whether its file is canonical for states. Shared by RL401 and the coordination report."""
from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from roadmap.analysis.context import LintContext
from roadmap.analysis.refs import fenced_lines
from roadmap.records.model import Statement

# Cell texts that hold no directive, though they sit in a directive column.
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

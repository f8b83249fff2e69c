"""RL401 state-contradiction."""
from __future__ import annotations

from typing import Iterator

from roadmap.analysis.context import LintContext
from roadmap.analysis.refs import fenced_lines
from roadmap.analysis.states import EMPTY_CELL, StateCell, state_cells
from roadmap.findings import Hit, Related


def state_contradiction(ctx: LintContext) -> Iterator[Hit]:
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
        yield Hit(
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
            yield Hit(
                severity="warning",
                message=f"{st.row_id} is {ref.state} in {ref.cell.path}:{ref.cell.line}, but this directive is "
                        f"still open: \"{short}\"",
                path=st.path, line=st.line, end_line=st.end_line, record_id=st.row_id,
                related=[Related(ref.cell.path, ref.cell.line, f"{st.row_id} is {ref.state}")],
                fix="strike through or delete the directive (the row is closed), or reopen the row",
                key=f"closed-directive:{st.row_id}:{text[:200]}")

"""The as-of point of a directive table cell: the commit that wrote it, not a later flip of its row's state.

git blame works on lines, and a table row is one line: moving a row from PLANNED to ACTIVE makes blame date
every cell of it, so a stale "Remaining" cell would look freshly written and the commits that did its work would
stop being news. The as-of walk goes back from the blamed commit while that commit changed nothing in the row but
its state column(s) (config `state_columns`): in its first parent, the row with the same id has the same columns
and the same text in every other cell. An edit to any other cell (a new figure, a new evidence link, the
directive itself) means someone worked on the row, and the walk stops there. Uncommitted state flips in the
working tree are walked past the same way. Each step reads one file at one revision (analysis/rows_at.py: only
the lines naming the row's id are parsed) and blames one line; both are cached per run. The current record's
cells are indexed by line once, so the walk is linear in the number of directive cells.
"""
from __future__ import annotations

from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import RowKey
from roadmap.analysis.rows_at import row_key, rows_with_id, state_columns
from roadmap.history.blame import NULL_SHA, blame_lines
from roadmap.history.git import GitError
from roadmap.records.model import Statement

MAX_STEPS = 16   # row edits that left one cell alone; past this the walk stops at the oldest commit it reached


def cell_origin(ctx: LintContext, st: Statement, sha: str) -> str:
    """The commit (at or before `sha`, the line's blame commit) from which only state flips touched st's row;
    `sha` may be the null sha of an uncommitted line, and comes back unchanged when that edit did more."""
    if st.kind != "cell" or not st.row_id or not st.column:
        return sha
    rest = _other_cells(ctx, st)
    if rest is None:
        return sha
    history = ctx.get_history()
    for _ in range(MAX_STEPS):
        if sha == NULL_SHA:
            parent = ctx.head
        else:
            commit = history.by_sha(sha)
            parent = commit.parents[0] if commit is not None and commit.parents else None
        if parent is None:
            return sha
        line = _same_row_line(ctx, st, rest, parent)
        if line is None:
            return sha                    # `sha` wrote more of this row than its state
        earlier = _blame_one(ctx, st.path, parent, line)
        if earlier is None or history.by_sha(earlier) is None:
            return sha
        sha = earlier
    return sha


def _other_cells(ctx: LintContext, st: Statement) -> RowKey | None:
    """The key of st's own row as it reads now (None when the row has no state column to flip)."""
    cells = _cells_on_line(ctx, st.path).get(st.line, [])
    if not cells:
        return None
    states = state_columns(ctx)
    if not any((c.column or "").lower() in states for c in cells):
        return None
    return row_key(cells, states)


def _cells_on_line(ctx: LintContext, path: str) -> dict[int, list[Statement]]:
    """A record's table cells by line, indexed once per file: scanning every statement for each directive cell
    made a 50,000-row table take minutes (quadratic)."""
    index = ctx.facts.cells_by_line.get(path)
    if index is None:
        index = ctx.facts.cells_by_line[path] = {}
        rf = ctx.record(path)
        for c in rf.statements if rf is not None else ():
            if c.kind == "cell" and c.column:
                index.setdefault(c.line, []).append(c)
    return index


def _same_row_line(ctx: LintContext, st: Statement, key: RowKey, rev: str) -> int | None:
    """The line, in st.path at `rev`, of a row with st's id whose cells other than its state match `key`."""
    for line, other in rows_with_id(ctx, st.path, rev, st.row_id or ""):
        if other == key:
            return line
    return None


def _blame_one(ctx: LintContext, path: str, rev: str, line: int) -> str | None:
    cache = ctx.facts.blamed_line
    key = (path, rev, line)
    if key not in cache:
        try:
            hit = blame_lines(ctx.root, rev, path, [line]).get(line)
        except GitError:
            hit = None
        cache[key] = hit.sha if hit is not None and hit.committed else None
    return cache[key]

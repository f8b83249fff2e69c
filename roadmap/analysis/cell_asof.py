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

from typing import Iterable

from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import RowKey
from roadmap.analysis.rows_at import row_key, rows_with_id, state_columns
from roadmap.history.blame import NULL_SHA, blame_lines
from roadmap.history.git import GitError
from roadmap.records.model import Statement

MAX_STEPS = 16  # row edits that left one cell alone; past this the walk stops at the oldest commit it reached


def cell_origin(ctx: LintContext, st: Statement, sha: str) -> str:
    """The commit (at or before `sha`, the line's blame commit) from which only state flips touched st's row;
    `sha` may be the null sha of an uncommitted line, and comes back unchanged when that edit did more."""
    if st.kind != "cell" or not st.row_id or not st.column:
        return sha
    rest = _other_cells(ctx, st)
    if rest is None:
        return sha
    for _ in range(MAX_STEPS):
        step = _step(ctx, st, rest, sha)
        if step is None:
            return sha
        earlier = _blame_one(ctx, st.path, *step)
        if earlier is None or ctx.get_history().by_sha(earlier) is None:
            return sha
        sha = earlier
    return sha


def _step(ctx: LintContext, st: Statement, rest: RowKey, sha: str) -> tuple[str, int] | None:
    """(the revision before `sha`, the line of st's row there) when `sha` only flipped the row's state; None
    when the walk stops at `sha` (no parent, or `sha` wrote more of this row than its state)."""
    if sha == NULL_SHA:
        parent = ctx.head
    else:
        commit = ctx.get_history().by_sha(sha)
        parent = commit.parents[0] if commit is not None and commit.parents else None
    if parent is None:
        return None
    line = _same_row_line(ctx, st, rest, parent)
    return (parent, line) if line is not None else None


def prefetch_origins(ctx: LintContext, starts: Iterable[tuple[Statement, str]]) -> None:
    """Walk many directive cells back together, so each step blames all the lines it needs of one file at one
    revision in one git call (a call per cell made 1,000 flipped rows of a 50,000-row table cost 1,000 blames,
    tests/roadmap/test_safety_scale.py). The answers go where `_blame_one` looks first; cell_origin then walks
    each cell exactly as before, from them."""
    walking: list[tuple[Statement, RowKey, str]] = []
    for st, sha in starts:
        if st.kind == "cell" and st.row_id and st.column and (rest := _other_cells(ctx, st)) is not None:
            walking.append((st, rest, sha))
    if not walking:
        return  # history stays unbuilt when nothing asks for it (roadmap/lint.py)
    history = ctx.get_history()
    cache = ctx.facts.blamed_line
    for _ in range(MAX_STEPS):
        steps: list[tuple[Statement, RowKey, str, int]] = []
        asks: dict[tuple[str, str], set[int]] = {}
        for st, rest, sha in walking:
            step = _step(ctx, st, rest, sha)
            if step is not None:
                steps.append((st, rest, *step))
                if (st.path, *step) not in cache:
                    asks.setdefault((st.path, step[0]), set()).add(step[1])
        for (path, rev), lines in asks.items():
            if len(lines) > 1:  # one line is blamed alone by _blame_one, as it always was
                _blame_many(ctx, path, rev, lines)
        walking = [
            (st, rest, earlier)
            for st, rest, rev, line in steps
            if (earlier := _blame_one(ctx, st.path, rev, line)) is not None and history.by_sha(earlier) is not None
        ]
        if not walking:
            return


def _blame_many(ctx: LintContext, path: str, rev: str, lines: set[int]) -> None:
    """Blame `lines` of `path` at `rev` in one call, into the cache `_blame_one` reads (a line blames the same
    alone or with others); on a git error nothing is stored and each line is blamed alone later."""
    try:
        got = blame_lines(ctx.root, rev, path, sorted(lines))
    except GitError:
        return
    for n in lines:
        hit = got.get(n)
        ctx.facts.blamed_line[(path, rev, n)] = hit.sha if hit is not None and hit.committed else None


def _other_cells(ctx: LintContext, st: Statement) -> RowKey | None:
    """The key of st's own row as it reads now (None when the row has no state column to flip); once per row,
    though the prefetch and each cell's walk ask it."""
    cache = ctx.facts.row_keys
    where = (st.path, st.line)
    if where in cache:
        return cache[where]
    cells = _cells_on_line(ctx, st.path).get(st.line, [])
    states = state_columns(ctx)
    if not cells or not any((c.column or "").lower() in states for c in cells):
        cache[where] = None
    else:
        cache[where] = row_key(cells, states)
    return cache[where]


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

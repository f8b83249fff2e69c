"""The table rows of a record file at a past revision that carry one row id, and what they say (for the as-of
walk of analysis/cell_asof.py), without parsing the whole file at every revision the walk visits.

Parsing a 50,000-row record takes seconds; the walk visits a revision per state flip. So the file at the
revision is only split into lines and indexed by token once, and each line that names the id is parsed on
its own, under its table's header and separator row: a table row's cells depend on nothing else in the file.
A row can also take its id from an enclosing heading (no id cell of its own), so when the id is written on a
heading, or on a line that does not parse as a row of its table, the whole file is parsed after all, and the
answer is what a full parse gives (for ids written as plain tokens, as the id patterns require).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import RowKey
from roadmap.history.tree import blob_at
from roadmap.records.model import Statement
from roadmap.records.parser import parse_record
from roadmap.records.source import decode, split_lines

Rows = list[tuple[int, RowKey]]  # (1-based line, the row's key)
_TOKEN = re.compile(r"[\w-]+")
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_SETEXT = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")


def state_columns(ctx: LintContext) -> frozenset[str]:
    return _lower(ctx.config.state_columns)


@lru_cache(maxsize=16)
def _lower(columns: tuple[str, ...]) -> frozenset[str]:
    return frozenset(c.lower() for c in columns)


def row_key(cells: Iterable[Statement], states: frozenset[str]) -> RowKey:
    """A row's identity for the walk: every (column, text) pair but the state columns', in column order."""
    return tuple((c.column, c.text) for c in cells if c.column and c.column.lower() not in states)


def rows_with_id(ctx: LintContext, path: str, rev: str, row_id: str) -> Rows:
    """Every table row of `path` at `rev` whose row id is `row_id`: (line, key), in line order."""
    cache = ctx.facts.rows_at
    key = (path, rev, row_id)
    if key not in cache:
        cache[key] = _rows(ctx, path, rev, row_id)
    return cache[key]


def _rows(ctx: LintContext, path: str, rev: str, row_id: str) -> Rows:
    lines = _lines_at(ctx, path, rev)
    if lines is None:
        return []
    out: Rows = []
    for n in _lines_naming(ctx, path, rev, lines, row_id):
        line = lines[n - 1]
        if "|" not in line:
            if _ATX.match(line) or (n < len(lines) and _SETEXT.match(lines[n]) and line.strip()):
                return _parsed(ctx, path, rev).get(row_id, [])  # a heading can lend the id to its rows
            continue  # prose naming the id: not a row
        row = _row_alone(ctx, path, lines, _separators(ctx, path, rev, lines)[n - 1], n)
        if row is None or row[0] is None:
            return _parsed(ctx, path, rev).get(row_id, [])  # not a plain table row: ask the full parse
        if row[0] == row_id:
            out.append((n, row[1]))
    return out


def _lines_at(ctx: LintContext, path: str, rev: str) -> list[str] | None:
    cache = ctx.facts.lines_at
    key = (path, rev)
    if key not in cache:
        data = blob_at(ctx.root, rev, path, ctx.config.max_file_bytes)
        text = decode(path, data)[0] if data is not None else None
        cache[key] = split_lines(text) if text is not None else None
    return cache[key]


def _lines_naming(ctx: LintContext, path: str, rev: str, lines: list[str], row_id: str) -> list[int]:
    """The 1-based lines where `row_id` is written as a whole token (an id always is one: the id patterns
    match whole tokens); an id of other characters is looked for as a substring."""
    if not _TOKEN.fullmatch(row_id):
        return [n for n, line in enumerate(lines, 1) if row_id in line]
    index = ctx.facts.tokens_at.get((path, rev))
    if index is None:
        index = ctx.facts.tokens_at[(path, rev)] = {}
        for n, line in enumerate(lines, 1):
            for tok in set(_TOKEN.findall(line)):
                index.setdefault(tok, []).append(n)
    return index.get(row_id, [])


def _separators(ctx: LintContext, path: str, rev: str, lines: list[str]) -> list[int]:
    """For each line, the 1-based line of the separator row (`|---|---|`) of the table it is a body row of: the
    nearest separator above it with only `|` lines between, under a header line; 0 for none. One pass per file
    and revision (walking up per row would be quadratic again)."""
    cache = ctx.facts.separators_at
    key = (path, rev)
    if key not in cache:
        out = [0] * len(lines)
        sep = 0
        for k, line in enumerate(lines, 1):
            if "|" not in line:
                sep = 0
            elif k >= 2 and _SEPARATOR.match(line) and "|" in lines[k - 2] + line:
                sep = k
            elif sep:
                out[k - 1] = sep
        cache[key] = out
    return cache[key]


def _row_alone(ctx: LintContext, path: str, lines: list[str], sep: int, n: int) -> tuple[str | None, RowKey] | None:
    """(row id, key) of line `n` parsed under its table's header and separator (line `sep`), or None when it is
    not a body row of a table."""
    if sep < 2:
        return None
    doc = "\n".join([lines[sep - 2], lines[sep - 1], lines[n - 1]]) + "\n"
    cells = [
        s
        for s in parse_record(path, doc.encode("utf-8", "surrogateescape"), ctx.config).statements
        if s.kind == "cell" and s.line == 3 and s.column
    ]
    if not cells:
        return None
    return cells[0].row_id, row_key(cells, state_columns(ctx))


def _parsed(ctx: LintContext, path: str, rev: str) -> dict[str, Rows]:
    """Every row of the file at `rev` by id, from one full parse (cached per file and revision)."""
    cache = ctx.facts.rows_parsed
    key = (path, rev)
    if key not in cache:
        by_line: dict[int, list[Statement]] = {}
        data = blob_at(ctx.root, rev, path, ctx.config.max_file_bytes)
        if data is not None:
            for s in parse_record(path, data, ctx.config).statements:
                if s.kind == "cell" and s.row_id and s.column:
                    by_line.setdefault(s.line, []).append(s)
        states = state_columns(ctx)
        rows: dict[str, Rows] = {}
        for line, cells in by_line.items():
            rows.setdefault(cells[0].row_id or "", []).append((line, row_key(cells, states)))
        cache[key] = rows
    return cache[key]

"""Where on the record's source lines each path reference of a statement is written: the line and the
character span a fix may edit (roadmap/fix.py), found in the source, never guessed.

A statement's text has its markup removed, so a reference is looked for in the source lines the statement
covers (a table cell: its own cell span only), as the same token the parser matched: not inside a longer
path or number (`src/a.py:3` is not the start of `src/a.py:30`). Two equal references claim two spans.
A reference not found that way (markup inside it, an escaped character) keeps no span and gets no fix.
"""

from __future__ import annotations

import re
from dataclasses import replace

from roadmap.records.model import PathRef

_PIPE = re.compile(r"(?<!\\)\|")  # markdown-it splits a row on a pipe not right after a backslash
Region = tuple[int, int, int]  # (1-based line, start column, end column) of source text a statement covers


def _joins_before(c: str) -> bool:  # records/paths.py PATH_RE's lookbehind: [\w/.:@#-]
    return c.isalnum() or c in "_/.:@#-"


def _joins_after(c: str) -> bool:  # and its lookahead: [\w/]
    return c.isalnum() or c in "_/"


def place(refs: tuple[PathRef, ...], lines: list[str], regions: list[Region]) -> tuple[PathRef, ...]:
    """`refs` with record_line/start_col/end_col set where each is written within `regions` of `lines`."""
    if not refs or not regions:
        return refs
    taken: list[Region] = []
    out = []
    for ref in refs:
        hit = _find(ref.text, ref.form == "link", lines, regions, taken) if ref.text else None
        if hit is not None:
            taken.append(hit)
            ref = replace(ref, record_line=hit[0], start_col=hit[1], end_col=hit[2])
        out.append(ref)
    return tuple(out)


def _find(text: str, link: bool, lines: list[str], regions: list[Region], taken: list[Region]) -> Region | None:
    for line_no, start, end in regions:
        if not 1 <= line_no <= len(lines):
            continue
        line = lines[line_no - 1]
        pos = line.find(text, start, end)
        while pos >= 0:
            stop = pos + len(text)
            free = not any(n == line_no and pos < e and s < stop for n, s, e in taken)
            bounded = link or (
                (pos == 0 or not _joins_before(line[pos - 1])) and (stop >= len(line) or not _joins_after(line[stop]))
            )
            if free and bounded:
                return line_no, pos, stop
            pos = line.find(text, pos + 1, end)
    return None


def cell_spans(line: str) -> list[tuple[int, int]]:
    """(start, end) offsets of each cell of a table row, split as markdown-it splits it (rules_block/table.py):
    the trimmed line cut at every `|` not right after a backslash, an empty first and last piece dropped,
    each piece trimmed."""
    lo, hi = 0, len(line)
    while lo < hi and line[lo].isspace():
        lo += 1
    while hi > lo and line[hi - 1].isspace():
        hi -= 1
    cuts = [lo - 1, *(m.start() for m in _PIPE.finditer(line, lo, hi)), hi]
    pieces = [(cuts[k] + 1, cuts[k + 1]) for k in range(len(cuts) - 1)]
    if pieces and pieces[0][0] == pieces[0][1]:
        pieces.pop(0)
    if pieces and pieces[-1][0] == pieces[-1][1]:
        pieces.pop()
    out = []
    for s, e in pieces:
        while s < e and line[s].isspace():
            s += 1
        while e > s and line[e - 1].isspace():
            e -= 1
        out.append((s, e))
    return out

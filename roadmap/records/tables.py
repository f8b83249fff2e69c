"""GFM pipe tables as one block token: markdown-it's own table rule (rules_block/table.py) in fewer steps.

markdown-it's rule pushes eleven tokens per three-cell row and splits each row one character at a time; a
50,000-row table spent most of its parse there. This rule recognises exactly the same tables (the start test is
markdown-it's, line for line; a row ends the table under the same conditions) and splits rows the same way, but
emits `table_open`, one `table_rows` token and `table_close`. `table_rows.meta` holds the header cells and, per
body row, its 0-based line and its cells (missing cells empty, extra cells dropped), each cell's content trimmed
as markdown-it trims it; blocks.py parses each cell's inline content. tests/roadmap/test_records_tables.py
compares the two parsers on generated tables.
"""

from __future__ import annotations

import re

from markdown_it.common import utils as md_utils
from markdown_it.rules_block.state_block import StateBlock

# markdown-it-py 4.3 trims table cells by this set of spaces. Older releases (the H200 machine has 4.2) have no such
# constant, and importing it crashed every lint there; with them this path trims str.strip()'s whitespace (None).
_TRIM: str | None = getattr(md_utils, "MD_TRIM_CHARS", None)


def _is_space(ch: str | None) -> bool:
    return ch in ("\t", " ")


_HEADER_CELL = re.compile(r"^:?-+:?$")
_PIPE = re.compile(r"(?<!\\)\|")  # a pipe right after a backslash is escaped (however many backslashes)
_ALIGN_CHARS = frozenset("|-: \t")
MAX_AUTOCOMPLETED_CELLS = 0x10000  # markdown-it's bound on the empty cells a table may add (issue 1000)


def split_row(text: str) -> list[str]:
    """markdown-it's escapedSplit: cut at every unescaped `|`; `\\|` becomes `|` (its backslash dropped)."""
    if "\\" not in text:
        return text.split("|")
    return [piece.replace("\\|", "|") for piece in _PIPE.split(text)]


def _cells(text: str) -> list[str]:
    columns = split_row(text)
    if columns and columns[0] == "":
        columns.pop(0)
    if columns and columns[-1] == "":
        columns.pop()
    return columns


def _line(state: StateBlock, line: int) -> str:
    return state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]]


def _aligns(state: StateBlock, line: int) -> list[str] | None:
    """The delimiter row's column alignments, or None when `line` is not one."""
    pos = state.bMarks[line] + state.tShift[line]
    end = state.eMarks[line]
    if end - pos < 2:
        return None
    first, second = state.src[pos], state.src[pos + 1]
    if first not in "|-:" or (second not in "|-:" and not _is_space(second)):
        return None
    if first == "-" and _is_space(second):  # "- ..." is a list item
        return None
    text = state.src[pos:end]
    if not _ALIGN_CHARS.issuperset(text):
        return None
    columns = text.split("|")
    aligns = []
    for i, column in enumerate(columns):
        t = column.strip(_TRIM)
        if not t:
            if i == 0 or i == len(columns) - 1:
                continue  # empty columns before and after the table, not between columns
            return None
        if not _HEADER_CELL.search(t):
            return None
        if t[-1] == ":":
            aligns.append("center" if t[0] == ":" else "right")
        else:
            aligns.append("left" if t[0] == ":" else "")
    return aligns


def table(state: StateBlock, startLine: int, endLine: int, silent: bool) -> bool:
    if startLine + 2 > endLine:
        return False
    nextLine = startLine + 1
    if state.sCount[nextLine] < state.blkIndent or state.is_code_block(nextLine):
        return False
    aligns = _aligns(state, nextLine)
    if aligns is None:
        return False
    head = _line(state, startLine).strip(_TRIM)
    if "|" not in head or state.is_code_block(startLine):
        return False
    headers = _cells(head)
    width = len(headers)
    if width == 0 or width != len(aligns):
        return False
    if silent:
        return True

    old_parent = state.parentType
    state.parentType = "table"
    terminators = state.md.block.ruler.getRules("blockquote")
    rows: list[tuple[int, list[str]]] = []
    autocompleted = 0
    nextLine = startLine + 2
    while nextLine < endLine:
        if state.sCount[nextLine] < state.blkIndent:
            break
        start = state.bMarks[nextLine] + state.tShift[nextLine]
        # every terminator (fence, blockquote, hr, list, html_block, heading) needs its own first character;
        # a row that starts with a pipe can be none of them
        if start >= state.eMarks[nextLine] or state.src[start] != "|":
            if any(rule(state, nextLine, endLine, True) for rule in terminators):
                break
        text = state.src[start : state.eMarks[nextLine]].strip(_TRIM)
        if not text or state.is_code_block(nextLine):
            break
        cells = _cells(text)
        autocompleted += width - len(cells)
        if autocompleted > MAX_AUTOCOMPLETED_CELLS:
            break
        if len(cells) > width:
            del cells[width:]
        cells = [c.strip(_TRIM) for c in cells]
        if len(cells) < width:
            cells.extend([""] * (width - len(cells)))
        rows.append((nextLine, cells))
        nextLine += 1

    token = state.push("table_open", "table", 1)
    token.map = [startLine, nextLine]
    token = state.push("table_rows", "", 0)
    token.map = [startLine, nextLine]
    token.meta = {"headers": [h.strip(_TRIM) for h in headers], "rows": rows}
    state.push("table_close", "table", -1)
    state.parentType = old_parent
    state.line = nextLine
    return True

"""Table rows cut off from their header (a paragraph between the header and the newer rows) are read one
statement per row, each on its own line, and everything after them is still read."""

from __future__ import annotations

from roadmap.config import Config
from roadmap.records.parser import parse_record

BOARD = """# Board

| Claim | Owner |
|---|---|
| CLAIM-A | @ana |

A note that cuts the table.

| CLAIM-B | @ben | `KEEP_WARM` is opt-in |
| CLAIM-C | @chi | nothing about switches |

- after the rows

| Key | Next |
|---|---|
| ROW-D | ship it |
"""


def test_each_cut_off_row_is_its_own_statement_and_the_rest_is_read():
    rf = parse_record("agents/board.md", BOARD.encode(), Config())
    rows = [(s.line, s.end_line, s.text) for s in rf.statements if s.kind == "paragraph" and "CLAIM-" in s.text]
    assert rows == [
        (9, 9, "| CLAIM-B | @ben | KEEP_WARM is opt-in |"),
        (10, 10, "| CLAIM-C | @chi | nothing about switches |"),
    ]
    [b] = [s for s in rf.statements if s.text.startswith("| CLAIM-B")]
    assert b.mentions.symbols == ("KEEP_WARM",) or b.mentions.env_vars == ("KEEP_WARM",)
    assert [s.line for s in rf.statements if s.kind == "item"] == [12]
    assert [s.text for s in rf.statements if s.kind == "cell" and s.line == 16] == ["ROW-D", "ship it"]


def test_a_paragraph_with_one_pipe_line_or_prose_lines_stays_one_statement():
    text = "# Notes\n\n| not a row, one line |\nand prose under it\n"
    rf = parse_record("agents/n.md", text.encode(), Config())
    assert [(s.line, s.end_line) for s in rf.statements if s.kind == "paragraph"] == [(3, 4)]

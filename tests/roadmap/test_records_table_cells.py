"""parse_table_cells (the cheap parse analysis/cell_asof.py compares rows with at old revisions) gives the very cells
parse_record gives: same line, row id, column, text and raw source, on every markdown fixture of the test suite."""
from __future__ import annotations

from pathlib import Path

import pytest

from roadmap.config import Config
from roadmap.records.parser import parse_record, parse_table_cells

HERE = Path(__file__).parent
FIXTURES = sorted(p for d in ("fixtures", "scenarios") for p in (HERE / d).rglob("*.md"))
EDGES = {
    "setext": b"ROW-1 plan\n==========\n\n| Step | Next |\n|---|---|\n| a | Wire `X_Y` |\n",
    "nested": b"# T\n\n- item\n\n  | ID | Next |\n  |---|---|\n  | ROW-2 | do *it* ~~not~~ |\n",
    "refs": b"# T\n\n| ID | Next |\n|---|---|\n| ROW-3 | see [x][r] and &amp; \\| pipe |\n\n[r]: src/a.py\n",
    "front": b"---\nas_of: 2026-07-25\n---\n# ROW-4 title\n\n| Col | Other |\n|---|---|\n| v | w |\n",
    "empty": b"",
    "binary": b"\x00\x01\x02",
}


def _cells(statements):
    return [(s.line, s.end_line, s.kind, s.row_id, s.column, s.text, s.raw, s.section, s.table_row)
            for s in statements if s.kind == "cell"]


def test_there_are_fixtures():
    assert len(FIXTURES) > 20


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(HERE)))
def test_same_cells_as_parse_record(path: Path):
    data = path.read_bytes()
    config = Config()
    assert _cells(parse_table_cells(path.name, data, config)) == _cells(parse_record(path.name, data, config).statements)


@pytest.mark.parametrize("name", sorted(EDGES))
def test_same_cells_on_edge_cases(name: str):
    config = Config()
    want = _cells(parse_record(f"{name}.md", EDGES[name], config).statements)
    assert _cells(parse_table_cells(f"{name}.md", EDGES[name], config)) == want
    assert name in ("empty", "binary") or want

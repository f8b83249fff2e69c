"""Markdown fixtures with the expected parse written beside the line, markdownlint-style:

    14. **ROW-ID** — Port X. <!-- expect item directive number=14 row=ROW-ID asof=preamble:2026-07-25 -->

Words: a kind (cell|item|heading|paragraph); `directive`/`!directive`, `historical`/`!historical`; `col=Header`
(underscores for spaces) selects a table cell; `row=`, `defines=`, `number=`; `asof=source[:sha][:date]`
(`asof=none` for no as-of). `<!-- expect-table-ids: A B -->` checks the row ids of the table above it.
Files under `seed/` are parsed with paths relative to `seed/` (a `.agents/` layout like the seed's).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from roadmap.config import Config
from roadmap.records import parse_record
from roadmap.records.model import RecordFile, Statement

FIXTURES = Path(__file__).parent / "fixtures" / "records"
EXPECT = re.compile(r"<!-- expect (.*?) -->")
TABLE_IDS = re.compile(r"<!-- expect-table-ids: (.*?) -->")
KINDS = {"cell", "item", "heading", "paragraph"}


def _record_path(f: Path) -> str:
    rel = f.relative_to(FIXTURES)
    if rel.parts[0] == "seed":
        rel = rel.relative_to("seed")
    return rel.as_posix()


def _cases() -> list[tuple[Path, int, str]]:
    out = []
    for f in sorted(FIXTURES.rglob("*.md")):
        for no, line in enumerate(f.read_text(encoding="utf-8").split("\n"), start=1):
            out.extend((f, no, m.group(1)) for m in EXPECT.finditer(line))
            out.extend((f, no, "table-ids " + m.group(1)) for m in TABLE_IDS.finditer(line))
    return out


_PARSED: dict[Path, RecordFile] = {}


def _parse(f: Path) -> RecordFile:
    if f not in _PARSED:
        _PARSED[f] = parse_record(_record_path(f), f.read_bytes(), Config())
    return _PARSED[f]


def _select(rf: RecordFile, line: int, words: list[str]) -> Statement:
    kind = next((w for w in words if w in KINDS), None)
    col = next((w[4:].replace("_", " ") for w in words if w.startswith("col=")), None)
    found = [
        st
        for st in rf.statements
        if st.line == line
        and (kind is None or st.kind == kind)
        and (col is None or (st.column or "").lower() == col.lower())
    ]
    assert len(found) == 1, f"expected one {kind or 'statement'} (col={col}) on line {line}, found {found}"
    return found[0]


def _check_as_of(st: Statement, spec: str) -> None:
    if spec == "none":
        assert st.as_of is None, st.as_of
        return
    source, *parts = spec.split(":")
    assert st.as_of is not None, f"no as-of; expected {spec}"
    assert st.as_of.source == source, st.as_of
    for part in parts:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", part):
            assert st.as_of.date == part, st.as_of
        else:
            assert st.as_of.sha == part, st.as_of


@pytest.mark.parametrize("fixture,line,spec", _cases(), ids=lambda v: v.name if isinstance(v, Path) else str(v)[:40])
def test_fixture_line(fixture: Path, line: int, spec: str) -> None:
    rf = _parse(fixture)
    assert not rf.problems, rf.problems
    words = spec.split()
    if words[0] == "table-ids":
        table = max((t for t in rf.tables if t.end_line < line), key=lambda t: t.end_line)
        assert [row[0].row_id for row in table.rows] == words[1:]
        return
    st = _select(rf, line, words)
    for w in words:
        if w in ("directive", "!directive"):
            assert st.directive is (w == "directive"), f"directive={st.directive}: {st.text!r}"
        elif w in ("historical", "!historical"):
            assert st.historical is (w == "historical"), f"historical={st.historical}: {st.text!r}"
        elif w.startswith("row="):
            assert st.row_id == (None if w[4:] == "None" else w[4:])
        elif w.startswith("defines="):
            assert st.defines == w[8:]
        elif w.startswith("number="):
            assert st.item_number == int(w[7:])
        elif w.startswith("asof="):
            _check_as_of(st, w[5:])
        else:
            assert w in KINDS or w.startswith("col="), f"unknown expectation word {w!r}"


def test_every_fixture_has_expectations() -> None:
    files = {f for f, _, _ in _cases()}
    assert files == set(FIXTURES.rglob("*.md"))

"""The pipe-table rule (roadmap/records/tables.py) against markdown-it's own: generated documents are walked into
blocks from both token streams, and every block (tables' headers, rows, row lines, cells' text, code spans,
links, struck text, raw content; every paragraph, item and heading around them) must be the same."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from roadmap.config import Config
from roadmap.records import parse_record
from roadmap.records import parser as parser_module
from roadmap.records.blocks import MD, Block, walk
from roadmap.records.codec import encode_record
from roadmap.records.tables import split_row

REFERENCE = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])  # markdown-it, unpatched


def _inline(inl) -> tuple:
    return (inl.text, tuple(inl.code), tuple(inl.links), inl.struck, inl.visible)


def _block(b: Block, index: dict[int, int]) -> tuple:
    table = None
    if b.table is not None:
        rows = tuple((line, tuple((_inline(c.inline), c.raw) for c in cells)) for line, cells in b.table.rows)
        table = (tuple(b.table.headers), rows)
    parent = index.get(id(b.parent)) if b.parent is not None else None
    headings = tuple(h.title for h in b.headings)
    return (b.kind, b.line, b.end_line, headings, _inline(b.inline), b.raw, b.item_number, parent, table, b.quote)


def blocks_of(md: MarkdownIt, text: str) -> tuple[list[tuple], set[int]]:
    lines = text.split("\n")
    blocks, code = walk(md.parse(text), lines)
    index = {id(b): k for k, b in enumerate(blocks)}
    return [_block(b, index) for b in blocks], code


def same_as_markdown_it(text: str) -> None:
    ours, ours_code = blocks_of(MD, text)
    theirs, theirs_code = blocks_of(REFERENCE, text)
    assert ours == theirs, text
    assert ours_code == theirs_code, text


# ---------------------------------------------------------------- generated tables
_PIECES = [
    "a",
    "Row 7",
    " ",
    "\t",
    "|",
    "\\|",
    "\\\\|",
    "\\",
    "`x|y`",
    "`",
    "``a`b``",
    "*em*",
    "**strong**",
    "_u_",
    "~~old~~",
    "~",
    "<br>",
    "<span>",
    "</b>",
    "&amp;",
    "&#124;",
    "[link](src/a.py)",
    "[ref]",
    "![img](x.png)",
    "<https://x.org>",
    "é",
    "日本",
    "\u00a0",
    "\u2003",
    "ROW-A1",
    "src/a.py:12",
    ":",
    "-",
    "#",
]
cell = st.lists(st.sampled_from(_PIECES), max_size=5).map("".join)
_ENDINGS = [
    "",
    "\n",
    "\nplain text after",
    "\n> quoted",
    "\n- item",
    "\n1. item",
    "\n# Heading",
    "\n```\ncode\n```",
    "\n<div>\nhtml\n</div>",
    "\n***",
    "\n    indented code",
    "\n\ttabbed",
    "\n[ref]: https://r.example",
]
_BEFORE = ["", "Intro paragraph\n", "# Title\n\n", "Intro\n\n", "- item\n\n", "   "]


@st.composite
def table_doc(draw) -> str:
    width = draw(st.integers(1, 4))
    lead = draw(st.booleans())
    trail = draw(st.booleans())
    indent = draw(st.sampled_from(["", " ", "   ", "    "]))

    def row(cells: list[str], lead: bool, trail: bool) -> str:
        body = "|".join(cells)
        return indent + ("| " if lead else "") + body + (" |" if trail else "")

    head = [draw(cell) or "h" for _ in range(width)]
    delim = [draw(st.sampled_from(["---", ":--", "--:", ":-:", "-", " --- ", "--", ":---:"])) for _ in range(width)]
    if draw(st.integers(0, 9)) == 0:
        delim[draw(st.integers(0, width - 1))] = draw(st.sampled_from(["", "- -", "x", "=="]))  # not a table
    lines = [row(head, lead, trail), row(delim, lead or width == 1, trail)]
    for _ in range(draw(st.integers(0, 6))):
        n = max(0, width + draw(st.integers(-2, 2)))  # missing and extra cells
        cells = [draw(cell) for _ in range(n)]
        lines.append(row(cells, draw(st.booleans()) or lead, draw(st.booleans())))
    before = draw(st.sampled_from(_BEFORE))
    text = before + "\n".join(lines) + draw(st.sampled_from(_ENDINGS))
    wrap = draw(st.sampled_from(["", "> ", "- ", "  "]))
    if wrap:
        text = "\n".join(
            wrap + line if k == 0 or wrap != "- " else "  " + line for k, line in enumerate(text.split("\n"))
        )
    if draw(st.booleans()):
        text += "\n\n[ref]: https://r.example\n"
    return text.replace("\n", "\r\n") if draw(st.integers(0, 4)) == 0 else text


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(table_doc())
def test_generated_tables_parse_as_markdown_it_parses_them(text):
    same_as_markdown_it(text)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet="|\\`ab -:\t\n*~<>", max_size=60))
def test_split_row_is_markdown_its_escaped_split(text):
    from markdown_it.rules_block.table import escapedSplit

    assert split_row(text) == escapedSplit(text)


# ---------------------------------------------------------------- named edge cases, each with its control
def test_escaped_pipes_and_pipes_in_code_spans():
    doc = "| A | B |\n|---|---|\n| `x|y` | a \\| b |\n| `x\\|y` | \\\\| c |\n"
    same_as_markdown_it(doc)
    rows = parse_record("agents/t.md", doc.encode(), Config()).tables[0].rows
    assert [c.text for c in rows[0]] == ["`x", "y`"]  # GFM: a code span does not protect a pipe
    assert [c.text for c in rows[1]] == ["x|y", "| c"]  # an escaped pipe does, even after a backslash


def test_missing_extra_cells_and_omitted_outer_pipes():
    same_as_markdown_it("A | B | C\n--|:-:|--\n1 | 2\n1 | 2 | 3 | 4\n| only |\n")
    same_as_markdown_it("| A | B |\n|---|---|\n1 | 2\nnot a row\n")  # a line without a pipe is still a row


def test_table_ends_at_blank_or_block_line_and_not_at_a_pipe_line():
    for end in ("", "> q", "- i", "# h", "```", "<div>", "***", "    code"):
        same_as_markdown_it(f"| A |\n|---|\n| 1 |\n{end}\n| 2 |\n")
    same_as_markdown_it("| A |\n|---|\n| 1 |\n|- 2 |\n|# 3 |\n|> 4 |\n")  # pipe-led: rows, not blocks


def test_delimiter_row_variants_and_non_tables():
    for delim in ("|---|", "---", "|:-:|", "| - |", "|--- |", "|-- -|", "| --- | --- |", "- --", "|", ":"):
        same_as_markdown_it(f"| A |\n{delim}\n| 1 |\n")
    same_as_markdown_it("Paragraph line\n| A | B |\n|---|---|\n| 1 | 2 |\n")  # a table interrupts a paragraph


def test_crlf_tabs_unicode_html_and_nesting():
    same_as_markdown_it("| A\t| B |\r\n|---|---|\r\n| é<br>日本 | <span>x</span> |\r\n")
    same_as_markdown_it("> | A | B |\n> |---|---|\n> | 1 | 2 |\n>\n> after\n")
    same_as_markdown_it("- | A | B |\n  |---|---|\n  | 1 | 2 |\n- next\n")
    same_as_markdown_it("| [r] | ~~x~~ |\n|---|---|\n| [r] | **b** |\n\n[r]: https://r.example\n")


def test_whole_records_parse_the_same(monkeypatch):
    """parse_record with the fast rule and with markdown-it's: identical records, field for field."""
    doc = (
        "# Plan\n\nAs of 2026-07-01.\n\n| ID | State | Next |\n|:--|--|--:|\n| ROW-A1 | OPEN | Port `a|b` to src/a.py:3 |\n"
        "| ROW-A2 | DONE | ~~Rerun~~ the bench \\| twice |\n| ROW-A3 | OPEN |\n\n- item naming ROW-A1\n"
        "  | K | V |\n  |---|---|\n  | x | `y` |\n"
    )
    fast = encode_record(parse_record("agents/plan.md", doc.encode(), Config()))
    monkeypatch.setattr(parser_module, "MD", REFERENCE)
    assert encode_record(parse_record("agents/plan.md", doc.encode(), Config())) == fast

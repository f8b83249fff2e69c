"""markdown-it block tokens -> blocks (headings, paragraphs, list items, tables) with exact 1-based line spans.

A list item's span is its own paragraphs (markdown-it's item map also covers nested items and trailing blanks);
a table row's cells share the row's line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from roadmap.records import fastinline, tables
from roadmap.records.inline import Inline, join, render
from roadmap.records.model import AsOf

MD = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
# A character that can start an inline rule of MD (escape, code, strikethrough, emphasis, link, image, autolink,
# HTML, entity, line break). Content without one parses to a single text token, so that token is made directly:
# in a 50,000-row table most cells are plain, and markdown-it's inline pass was a third of the parse.
_INLINE_SPECIAL = re.compile(r"[\n\\`~*_\[!<&]")


def _inline_pass(state: StateCore) -> None:
    """markdown-it's core "inline" rule, with plain content short-cut to the one text token it parses to; the
    cells of a `table_rows` token (records/tables.py) are parsed here too, straight to their Inline. A paragraph
    that walk() splits into table rows (each row parsed on its own there) is not parsed as a whole."""
    items: list[int] = []  # levels of the open list items, tracked as walk() tracks them
    lines: list[str] | None = None
    tokens = state.tokens
    for k, token in enumerate(tokens):
        if token.type == "list_item_open" and token.map:
            items.append(token.level)
        elif token.type == "list_item_close" and items:
            items.pop()
        elif token.type == "inline":
            if token.children is None:
                token.children = []
            if token.content.startswith("|") and "\n" in token.content:
                if lines is None:
                    lines = state.src.split("\n")
                if _row_paragraph(tokens, k, items, lines):
                    continue
            if _INLINE_SPECIAL.search(token.content) is None:
                if token.content:
                    token.children.append(Token("text", "", 0, content=token.content))
                continue
            simple = fastinline.parse(token.content, state.md)
            if simple is not None:
                token.meta["inline"] = simple  # read by rendered(): no child tokens made
            else:
                state.md.inline.parse(token.content, state.md, state.env, token.children)
        elif token.type == "table_rows":
            meta = token.meta
            meta["header_inlines"] = [_cell_inline(c, state) for c in meta["headers"]]
            meta["row_inlines"] = [[_cell_inline(c, state) for c in cells] for _, cells in meta["rows"]]


def _row_paragraph(tokens: list[Token], k: int, items: list[int], lines: list[str]) -> bool:
    """Is inline token `k` the content of a paragraph walk() reads as separate table rows, never as a whole? (Its
    test, on the same lines: markdown-it's source lines are the record's, front matter blanked, and a paragraph
    holds no blank line.) Such paragraphs are often whole cut-off tables: hundreds of kilobytes parsed twice."""
    opening = tokens[k - 1] if k else None
    if opening is None or opening.type != "paragraph_open" or not opening.map:
        return False
    if items and opening.level == items[-1] + 1:
        return False  # a list item's own paragraph: walk() joins it into the item
    return _pipe_rows(lines, opening.map)


def _cell_inline(content: str, state: StateCore) -> Inline:
    """What render() gives for the children the inline pass and core `text_join` make of `content`."""
    if _INLINE_SPECIAL.search(content) is None:
        return Inline(text=content, visible=bool(content.strip()))
    simple = fastinline.parse(content, state.md)
    if simple is not None:
        return simple
    children: list[Token] = []
    state.md.inline.parse(content, state.md, state.env, children)
    for child in children:  # text_join: an escaped character is text (render ignores other types)
        if child.type == "text_special":
            child.type = "text"
    return render(children)


def rendered(token: Token) -> Inline:
    """The Inline of an `inline` token: made by the inline pass (fastinline), else render() of its children."""
    made = token.meta.get("inline")
    return made if isinstance(made, Inline) else render(token.children)


MD.core.ruler.at("inline", _inline_pass)
MD.block.ruler.at("table", tables.table, {"alt": ["paragraph", "reference"]})


@dataclass(eq=False)
class Heading:
    level: int
    title: str
    line: int
    row_id: str | None = None  # own title id, else the enclosing heading's
    as_of: AsOf | None = None  # from the heading text or the paragraphs at the top of its section
    preamble: bool = False  # the file's title heading: its as-of is the preamble's


@dataclass(eq=False)
class Cell:
    inline: Inline
    raw: str


@dataclass(eq=False)
class TableBlock:
    headers: list[str]
    rows: list[tuple[int, list[Cell]]]  # (1-based line, cells in header order)


@dataclass(eq=False)
class Block:
    kind: str  # "heading" | "paragraph" | "item" | "table"
    line: int
    end_line: int
    order: int  # document order of the opening token (items close after their children)
    headings: tuple[Heading, ...]
    inline: Inline = field(default_factory=lambda: Inline(text=""))
    raw: str = ""
    item_number: int | None = None
    parent: "Block | None" = None  # enclosing list item, for nested items
    table: TableBlock | None = None
    heading: Heading | None = None  # for kind == "heading": the section it opens
    quote: int = 0  # line of the enclosing blockquote's first line, 0 outside a blockquote


def walk(tokens: list[Token], lines: list[str]) -> tuple[list[Block], set[int]]:
    """Blocks in document order and the 0-based line indices inside code blocks (not scanned for comments)."""
    blocks: list[Block] = []
    code_lines: set[int] = set()
    headings: list[Heading] = []
    items: list[tuple[Block, int, list[tuple[Inline, list[int]]]]] = []  # (block, level, own paragraphs)
    quotes: list[int] = []  # first lines of the open blockquotes, outermost first
    order = 0
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i]
        typ = tok.type
        order += 1
        if typ == "blockquote_open" and tok.map:
            quotes.append(tok.map[0] + 1)
        elif typ == "blockquote_close" and quotes:
            quotes.pop()
        if typ == "heading_open" and tok.map:
            level = int(tok.tag[1:]) if tok.tag[1:].isdigit() else 1
            while headings and headings[-1].level >= level:
                headings.pop()
            inl = rendered(tokens[i + 1])
            h = Heading(level=level, title=inl.text.strip(), line=tok.map[0] + 1)
            blocks.append(
                Block(
                    "heading", tok.map[0] + 1, tok.map[1], order, tuple(headings), inl, _raw(lines, tok.map), heading=h
                )
            )
            headings.append(h)
            i += 3
            continue
        if typ == "list_item_open" and tok.map:
            number = int(tok.info) if tok.info.isdigit() else None
            parent = items[-1][0] if items else None
            block = Block(
                "item",
                tok.map[0] + 1,
                tok.map[0] + 1,
                order,
                tuple(headings),
                item_number=number,
                parent=parent,
                quote=quotes[0] if quotes else 0,
            )
            items.append((block, tok.level, []))
        elif typ == "list_item_close" and items:
            block, _, paras = items.pop()
            if paras:
                block.inline = join([p for p, _ in paras])
                block.end_line = max(m[1] for _, m in paras)
                block.raw = "\n".join(lines[block.line - 1 : block.end_line])
                blocks.append(block)
        elif typ == "paragraph_open" and tok.map:
            if items and tok.level == items[-1][1] + 1:
                items[-1][2].append((rendered(tokens[i + 1]), tok.map))
            elif _pipe_rows(lines, tok.map):  # (the inline pass left these unparsed: see _row_paragraph)
                # table rows cut off from their header (markdown-it reads them as one paragraph): each row is
                # its own statement on its own line, as it would be under its header
                for row in range(tok.map[0], tok.map[1]):
                    blocks.append(
                        Block(
                            "paragraph",
                            row + 1,
                            row + 1,
                            order,
                            tuple(headings),
                            rendered(MD.parseInline(lines[row])[0]),
                            lines[row],
                            parent=items[-1][0] if items else None,
                            quote=quotes[0] if quotes else 0,
                        )
                    )
            else:
                blocks.append(
                    Block(
                        "paragraph",
                        tok.map[0] + 1,
                        tok.map[1],
                        order,
                        tuple(headings),
                        rendered(tokens[i + 1]),
                        _raw(lines, tok.map),
                        parent=items[-1][0] if items else None,
                        quote=quotes[0] if quotes else 0,
                    )
                )
            i += 3
            continue
        elif typ == "table_open" and tok.map:
            i = _table(tokens, i, tok, lines, blocks, order, tuple(headings), quotes[0] if quotes else 0)
            continue
        elif typ in ("fence", "code_block") and tok.map:
            code_lines.update(range(tok.map[0], tok.map[1]))
        i += 1
    blocks.sort(key=lambda b: (b.line, b.order))
    return blocks, code_lines


def _table(
    tokens: list[Token],
    i: int,
    open_tok: Token,
    lines: list[str],
    blocks: list[Block],
    order: int,
    headings: tuple[Heading, ...],
    quote: int,
) -> int:
    headers: list[str] = []
    rows: list[tuple[int, list[Cell]]] = []
    in_head = False
    row_line = open_tok.map[0] + 1 if open_tok.map else 1
    cells: list[Cell] | None = None
    j = i + 1
    while j < len(tokens) and tokens[j].type != "table_close":
        t = tokens[j]
        if t.type == "table_rows":  # records/tables.py: one token for the whole table
            headers = [inl.text.strip() for inl in t.meta["header_inlines"]]
            for (line, contents), inlines in zip(t.meta["rows"], t.meta["row_inlines"]):
                rows.append((line + 1, [Cell(inl, c) for inl, c in zip(inlines, contents)]))
        elif t.type == "thead_open":
            in_head = True
        elif t.type == "thead_close":
            in_head = False
        elif t.type == "tr_open":
            row_line = t.map[0] + 1 if t.map else row_line + 1
            cells = []
        elif t.type == "tr_close" and cells is not None:
            if not in_head:
                rows.append((row_line, cells))
            cells = None
        elif t.type == "inline" and cells is not None:
            inl = rendered(t)
            if in_head:
                headers.append(inl.text.strip())
            else:
                cells.append(Cell(inl, t.content))
        j += 1
    assert open_tok.map is not None  # markdown-it maps every block token to its lines
    end = open_tok.map[1]
    blocks.append(
        Block("table", open_tok.map[0] + 1, end, order, headings, table=TableBlock(headers, rows), quote=quote)
    )
    return j + 1


_PIPE_ROW = re.compile(r"^\s{0,3}\|.*\|")


def _pipe_rows(lines: list[str], span: list[int]) -> bool:
    """Is the paragraph on lines `span` two or more table rows (`| a | b |` each) with no header to make a table?"""
    return span[1] - span[0] >= 2 and all(_PIPE_ROW.match(lines[n]) for n in range(span[0], span[1]))


def _raw(lines: list[str], span: list[int]) -> str:
    return "\n".join(lines[span[0] : span[1]])

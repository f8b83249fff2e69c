"""markdown-it inline tokens -> plain text, with code spans and link targets located in that text.

Struck-through text (`~~old~~`) is dropped: it is history, never read as a current claim.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from markdown_it.token import Token


@dataclass
class Inline:
    text: str  # markup removed, struck text removed, breaks as spaces
    code: list[tuple[int, int, str]] = field(default_factory=list)  # (start, end, content) of code spans in text
    links: list[tuple[int, int, str]] = field(default_factory=list)  # (start, end, href) of link text in text
    struck: bool = False  # some text was struck through
    visible: bool = False  # some non-struck, non-blank content exists


_BREAKS = {"softbreak", "hardbreak"}


def render(children: list[Token] | None) -> Inline:
    """Flatten inline children into plain text, remembering where code spans and links sit."""
    out = Inline(text="")
    if not children:
        return out
    parts: list[str] = []
    pos = 0
    struck_depth = 0
    open_links: list[tuple[int, str]] = []
    for tok in children:
        kind = tok.type
        if kind == "s_open":
            struck_depth += 1
            out.struck = True
            continue
        if kind == "s_close":
            struck_depth = max(0, struck_depth - 1)
            continue
        if struck_depth:
            continue
        piece = ""
        if kind == "text":
            piece = tok.content
        elif kind == "code_inline":
            piece = tok.content
            out.code.append((pos, pos + len(piece), piece))
        elif kind in _BREAKS:
            piece = " "
        elif kind == "link_open":
            open_links.append((pos, str(tok.attrs.get("href", ""))))
        elif kind == "link_close" and open_links:
            start, href = open_links.pop()
            out.links.append((start, pos, href))
        elif kind == "image":
            piece = tok.content or ""
        elif kind == "html_inline":
            # <br> in a table cell is a line break; other inline HTML is markup, not text.
            piece = " " if tok.content.lower().startswith("<br") else ""
        if piece:
            parts.append(piece)
            pos += len(piece)
    out.text = "".join(parts)
    out.visible = bool(out.text.strip())
    return out


def join(items: list[Inline]) -> Inline:
    """Several paragraphs of one list item as one Inline (offsets shifted, separated by a space)."""
    if len(items) == 1:
        return items[0]
    out = Inline(text="")
    pos = 0
    texts: list[str] = []
    for i, it in enumerate(items):
        if i:
            texts.append(" ")
            pos += 1
        out.code.extend((s + pos, e + pos, c) for s, e, c in it.code)
        out.links.extend((s + pos, e + pos, h) for s, e, h in it.links)
        out.struck = out.struck or it.struck
        texts.append(it.text)
        pos += len(it.text)
    out.text = "".join(texts)
    out.visible = any(it.visible for it in items)
    return out

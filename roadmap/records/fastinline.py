"""markdown-it's inline parse of text, code spans, line breaks and emphasis, straight to the Inline render() makes.

Most record text uses only those (`**bold**`, `code`, wrapped lines); markdown-it pushes a token for every text
run, delimiter character and break, and render() then walks them all. Here the content is scanned once with
markdown-it's own rules for those constructs (its newline rule's trailing-space handling, its code-span matching,
its scanDelims for emphasis runs and its processDelimiters to pair them); paired emphasis markers are markup,
everything else is text. Content with any other inline construct (escape, strikethrough, link, image, autolink,
HTML, entity) outside code spans returns None and takes markdown-it's full parse.
tests/roadmap/test_records_fastinline.py compares the two on generated content.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from markdown_it.rules_inline.balance_pairs import processDelimiters
from markdown_it.rules_inline.state_inline import Delimiter, StateInline

from roadmap.records.inline import Inline

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

# Where a token other than text can start: a backtick run, a line break, an emphasis run; and tildes, text when
# alone ("~2x": strikethrough needs two) and a strikethrough marker otherwise.
_TOKEN_START = re.compile(r"`+|\n|\*+|_+|~+")
# The characters of every other inline rule: outside a code span, one of them means the full parse.
_OTHER_RULES = re.compile(r"[\\\[!<&]")


@lru_cache(maxsize=64)
def _run_of(ticks: int) -> re.Pattern[str]:
    """A run of exactly `ticks` backticks (its lookbehind after the first one, so `re` skips to backticks in C)."""
    return re.compile(f"`(?<!``){'`' * (ticks - 1)}(?!`)")


Piece = tuple[str, str, int]  # ("text" | "code" | "mark", its text, the mark's index in the delimiters)


def parse(content: str, md: "MarkdownIt") -> Inline | None:
    """render() of markdown-it's inline tokens for `content`, or None when it holds another construct."""
    other = _OTHER_RULES.search(content)
    if other is not None and "`" not in content[: other.start()]:
        return None  # another construct, and no code span before it that could hold it: decline at once
    scan = _Scan(content, md)
    if not scan.run():
        return None
    return scan.inline()


class _Scan:
    def __init__(self, content: str, md: "MarkdownIt"):
        self.content = content
        self.md = md
        self.pieces: list[Piece] = []
        self.delimiters: list[Delimiter] = []
        self.tokens = 0  # markdown-it's token count: delimiters are adjacent when their tokens are
        self.pending = ""  # the text since the last token, which markdown-it's newline rule trims
        self.unclosed: set[int] = set()  # backtick run lengths with no run of that length further on
        self.state: StateInline | None = None  # for scanDelims, made when the first emphasis run is met

    def run(self) -> bool:
        content, pos, n = self.content, 0, len(self.content)
        while True:
            m = _TOKEN_START.search(content, pos)
            stop = m.start() if m else n
            if _OTHER_RULES.search(content, pos, stop):
                return False
            self.pending += content[pos:stop]
            if m is None:
                self._flush()
                return True
            mark = m.group()
            if mark == "\n":
                pos = self._newline(m.end())
            elif mark == "~":
                self.pending += mark
                pos = m.end()
            elif mark[0] == "~":
                return False  # strikethrough: markdown-it's parse
            elif mark[0] == "`":
                pos = self._code(m)
            else:
                pos = self._emphasis(m)

    def _flush(self) -> None:
        """markdown-it's pushPending: the pending text becomes a text token."""
        if self.pending:
            self.pieces.append(("text", self.pending, -1))
            self.tokens += 1
            self.pending = ""

    def _newline(self, pos: int) -> int:
        """markdown-it's newline rule: a hard break drops the trailing spaces, a soft break one; both render
        as a space; the next line's leading spaces and tabs are skipped."""
        if self.pending.endswith("  "):
            self.pending = self.pending.rstrip(" ")
        elif self.pending.endswith(" "):
            self.pending = self.pending[:-1]
        self._flush()
        self.pieces.append(("text", " ", -1))
        self.tokens += 1
        while pos < len(self.content) and self.content[pos] in " \t":
            pos += 1
        return pos

    def _code(self, m: re.Match[str]) -> int:
        """markdown-it's backtick rule: a code span up to the next run of as many backticks, else the run is text."""
        content, ticks = self.content, len(m.group())
        closer = None if ticks in self.unclosed else _run_of(ticks).search(content, m.end())
        if closer is None:
            self.unclosed.add(ticks)  # (so a text of many lone backticks is not scanned to its end for each)
            self.pending += m.group()
            return m.end()
        inner = content[m.end() : closer.start()].replace("\n", " ")
        if inner.startswith(" ") and inner.endswith(" ") and inner.strip(" "):
            inner = inner[1:-1]
        self._flush()
        self.pieces.append(("code", inner, -1))
        self.tokens += 1
        return closer.end()

    def _emphasis(self, m: re.Match[str]) -> int:
        """markdown-it's emphasis rule: one text token and one delimiter per marker character."""
        if self.state is None:
            self.state = StateInline(self.content, self.md, {}, [])
        marker = m.group()[0]
        scanned = self.state.scanDelims(m.start(), marker == "*")
        self._flush()
        for _ in range(scanned.length):
            self.pieces.append(("mark", marker, len(self.delimiters)))
            self.delimiters.append(
                Delimiter(
                    marker=ord(marker),
                    length=scanned.length,
                    token=self.tokens,
                    end=-1,
                    open=scanned.can_open,
                    close=scanned.can_close,
                )
            )
            self.tokens += 1
        return m.start() + scanned.length

    def inline(self) -> Inline:
        """The text with the paired emphasis markers left out (markdown-it makes them em/strong tags)."""
        paired: set[int] = set()
        if self.delimiters:
            assert self.state is not None  # made with the first emphasis run
            processDelimiters(self.state, self.delimiters)
            for i, d in enumerate(self.delimiters):
                if d.end >= 0:
                    paired.update((i, d.end))
        parts: list[str] = []
        code: list[tuple[int, int, str]] = []
        length = 0
        for kind, text, index in self.pieces:
            if kind == "mark" and index in paired:
                continue
            if kind == "code":
                code.append((length, length + len(text), text))
            parts.append(text)
            length += len(text)
        out = "".join(parts)
        return Inline(text=out, code=code, visible=bool(out.strip()))

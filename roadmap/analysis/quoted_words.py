"""Words a commit message quotes from a record: `ADR 0007 rests on "SQLite can't handle our concurrent writers"`.

A commit that quotes a statement word for word is about that statement, whatever else it shares with it: the
quote ties the two as firmly as naming the statement's row would.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Text between double quotes (straight, curly, German low-high, guillemets) within one paragraph: a commit body
# wrapped at 72 columns breaks a long quote over two lines, never over a blank line.
_BREAK = r"|\n(?![ \t]*\n)"  # a line break that is no paragraph break
_QUOTE = re.compile(
    rf"\"((?:[^\"\n]{_BREAK}){{12,200}})\"|\u201c((?:[^\u201d\n]{_BREAK}){{12,200}})\u201d"
    rf"|\u201e((?:[^\u201c\u201d\n]{_BREAK}){{12,200}})[\u201c\u201d]"
    rf"|\u00ab\s?((?:[^\u00bb\n]{_BREAK}){{12,200}}?)\s?\u00bb"
)
_WORD = re.compile(r"\w[\w'%/-]*(?:\.\w[\w'%/-]*)*")  # a word, a number or a path, never its sentence's full stop
MIN_WORDS = 4  # "the cache is cold" ties; a quoted flag or a two-word name does not


def _norm(text: str) -> str:
    text = text.replace("\u2019", "'").replace("`", "")
    return " ".join(_WORD.findall(text.lower()))


@lru_cache(maxsize=1 << 12)
def quoted_phrases(message: str) -> tuple[str, ...]:
    """The phrases of at least MIN_WORDS words the message quotes, normalised (lower case, words only)."""
    out = []
    for m in _QUOTE.finditer(message):
        phrase = _norm(next(g for g in m.groups() if g))
        if len(phrase.split()) >= MIN_WORDS:
            out.append(phrase)
    return tuple(out)


def quotes(message: str, text: str) -> bool:
    """Does the message quote words of `text` (a statement's plain text) word for word?"""
    phrases = quoted_phrases(message)
    if not phrases:
        return False
    said = f" {_norm(text)} "
    return any(f" {p} " in said for p in phrases)


def quoted_lines(message: str, raw: str, first: int) -> tuple[int, int] | None:
    """The lines of `raw` (a statement's source, its first line numbered `first`) that hold the words the message
    quotes from it: the fewest consecutive lines whose words hold a quoted phrase whole; None when none does."""
    lines = raw.split("\n")
    if len(lines) < 2:
        return None
    for p in quoted_phrases(message):
        for n in range(1, len(lines) + 1):
            for i in range(len(lines) - n + 1):
                if f" {p} " in f" {_norm(' '.join(lines[i : i + n]))} ":
                    return first + i, first + i + n - 1
    return None

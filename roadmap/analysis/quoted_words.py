"""Words a commit message quotes from a record: `ADR 0007 rests on "SQLite can't handle our concurrent writers"`.

A commit that quotes a statement word for word is about that statement, whatever else it shares with it: the
quote ties the two as firmly as naming the statement's row would.
"""

from __future__ import annotations

import re
from functools import lru_cache


# Text between quotes (double ones straight, curly, German low-high, guillemets; single ones) within one
# paragraph: a commit body wrapped at 72 columns breaks a quoted sentence over lines, never over a blank one.
def _inside(stop: str) -> str:
    return rf"(?:[^{stop}\n]|\n(?![ \t]*\n)){{12,300}}"


# Single quotes, straight or curly, whose closing one is also an apostrophe: one between two letters ("can't",
# "Postgres's") is inside the quote.
_SINGLE = r"(?<!\w)'((?:[^'\n]|(?<=\w)'(?=\w)|\n(?![ \t]*\n)){12,300})'(?!\w)"
_CURLY_SINGLE = "(?<!\\w)\u2018((?:[^\u2019\\n]|(?<=\\w)\u2019(?=\\w)|\\n(?![ \\t]*\\n)){12,300})\u2019(?!\\w)"
_QUOTE = re.compile(
    rf"\"({_inside(chr(34))})\"|\u201c({_inside(chr(0x201D))})\u201d"
    rf"|\u201e({_inside(chr(0x201C) + chr(0x201D))})[\u201c\u201d]|\u00ab\s?({_inside(chr(0xBB))}?)\s?\u00bb"
    rf"|{_SINGLE}|{_CURLY_SINGLE}"
)
# Lines quoted as a mail or markdown quote does: "> Row-lock contention between tenants ... is what makes enqueue
# slow." (consecutive ones are one quote).
_BLOCK = re.compile(r"(?m)(?:^[ \t]*>[ \t]?.*(?:\n|$))+")
_BLOCK_MARK = re.compile(r"(?m)^[ \t]*>[ \t]?")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
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
    if ">" in message:  # a quoted block: as a whole, and each of its sentences (a statement may hold one of them)
        for m in _BLOCK.finditer(message):
            block = " ".join(_BLOCK_MARK.sub("", m.group(0)).split())
            for part in (block, *_SENTENCE.split(block)):
                phrase = _norm(part)
                if len(phrase.split()) >= MIN_WORDS and phrase not in out:
                    out.append(phrase)
    return tuple(out)


def quotes(message: str, text: str) -> bool:
    """Does the message quote words of `text` (a statement's plain text) word for word?"""
    return quoted(message, text) is not None


def quoted(message: str, text: str) -> str | None:
    """The phrase (normalised) the message quotes word for word from `text`, or None."""
    phrases = quoted_phrases(message)
    if not phrases:
        return None
    said = f" {_norm(text)} "
    return next((p for p in phrases if f" {p} " in said), None)


def holds(text: str, phrase: str) -> bool:
    """Does `text` hold `phrase` (as `quoted` gives it) word for word?"""
    return f" {phrase} " in f" {_norm(text)} "


def quoted_lines(phrase: str, raw: str) -> tuple[int, int] | None:
    """The fewest consecutive lines of `raw` (0-based, first and last) that hold `phrase` (as `quoted` gives it),
    or None."""
    lines = [_norm(ln) for ln in raw.split("\n")]
    best: tuple[int, int] | None = None
    for i in range(len(lines)):
        said = ""
        for j in range(i, len(lines)):
            said = f"{said} {lines[j]}".strip()
            if f" {phrase} " in f" {said} ":
                if best is None or j - i < best[1] - best[0]:
                    best = (i, j)
                break
    return best

"""Literals a regular expression's matches must contain, to skip searching text that cannot match.

`re` tries a pattern at every position of a text, and a pattern of many `\\b`-led alternatives (the linter's
phrase lists: "opt-in", "off by default", "experimental", ... in several languages) tries each alternative at
each word start: on a long commit message that is most of the time the stale analysis spends. Most texts hold
none of the words an alternative needs, and a substring test finds that out in one C-level pass.

The hints are derived from the pattern itself (its parse by `re`'s own parser), so they stay true as the phrase
lists grow: a run of literal characters that every match of an alternative contains (in a sequence; in each
branch of an alternation, one of them; in a group repeated at least once). They are compared with `fold(text)`,
the text lower-cased, so a hint holds whatever the case of the text, with the `re.IGNORECASE` equivalents
`str.lower` keeps apart folded too (ı and ſ, which `re` matches with i and s). A hint only uses characters for
which that comparison is exact: ASCII, and characters without case (CJK, digits, punctuation); a run stops at
any other (é, ß). tests/roadmap/test_regex_hints.py checks this over every Unicode character.

`Hinted` splits a pattern at its top-level `|` into its alternatives, each compiled on its own with its own hints:
  - `search(text)` is `pattern.search(text) is not None`: an alternation matches where one of its alternatives
    does, so only the alternatives whose hints the text holds are searched;
  - `finditer(text)` yields the spans and texts `pattern.finditer(text)` yields, merging the alternatives'
    own matches as the alternation picks them (leftmost, then first alternative), over those that can match.
A pattern it cannot split or hint (verbose mode, a back reference, no literal) is searched as it is.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

try:  # the parser `re.compile` uses: the only exact reading of a pattern
    _parser: Any = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - a Python without it: every pattern is searched as it is
    _parser = None

Hints = frozenset[str]


def fold(text: str) -> str:
    """`text` as hints are compared with: lower case, and the characters `re.IGNORECASE` matches with an ASCII
    letter that `str.lower` does not turn into it as that letter: ı and ſ (re/_casefix.py), and İ, which it
    lower-cases to two characters (i and a combining dot). Replaced only where present: str.translate costs
    more than the search it saves."""
    if text.isascii():
        return text.lower()
    if "İ" in text:
        text = text.replace("İ", "i")
    low = text.lower()
    if "ı" in low:
        low = low.replace("ı", "i")
    if "ſ" in low:
        low = low.replace("ſ", "s")
    return low


def safe(ch: str) -> bool:
    """Can a hint use `ch`: does every character a pattern's `ch` matches (with or without IGNORECASE) hold
    `fold(ch)` once folded? ASCII letters do (once ı, ſ are folded, and the Kelvin sign lower-cases to k);
    characters without case do; other letters (é, ß, σ) have equivalents `str.lower` does not give."""
    return ch.isascii() or ch.lower() == ch == ch.upper()


def may_hold(folded: str, literal: str) -> bool:
    """False only when no case variant of `literal`, which every match of some pattern holds, is in the text
    `folded` (`fold(text)`): a literal with a character `safe` refuses cannot be told, so it may be there."""
    return literal.lower() in folded or not all(map(safe, literal))


@lru_cache(maxsize=None)
def hints(source: str, flags: int = 0) -> Hints | None:
    """Literals (folded), one of which every match of the pattern holds; None when none can be said."""
    if _parser is None:
        return None
    try:
        tree = _parser.parse(source, flags)
    except Exception:  # pragma: no cover - re.compile accepted it; a parser of another Python may differ
        return None
    return _sequence(tree.data)


def _sequence(items: Any) -> Hints | None:
    """Hints of a sequence: its best run of literal characters, or the best hints of one of its parts."""
    best: Hints | None = None
    run: list[str] = []
    for op, av in items:
        if op is _parser.LITERAL and safe(chr(av)):
            run.append(chr(av).lower())
            continue
        if run:
            best = _better(best, frozenset(("".join(run),)))
            run = []
        if op is _parser.SUBPATTERN:  # (group, add_flags, del_flags, pattern)
            best = _better(best, _sequence(av[3].data))
        elif op is _parser.ATOMIC_GROUP:
            best = _better(best, _sequence(av.data))
        elif op is _parser.ASSERT:  # a lookahead or lookbehind reads the text too
            best = _better(best, _sequence(av[1].data))
        elif op is _parser.BRANCH:
            best = _better(best, _branch(av[1]))
        elif op in (_parser.MAX_REPEAT, _parser.MIN_REPEAT, _parser.POSSESSIVE_REPEAT) and av[0] >= 1:
            best = _better(best, _sequence(av[2].data))
    if run:
        best = _better(best, frozenset(("".join(run),)))
    return best


def _branch(alternatives: Any) -> Hints | None:
    """Every alternative's hints together, when each has some: a match holds one of them."""
    out: set[str] = set()
    for alt in alternatives:
        got = _sequence(alt.data)
        if got is None:
            return None
        out |= got
    # a hint holding another is implied by it ("default" by "defa"): the shorter one says the same
    return frozenset(h for h in out if not any(o != h and o in h for o in out))


def _better(a: Hints | None, b: Hints | None) -> Hints | None:
    """The more selective of two hint sets: the longer shortest hint, then the fewer hints."""
    if a is None or b is None:
        return a if b is None else b
    return max(a, b, key=lambda h: (min(map(len, h)), -len(h)))


def split_top(source: str) -> list[str] | None:
    """The pattern's top-level alternatives (`a|b(c|d)|e` -> a, b(c|d), e), or None when its text cannot be split
    safely (a comment, or global inline flags that would stay with the first alternative only)."""
    if "(?#" in source or re.match(r"\(\?[aiLmsux]+\)", source):
        return None
    out: list[str] = []
    depth = 0
    start = 0
    i = 0
    n = len(source)
    while i < n:
        ch = source[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":  # a character class: `]` first (after an optional `^`) is a member, escapes count
            i += 1
            if i < n and source[i] == "^":
                i += 1
            if i < n and source[i] == "]":
                i += 1
            while i < n and source[i] != "]":
                i += 2 if source[i] == "\\" else 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(source[start:i])
            start = i + 1
        i += 1
    out.append(source[start:])
    return out


class Hinted:
    """`pattern`, each of its top-level alternatives searched only in text holding one of its hints."""

    made: list[Hinted] = []  # every one made (module-level, a handful): tests/roadmap/test_regex_hints.py checks them

    def __init__(self, pattern: re.Pattern[str]):
        self.pattern = pattern
        Hinted.made.append(self)
        parts = None if pattern.flags & re.VERBOSE or pattern.groups else split_top(pattern.pattern)
        self.alternatives: list[tuple[re.Pattern[str], Hints | None]] = []
        if parts is not None:
            flags = pattern.flags & ~re.UNICODE  # re.compile adds UNICODE to str patterns itself
            self.alternatives = [(re.compile(p, flags), hints(p, flags)) for p in parts]
        if not self.alternatives or any(h is None for _, h in self.alternatives):
            # an alternative without hints is searched in every text: the alternation as one search costs less
            whole = hints(pattern.pattern, pattern.flags)
            self.alternatives = [(pattern, whole)]
        # each hint with the alternatives (their indices) that need it: a text is tested once per hint, with `in`
        # (a C search that skips ahead; one regex of all hints tried them at every position)
        by_hint: dict[str, list[int]] = {}
        for i, (_, hs) in enumerate(self.alternatives):
            for x in sorted(hs or ()):
                by_hint.setdefault(x, []).append(i)
        self._by_hint = sorted(by_hint.items())
        self._whole = self.alternatives[0][1] is None  # no hints: always searched

    def _candidates(self, text: str) -> list[re.Pattern[str]]:
        """The alternatives whose hints `text` holds, in order (the whole pattern when it has no hints)."""
        if self._whole:
            return [self.pattern]
        low = fold(text)
        found: set[int] = set()
        for x, alts in self._by_hint:
            if x in low:
                found.update(alts)
        return [self.alternatives[i][0] for i in sorted(found)] if found else []

    def search(self, text: str) -> bool:
        """`self.pattern.search(text) is not None`."""
        return any(p.search(text) is not None for p in self._candidates(text))

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """Matches with the spans and texts of `self.pattern.finditer(text)` (their groups are the alternatives',
        so this is for patterns without groups, as `Hinted` requires to split)."""
        alts = self._candidates(text)
        if len(alts) <= 1:
            if alts:
                yield from alts[0].finditer(text)
            return
        # each alternative's next match at or after `pos`; the alternation's is the leftmost, the first
        # alternative's at a tie, and the scan goes on from its end (none is empty: see below)
        nxt: list[re.Match[str] | None] = [p.search(text) for p in alts]
        pos = 0
        while True:
            best = None
            for k, m in enumerate(nxt):
                if m is not None and m.start() < pos:
                    m = nxt[k] = alts[k].search(text, pos)
                if m is not None and (best is None or m.start() < best.start()):
                    best = m
            if best is None:
                return
            if best.end() == best.start():  # an empty match: re's rule after one is not worth copying here
                yield from self._rest(text, best.start())
                return
            yield best
            pos = best.end()

    def _rest(self, text: str, pos: int) -> Iterator[re.Match[str]]:
        """The whole pattern's matches from `pos` on (as `finditer` would give them from there)."""
        yield from self.pattern.finditer(text, pos)

"""Exact `git log -S<symbol>` semantics for many symbols at once, over the changed lines of a `-U0` patch.

git's pickaxe counts the non-overlapping occurrences of the string in the whole blob on each side of every
file pair of a commit's diff and reports the commit when any pair's two counts differ. A symbol never
contains a newline, so every occurrence lies inside one line and the count difference of a file pair equals
(occurrences in its `+` lines) - (occurrences in its `-` lines) of a `-U0` patch: unchanged lines cancel.

Finding which of 1,000+ symbols occur at all is a compiled trie regex (shared prefixes, longest match first) per
first byte, searched from every start position that can begin a symbol: a pattern that starts with a literal byte
lets the regex engine skip to that byte, and each attempt walks one small trie. The few candidates are then
counted exactly with `bytes.count`, whose leftmost non-overlapping count is git's (kwset) count, in the file
pairs they occur in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_Trie = dict[int, Any]  # byte -> subtrie; -1 -> True where a word ends
FEW_CANDIDATES = 16  # a commit's candidates counted with bytes.count in each file pair; more: one walk per side


def _trie_pattern(words: list[bytes]) -> bytes:
    """A regex matching any of `words`, preferring the longest at a given start (children before the end mark)."""
    trie: _Trie = {}
    for w in words:
        node = trie
        for b in w:
            node = node.setdefault(b, {})
        node[-1] = True

    def emit(node: _Trie) -> bytes:
        end = -1 in node
        kids = [k for k in node if k != -1]
        alts = [re.escape(bytes([k])) + emit(node[k]) for k in sorted(kids)]
        if not alts:
            return b""
        body = alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"
        if end:  # a word ends here too: the longer continuations are tried first, then the empty match
            return b"(?:" + body + b")?"
        return body

    return emit(trie)


class SymbolMatcher:
    """Counts, per file pair, the change in occurrences of each symbol of a fixed set."""

    def __init__(self, symbols: Iterable[str]):
        uniq = sorted({s for s in symbols if s and "\n" not in s})
        self.symbols: list[str] = uniq
        self._bytes = {s.encode("utf-8"): s for s in uniq}
        words = sorted(self._bytes)
        by_first: dict[bytes, list[bytes]] = {}
        for w in words:
            by_first.setdefault(w[:1], []).append(w[1:])
        # per first byte: that byte, then the trie of the rests as a lookahead that captures the rest. Each match
        # is one byte long, so findall/finditer try every start position (as a search from one byte after the
        # last start did, in Python) and yield the longest symbol there, while the literal first byte still lets
        # the engine skip ahead to it
        self._rxs = [
            (first, re.compile(re.escape(first) + b"(?=(" + _trie_pattern(rests) + b"))", re.DOTALL))
            for first, rests in by_first.items()
        ]
        # Symbols that are prefixes of a longer symbol: a match of the longer one implies them as candidates.
        self._prefixes: dict[bytes, list[bytes]] = {}
        for w in words:
            pre = [w[:i] for i in range(1, len(w)) if w[:i] in self._bytes]
            if pre:
                self._prefixes[w] = pre

    def candidates(self, text: bytes) -> set[bytes]:
        """Every symbol (as bytes) that occurs somewhere in `text` (a superset is allowed; none is missed)."""
        found: set[bytes] = set()
        for first, rx in self._rxs:
            # every start position, so an occurrence of a symbol overlapping another is found too
            for rest in set(rx.findall(text)):
                w = first + rest
                found.add(w)
                found.update(self._prefixes.get(w, ()))
        return found

    def counts(self, text: bytes) -> dict[bytes, int]:
        """{symbol: text.count(symbol)} for the symbols that occur in `text`, from one walk over the places a symbol
        starts (the walk of `candidates`): at each, the longest symbol there and the symbols that are its prefixes,
        each counted where its last counted occurrence has ended (bytes.count's leftmost non-overlapping count;
        one regex walks the starts of one first byte's symbols in order)."""
        out: dict[bytes, int] = {}
        ends: dict[bytes, int] = {}  # symbol -> where its last counted occurrence ends
        for first, rx in self._rxs:
            for m in rx.finditer(text):
                at = m.start()
                w = first + m.group(1)
                for s in (w, *self._prefixes.get(w, ())):
                    if at >= ends.get(s, 0):
                        out[s] = out.get(s, 0) + 1
                        ends[s] = at + len(s)
        return out

    def deltas(self, files: list[tuple[bytes, bytes]]) -> dict[str, int]:
        """`files`: per file pair (added text, removed text), lines joined by b"\\n".

        Returns {symbol: net count change summed over files} for exactly the symbols git's -S reports for this
        commit (some pair's count differs). A symbol moved between files is a hit with net 0; a symbol moved
        within one file is not reported. The commit's candidates are searched for once, in all its pairs'
        text together (a search per pair cost a pass of every first-byte regex per file). A few are counted
        with bytes.count in every pair (0 on both sides where one does not occur); many are counted by `counts`,
        one walk per side of each pair: bytes.count of each of 990 symbols over a 656 KB record took 1.8 s for
        one commit of the 10,000-commit benchmark repository, the walk 0.04 s.
        """
        if not files:
            return {}
        found = self.candidates(b"\n".join(added + b"\n" + removed for added, removed in files))
        net: dict[bytes, int] = {}
        for added, removed in files:
            if len(found) <= FEW_CANDIDATES:
                pair = [(w, added.count(w) - removed.count(w)) for w in found]
            else:
                plus, minus = self.counts(added), self.counts(removed)
                pair = [(w, n - minus.get(w, 0)) for w, n in plus.items()]
                pair += [(w, -n) for w, n in minus.items() if w not in plus]
            for w, d in pair:
                if d:
                    net[w] = net.get(w, 0) + d
        return {self._bytes[w]: d for w, d in net.items()}

    def count_blob_delta(self, old: bytes, new: bytes) -> dict[str, int]:
        """Per-symbol count change between two whole blobs (binary file pairs, read with cat-file)."""
        out: dict[str, int] = {}
        for w in self.candidates(old + b"\n" + new):
            d = new.count(w) - old.count(w)
            if d:
                out[self._bytes[w]] = d
        return out

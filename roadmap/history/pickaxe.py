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
COUNT_BUDGET = 256  # (candidates x file pairs) of a commit counted in every pair before pairs are searched apart


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
        self._rxs = [
            re.compile(re.escape(first) + _trie_pattern(rests), re.DOTALL) for first, rests in by_first.items()
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
        for rx in self._rxs:
            search = rx.search
            m = search(text)
            while m is not None:
                w = m.group()
                if w not in found:
                    found.add(w)
                    found.update(self._prefixes.get(w, ()))
                # Restart one byte after the match start: an occurrence of another symbol may overlap this one.
                m = search(text, m.start() + 1)
        return found

    def deltas(self, files: list[tuple[bytes, bytes]]) -> dict[str, int]:
        """`files`: per file pair (added text, removed text), lines joined by b"\\n".

        Returns {symbol: net count change summed over files} for exactly the symbols git's -S reports for this
        commit (some pair's count differs). A symbol moved between files is a hit with net 0; a symbol moved
        within one file is not reported. The commit's candidates are searched for once, in all its pairs'
        text together (a search per pair cost a pass of every first-byte regex per file), and each is counted
        in every pair, where a pair it does not occur in counts 0 on both sides; a commit with many candidates
        and many pairs (a repository's first commit) is searched pair by pair, each pair counting its own.
        """
        if not files:
            return {}
        found = self.candidates(b"\n".join(added + b"\n" + removed for added, removed in files))
        if len(files) == 1 or len(found) * len(files) <= COUNT_BUDGET:
            per_pair = [(added, removed, found) for added, removed in files]
        else:
            per_pair = [(added, removed, self.candidates(added + b"\n" + removed)) for added, removed in files]
        net: dict[bytes, int] = {}
        for added, removed, words in per_pair:
            for w in words:
                d = added.count(w) - removed.count(w)
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

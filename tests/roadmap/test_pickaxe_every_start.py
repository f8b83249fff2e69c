"""SymbolMatcher finds a symbol at every position one can start, overlapping others included: its candidates and
counts are those of a search restarted one byte after each match start (what it did before), and counts are
bytes.count's leftmost non-overlapping counts."""

from __future__ import annotations

import random
import re

from roadmap.history.pickaxe import SymbolMatcher, _trie_pattern

SYMBOLS = ["ab", "abc", "abcd", "bc", "b", "cab", "a_b", "x", "xx", "xxx", "ünï", "ü", "--flag", "-f"]
PIECES = ["a", "b", "c", "d", "x", "_", "-", "f", "l", "g", "ü", "n", "ï", " ", "\n", "ab", "abcd", "xxxx"]


def _restarted(m: SymbolMatcher, text: bytes) -> tuple[set[bytes], dict[bytes, int]]:
    found: set[bytes] = set()
    out: dict[bytes, int] = {}
    ends: dict[bytes, int] = {}
    words = sorted(m._bytes)
    by_first: dict[bytes, list[bytes]] = {}
    for w in words:
        by_first.setdefault(w[:1], []).append(w[1:])
    for first, rests in by_first.items():
        rx = re.compile(re.escape(first) + _trie_pattern(rests), re.DOTALL)
        hit = rx.search(text)
        while hit is not None:
            at, w = hit.start(), hit.group()
            for s in (w, *m._prefixes.get(w, ())):
                found.add(s)
                if at >= ends.get(s, 0):
                    out[s] = out.get(s, 0) + 1
                    ends[s] = at + len(s)
            hit = rx.search(text, at + 1)
    return found, out


def test_candidates_and_counts_as_restarted_searches():
    m = SymbolMatcher(SYMBOLS)
    rng = random.Random(4)
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30))).encode()
        found, counts = _restarted(m, text)
        assert m.candidates(text) == found, text
        assert m.counts(text) == counts, text
        assert counts == {w: text.count(w) for w in m._bytes if text.count(w)}, text

"""structure.find_handoff gives the first HANDOFF match not opening after a quote mark, as the search restarted
after each quoted one did, over the scenario corpora and randomized text."""

from __future__ import annotations

import random
import re

from roadmap.records.structure import _OPENING_QUOTES, HANDOFF, find_handoff

PIECES = ["Next owner must", "next AGENT should", "next session needs to", "whoever picks this up", "Handoff:",
          "hand-off :", "“", "\"", "'", "„", " ", "\n", "x", "Nächster Schritt", "次の担当", "ſ", "ı", "the next"]  # fmt: skip


def _restarted(text: str) -> re.Match[str] | None:
    m = HANDOFF.search(text)
    while m is not None and m.start() and text[m.start() - 1] in _OPENING_QUOTES:
        m = HANDOFF.search(text, m.end())
    return m


def test_find_handoff_is_the_restarted_search():
    rng = random.Random(8)
    found = 0
    for _ in range(5000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 8)))
        text = "".join(c.upper() if rng.random() < 0.2 else c for c in text)
        want = _restarted(text)
        got = find_handoff(text)
        assert (got and (got.span(), got.group(0))) == (want and (want.span(), want.group(0))), text
        found += want is not None
    assert found > 1000

"""figure_quotes._thing_before is `_THING_BEFORE.search(text, 0, at)`, searched only where a match can start: one of
its words, then whitespace up to `at` ("a 10 MB file", "the 10 MB parse" name a workload, not a result)."""

from __future__ import annotations

import random

from roadmap.analysis.figure_quotes import _THING_BEFORE, _thing_before

PIECES = ["a", "an", "the", "The", "EACH", "every", "per", "one", "our", "their", "this", "that", "THAT", "ban",
          "other", "sthe", "x", "10", "MB", " ", "  ", "\n", "\t", "\u00a0", "\u2003", "-", ".", "ſ", "ı"]  # fmt: skip


def test_thing_before_is_the_search():
    rng = random.Random(9)
    hits = 0
    for _ in range(20000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 12)))
        at = rng.randint(0, len(text))
        want = _THING_BEFORE.search(text, 0, at) is not None
        assert _thing_before(text, at) == want, (text, at)
        hits += want
    assert hits > 200


def test_thing_before_examples():
    assert _thing_before("parse a 10 MB file", len("parse a "))
    assert _thing_before("each\u00a0", 5)
    assert not _thing_before("takes 1.9 s", len("takes "))
    assert not _thing_before("another 10 MB", len("another "))
    assert not _thing_before("the10", 3)

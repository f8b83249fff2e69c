"""The substring hints in front of the rules' phrase regexes never change an answer: `says_opt_in(t)` and the
others are `bool(rx.search(t))` for every text, whatever its case (re.IGNORECASE's non-ASCII foldings included)."""

from __future__ import annotations

import random

import pytest

from roadmap.checks.default_changed import FLIPPED, OPT_IN, says_flipped, says_opt_in
from roadmap.checks.rerun_done import RERUN, says_rerun

FRAGMENTS = [
    "opt-in",
    "optin",
    "opt in",
    "off by default",
    "disabled by default",
    "defaults to 0",
    "default: off",
    "defaulted = false",
    "default is disabled",
    "experimental",
    "not on by default",
    "not enabled by default",
    "on by default",
    "enabled by default",
    "true by default",
    "defaults to 1",
    "default is now on",
    "default now enabled",
    "turned the mirror on by default",
    "switches it on by default",
    "flipped x on by default",
    "is now on",
    "are now enabled",
    "on unless",
    "as the default",
    "makes the fused path the default",
    "enabling x by default",
    "rerun",
    "re-run",
    "remeasure",
    "re-measure",
    "rebench",
    "rebenchmark",
    "retake",
    "reprofile",
    "re-profile",
    "measure it again",
    "run the 4B series again",
    "bench it once more again",
    "benchmark a b c again",
    "repeat the run",
    "port",
    "the",
    "mirror",
    "4B",
    "measured",
    "runner",
    "defaulting",
    "option",
    "ſ",
    "ı",
    "İ",
    "K",
    "x",
    "-",
    ".",
    ",",
    " ",
    "  ",
]
CASES = [(OPT_IN, says_opt_in), (FLIPPED, says_flipped), (RERUN, says_rerun)]


def _vary(rng: random.Random, s: str) -> str:
    return "".join(c.upper() if rng.random() < 0.3 else c for c in s)


@pytest.mark.parametrize("rx,fast", CASES, ids=["opt-in", "flipped", "rerun"])
def test_hints_agree_with_the_regex(rx, fast):
    rng = random.Random(7)
    texts = [_vary(rng, f) for f in FRAGMENTS]
    texts += [_vary(rng, " ".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 6)))) for _ in range(4000)]
    texts += ["EXPERİMENTAL", "ſtill opt-In", "Re-Run", "REPEAT THE", "MEASURE X AGAIN", "DEFAULTS TO ON"]
    assert sum(bool(rx.search(t)) for t in texts) > 100  # the corpus exercises the regex
    assert [fast(t) for t in texts] == [bool(rx.search(t)) for t in texts]

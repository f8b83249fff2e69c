"""regex_hints never changes an answer: a hint is a literal every match holds, whatever the case of the text, and
`Hinted(rx).search`/`finditer` give what `rx.search`/`rx.finditer` give, over the scenario corpora (commit
messages, record files) and randomized text, for every pattern the rules wrap (roadmap/regex_hints.py)."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest
import yaml

import roadmap.registry  # noqa: F401  (imports every rule, so every module-level Hinted is made)
from roadmap.regex_hints import Hinted, fold, hints, safe, split_top

SCENARIOS = Path(__file__).parent / "scenarios"
EVERY_CHAR = "".join(chr(c) for c in range(sys.maxunicode + 1))


def test_ascii_hint_characters_survive_fold_in_any_case():
    """Every character re.IGNORECASE matches with an ASCII character folds to that character's lower case."""
    for c in range(128):
        h = chr(c)
        for t in re.findall(re.escape(h), EVERY_CHAR, re.I):
            assert fold(t) == h.lower(), (h, t)


def test_uncased_hint_characters_match_only_themselves():
    """A hint character without case (CJK, kana, Hangul) matches only itself, even with IGNORECASE: checked for
    each one the rules' patterns use."""
    used = {ch for h in Hinted.made for _, hs in h.alternatives for x in hs or () for ch in x if not ch.isascii()}
    assert len(used) > 20
    for ch in sorted(used):
        assert safe(ch) and re.findall(re.escape(ch), EVERY_CHAR, re.I) == [ch], ch


def test_unsafe_characters_are_cased_letters_beyond_ascii():
    assert all(safe(ch) for ch in "aZ09 -_.默认기본デフォルト")
    assert not any(safe(ch) for ch in "éäßσςſıİ\u212a")


@pytest.mark.parametrize(
    "source,flags,want",
    [
        (r"\bopt-?in\b", re.I, {"opt"}),
        (r"\b(?:is|are)\s+(?:off|disabled)\b", re.I, {"off", "disabled"}),  # the longer shortest hint wins
        (r"\bdefault(?:s|ed)?(?: to| is)?[ :=]+(?:off|0)\b", re.I, {"default"}),
        (r"\bstandardmäßig (?:aus|an)\b", re.I, {"standardm"}),  # a run stops at a letter with other cases
        (r"(?:ab)+c", 0, {"ab"}),  # a group repeated at least once
        (r"x(?=yz)", 0, {"yz"}),  # a lookahead reads the text too
        (r"默认(?:为)?(?:关闭|禁用)", 0, {"默认"}),
        (r"READ|already", 0, {"read"}),  # folded, and a hint holding another says no more than it
        (r"\bMAX_RETRIES\b", 0, {"max_retries"}),
        (r"(?x) ab  c  \# d", 0, {"abc#d"}),  # read as re reads it: verbose mode drops the blanks
    ],
)
def test_hints_are_literals_every_match_holds(source, flags, want):
    assert hints(source, flags) == frozenset(want)


@pytest.mark.parametrize(
    "source",
    [r"a*", r"\w+\s+\d", r"(?:ab)?c?", r"(?!abc)x?", r"x|\d"],
)
def test_no_hints_where_no_literal_is_needed(source):
    assert hints(source) is None


def test_split_top_alternatives():
    assert split_top(r"a|b(c|d)|[|]|\||e") == ["a", "b(c|d)", "[|]", r"\|", "e"]
    assert split_top(r"[]|]|[^]|]x|(?<!a|b)c") == ["[]|]", "[^]|]x", "(?<!a|b)c"]
    assert split_top("abc") == ["abc"]
    assert split_top("(?#a|b)c|d") is None
    assert split_top("(?i)a|b") is None


def test_a_pattern_without_hints_or_with_groups_is_searched_whole():
    h = Hinted(re.compile(r"(a)|b"))
    assert len(h.alternatives) == 1 and h.alternatives[0][0].pattern == "(a)|b"
    h = Hinted(re.compile(r"abc|\d+"))
    assert len(h.alternatives) == 1 and h.alternatives[0][1] is None
    assert h.search("x 12") and not h.search("x y")


SYNTHETIC = [
    re.compile(r"ab|abc|bcd|c"),  # overlapping alternatives: the first at the leftmost position wins
    re.compile(r"\bon\b|(?<!not )\bon by default\b|\bdefault(?:s)? to on\b", re.I),
    re.compile(r"x[^.]{0,5}y|xy|yx", re.I),
    re.compile(r"(?<=a)b|b(?=c)|bc", re.I),
]


def _corpus() -> list[str]:
    texts: list[str] = []
    for path in sorted(SCENARIOS.glob("*/scenario.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        for c in doc.get("commits") or ():
            texts.append(str(c.get("message", "")))
            texts.extend(str(v) for v in (c.get("files") or {}).values() if isinstance(v, str))
    return texts


FRAGMENTS = [
    "opt-in", "off by default", "defaults to 0", "default: on", "experimental", "not enabled by default",
    "enabled by default", "is now on", "on unless", "as the default", "rerun", "re-measure", "measure it again",
    "is wrong", "turned out to be incorrect", "refuted", "doesn't hold", "not the bottleneck", "wrong build",
    "it's the allocator, not the reverb", "no longer holds", "not yet", "TODO", "left for", "still open",
    "stays default off", "follow-up PR", "默认关闭", "默认开启", "尚未支持", "不是显存的问题", "아직", "まだ",
    "standardmäßig aus", "désactivé par défaut", "no venía de", "already supported", "exists already",
    "we already have", "only the read half", "the rest stays", "part 1 of 2", "partially", "partial fix",
    "the item stays open", "the write half", "Legend:", "## Status key", "Status words (ours):",
    "what the states mean", "Key:", "Next owner must", "next agent should", "whoever picks this up", "Handoff:",
    "\u201cNext owner must\u201d", "ſ", "ı", "İ", "\u212a", "é", "`", "x", ".", " ",
]  # fmt: skip


# re.IGNORECASE's non-ASCII look-alikes of i, s and k
LOOKALIKES = {"i": "ıİ", "s": "ſ", "k": "\u212a"}


def _mangle(rng: random.Random, c: str) -> str:
    if c in LOOKALIKES and rng.random() < 0.1:
        return rng.choice(LOOKALIKES[c])
    return c.upper() if rng.random() < 0.3 else c


def _random_texts(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        text = " ".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 8)))
        out.append("".join(_mangle(rng, c) for c in text))
    return out


def _spans(it):
    return [(m.span(), m.group(0)) for m in it]


@pytest.mark.parametrize("which", ["rules", "synthetic"])
def test_hinted_agrees_with_the_pattern(which):
    made = [h for h in Hinted.made if h.pattern not in SYNTHETIC] if which == "rules" else map(Hinted, SYNTHETIC)
    made = list(made)
    assert made
    rng = random.Random(11)
    texts = _corpus() + _random_texts(rng, 3000)
    assert len(texts) > 4000
    for h in made:
        rx = h.pattern
        found = [rx.search(t) is not None for t in texts]
        if which == "rules":
            assert sum(found) > 20, rx.pattern[:60]  # the texts exercise the pattern
        assert [h.search(t) for t in texts] == found, rx.pattern[:60]
        assert [_spans(h.finditer(t)) for t in texts] == [_spans(rx.finditer(t)) for t in texts], rx.pattern[:60]


def test_hints_are_held_by_every_text_an_alternative_matches():
    """Each alternative's hints: one of them is in the folded text wherever that alternative matches."""
    texts = _corpus() + _random_texts(random.Random(5), 3000)
    for h in Hinted.made:
        matching = [t for t in texts if h.pattern.search(t)]  # an alternative matches only where the whole does
        for alt, hs in h.alternatives:
            if hs is not None:
                assert all(any(x in fold(t) for x in hs) for t in matching if alt.search(t)), alt.pattern[:60]

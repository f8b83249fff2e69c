"""The literal tests in front of the per-name regexes never change an answer: a sentence is skipped only when it
misses a word every match of the name's regex holds (checks/default_changed.py `_flag_matches`,
analysis/stated_defaults.py `_constant_values`), whatever the case of the sentence."""

from __future__ import annotations

import random

from roadmap.analysis.stated_defaults import _ASKS, _SENTENCE, _WAS, _constant_re, _constant_values, _constant_words
from roadmap.checks.default_changed import _flag_matches, _flag_re
from roadmap.regex_hints import fold

FLAGS = ["split_kv", "--split-kv", "use_fused_adam", "VT_ASYNC_DEVICE_MIRROR", "wal.group_commit", "-Xjit", "kv"]
CONSTANTS = ["MAX_RETRIES", "kArenaBytes", "DASH_COOLDOWN", "BATCH_GROESSE", "POOL_SIZE", "X", "kSiLU", "TTL_MS"]
FRAGMENTS = [
    "split-KV", "split kv", "--split-kv", "splitkv", "use fused adam", "USE_FUSED_ADAM", "vt async device mirror",
    "max retries", "MAX_RETRIES", "arena bytes", "kArenaBytes", "Dash cooldown", "batch_groesse", "pool size",
    "is", "=", "at", "steht auf", "vale", "keeps", "8", "0.8 s", "30", "was", "raise", "to", "(", ")", "`", ",",
    "group_commit", "ttl ms", "x", "ſ", "ı", "İ", "\u212a", "silu", "SiLU",
]  # fmt: skip


LOOKALIKES = {"i": "ıİ", "s": "ſ", "k": "\u212a"}  # what re.IGNORECASE also matches with i, s and k


def _mangle(rng: random.Random, text: str) -> str:
    return "".join(
        rng.choice(LOOKALIKES[c]) if c in LOOKALIKES and rng.random() < 0.1 else c.upper() if rng.random() < 0.3 else c
        for c in text
    )


def _texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = [rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 7))]
        if rng.random() < 0.5:  # a name, a linking word and a value, as a record states a constant
            at = rng.randint(0, len(words))
            words[at:at] = [rng.choice(FRAGMENTS[:12]), rng.choice(("is", "=", "at", "steht auf")), rng.choice("8 30")]
        out.append(_mangle(rng, " ".join(words)))
    return out


def test_flag_matches_are_the_flag_regex_matches():
    texts = _texts(3, 4000)
    hits = 0
    for flag in FLAGS:
        for t in texts:
            want = [m.span() for m in _flag_re(flag).finditer(t)]
            assert [m.span() for m in _flag_matches(flag, t, fold(t))] == want, (flag, t)
            hits += bool(want)
    assert hits > 300


def test_a_constant_is_searched_wherever_it_can_match():
    texts = _texts(4, 4000)
    hits = 0
    for name in CONSTANTS:
        for t in texts:
            if _constant_re(name).search(t):
                hits += 1
                assert all(w.lower() in fold(t) for w in _constant_words(name)), (name, t)
    assert hits > 200


def _constant_values_unfiltered(text: str, names: tuple[str, ...]) -> frozenset[str]:
    """_constant_values as it was written before its literal test."""
    out = set()
    for sent in _SENTENCE.split(" ".join(text.split())):
        for name in names:
            for m in _constant_re(name).finditer(sent):
                if _WAS.search(sent[: m.start()]) or _ASKS.search(sent[: m.start()]):
                    continue
                out.add(f"{name}=={m.group('value').replace(',', '.')}")
    return frozenset(out)


def test_constant_values_are_those_found_without_the_test():
    assert _constant_values("Dash cooldown is 0.8 s (`DASH_COOLDOWN`).", ("DASH_COOLDOWN",)) == {"DASH_COOLDOWN==0.8"}
    texts = _texts(5, 3000)
    rng = random.Random(6)
    texts = [". ".join(rng.sample(texts, 3)) for _ in range(1500)]  # several sentences, as a record's statement
    found = 0
    for t in texts:
        names = tuple(rng.sample(CONSTANTS, 3))
        want = _constant_values_unfiltered(t, names)
        assert _constant_values(t, names) == want, (t, names)
        found += bool(want)
    assert found > 100

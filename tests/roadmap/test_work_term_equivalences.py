"""Work terms that name one thing in two spellings meet: a long form is one term, its abbreviation's, with none of
its words left over ("a least-recently-used cache" and "an LRU" are {lru, cach}); the Latin noun and its verb share a
stem where Porter splits them ("module resolution" / "resolved specifiers", "consumption" / "consume"); and "bound"
says what "cap" and "limit" say. Found by a blind scenario of 2026-12-05 (an RFC step written out, its commit
abbreviated). Controls: words that only look alike stay apart."""

from __future__ import annotations

import pytest

from roadmap.analysis.stem import stem
from roadmap.analysis.work import terms_of


@pytest.mark.parametrize(
    ("long", "short"),
    [
        ("put a least-recently-used cache in front", "put an LRU cache in front"),
        ("keep a write ahead log for the queue", "keep a WAL for the queue"),
        ("shorter time to first token under load", "shorter TTFT under load"),
    ],
)
def test_a_long_form_is_its_abbreviations_one_term(long: str, short: str) -> None:
    assert terms_of(long) == terms_of(short)


def test_the_words_of_a_long_form_used_elsewhere_stay_terms() -> None:
    assert {"lru", "recent"} <= terms_of("an LRU cache; the recently opened files first")
    assert "recent" not in terms_of("a least recently used cache")


@pytest.mark.parametrize(
    ("noun", "verb"),
    [
        ("resolution", "resolved"),
        ("evolution", "evolve"),
        ("consumption", "consumes"),
        ("assumption", "assumed"),
        ("subscription", "subscribe"),
        ("exclusion", "excluded"),
    ],
)
def test_a_latin_noun_meets_its_verb(noun: str, verb: str) -> None:
    assert stem(noun) == stem(verb)


@pytest.mark.parametrize(("a", "b"), [("absolute", "absolve"), ("script", "scribe"), ("cluster", "clude")])
def test_look_alikes_stay_apart(a: str, b: str) -> None:
    assert stem(a) != stem(b)


def test_a_bound_is_a_limit() -> None:
    assert "limit" in terms_of("bounded at 5,000 entries") & terms_of("Cap 5000 entries")
    assert "limit" in terms_of("an upper bound on retries") & terms_of("limit retries")

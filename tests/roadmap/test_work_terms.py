"""Work terms (roadmap/analysis/work.py): the words a directive and a commit share once word forms, identifiers
and abbreviations are folded, and what a commit message says it did not do."""

from __future__ import annotations

from roadmap.analysis.stem import stem
from roadmap.analysis.work import CommitWork, WorkWeights, commit_work, match, terms_of
from roadmap.history.commit import Commit


def _commit(subject: str, body: str = "") -> Commit:
    return Commit("a" * 40, (), "2026-01-01T00:00:00+00:00", 0, "2026-01-01T00:00:00+00:00", 0, subject, body)


def test_word_forms_meet_on_one_stem():
    assert stem("eviction") == stem("evicts") == stem("evictor") == stem("evicting")
    assert stem("rotation") == stem("rotate") and stem("streaming") == stem("streams")
    assert stem("policy") != stem("police")


def test_abbreviations_fold_whichever_way_they_are_written():
    long = terms_of("Add least-recently-used eviction to the key-value block pool")
    short = terms_of("QS-212: LRU evictor for the KV block pool (#44)")
    assert {"lru", "kv", "block", "pool", stem("eviction")} <= long & short
    assert "qs" not in short and "44" not in short  # ticket keys and PR numbers are not work


def test_identifiers_keep_their_parts_but_words_stay_words():
    t = terms_of("Wire `maxModelLen` into KestrelCluster; YaRN RoPE scaling")
    assert {"maxmodellen", "max", "model", "len", "cluster", "kestrel", "yarn", "rope"} <= t
    assert "ya" not in t and "ro" not in t  # "YaRN" and "RoPE" are words, not identifiers


def test_a_commit_splits_what_it_did_from_what_it_left():
    cw = commit_work(
        _commit(
            "cache: LRU evictor for the block pool",
            "Evicts the coldest block when the pool is full.\n\nThe prefix cache (radix tree) is "
            "untouched: it still grows without bound, that is a separate ticket.",
        )
    )
    assert {"lru", "block", "pool"} <= cw.done
    assert {"prefix", "radix", "tree"} <= cw.undone and not ({"prefix", "radix"} & cw.done)


def test_the_work_a_commit_left_counts_against_a_match():
    weights = WorkWeights.of([])
    cw = CommitWork(
        frozenset(terms_of("LRU eviction for the block pool")),
        frozenset(terms_of("the prefix cache radix tree still grows")),
        frozenset(terms_of("LRU pool")),
    )
    landed = match(terms_of("LRU eviction in the block pool"), cw, weights)
    left = match(terms_of("LRU eviction in the prefix cache radix tree"), cw, weights)
    assert landed.ratio > 0.9 and landed.refused_ratio == 0
    assert left.refused_ratio > 0.5  # its distinguishing words are in what was left

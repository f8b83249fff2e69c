"""commit_work's "did not do this" test skips a sentence without any of its hints: every phrase _UNDONE matches
holds one, so skipping never changes the verdict."""

from __future__ import annotations

import pytest

from roadmap.analysis.work import _UNDONE, _says_undone

# one phrase per alternative of _UNDONE, in several cases
PHRASES = [
    "untouched",
    "not yet",
    "not part of",
    "still no",
    "still needs",
    "still lost",
    "separate ticket",
    "another PR",
    "later change",
    "future session",
    "follow-up pass",
    "followup patch",
    "next step",
    "subsequent round",
    "that's next",
    "that is the next",
    "left for",
    "out of scope",
    "nothing to do with",
    "not the same",
    "won't touch",
    "will not add",
    "do not fix",
    "don't ship",
    "does not support",
    "doesn't flush",
    "did not land",
    "didn't implement",
    "cannot yet cover",
    "can't handle",
    "we are not",
    "not doing",
    "TODO",
    "deferred",
    "postponed",
    "draft",
    "experimental",
    "do not merge",
    "is a separate",
    "unmet",
    "not yet reached",
    "not there",
    "falls short",
    "fall short",
    "still slower",
    "still too",
]


@pytest.mark.parametrize("phrase", PHRASES)
def test_every_undone_phrase_is_searched(phrase):
    for text in (phrase, phrase.upper(), phrase.title(), f"The cache: {phrase} here."):
        assert _UNDONE.search(text) is not None
        assert _says_undone(text)


def test_a_sentence_without_hints_says_nothing_undone():
    text = "Add an LRU evictor for the block pool"
    assert _UNDONE.search(text) is None and not _says_undone(text)

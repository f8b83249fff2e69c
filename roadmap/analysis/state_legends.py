"""What the state words of a record's own legend mean, as states roadmap knows (records/legends.py reads them).

`**plated** — merged to main` reads as MERGED (closed), `**burnt** — blocked; ...` as BLOCKED, `**raw** — not
started` as NOT-STARTED: the meaning's leading state word, else a closed word among its first words ("work is
done"), not negated. A meaning that names no state ("someone is on it") reads as OPEN, which agrees with every
open state: the legend says the word is a state, not which stage it is.
"""

from __future__ import annotations

import re

from roadmap.records.legends import word_legend
from roadmap.records.model import RecordFile
from roadmap.records.state_words import leading_state, norm

GENERIC_OPEN = "OPEN"
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_NEGATION = {"not", "no", "never", "nothing", "un", "yet"}
_SCAN = 6  # words of a meaning searched for a closed state word


def legend_states(records: list[RecordFile], vocabulary: frozenset[str], closed: frozenset[str]) -> dict[str, str]:
    """Every legend-defined word (normalised) -> the known state it stands for (GENERIC_OPEN when it names none).
    A word the vocabulary already knows keeps its own meaning."""
    out: dict[str, str] = {}
    for rf in records:
        if not rf.text:
            continue
        for word, meaning in word_legend(rf.text.split("\n")).items():
            if word not in vocabulary:
                out.setdefault(word, meaning_state(meaning, vocabulary, closed))
    return out


def meaning_state(meaning: str, vocabulary: frozenset[str], closed: frozenset[str]) -> str:
    """The state a legend's meaning names: its leading state word, a closed word near its start, else OPEN."""
    lead = leading_state(meaning, vocabulary)
    if lead:
        return lead
    words = [w.lower() for w in _WORD.findall(meaning)[:_SCAN]]
    for k, w in enumerate(words):
        if norm(w) in closed and not (_NEGATION & set(words[max(0, k - 2) : k])):
            return norm(w)
    return GENERIC_OPEN

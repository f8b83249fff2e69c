"""Distinctive terms of record text and commit messages, and the scores built on them.

A directive's distinctive terms are its words minus English function words, minus the verbs every
directive uses ("port", "rerun", "remove"), minus numbers and dates, minus the parts of its own row id
(a row id match is scored separately). Matching is on normalised tokens: lower case, hyphenated words
split, a plural `s` dropped, identifiers (`VT_ASYNC_DEVICE_MIRROR`, `AsyncDeviceInputs`) kept whole.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import AbstractSet, Iterable

from roadmap.analysis.function_words import FUNCTION_WORDS

_WORD = re.compile(r"[A-Za-z0-9_]+")
_DATE = re.compile(r"^\d{4,8}$")
_SIZE = re.compile(r"^\d+b$")  # model sizes as tokens: 4b, 8b ("0.6b" splits into 0 and 6b)

STOPWORDS = (
    frozenset(
        """
a about above after again against all also an and any are as at be because been before being below between
both but by can could did do does doing done down during each either else etc every few for from further had
has have having here how if in into is it its itself just least less like may might more most much must need
needs no nor not now of off on once one only or other our out over own per same shall should since so some
still such than that the their them then there these they this those through to too under until up upon
us use used using very via was we were what when where whether which while who whom why will with within
without would yet you your
add adds added make makes made write writes publish port ports ported remove removes removed rerun reruns
rerunning run runs ran re measure measures remeasure bench rebench take takes taken get gets keep keeps
cover covers fix fixes fixed small medium large size next owner owners new old first last then exact exactly
series item items row rows claim claims step steps work works todo see note notes done open close closed
plan section table evidence result results figure figures number numbers current currently today
measured remeasured median min max mean tok ours peer default defaults enabled disabled
""".split()
    )
    | FUNCTION_WORDS
)

# Plural-looking words that are not plurals (dropping the `s` would merge them with something else).
_KEEP_S = frozenset(
    {
        "series",
        "bus",
        "status",
        "always",
        "alias",
        "bias",
        "ms",
        "gpus",
        "class",
        "process",
        "access",
        "less",
        "miss",
        "pass",
        "this",
        "its",
        "has",
        "was",
        "is",
        "us",
        "yes",
    }
)


def normalise(word: str) -> str:
    w = word.lower()
    if "_" in w:
        return w  # identifiers and env vars stay whole
    if w.endswith("ies") and len(w) > 5 and w not in _KEEP_S:
        return w[:-3] + "y"
    if w.endswith("s") and len(w) > 3 and not w.endswith("ss") and w not in _KEEP_S:
        return w[:-1]
    return w


def tokens(text: str) -> list[str]:
    """Normalised tokens in text order. `device-resident` -> device, resident; `VT_X_Y` stays whole and its
    lower-cased parts are added too, so `VT_ASYNC_DEVICE_MIRROR` also matches prose about the "mirror"."""
    out: list[str] = []
    for raw in _WORD.findall(text):
        toks = _WORD_TOKENS.get(raw)
        if toks is None:
            toks = _word_tokens(raw)
        out.extend(toks)
    return out


# raw word -> its tokens: records and commit messages reuse a small vocabulary, so each word is normalised
# once per process (bounded: cleared when it grows past _MEMO_MAX words).
_WORD_TOKENS: dict[str, tuple[str, ...]] = {}
_MEMO_MAX = 200_000


def _word_tokens(raw: str) -> tuple[str, ...]:
    toks = [normalise(raw)]
    if "_" in raw.strip("_"):
        toks.extend(normalise(p) for p in raw.split("_") if len(p) > 2)
    if len(_WORD_TOKENS) >= _MEMO_MAX:
        _WORD_TOKENS.clear()
    _WORD_TOKENS[raw] = out = tuple(toks)
    return out


def id_parts(ids: Iterable[str]) -> set[str]:
    """Token parts of row/claim ids: ROAD-V1-C2-LOCAL-BF16 -> road, v1, c2, local, bf16."""
    parts: set[str] = set()
    for i in ids:
        parts.update(tokens(i))
    return parts


def is_distinctive(tok: str) -> bool:
    hit = _DISTINCTIVE.get(tok)
    if hit is None:
        if len(_DISTINCTIVE) >= _MEMO_MAX:
            _DISTINCTIVE.clear()
        hit = _DISTINCTIVE[tok] = _is_distinctive(tok)
    return hit


_DISTINCTIVE: dict[str, bool] = {}


def _is_distinctive(tok: str) -> bool:
    if _SIZE.match(tok):
        return True  # "4b" vs "8b" separates two series
    if len(tok) < 2 or tok in STOPWORDS:
        return False
    return not re.fullmatch(r"\d+[a-z]*", tok)  # numbers, dates, figures with units ("9864x")


def distinctive_terms(text: str, exclude: Iterable[str] = ()) -> set[str]:
    """The set of distinctive terms of `text`, leaving out `exclude` (e.g. the parts of its own row id)."""
    ex = set(exclude)
    return {t for t in tokens(text) if is_distinctive(t) and t not in ex}


def size_terms(terms: Iterable[str]) -> set[str]:
    """Model-size tokens (`4b`, `8b`): two texts naming different sizes are about different series."""
    return {t for t in terms if _SIZE.match(t)}


_SPLITS = (
    ("heldout", re.compile(r"\b(?:held|hold)[- _]?out\b", re.I)),
    ("val", re.compile(r"\b(?:val|valid|validation|dev)\b", re.I)),
    ("test", re.compile(r"\btest(?:[- _]?set|[- _]split)?\b", re.I)),
    ("train", re.compile(r"\btrain(?:ing)?(?:[- _]?set|[- _]split)\b|\btrain\b", re.I)),
)


def split_terms(text: str) -> set[str]:
    """The data splits a text names (`held-out`, `val`, `test`, `train`): two texts naming different splits are
    about different series, as two model sizes are."""
    flat = text.replace("_", " ").replace("-", " ") if "held" not in text.lower() else text.replace("_", " ")
    return {name for name, pattern in _SPLITS if pattern.search(flat)}


@dataclass(frozen=True)
class Overlap:
    matched: tuple[str, ...]  # distinctive terms found in the other text, sorted
    total: int  # number of distinctive terms of the directive
    weighted: float = -1.0  # IDF-weighted share of the terms matched (-1: no weights given)

    @property
    def ratio(self) -> float:
        """The weighted share when weights were given (rare words count more), else the plain share."""
        if self.weighted >= 0:
            return self.weighted
        return len(self.matched) / self.total if self.total else 0.0

    def describe(self, limit: int = 8) -> str:
        shown = ", ".join(self.matched[:limit]) + (", ..." if len(self.matched) > limit else "")
        w = f", weighted {self.weighted:.2f}" if self.weighted >= 0 else ""
        return f"terms {len(self.matched)}/{self.total}{w}: {shown}"


@dataclass
class TermWeights:
    """Inverse document frequency of terms over a corpus (the history's commit messages): a word most commits
    use ("token", "cpu" in an inference engine's history) says little about which commit did the work."""

    docs: int = 0
    df: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, texts: Iterable[str]) -> "TermWeights":
        w = cls()
        for text in texts:
            w.docs += 1
            for t in set(tokens(text)):
                w.df[t] = w.df.get(t, 0) + 1
        return w

    def idf(self, term: str) -> float:
        return math.log((self.docs + 1) / (self.df.get(term, 0) + 1)) + 1.0


def overlap(terms: set[str], other_text: str, weights: TermWeights | None = None) -> Overlap:
    """How many of `terms` occur in `other_text` (and their IDF-weighted share when `weights` is given)."""
    return overlap_tokens(terms, set(tokens(other_text)), weights)


def overlap_tokens(terms: set[str], other: set[str] | frozenset[str], weights: TermWeights | None = None) -> Overlap:
    """`overlap` against the token set of the other text, for callers that tokenised it once already."""
    matched = tuple(sorted(terms & other))
    if weights is None or not terms:
        return Overlap(matched, len(terms))
    total = math.fsum(weights.idf(t) for t in terms)  # exact: the same float in any order of the set
    return Overlap(matched, len(terms), math.fsum(weights.idf(t) for t in matched) / total)


def jaccard(a: AbstractSet[str], b: AbstractSet[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def containment(a: AbstractSet[str], b: AbstractSet[str]) -> float:
    """Share of the smaller set found in the larger one: a short copy of a long directive still matches."""
    small = min(len(a), len(b))
    return len(a & b) / small if small else 0.0

"""Does a later text say that a piece of work is still open? "Luftdruck ist noch offen", "the retry budget is still
open", "X remains to be done", "sigue pendiente".

A hand-off log's newer entry often reports on the older entry's to-do items in a word or two ("Stand: Luftdruck ist
noch offen."): the item is carried forward, not answered. The sentence that says so must name the item: a word of
five letters or more that the item holds too, or that starts the other (German compounds: "Luftdruck" and
"Luftdruckwerte").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_STILL_OPEN = re.compile(
    r"\b(?:still|remains?)\s+(?:open|pending|outstanding|unresolved|undone|to\s+do|not\s+(?:done|fixed|started))\b"
    r"|\bremains?\s+to\s+be\s+done\b|\bnot\s+(?:done|fixed|started|finished)\s+yet\b|\bnot\s+yet\s+(?:done|fixed|started)\b"
    r"|\bnoch\s+(?:offen|ausstehend|nicht\s+(?:erledigt|fertig|gemacht|angefangen|begonnen))\b|\bsteht\s+noch\s+aus\b"
    r"|\b(?:sigue|siguen|todavía|todavia|aún|aun|ainda)\s+(?:está\s+|esta\s+)?(?:pendientes?|pendentes?|abiert[oa]s?)\b"
    r"|\btoujours\s+(?:ouvert|en\s+(?:suspens|cours|attente))\b",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
_WORD = re.compile(r"[^\W\d_]{5,}")
MIN_PREFIX = 5
# Words of five letters or more that name no work (English, German, Spanish, French).
_GENERIC = frozenset(
    "which there their these those where while about after before should would could other being under until since "
    "again still first every thing things nicht werden wurde wurden einer eines einem einen diese dieser dieses durch "
    "sowie sobald bereits immer schon jetzt alles todos todas sobre desde entre hasta después porque aussi encore "
    "toujours avant après".split()
)


def still_open(item: str, later: Iterable[str]) -> bool:
    """Does a sentence of one of the `later` texts (paragraphs, items) say that the work `item` asks for is still
    open, naming it? `item` is the work alone, without the label that hands it off."""
    texts = [t for t in later if _STILL_OPEN.search(t) is not None]
    if not texts:
        return False
    words = {w.lower() for w in _WORD.findall(item)} - _GENERIC
    if not words:
        return False
    for sentence in (s for t in texts for s in _SENTENCE.split(t)):
        m = _STILL_OPEN.search(sentence)
        if m is None:
            continue
        said = {w.lower() for w in _WORD.findall(sentence[: m.start()] + " " + sentence[m.end() :])} - _GENERIC
        if any(_same(a, b) for a in said for b in words):
            return True
    return False


def _same(a: str, b: str) -> bool:
    """The same word, or one a compound of the other ("luftdruck" / "luftdruckwerte")."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return long.startswith(short) and len(short) >= MIN_PREFIX

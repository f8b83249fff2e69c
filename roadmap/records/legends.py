"""State words a record's own legend defines in words: `**plated** — merged and playable`, `raw = not started`.

A team may keep its own status vocabulary and say what each word means next to the board. Two layouts count:
- a legend list: two or more list items `LABEL — meaning` (or `LABEL: meaning`, `LABEL = meaning`) right after a
  lead-in that says it is a legend ("Legend:", "## Status key", "Status words (ours):", "What the states mean");
- a legend line: "Legend: raw = not started · cooking = in progress", two or more pairs after such a lead-in.
A label is one or two words. Each is returned normalised (`on ice` -> ON-ICE) with its meaning as written, so a
caller can read what stage of work it names. Status emoji legends are read by state_words.legend.
"""

from __future__ import annotations

import re

from roadmap.records.state_words import norm
from roadmap.regex_hints import Hinted

# A lead-in that announces a legend: "Legend", "Key:", "Board key:", "State words (ours):", "Status labels", or
# "what the statuses mean". A bare "Status:" is not one: a list under it reports the status of components; nor is
# "Key decisions:".
_LEAD = re.compile(
    r"\blegend\b|^\W*(?:(?:status|state)(?:es)?\s+)?key\W*(?:$|[:(])|\bkey\W*$"
    r"|\b(?:status|state)(?:es)?\s+(?:words?|labels?|values?|vocabulary|legend|key|meanings?)\b"
    r"|\b(?:status|state)(?:es|s)?\s+mean\b",
    re.I,
)
_leads = Hinted(_LEAD).search  # each line of every record is asked: most hold no "legend", "key" or "stat"
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*)$")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_WRAP = "*_`"
# LABEL SEP MEANING: a label of one or two words (markup around it or around the separator allowed).
_PAIR = re.compile(r"^[*_`]*([A-Za-z][A-Za-z'’]*(?:[- ][A-Za-z][A-Za-z'’]*)?)[*_`]*\s*(?:—|–|-|:|=)[*_`]*\s+(\S.*)$")
_INLINE_LEAD = re.compile(r"^\W*[^:]{0,40}:\s*(.*)$")
_INLINE_SPLIT = re.compile(r"\s*[·•;|]\s*")


def word_legend(lines: list[str]) -> dict[str, str]:
    """The state words this record's legends define (normalised label -> meaning as written)."""
    found: dict[str, str] = {}
    n = 0
    while n < len(lines):
        line = lines[n]
        n += 1
        head = _HEADING.match(line)
        lead = head.group(1) if head else line
        if _ITEM.match(line) or line.lstrip().startswith("|") or not _leads(lead):
            continue
        if not head and (pairs := _inline_pairs(line)):
            _add(found, pairs)
            continue
        if not head and not line.rstrip().endswith(":"):
            continue
        while n < len(lines) and not lines[n].strip():
            n += 1
        pairs = []
        while n < len(lines) and (item := _ITEM.match(lines[n])):
            m = _PAIR.match(item.group(1).strip())
            if m is None:
                break
            pairs.append((m.group(1), m.group(2)))
            n += 1
        if len(pairs) >= 2:
            _add(found, pairs)
    return found


def _inline_pairs(line: str) -> list[tuple[str, str]]:
    """`Legend: raw = not started · cooking = in progress` -> its pairs (two or more, else none)."""
    m = _INLINE_LEAD.match(line)
    if m is None or not m.group(1):
        return []
    parts = [p for p in _INLINE_SPLIT.split(m.group(1).strip()) if p]
    pairs = [(p.group(1), p.group(2)) for part in parts for p in [_PAIR.match(part)] if p]
    return pairs if len(pairs) >= 2 and len(pairs) == len(parts) else []


def _add(found: dict[str, str], pairs: list[tuple[str, str]]) -> None:
    for label, meaning in pairs:
        found.setdefault(norm(label.strip(_WRAP)), meaning.strip().strip(_WRAP).strip())

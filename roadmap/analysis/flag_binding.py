"""Which named switch a phrase about a default speaks of, inside one sentence.

"`keep_f16` rides `expand_nk`, which is off when ..." says something about `expand_nk`, not `keep_f16`;
"GdnTritonEnvOn: default ON in the VLLM_CPP_TRITON build" turns on `GdnTritonEnvOn`, not the build option it
names as a place; "Parallel compaction is opt-in (`X=1`)" is about `X`. A phrase speaks of the names it contains
("flip `X` default ON"), else of the nearest name before it in its clause (with the names listed together
with that one: "`a` and `b` are opt-in"), else of the first name after it in its clause that is not a place
("in the `X` build"), where a clause may end between them ("opt-in; set `X=1` to try it").
"""

from __future__ import annotations

import re
from typing import Iterable

# What names a switch or a code object in prose: a --flag, an ENV_VAR, a snake_case setting, a CamelCase name,
# a path::Name, optionally called: `runner_supports_async()`.
IDENT = re.compile(
    r"(?<![\w-])(?:--[a-z0-9][\w-]+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|"
    r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+|\w+(?:::\w+)+)(?:\(\))?(?![\w-])"
)
REACH = 60  # characters between a phrase and the name it speaks of, at most
# What ends a clause between a name and a phrase: the phrase is then about something else.
_BREAK = re.compile(r"[;.!?]\s|[;—–]|,\s*(?:but|so|while|whereas|and\s+the)\b|\bso\b|\bwhile\b")
# After the phrase only a sentence's end parts it from the switch that works it: "opt-in; set `X=1` to try it".
_END = re.compile(r"[.!?]\s")
# Names listed together: "`a`, `b` and `c`", "`a`/`b`", "`X=1` or `Y=1`".
_LIST_GAP = re.compile(r"^(?:[\s,/+&`*()]|=\w+|\band\b|\bor\b|\bnor\b)*$", re.I)
# A name after the phrase that is where it holds, not what it holds for: "default ON in the `X` build".
_PLACE = re.compile(r"\b(?:in|inside|within|for|of|on|under|from)\s+(?:the\s+|a\s+|an\s+)?[`*]*$", re.I)


def names(sentence: str, extra: Iterable[tuple[int, int]] = (), prose: bool = True) -> list[tuple[int, int]]:
    """The spans of the names in `sentence` (with `prose`, every word shaped like code; plus `extra` spans, e.g.
    the names a record set in backticks, or a flag as prose spells it), in order, none inside another."""
    spans = {(m.start(), m.end()) for m in IDENT.finditer(sentence)} if prose else set()
    spans |= set(extra)
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans, key=lambda p: (p[0], -p[1])):
        if out and s < out[-1][1]:
            continue  # inside a longer name already kept
        out.append((s, e))
    return out


def bound(sentence: str, start: int, end: int, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans (from `spans`, in order) that the phrase at [start, end) of `sentence` speaks of."""
    inside = [p for p in spans if p[0] >= start and p[1] <= end]
    if inside:
        return inside
    before = [p for p in spans if p[1] <= start]
    if before:
        last = before[-1]
        gap = sentence[last[1] : start]
        if len(gap) <= REACH and not _BREAK.search(gap):
            group = [last]
            for p in reversed(before[:-1]):
                if not _LIST_GAP.match(sentence[p[1] : group[0][0]]):
                    break
                group.insert(0, p)
            return group
    after = [p for p in spans if p[0] >= end]
    if after:
        first = after[0]
        gap = sentence[end : first[0]]
        if len(gap) <= REACH and not _END.search(gap) and not _PLACE.search(gap):
            return [first]
    return []

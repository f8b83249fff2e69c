"""The role of a section or a labelled line, and whether a sentence asks for work or states a fact.

A spec's Gates, Acceptance criteria, Scope, Dependencies, Results, Background, Design and upstream-anatomy
sections say what must hold, what the work rests on, what happened or how things work: their imperatives
("Reuse the merged projection", "Clean -Werror build, full CTest") define, they do not ask. Only a line written
as a request asks there: an open box, a TODO/Next:, a hand-off to an owner. Outside such sections the mood of the
sentence decides too: a past-tense report ("quantized a model, ran the kernel: PASS"), or a check recorded at a
named commit with its verdict, states a fact.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from roadmap.records.kinds import title_of

# A section whose title opens with one of these (after numbering and an article) defines, scopes, reports or
# explains; "Effort estimate + scope" and "Tests to port + gates" open with work and keep their directives.
_ROLE_LEAD = re.compile(
    r"^(?:the |our |a |an )?(?:"
    r"(?P<gate>(?:quality |release |merge |exit |acceptance |success |validation |ship )?gates?\b|gating\b|"
    r"acceptance\b|(?:acceptance|success|exit|done|completion|pass(?:/fail)?|evaluation) criteri(?:a|on)\b|"
    r"criteri(?:a|on)\b|definition of done\b|done when\b)"
    r"|(?P<scope>scope\b|out of scope\b|non-?goals?\b|goals and non-?goals\b|dependenc(?:y|ies)\b|"
    r"prerequisites?\b|pre-?reqs?\b|assumptions?\b|inputs?\b|depends on\b|requires\b)"
    r"|(?P<result>results?\b|evidence\b|findings?\b|measurements?\b|measured\b|observations?\b|outcomes?\b|"
    r"verdict\b|probe results?\b|benchmark results?\b|test results?\b)"
    r"|(?P<background>background\b|context\b|motivation\b|overview\b|rationale\b|anatomy\b|"
    r"how (?:it|this|the \w+) works\b|architecture of\b|current state\b)"
    r"|(?P<design>design\b|proposed\b|proposal\b|the proposal\b|design proposal\b|sketch\b))",
    re.I,
)
# A title that reports a verdict of its own ("Build + run probe — PASS", "Gate 3: MET") or names a result.
_ROLE_ANYWHERE = re.compile(
    r"(?P<result>\bresults?\b|\bverdicts?\b|[—–:-]\s*(?:PASS(?:ED)?|FAIL(?:ED)?|MET|NOT MET|GREEN|RED)\b\W*$"
    # "W0 landed — 2026-07-22", "Item 4 — LANDED": a section that reports a step done (not "Must land")
    r"|\b(?:landed|shipped|merged|LANDED|SHIPPED|MERGED|DONE|COMPLETED?)\b)",
)
# "**SPEED gate:** match vLLM on every axis", "Acceptance: p99 under 20 ms": a line labelled as a criterion.
_LABEL = re.compile(
    # "Gate results. Linux box: ...", "Acceptance. p99 under 20 ms": one or two words closed by a full stop
    r"^\W{0,4}(?:([A-Za-z][\w-]*(?: [A-Za-z][\w-]*)?)[*_]*\.\s+(?=[A-Z*_`])"
    r"|([A-Za-z][\w /+&.,()-]{0,60}?)\s*[*_]*:\s*[*_]*\s*(?=\S))"
)
_LABEL_ROLE = re.compile(
    r"\b(?:gates?|criteri(?:a|on)|acceptance|bar|results?|evidence|verdict|measured|scope|dependency|dependencies|"
    r"prerequisites?|non-?goals?)$",
    re.I,
)
# Words of a request: a modal of obligation or an explicit ask, inside a sentence.
_REQUEST = re.compile(
    r"\b(?:TODO|FIXME|(?:must|should|needs? to|has to|have to|is to|are to) (?:be )?"
    r"(?:add|port|write|build|implement|fix|land|run|wire|create|update|remove|rerun|measure|do|make|extend|move)\w*)\b"
)
# A check recorded at a commit: a hex commit id and a verdict in the indicative.
_SHA = re.compile(r"(?<![\w-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w-])")
_HEX7 = re.compile(r"[0-9a-f]{7}")  # what every _SHA match holds
_VERDICT = re.compile(
    r"\b(?:pass(?:es|ed)?|PASS|fail(?:s|ed)?|FAIL|0 errors|no errors|0[- ]warn\w*|green|bit[- ]exact|"
    r"byte[- ]identical|token[- ]exact|builds? clean(?:ly)?|clean build|succeed(?:s|ed)?)\b",
    re.I,
)


@lru_cache(maxsize=4096)
def section_role(title: str) -> str | None:
    """'gate' | 'scope' | 'result' | 'background' | 'design' when a section's title gives it that role."""
    t = re.sub(r"^[^\w(\[]+", "", title_of(title))
    m = _ROLE_LEAD.match(t)
    if m:
        return next(k for k, v in m.groupdict().items() if v)
    if _ROLE_ANYWHERE.search(t):
        return "result"
    return None


def role_of(sections: tuple[str, ...], asks_for_work: Callable[[str], bool]) -> str | None:
    """The role of the innermost section that has one, the file's title left out. A heading that names a list of
    work (`asks_for_work`: "Next steps", "Punch-list") ends the search: "Next steps" under "Results" asks."""
    inner = sections[1:] if len(sections) > 1 else sections
    for title in reversed(inner):
        role = section_role(title)
        if role:
            return role
        if asks_for_work(title):
            return None
    return None


def label_role(text: str) -> str | None:
    """The role a line's own label gives it ("SPEED gate: ...", "Acceptance: ...")."""
    m = _LABEL.match(text)
    if m and _LABEL_ROLE.search((m.group(1) or m.group(2)).strip()):
        return "gate"
    return None


def after_label(text: str) -> str | None:
    """The text after a line's leading "Label:" (None when it has none)."""
    m = _LABEL.match(text)
    return text[m.end() :] if m else None


def asks(text: str) -> bool:
    """Does the sentence ask for work in words (TODO, "must add", "needs to be ported")?"""
    return _REQUEST.search(text) is not None


def records_a_check(text: str) -> bool:
    """A check recorded at a named commit, with its verdict ("Clean `ae9e8ff` builds; CTest passes 1/1")."""
    # 7 hex digits in a row first: a cheap scan that rules out most lines (_SHA opens with a lookbehind, which
    # `re` tries at every position)
    return (
        _HEX7.search(text) is not None
        and _SHA.search(text) is not None
        and _VERDICT.search(text) is not None
        and not asks(text)
    )

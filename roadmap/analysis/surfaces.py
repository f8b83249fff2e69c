"""Surfaces: the statements, in any record file, that repeat one directive.

Two statements are surfaces of the same directive when they concern the same row or claim (the row/claim
they belong to, define or name overlaps) and their distinctive terms nearly coincide. The seed's item 14
lives in a spec table cell, a punch-list item, a benchmark-record cell and a coordination bullet: one stale
thing, four places to fix, so a finding is reported once with the other places as related locations.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, AbstractSet, Iterable

from roadmap.analysis.terms import containment, distinctive_terms, id_parts, jaccard
from roadmap.analysis.work import terms_of, text_language

if TYPE_CHECKING:
    from roadmap.records.model import Statement

# Near-identical: most of the shorter directive's terms occur in the longer one, and the two share at
# least half of their terms overall (a one-clause summary of a long directive is not a repeat).
MIN_CONTAINMENT = 0.75
MIN_JACCARD = 0.5
MIN_TERMS = 3

_NUMBERING = re.compile(r"^\s*(?:§\s*)?\d+(?:\.\d+)*[.)]?\s+")


def subject_ids(st: "Statement") -> frozenset[str]:
    """The rows and claims a statement is about: its row, what it defines, the ids and claims it names."""
    ids = {st.row_id, st.defines, *st.mentions.ids, *st.mentions.claims}
    return frozenset(i for i in ids if i)


def directive_terms(st: "Statement") -> set[str]:
    """Distinctive terms of the part that asks for work, without the parts of its own ids."""
    return distinctive_terms(st.directive_text or st.text, exclude=id_parts(subject_ids(st)))


def work_terms(st: "Statement") -> frozenset[str]:
    """The work terms (analysis/work.py) of the part of `st` that asks for work, its ids masked out: a commit
    naming the id is counted apart, as naming it. A word of an id that the text also uses stays ("regex escaper
    (CLAIM-ESCAPE-LUT)" is about an escaper)."""
    text = st.directive_text or st.text
    for i in subject_ids(st):
        text = text.replace(i, " ")
    # The whole statement says which language it is in: its directive part alone ("Paginar `GET /api` con cursor")
    # may be too short to tell.
    return terms_of(text, text_language(st.text) if text != st.text else None)


def apart(a: "Statement", b: "Statement") -> bool:
    """Are two statements different places (another file, or a table vs a list, or another section)? Items of
    one list are distinct pieces of work however alike; a repeat lives somewhere else."""
    return a.path != b.path or a.kind != b.kind or a.section != b.section


def related_text(
    a: "Statement", b: "Statement", min_shared: int, min_containment: float, min_jaccard: float = 0.0
) -> bool:
    """Do two statements describe the same work in other words (shared work terms, abbreviations folded)?
    When both name rows or claims, they must name one in common."""
    return _related(
        subject_ids(a), subject_ids(b), work_terms(a), work_terms(b), min_shared, min_containment, min_jaccard
    )


def _related(
    ia: frozenset[str],
    ib: frozenset[str],
    ta: frozenset[str],
    tb: frozenset[str],
    min_shared: int,
    min_containment: float,
    min_jaccard: float,
) -> bool:
    if ia and ib and not (ia & ib):
        return False
    shared = len(ta & tb)
    return (
        shared >= min_shared
        and shared / (min(len(ta), len(tb)) or 1) >= min_containment
        and shared / (len(ta | tb) or 1) >= min_jaccard
    )


def repeats(a: "Statement", b: "Statement") -> bool:
    """Does `b` repeat the directive of `a` (same row/claim, near-identical text)?"""
    if a is b:
        return False
    ia, ib = subject_ids(a), subject_ids(b)
    return bool(ia & ib) and _repeats(directive_terms(a), directive_terms(b))


def _repeats(ta: AbstractSet[str], tb: AbstractSet[str]) -> bool:
    if min(len(ta), len(tb)) < MIN_TERMS:
        return False
    return containment(ta, tb) >= MIN_CONTAINMENT and jaccard(ta, tb) >= MIN_JACCARD


class _Facts:
    """One statement's ids and terms, as the tests above read them."""

    __slots__ = ("st", "ids", "work", "directive")

    def __init__(self, st: "Statement"):
        self.st = st  # held, so the id() it is filed under stays this statement's
        self.ids = subject_ids(st)
        self.work = work_terms(st)
        self.directive: set[str] | None = None


class Surfaces:
    """The tests above with each statement's ids and terms worked out once: the stale analysis
    (analysis/stale.py) compares thousands of statements with each other, and recomputing them per pair was
    most of a 50,000-line corpus's run (tests/roadmap/test_robustness.py)."""

    def __init__(self) -> None:
        self._facts: dict[int, _Facts] = {}

    def _of(self, st: "Statement") -> _Facts:
        hit = self._facts.get(id(st))
        if hit is None:
            hit = self._facts[id(st)] = _Facts(st)
        return hit

    def ids(self, st: "Statement") -> frozenset[str]:
        return self._of(st).ids

    def work_terms(self, st: "Statement") -> frozenset[str]:
        return self._of(st).work

    def directive_terms(self, st: "Statement") -> set[str]:
        f = self._of(st)
        if f.directive is None:
            f.directive = directive_terms(st)
        return f.directive

    def repeats(self, a: "Statement", b: "Statement") -> bool:
        """`repeats(a, b)`."""
        if a is b or not (self.ids(a) & self.ids(b)):
            return False
        return _repeats(self.directive_terms(a), self.directive_terms(b))

    def related_text(
        self, a: "Statement", b: "Statement", min_shared: int, min_containment: float, min_jaccard: float = 0.0
    ) -> bool:
        """`related_text(a, b, ...)`."""
        return _related(
            self.ids(a), self.ids(b), self.work_terms(a), self.work_terms(b), min_shared, min_containment, min_jaccard
        )


def surfaces_of(st: "Statement", pool: Iterable["Statement"]) -> list["Statement"]:
    """`st` and every statement of `pool` that repeats it, primary first (see `primary_key`)."""
    found = [st] + [o for o in pool if o is not st and o.directive and not o.historical and repeats(st, o)]
    return sorted(found, key=primary_key)


# Files whose name says they hold the plan (where directives are written first); other records copy from them.
_PLANNING = re.compile(r"todo|punch|plan|roadmap|spec|backlog|checklist|coordination|hand-?off|next|task|sprint", re.I)


def primary_key(st: "Statement") -> tuple[int, int, str, int]:
    """Which surface a finding is reported on: one in a planning file (punch-list, plan, roadmap, spec, todo,
    coordination) before a record or note that copies it; there, a numbered list item first, then a table cell,
    then a list item, then anything else; ties by path and line, so the choice is stable."""
    tier = 0 if _PLANNING.search(st.path) else 1
    rank = 0 if st.item_number is not None else 1 if st.kind == "cell" else 2 if st.kind == "item" else 3
    return (tier, rank, st.path, st.line)


def section_name(st: "Statement") -> str:
    """The innermost section title without its numbering: '3. Punch-list' -> 'Punch-list'."""
    return _NUMBERING.sub("", st.section[-1]).strip() if st.section else ""


def describe(st: "Statement") -> str:
    """How a person would name this surface: 'Punch-list item 14', "the 'Next actions' cell of X", ..."""
    row = st.row_id or st.defines
    if st.item_number is not None:
        where = section_name(st)
        return f"{where} item {st.item_number}" if where else f"item {st.item_number}"
    if st.kind == "cell":
        col = f"'{st.column}' cell" if st.column else "table cell"
        return f"the {col} of {row}" if row else f"the {col} at line {st.line}"
    if st.kind == "item":
        dated = (
            st.mentions.dates[0] + " "
            if st.mentions.dates and st.text.lstrip().startswith(st.mentions.dates[0])
            else ""
        )
        return f"the {dated}{row} bullet" if row else f"the bullet at line {st.line}"
    return f"the {st.kind} at line {st.line}"

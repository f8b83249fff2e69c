"""What RL201 knows of a stale figure quote, shared by the places that find one (analysis/supersession.py,
analysis/figure_marks.py): the newer figures and where they come from, each statement's as-of date on first
use, and how a figure is written back with its unit."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from roadmap.analysis.asof import news_for
from roadmap.analysis.figure_quotes import Quote
from roadmap.analysis.metric_terms import same_dimension
from roadmap.records.model import Statement

if TYPE_CHECKING:
    from roadmap.analysis.context import LintContext


@dataclass
class Stale:
    quote: Quote
    date: str  # the quote's as-of date
    new: list[tuple[float, str]]  # the newer figures: (value, text as written with its unit)
    source: str  # "newer evidence 20260410-silesia-l3 (2026-04-10)"
    kind: str  # "evidence" | "record" | "canonical" | "marked"
    evidence: dict[str, Any] = field(default_factory=dict)
    strong: bool = True  # False: matched on a table key alone (a warning)


class Dates:
    """Each statement's as-of date, on first use (blame is the expensive part)."""

    def __init__(self, ctx: "LintContext"):
        self.ctx = ctx
        self.cache: dict[int, str | None] = {}

    def of(self, st: Statement) -> str | None:
        if id(st) not in self.cache:
            self.cache[id(st)] = news_for(self.ctx, st).date
        return self.cache[id(st)]


def with_unit(text: str, unit: str | None) -> str:
    """A figure as a person writes it: `412.6 MB/s`, `1.0283x`, `8.4 %`."""
    if unit is None or re.search(r"[A-Za-z%×µ]", text):
        return text  # written with its unit already: "1730 img/s", "0.98×", "8.4 %"
    return f"{text}{unit}" if unit == "x" else f"{text} {unit}"


def units_agree(a: str | None, b: str | None) -> bool:
    return same_dimension(a, b) or {a, b} == {None, "x"}


def significant(text: str) -> bool:
    """A figure precise enough that the same value elsewhere is the same figure: three digits or more."""
    return sum(ch.isdigit() for ch in text.lstrip("0.,")) >= 3

"""The coordination report as plain data (described in docs/report.md): what the Markdown and HTML renderers print.

Built from a LintResult by `roadmap.report.build`; renderers never read records or facts themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Point:
    """One evidence entry of a series: its date and headline figures (None where it states none)."""

    date: str | None
    name: str  # the evidence dir/file name
    path: str  # repo-relative
    tok_s: float | None = None  # metrics.output_tok_per_s.median (ours)
    peer_ratio: float | None = None  # the first peer's `ratio` (ours / peer), when present
    peer_complete: bool | None = (
        None  # that peer's `complete` flag (False: it was stopped early; the ratio is not comparable)
    )
    row: str | None = None


@dataclass(frozen=True)
class Series:
    name: str
    points: tuple[Point, ...]  # oldest first

    @property
    def latest(self) -> Point:
        return self.points[-1]

    def plotted(self) -> list[Point]:
        """The points that carry an output tok/s figure (what a trend can show)."""
        return [p for p in self.points if p.tok_s is not None]


@dataclass(frozen=True)
class RowInfo:
    row_id: str
    state: str
    path: str  # where the state comes from (the canonical file when it has the row)
    line: int
    canonical: bool
    series: tuple[str, ...] = ()  # evidence series that name this row, newest entry first


@dataclass(frozen=True)
class DirectiveInfo:
    row_id: str | None
    path: str
    line: int
    where: str  # "Punch-list item 14", "the 'Remaining' cell of RM-HISTORY", ...
    text: str
    as_of: str | None  # YYYY-MM-DD the statement is as of (named, or git blame)
    as_of_source: str  # how the as-of point was found
    age_days: int | None  # days from as_of to the head commit's date
    verdict: str  # "stale" | "row closed" | "current"
    codes: tuple[str, ...] = ()  # finding codes behind a non-current verdict


@dataclass(frozen=True)
class ClaimInfo:
    claim_id: str
    path: str
    line: int
    section: str
    since: str | None  # newest date the claim names, else its as-of date
    idle_days: int | None
    status: str  # "active" | "idle past TTL" | "closed, still listed"
    text: str = ""


@dataclass(frozen=True)
class Surface:
    path: str
    line: int
    note: str  # what the finding or the related location says about it


@dataclass(frozen=True)
class Reconciliation:
    """One finding, ready to file: the surfaces a records-only fix edits and the evidence behind it."""

    code: str
    name: str
    severity: str
    title: str
    record_id: str | None
    surfaces: tuple[Surface, ...]
    commits: tuple[tuple[str, str, str], ...]  # (sha, date, subject)
    evidence: tuple[tuple[str, str], ...]  # (path, date)
    fix: str
    fingerprint: str


@dataclass
class Report:
    head: str | None
    head_date: str | None
    records: int
    rows: list[RowInfo] = field(default_factory=list)
    series: list[Series] = field(default_factory=list)
    directives: list[DirectiveInfo] = field(default_factory=list)
    claims: list[ClaimInfo] = field(default_factory=list)
    reconciliations: list[Reconciliation] = field(default_factory=list)
    summary: dict[str, int] = field(default_factory=dict)
    claims_ttl_days: int = 14
    closed_states: tuple[str, ...] = ()  # config `closed_states`: how a row's state is coloured
    notes: list[str] = field(default_factory=list)  # what could not be computed, and why

    def series_by_name(self) -> dict[str, Series]:
        return {s.name: s for s in self.series}

"""Wording shared by the Markdown and HTML reports: figures, trends, ages (one place, so both read the same)."""

from __future__ import annotations

from roadmap.report.model import Point, Report, Series

MAX_TREND_POINTS = 8


def tok_s(v: float | None) -> str:
    return f"{v:.2f} tok/s" if v is not None else "—"


def ratio(p: Point) -> str:
    if p.peer_ratio is None:
        return "—"
    return f"{p.peer_ratio:g}x" + (
        " (the peer was stopped early: not a comparable ratio)" if p.peer_complete is False else ""
    )


def clip(s: str, n: int = 200) -> str:
    """One line of at most `n` characters (the summary points at the full text below it)."""
    flat = " ".join(s.split())
    return flat if len(flat) <= n else flat[: n - 1].rstrip() + "…"


def days(n: int | None) -> str:
    if n is None:
        return "unknown"
    return "1 day" if n == 1 else f"{n} days"


def change(a: float, b: float) -> str:
    return f"{(b - a) / a * 100:+.1f}%" if a else "n/a"


def trend(series: Series) -> str:
    """`2593.19 (2026-12-01) → 2705.14 (2026-12-02), +4.3%` over the entries that state a tok/s figure."""
    pts = series.plotted()
    if not pts:
        return "no tok/s figure in its entries"
    shown = pts[-MAX_TREND_POINTS:]
    text = " → ".join(f"{p.tok_s:.2f} ({p.date or '?'})" for p in shown)
    if len(pts) > len(shown):
        text = f"… {text}"
    if len(pts) >= 2:
        text += f", {change(pts[0].tok_s or 0.0, pts[-1].tok_s or 0.0)} over {len(pts)} entries"
    if len(pts) < len(series.points):  # foreign evidence (no result.json) states no figure to plot
        text += f" ({len(pts)} of {len(series.points)} entries state a tok/s figure)"
    return text


MAX_ROW_SERIES = 4


def row_evidence(series: Series) -> str:
    """One line per series on a row: `name` (date): figure, ratio vs peer[; trend when it has ≥ 2 figures]."""
    p = newest_figure(series)
    parts = [tok_s(p.tok_s)] if p.tok_s is not None else ["no tok/s figure"]
    if p.peer_ratio is not None:
        parts.append(ratio(p).replace("x", "x vs peer", 1))
    line = f"{series.name} ({p.date or '?'}): {', '.join(parts)}"
    if len(series.plotted()) >= 2:
        line += f"; trend {trend(series)}"
    return line


def newest_figure(series: Series) -> Point:
    """The newest entry that states an output tok/s figure, else the newest entry."""
    pts = series.plotted()
    return pts[-1] if pts else series.latest


# State words that are not closed, by what they ask of a reader (config `states` may use any others: "other")
_WAITING = ("GATING", "WAITING", "REVIEW", "PENDING")
_ACTIVE = ("ACTIVE", "IN-PROGRESS", "IN PROGRESS", "OPEN", "STARTED")
_PLANNED = ("PLANNED", "PROPOSED", "TODO", "BACKLOG", "DRAFT")


def state_kind(state: str, closed: tuple[str, ...]) -> str:
    """closed | blocked | waiting | active | planned | other: the colour a row's state gets in the HTML."""
    word = state.strip().upper()
    if word in {c.upper() for c in closed}:
        return "closed"
    if "BLOCK" in word:
        return "blocked"
    for kind, words in (("waiting", _WAITING), ("active", _ACTIVE), ("planned", _PLANNED)):
        if word in words:
            return kind
    return "other"


def title(report: Report) -> str:
    head = f" at {report.head[:12]}" if report.head else ""
    day = f" ({report.head_date})" if report.head_date else ""
    return f"Coordination report{head}{day}"


def summary(report: Report) -> str:
    s = report.summary
    stale = sum(1 for d in report.directives if d.verdict != "current")
    return (
        f"{len(report.rows)} rows, {len(report.series)} evidence series, {len(report.directives)} open "
        f"directives ({stale} stale), {len(report.claims)} claims listed active; findings: {s.get('error', 0)} "
        f"errors, {s.get('warning', 0)} warnings, {s.get('info', 0)} info across {report.records} record files."
    )

"""A trend plot's geometry: output tok/s of one series against the evidence date (templates/trend.svg.j2 draws it).

Hand-made (no matplotlib: roadmap stays light) and deterministic (fixed size, coordinates rounded). Entries are
placed by date, so a month between two runs is wider than a day; a series with an undated entry falls back to
one step per entry and says so on its axis.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from roadmap.report.model import Series

WIDTH, HEIGHT = 460, 210
LEFT, RIGHT, TOP, BOTTOM = 70, 24, 14, 52  # margins (px): tick labels and the two axis titles fit inside
INSET = 10  # px between the frame and the first and last dots
Y_TITLE = "output tok/s (median)"


@dataclass(frozen=True)
class Tick:
    pos: float  # x or y in px
    label: str
    anchor: str = "end"  # SVG text-anchor: y labels end at the axis; x labels start, middle or end


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    tip: str  # "20260805-tp-demo (2026-08-05): 1100.25 tok/s"


@dataclass(frozen=True)
class TrendPlot:
    label: str  # what a screen reader says
    x_title: str
    dots: tuple[Dot, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    top: int = TOP
    plot_w: int = WIDTH - LEFT - RIGHT
    plot_h: int = HEIGHT - TOP - BOTTOM
    y_title: str = Y_TITLE

    @property
    def polyline(self) -> str:
        return " ".join(f"{d.x},{d.y}" for d in self.dots)


def _day(s: str | None) -> int | None:
    try:
        return date.fromisoformat(s).toordinal() if s else None
    except ValueError:
        return None


def trend_plot(series: Series) -> TrendPlot | None:
    """The plot of the series' tok/s figures by date; None when it has fewer than two."""
    pts = series.plotted()
    if len(pts) < 2:
        return None
    days = [_day(p.date) for p in pts]
    # by date, unless an entry is undated or all share one day (then one step per entry)
    dated = all(d is not None for d in days) and days[0] != days[-1]
    xs = [float(d) for d in days if d is not None] if dated else [float(i) for i in range(len(pts))]
    x0, x1 = xs[0], xs[-1]
    values = [p.tok_s or 0.0 for p in pts]
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.1 or max(abs(hi) * 0.05, 1.0)  # a flat series still gets a visible band
    lo, hi = lo - pad, hi + pad
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x_of(x: float) -> float:  # an inset, so the first and last dots sit inside the frame
        return round(LEFT + INSET + (plot_w - 2 * INSET) * (x - x0) / (x1 - x0), 1)

    def y_of(v: float) -> float:
        return round(TOP + plot_h * (hi - v) / (hi - lo), 1)

    dots = tuple(
        Dot(x_of(x), y_of(v), f"{p.name} ({p.date or 'undated'}): {v:.2f} tok/s") for x, v, p in zip(xs, values, pts)
    )
    y_ticks = tuple(Tick(y_of(v), f"{v:,.2f}") for v in (hi - pad, (hi + lo) / 2, lo + pad))
    if dated:
        marks = [(xs[0], pts[0].date or ""), (xs[-1], pts[-1].date or "")]
        middle = min(range(len(xs)), key=lambda i: abs(xs[i] - (x0 + x1) / 2))
        if 0 < middle < len(xs) - 1 and min(xs[middle] - x0, x1 - xs[middle]) > (x1 - x0) / 4:
            marks.insert(1, (xs[middle], pts[middle].date or ""))
        x_title = "evidence date"
    else:
        marks = [(xs[0], "entry 1"), (xs[-1], f"entry {len(xs)}")]
        x_title = (
            "evidence entry (all on one day)"
            if all(d is not None for d in days)
            else "evidence entry (not all entries are dated)"
        )
    anchors = ["start"] + ["middle"] * (len(marks) - 2) + ["end"]
    x_ticks = tuple(Tick(x_of(x), label, anchor) for (x, label), anchor in zip(marks, anchors))
    return TrendPlot(
        label=f"{series.name}: {Y_TITLE} by {x_title}", x_title=x_title, dots=dots, x_ticks=x_ticks, y_ticks=y_ticks
    )

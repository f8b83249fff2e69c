"""A trend plot as inline SVG: output tok/s per evidence entry of one series, oldest to newest.

Hand-written (no matplotlib: roadmap stays light), deterministic (fixed size, coordinates rounded).
"""
from __future__ import annotations

from html import escape

from roadmap.report.model import Series

WIDTH, HEIGHT = 420, 150
LEFT, RIGHT, TOP, BOTTOM = 62, 14, 14, 34   # margins (px) for the axis labels


def trend_svg(series: Series) -> str:
    """An SVG line plot of the series' tok/s figures; "" when it has fewer than two."""
    pts = series.plotted()
    if len(pts) < 2:
        return ""
    values = [p.tok_s or 0.0 for p in pts]
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.1 or max(abs(hi) * 0.05, 1.0)   # a flat series still gets a visible band
    lo, hi = lo - pad, hi + pad
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def xy(i: int, v: float) -> tuple[float, float]:
        x = LEFT + plot_w * i / (len(pts) - 1)
        y = TOP + plot_h * (hi - v) / (hi - lo)
        return round(x, 1), round(y, 1)

    coords = [xy(i, v) for i, v in enumerate(values)]
    label = escape(f"{series.name}: output tok/s per evidence entry", quote=True)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{label}">',
           f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" class="plot"/>']
    for v in (hi - pad, lo + pad):
        _, y = xy(0, v)
        out.append(f'<text x="{LEFT - 6}" y="{y + 4}" text-anchor="end" class="axis">{v:.2f}</text>')
        out.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y}" y2="{y}" class="grid"/>')
    out.append('<polyline fill="none" class="line" points="'
               + " ".join(f"{x},{y}" for x, y in coords) + '"/>')
    for (x, y), p in zip(coords, pts):
        tip = escape(f"{p.name}: {p.tok_s:.2f} tok/s", quote=False)
        out.append(f'<circle cx="{x}" cy="{y}" r="3.5" class="dot"><title>{tip}</title></circle>')
    for i in sorted({0, len(pts) - 1}):
        x, _ = coords[i]
        anchor = "start" if i == 0 else "end"
        out.append(f'<text x="{x}" y="{HEIGHT - 12}" text-anchor="{anchor}" class="axis">'
                   f'{escape(pts[i].date or "?")}</text>')
    out.append(f'<text x="{LEFT}" y="{HEIGHT - 1}" class="axis">output tok/s (median) per entry</text>')
    out.append("</svg>")
    return "\n".join(out)

"""plot.png: per-run output tok/s against the peer and the hardware bound (each bar labelled with its value, the
axis logarithmic when they differ by orders of magnitude), and the TTFT / ITL distributions.

Drawn from result.json alone (runs keep CDF quantiles), so `engine bench render DIR` redraws it anywhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # headless: no display on CI or the GPU machine
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure

LOG_SPREAD = 20  # largest / smallest value (bars and bound) past which the throughput axis is logarithmic


def draw(r: dict[str, Any], out: Path) -> None:
    fig = figure(r)
    fig.savefig(out)
    plt.close(fig)


def figure(r: dict[str, Any]) -> Figure:
    fig, (ax_tp, ax_cdf) = plt.subplots(1, 2, figsize=(10, 3.8), dpi=100)
    _throughput(ax_tp, r)
    curves = _cdf_curves(r)
    for label, (xs, ps) in curves.items():
        ax_cdf.plot(xs, ps, label=label)
    if curves:
        ax_cdf.set_xscale("log")
        ax_cdf.legend(fontsize=8)
    ax_cdf.set_xlabel("ms")
    ax_cdf.set_ylabel("percentile")
    ax_cdf.set_title("latency CDF (median run)", fontsize=10)
    fig.tight_layout()
    return fig


def _throughput(ax: Axes, r: dict[str, Any]) -> None:
    """Bars of our runs and the peers, each labelled with its value. A peer 50x slower than us, under a bound
    far above both, is a sliver on a linear axis: past LOG_SPREAD the axis is logarithmic, so every bar shows."""
    runs = r.get("runs") or []
    names = [f"run {i + 1}" for i in range(len(runs))]
    values = [float(run.get("output_tok_per_s", 0.0)) for run in runs]
    colors = ["tab:blue"] * len(runs)
    for p in r.get("peers") or []:
        names.append(p["name"] + ("" if p.get("complete", True) else " (cut)"))
        values.append(float((p["metrics"].get("output_tok_per_s") or {}).get("median") or 0.0))
        colors.append("tab:orange")
    bars = ax.bar(range(len(values)), values, color=colors)
    ax.set_xticks(range(len(values)), names, rotation=20, ha="right", fontsize=8)
    ax.bar_label(bars, labels=[_fmt(v) for v in values], fontsize=7, padding=2)
    bound = (r.get("roofline") or {}).get("output_tok_per_s_bound")
    if bound:
        ax.axhline(bound, color="tab:red", linestyle="--", label=f"hardware bound {bound:,.0f}")
        ax.legend(fontsize=8, loc="upper right", framealpha=0.9)
    shown = [v for v in [*values, bound or 0.0] if v > 0]
    if shown and max(shown) / min(shown) > LOG_SPREAD:
        ax.set_yscale("log")
        ax.set_ylim(min(shown) / 2, max(shown) * 3)  # room for the labels above the tallest bar and the bound
        ax.set_ylabel("output tok/s (log scale)")
    else:
        ax.set_ylim(0, max(shown, default=1.0) * 1.3)  # room for the labels and the legend
        ax.set_ylabel("output tok/s")
    ax.set_title(f"{r['model']['name']} / {r['workload']['name']}", fontsize=10)


def _fmt(v: float) -> str:
    return f"{v:,.0f}" if v >= 100 else f"{v:.3g}"


def _median_run(runs: list[dict[str, Any]]) -> dict[str, Any] | None:
    ranked = sorted(runs, key=lambda x: x.get("output_tok_per_s", 0.0))
    return ranked[(len(ranked) - 1) // 2] if ranked else None


def _cdf_curves(r: dict[str, Any]) -> dict[str, tuple[list[float], list[float]]]:
    curves: dict[str, tuple[list[float], list[float]]] = {}
    sources = [
        (f"{(r.get('subject') or {}).get('name', 'engine')} ", (_median_run(r.get("runs") or []) or {}).get("cdf_ms"))
    ]
    sources += [(f"{p['name']} ", p.get("cdf_ms")) for p in r.get("peers") or []]
    for prefix, cdf in sources:
        if not cdf:
            continue
        for key in ("ttft", "itl"):
            q = cdf.get(key)
            if q:
                xs = [max(v, 1e-3) for v in q]  # log axis: clamp zero gaps
                curves[f"{prefix}{key.upper()}"] = (xs, list(cdf["points"]))
    return curves

"""plot.png's throughput panel: a peer far slower than us, under a bound far above both, is still a visible
bar (the axis turns logarithmic), and every bar carries its value."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib", reason="the plots need matplotlib (the bench extra)")

from engine.bench import plot


def _result(runs: list[float], peer: float, bound: float | None) -> dict:
    return {
        "model": {"name": "qwen3-0.6b"},
        "workload": {"name": "nano"},
        "runs": [{"output_tok_per_s": v} for v in runs],
        "peers": [{"name": "transformers", "complete": True, "metrics": {"output_tok_per_s": {"median": peer}}}],
        "roofline": {"output_tok_per_s_bound": bound} if bound else {},
    }


def _panel(r: dict):
    fig = plot.figure(r)
    fig.canvas.draw()
    ax = fig.axes[0]
    heights = [p.get_window_extent().height for p in ax.patches]  # bar heights in pixels
    labels = [t.get_text() for t in ax.texts]
    plot.plt.close(fig)
    return ax, heights, labels


def test_a_slow_peer_under_a_high_bound_is_visible_and_labelled():
    ax, heights, labels = _panel(_result([3012.4, 3101.9, 2950.0], 48.7, 120_000.0))
    assert ax.get_yscale() == "log" and "log scale" in ax.get_ylabel()
    assert len(heights) == 4 and heights[-1] > 20, heights  # the peer's bar: tens of pixels, not a sliver
    assert labels == ["3,012", "3,102", "2,950", "48.7"]
    assert ax.get_ylim()[1] > 120_000  # the bound line is inside the panel


def test_comparable_bars_stay_on_a_linear_axis(tmp_path):
    ax, _, labels = _panel(_result([3000.0, 3050.0], 2500.0, 4000.0))
    assert ax.get_yscale() == "linear" and ax.get_ylim()[0] == 0 and ax.get_ylim()[1] > 4000
    assert labels == ["3,000", "3,050", "2,500"]
    out = tmp_path / "plot.png"
    plot.draw(_result([3000.0, 3050.0], 2500.0, 4000.0), out)
    assert out.read_bytes()[:4] == b"\x89PNG"

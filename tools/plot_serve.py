"""Serving curves from tools/device_serve.py's JSON: throughput, online/offline, TTFT and ITL per load point.

    .venv/bin/python tools/plot_serve.py OUT.png serve-0.6b.json [serve-4b.json ...]

One column of panels per JSON (a model): output tok/s per point against the offline rate (dashed), and TTFT and
ITL (p50 solid, p99 dotted, log scale) per point. Points are in the order measured (concurrency 1, 64, 256, then
the Poisson rates); warm-up points are left out. Runs where matplotlib is installed (the bench extra), not on the
GPU machine: draw from the JSON it wrote.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _label(p: dict[str, Any]) -> str:
    rate = p.get("request_rate")
    if rate not in (None, "inf", float("inf")):
        return f"{float(rate):g} req/s"
    return f"c={p.get('max_concurrency')}"


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out, sources = Path(argv[0]), [Path(a) for a in argv[1:]]
    runs = [json.loads(p.read_text()) for p in sources]
    fig, axes = plt.subplots(2, len(runs), figsize=(5.2 * len(runs), 7.2), squeeze=False)
    for col, r in enumerate(runs):
        points = r["points"]
        labels = [_label(p) for p in points]
        xs = list(range(len(points)))
        offline = r["offline"]["output_tok_per_s"]
        top = axes[0][col]
        top.bar(xs, [p["output_tok_per_s"] for p in points], color="#4c72b0")
        top.axhline(offline, color="#c44e52", linestyle="--", label=f"offline {offline:,.0f} tok/s")
        for x, p in zip(xs, points):
            ratio = p.get("online_over_offline")
            if ratio is not None:
                top.annotate(f"{ratio:.0%}", (x, p["output_tok_per_s"]), ha="center", va="bottom", fontsize=8)
        top.set_xticks(xs, labels, rotation=20)
        top.set_ylabel("output tok/s")
        top.set_title(f"{r['model']} behind engine serve")
        top.legend(loc="lower right", fontsize=8)
        low = axes[1][col]
        for key, color in (("ttft_ms", "#55a868"), ("itl_ms", "#8172b2")):
            low.plot(xs, [p[key]["p50"] for p in points], marker="o", color=color, label=f"{key[:-3].upper()} p50")
            low.plot(
                xs,
                [p[key]["p99"] for p in points],
                marker="o",
                linestyle=":",
                color=color,
                label=f"{key[:-3].upper()} p99",
            )
        low.set_yscale("log")
        low.set_xticks(xs, labels, rotation=20)
        low.set_ylabel("ms")
        low.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

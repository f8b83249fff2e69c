"""The figures an evidence entry holds, each with the metric it measures: what RL201 compares quotes with and
RL202 backs them by.

From JSON (ours or another team's) every number, keyed by its path: `compress_mbps` 412.6 is a `compress`
figure in MB/s, `metrics.ttft_ms.p99` a p99 `ttft` in ms. A number inside a list (`runs`, sweep points) is a
repetition, not a headline. From markdown (a summary, a one-off `.md` entry) every figure with its unit and the
words before it ("compress: 438.0 MB/s"), or its table header ("| ours | 6831.71 |" under "output tok/s").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

from roadmap.analysis.figure_context import bar_of, metric_before
from roadmap.analysis.figures_compare import marked_historical
from roadmap.analysis.metric_terms import Metric, key_metric, metric_of, words_of
from roadmap.config import Config
from roadmap.records.figures import header_unit, single_figure
from roadmap.records.parser import parse_record

if TYPE_CHECKING:
    from roadmap.evidence.store import EvidenceEntry
    from roadmap.history.tree import Tree

MAX_TEXT = 256 * 1024          # a summary larger than this is not read for figures
_CONFIG = Config()             # evidence summaries are parsed with the default record conventions


@dataclass(frozen=True)
class EvidenceFigure:
    key: str                   # where it is: "compress_mbps", "metrics.ttft_ms.p99", "summary.md:7"
    value: float
    unit: str | None
    metric: Metric
    headline: bool             # False for repetitions, sweep points and bars the entry states
    text: str | None = None    # as written, for a figure read from markdown (its rounding); None from JSON


def figures_of(entry: "EvidenceEntry", tree: "Tree | None") -> list[EvidenceFigure]:
    out: list[EvidenceFigure] = []
    if entry.raw is not None:
        out.extend(_json(entry.raw, "", headline=True))
    if tree is not None:
        for f in entry.files:
            if f.endswith(".md"):
                data = tree.read_bytes(f)
                if data and len(data) <= MAX_TEXT:
                    out.extend(_markdown(f, data))
    return out


_CONFIG_BLOCKS = frozenset({"machine", "model", "workload", "engine", "settings", "config", "corpus"})


def _json(obj: Any, path: str, headline: bool) -> Iterator[EvidenceFigure]:
    if isinstance(obj, bool) or obj is None:
        return
    if isinstance(obj, (int, float)):
        metric, unit = key_metric(path)
        yield EvidenceFigure(path, float(obj), unit, metric, headline)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            inner = headline and str(k) not in _CONFIG_BLOCKS and str(k) != "runs"
            yield from _json(v, f"{path}.{k}" if path else str(k), inner)
    elif isinstance(obj, list):
        keep = headline and all(isinstance(v, dict) for v in obj) and path.rsplit(".", 1)[-1] == "peers"
        for i, v in enumerate(obj):
            yield from _json(v, f"{path}[{i}]", keep)


def _markdown(path: str, data: bytes) -> Iterator[EvidenceFigure]:
    rf = parse_record(path, data, _CONFIG)
    for st in rf.statements:
        if st.kind == "heading":
            continue
        where = f"{path}:{st.line}"
        header = st.column or ""
        whole = single_figure(st.text) if st.kind == "cell" else None
        if whole is not None:
            unit = whole.unit or header_unit(header)
            yield EvidenceFigure(where, whole.value, unit, metric_of(words_of(header)), True, whole.text)
            continue
        for fig in st.mentions.figures:
            metric = metric_before(st.text, fig.start)
            if not metric.known and st.kind == "cell":
                metric = metric_of(words_of(header))
            bar = bar_of(st.text, fig.start, fig.start + len(fig.text), fig.unit, metric)
            old = st.historical or marked_historical(st.text, fig)
            yield EvidenceFigure(where, fig.value, fig.unit, metric, bar is None and not old, fig.text)

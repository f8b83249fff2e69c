"""The figures an evidence entry holds, each with the metric it measures: what RL201 compares quotes with and
RL202 backs them by.

From JSON (ours or another team's) every number, keyed by its path: `compress_mbps` 412.6 is a `compress`
figure in MB/s, `metrics.ttft_ms.p99` a p99 `ttft` in ms. A number inside a list (`runs`, sweep points) is a
repetition, not a headline. From markdown (a summary, a one-off `.md` entry) every figure with its unit and the
words before it ("compress: 438.0 MB/s"), or its table header ("| ours | 6831.71 |" under "output tok/s").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

from roadmap.analysis.evidence_series import SeriesFinder
from roadmap.analysis.figure_quotes import quotes_in
from roadmap.analysis.figures_compare import PLAIN_TEXT
from roadmap.analysis.metric_terms import Metric, key_metric, unit_named
from roadmap.config import Config
from roadmap.evidence.store import EvidenceStore
from roadmap.records.parser import parse_record

if TYPE_CHECKING:
    from roadmap.evidence.store import EvidenceEntry
    from roadmap.history.tree import Tree

MAX_TEXT = 256 * 1024  # a summary larger than this is not read for figures
_CONFIG = Config()  # evidence summaries are parsed with the default record conventions
_NO_SERIES = SeriesFinder(EvidenceStore("", []))  # a summary's figures are of its own entry's series


@dataclass(frozen=True)
class EvidenceFigure:
    key: str  # where it is: "compress_mbps", "metrics.ttft_ms.p99", "summary.md:7"
    value: float
    unit: str | None
    metric: Metric
    headline: bool  # False for repetitions, sweep points and bars the entry states
    text: str | None = None  # as written, for a figure read from markdown (its rounding); None from JSON


def figures_of(entry: "EvidenceEntry", tree: "Tree | None") -> list[EvidenceFigure]:
    out: list[EvidenceFigure] = []
    if entry.raw is not None:
        out.extend(_json(entry.raw, "", headline=True))
        if _peer_run(entry):  # a run of the peer alone: every figure of it is the peer's
            out = [
                EvidenceFigure(
                    f.key,
                    f.value,
                    f.unit,
                    Metric(f.metric.terms | {"peer"}, ("peer", *f.metric.words), f.metric.stat),
                    f.headline,
                    f.text,
                )
                for f in out
            ]
    if tree is not None:
        for f in entry.files:
            if f.endswith(".md"):
                data = tree.read_bytes(f)
                if data and len(data) <= MAX_TEXT:
                    out.extend(_markdown(f, data))
            elif f.endswith(PLAIN_TEXT):
                data = tree.read_bytes(f)
                if data and len(data) <= MAX_TEXT:
                    out.extend(_markdown(f, plain_as_markdown(data)))
    return out


# A tool's plain output (criterion's, a benchmark's log, figures_compare.PLAIN_TEXT): read like a summary, one
# paragraph a line.
_NUM = r"[-+]?\d+(?:\.\d+)?"
# An interval around an estimate, as criterion prints it: "[33.571 µs 33.788 µs 34.019 µs]" is 33.788 µs.
_INTERVAL = re.compile(rf"\[\s*{_NUM}\s*(\S+)\s+({_NUM}\s*\S+)\s+{_NUM}\s*\S+\s*\]")


def plain_as_markdown(data: bytes) -> bytes:
    """Plain text as markdown whose figures read as in the output: each line its own paragraph (a `#` comment
    line too, never a heading), an interval `[low estimate high]` its estimate."""
    lines = (ln.strip().lstrip("#").strip() for ln in data.decode("utf-8", "replace").splitlines())
    return "\n\n".join(_INTERVAL.sub(r"\2", ln) for ln in lines if ln).encode()


def _peer_run(entry: "EvidenceEntry") -> bool:
    subject = (entry.raw or {}).get("subject")
    return entry.declared is not None and isinstance(subject, dict) and subject.get("kind") == "peer"


_CONFIG_BLOCKS = frozenset({"machine", "model", "workload", "engine", "settings", "config", "corpus"})


def _json(obj: Any, path: str, headline: bool, unit_hint: str | None = None) -> Iterator[EvidenceFigure]:
    if isinstance(obj, bool) or obj is None:
        return
    if isinstance(obj, (int, float)):
        metric, unit = key_metric(path)
        yield EvidenceFigure(path, float(obj), unit or unit_hint, metric, headline)
    elif isinstance(obj, dict):
        hint = unit_named(obj.get("unit") or obj.get("units")) or unit_hint  # {"p99": 41.0, "unit": "ms"}
        for k, v in obj.items():
            inner = headline and str(k) not in _CONFIG_BLOCKS and str(k) != "runs"
            yield from _json(v, f"{path}.{k}" if path else str(k), inner, hint)
    elif isinstance(obj, list):
        keep = headline and all(isinstance(v, dict) for v in obj) and path.rsplit(".", 1)[-1] == "peers"
        for i, v in enumerate(obj):
            yield from _json(v, f"{path}[{i}]", keep, unit_hint)


def _markdown(path: str, data: bytes) -> Iterator[EvidenceFigure]:
    """A summary's figures, read the way record figures are (analysis/figure_quotes.py): a bar it states or a
    figure it calls old is not a headline."""
    rf = parse_record(path, data, _CONFIG)
    for q in quotes_in([rf], _NO_SERIES):
        yield EvidenceFigure(
            f"{path}:{q.st.line}", q.fig.value, q.unit, q.metric, q.role in ("current", "dated"), q.fig.text
        )

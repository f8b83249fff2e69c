"""An operation of a store named before a metric noun is part of the metric ("write amplification" is not "read
amplification", "p99 get latency" is not "p99 put latency"), though the same word as the verb right before a figure
names nothing ("vLLM gets 6100 tok/s", "the WAL writes 6.1 GB")."""

from __future__ import annotations

import pytest

from roadmap.analysis.figure_context import metric_after, metric_before
from roadmap.analysis.metric_terms import matches


def _before(text: str, figure: str):
    return metric_before(text, text.index(figure))


@pytest.mark.parametrize(
    "text, figure, words",
    [
        ("write amplification: 6.1x (current)", "6.1x", ("write", "amplification")),
        ("read amplification 3.0x", "3.0x", ("read", "amplification")),
        ("p99 get latency 240 µs", "240", ("get", "latency")),
        ("random writes throughput: 52 MB/s", "52", ("random", "writes", "throughput")),
        ("vLLM gets 6100 tok/s", "6100", ("vllm",)),  # the verb is no metric; whose figure it is stays
        ("the WAL writes 6.1 GB per hour", "6.1", ()),
        ("we write 2 GB", "2 GB", ()),
    ],
)
def test_metric_before(text, figure, words):
    assert _before(text, figure).words == words


def test_metric_after():
    text = "compaction ends at 4.3x write amplification"
    assert metric_after(text, text.index("4.3x") + 4).words == ("write", "amplification")
    text = "the bench gave 6.1x write, then stopped"
    assert metric_after(text, text.index("6.1x") + 4).words == ()  # no noun after it: a verb's object


def test_write_and_read_amplification_are_two_metrics():
    write = _before("write amplification: 6.1x", "6.1x")
    read = _before("read amplification: 6.1x", "6.1x")
    assert matches(write, read) == 0
    assert matches(write, _before("Write amplification 4.3x", "4.3x")) == 3

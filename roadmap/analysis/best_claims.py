"""A figure a record presents as the best so far ("Current best test-clean WER: 7.9%", "SOTA on our set: 81.2%"):
any later measurement of the same metric that beats it, wherever the records quote it (a dated log entry, another
series), supersedes the claim. Used by RL201 (analysis/supersession.py) as its `best` kind of newer figure.

Only a figure whose metric says which way is better counts: lower for times, sizes, errors and losses, higher for
rates, throughput and scores; "target 8.5 %" of an unknown metric is skipped. "Record" is not a claim word here:
in engineering records it names the document far more often than a best figure (seen on mudler/vllm.cpp).
"""

from __future__ import annotations

import re

from roadmap.analysis.figure_context import lower_is_better
from roadmap.analysis.figure_quotes import Quote
from roadmap.analysis.metric_terms import Metric, metric_of, words_of

_BEST = re.compile(
    r"\b(?:best|sota|state[- ]of[- ]the[- ]art)\b"
    r"(?![- ](?:effort|case|practice|guess|known way))",
    re.I,
)
_NOT_BEST = re.compile(r"\b(?:at best|best[- ](?:effort|case|practice))\b", re.I)
_CLAUSE = re.compile(r"[;.|]\s|\n")


def claimed_metric(q: Quote) -> Metric | None:
    """The metric a figure is called the best of: the words between the claim and the figure ("best top-1
    accuracy so far: 78.4%" -> top, accuracy, far), with the quote's own; None when the clause makes no claim."""
    left = _CLAUSE.split(q.st.text[max(0, q.fig.start - 80) : q.fig.start])[-1]
    claim = next(reversed(list(_BEST.finditer(left))), None)  # the claim nearest the figure
    if claim is None or _NOT_BEST.search(left):
        return None
    metric = metric_of([*words_of(left[claim.end() :]), *q.metric.words])
    return metric if metric.known else None


def same_measure(claimed: Metric, other: Metric, unit: str | None) -> bool:
    """The claim's metric and another figure's share two terms or more, among them one that says which way is
    better ("top-1 accuracy so far" and "mixup top-1 accuracy": top, accuracy)."""
    shared = claimed.terms & other.terms
    return len(shared) >= 2 and lower_is_better(unit, Metric(shared, tuple(sorted(shared)), other.stat)) is not None


_COMPOUND = re.compile(r"\b([a-z]+)-(\d+\w*)\b")


def _compounds(q: Quote) -> dict[str, str]:
    left = _CLAUSE.split(q.st.text[max(0, q.fig.start - 80) : q.fig.start])[-1].lower()
    return dict(_COMPOUND.findall(left))


def same_compounds(a: Quote, b: Quote) -> bool:
    """No word written with two different numbers before the two figures ("top-1" against "top-5")."""
    ca, cb = _compounds(a), _compounds(b)
    return all(cb[w] == n for w, n in ca.items() if w in cb)


def better(q: Quote, metric: Metric, other: Quote) -> bool | None:
    """Is `other` strictly better than `q` on `metric`? None when the metric has no known direction."""
    lower = lower_is_better(q.unit, metric)
    if lower is None:
        return None
    return other.fig.value < q.fig.value if lower else other.fig.value > q.fig.value

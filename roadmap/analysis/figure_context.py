"""The words around one figure in a sentence: which metric it names, and whether it is a bar to meet.

"compress: 438.0 MB/s" names `compress`; "Dictionary mode reaches ratio 5.02" names `ratio` (the words right
before the figure, back to a verb or a function word); "p95 first-partial 340 ms against its 300 ms budget"
quotes a p95 measurement (340 ms) and a bar it must stay under (300 ms).
"""

from __future__ import annotations

import re

from roadmap.analysis.metric_terms import (
    SIDES,
    STATS,
    SYMBOL_LETTER,
    Metric,
    metric_of,
    scale,
    symbol_metric,
    words_of,
)
from roadmap.analysis.terms import STOPWORDS

_CLAUSE = re.compile(r"[;|\n()\[\]]|[.,]\s|\s[—–]\s|\bvs\b|\bversus\b")
# Verbs that sit between a subject and its figure ("reaches 5.02", "hits 412 MB/s"): the metric is after them.
_VERBS = frozenset(
    """
reach reaches reached hit hits give gives gave show shows showed got gets went drop drops dropped rise rises rose
improve improves improved achieve achieves achieved deliver delivers delivered stay stays stayed sit sits is are
be became becomes land lands landed come comes came
""".split()
)
_MAX_WORDS = 3
# A bar the figure states rather than a measurement: an operator right before it, or a bar word in its clause.
# An arrow (`2.216 -> 7.650`, `=>`, `<-`) is not a comparison.
_MIN_OP = re.compile(r"(?:>=|≥|(?<![-=])>|\bat least|\babove|\bover|\bminimum(?: of)?|\bmin\.?)\s*$", re.I)
_MAX_OP = re.compile(r"(?:<=|≤|<(?!-)|\bat most|\bunder|\bbelow|\bwithin|\bmaximum(?: of)?|\bmax\.?|\bup to)\s*$", re.I)
_BAR_BEFORE = re.compile(
    r"\b(?:target|goal|gate|bar|threshold|budget|limit|cap|slo|sla|requirement|required|"
    r"must (?:be|reach|stay)|needs? to (?:be|reach|stay))\b[^0-9]{0,24}$",
    re.I,
)
_BAR_AFTER = re.compile(r"^\s*(?:[a-z/%]+\s+)?(?:target|goal|gate|bar|threshold|budget|limit|cap|slo|sla)\b", re.I)
_MAX_BAR = re.compile(r"\b(?:budget|limit|cap|under|below|at most|within)\b", re.I)
_LOWER_IS_BETTER = frozenset(
    {
        "wer",
        "cer",
        "error",
        "err",
        "loss",
        "miss",
        "latency",
        "ttft",
        "tpot",
        "itl",
        "rtf",
        "stall",
        "stalls",
        "overhead",
        "regression",
        "drop",
        "p99",
        "p95",
        "p90",
    }
)


# A symbol and an equals sign right before a figure, the symbol alone (no letter or digit touching it).
_SYMBOL_BEFORE = re.compile(rf"(?:^|(?<=[\s(]))({SYMBOL_LETTER}(?:_\{{?[A-Za-z0-9α-ω]{{1,6}}\}}?)?)\s*[=≈]\s*[~≈]?\s*$")


_TOKEN = re.compile(rf"{SYMBOL_LETTER}[\w-]*|\d[\w.]*|[=<>≤≥:]")  # a word (Greek too, not Δ or Σ), a number, a sign


def _clause_left(text: str, start: int) -> str:
    left = text[max(0, start - 100) : start]
    return _CLAUSE.split(left)[-1]


def metric_before(text: str, start: int) -> Metric:
    """The metric the words right before the figure at `start` name, within its clause (up to three words,
    back to a verb, a function word or another number)."""
    left = _clause_left(text, start)
    sym = _SYMBOL_BEFORE.search(left)
    if sym is not None and not left[: sym.start(1)].rstrip()[-1:].isdigit():
        # "κ = 1,37 W/(m·K)", "c_p = 0,71 J/(g·K)": the symbol names the quantity ("24.591 s = 5.205 t/s": a unit)
        named = symbol_metric(sym.group(1))
        if named is not None:
            return named
    picked: list[str] = []
    skipped = 0
    tokens = list(reversed(_TOKEN.findall(left)))
    for i, token in enumerate(tokens):
        if token[0].isdigit():
            break
        if token in "=<>≤≥:":
            continue
        parts = words_of(token)
        if not picked and skipped < 2 and parts and parts[0] in _COMPARATIVES:
            skipped += 1  # "p99 under its 35 ms": the metric is before the comparison
            continue
        if not parts or _filler(parts, modifies=bool(picked)):
            break
        picked[:0] = parts
        if len(picked) >= _MAX_WORDS:
            # a statistic just before a long metric name still qualifies it ("p99 regional failover time: 48 s")
            stat = next((w for t in tokens[i + 1 : i + 3] for w in words_of(t) if w in STATS), None)
            if stat is not None:
                picked[:0] = [stat]
            break
    if not picked:  # "upstream vLLM gets 6100 tok/s": whose figure it is, when nothing names the metric
        picked = [w for w in words_of(left) if w in SIDES][-1:]
    return metric_of(picked)


def metric_after(text: str, end: int) -> Metric:
    """The metric the words right after a figure name, when nothing before it does ("41.2 min wall", "11.8 GB peak
    RSS"): up to two words of the same clause, up to punctuation, a function word, a verb or another number."""
    right = re.match(r"[ \t]+([A-Za-z][\w-]*)(?:[ \t]+([A-Za-z][\w-]*))?", text[end : end + 40])
    if right is None:
        return metric_of([])
    picked: list[str] = []
    tokens = [words_of(t) for t in right.groups() if t]
    for i, parts in enumerate(tokens):
        noun_next = i + 1 < len(tokens) and bool(tokens[i + 1]) and not _filler(tokens[i + 1], modifies=False)
        if not parts or _filler(parts, modifies=noun_next) or any(p in _COMPARATIVES for p in parts):
            break
        picked += parts
    return metric_of(picked)


def _filler(parts: list[str], modifies: bool) -> bool:
    """Do the parts of a word hold a function word or a verb, which ends a metric's name? An operation is none
    where it `modifies` a metric noun next to it ("write amplification", "p99 get latency")."""
    return any(
        (p in STOPWORDS and p not in _KEEP or p in _VERBS) and not (modifies and p in _OPERATIONS) for p in parts
    )


_COMPARATIVES = frozenset(
    {
        "under",
        "below",
        "above",
        "over",
        "within",
        "its",
        "the",
        "a",
        "an",
        "of",
        "at",
        "least",
        "most",
        "than",
        "against",
        "to",
    }
)
# Words terms.STOPWORDS drops as directive filler that name a metric beside a figure.
_HIGHER_IS_BETTER = frozenset(
    {"throughput", "accuracy", "acc", "recall", "precision", "f1", "bleu", "score", "speedup", "mfu", "hit", "qps"}
)


def lower_is_better(unit: str | None, metric: Metric) -> bool | None:
    """Which way a metric improves: True for times, sizes, errors and losses, False for rates and scores, None when
    neither the unit nor the metric words say."""
    dim = scale(unit)[0]
    if dim in ("time", "bytes") or metric.terms & _LOWER_IS_BETTER or metric.stat in ("p90", "p95", "p99", "p999"):
        return True
    if (unit or "").endswith("/s") or metric.terms & _HIGHER_IS_BETTER:
        return False
    return None


_KEEP = frozenset({"min", "max", "mean", "median", "total", "size"})
# Operations of a store that terms.STOPWORDS and _VERBS drop as verbs ("write the doc", "vLLM gets 6100 tok/s"):
# before a metric noun they say which operation it measures, "write amplification" is not "read amplification"
# (read, put, scan, insert, flush and the like are no stop words: they are kept already).
_OPERATIONS = frozenset({"write", "writes", "get", "gets"})


def bar_of(text: str, start: int, end: int, unit: str | None, metric: Metric) -> str | None:
    """ "min" when the figure is a floor the measurement must reach (">= 450 MB/s", "gate 1.0x"), "max" when
    a ceiling ("<= 200 ms", "against its 300 ms budget"), None when it is not a bar. A bar word with no
    direction takes the direction of its metric: lower is better for times, errors and losses."""
    left = _clause_left(text, start)
    if _MIN_OP.search(left):
        return "min"
    if _MAX_OP.search(left):
        return "max"
    word_left = _BAR_BEFORE.search(left)
    word_right = _BAR_AFTER.match(text[end : end + 40])
    if not (word_left or word_right):
        return None
    said = (word_left.group(0) if word_left else "") + " " + (word_right.group(0) if word_right else "")
    if _MAX_BAR.search(said):
        return "max"
    dim = scale(unit)[0]
    if dim in ("time", "bytes") or metric.terms & _LOWER_IS_BETTER or metric.stat in ("p90", "p95", "p99", "p999"):
        return "max"
    if unit in ("%", None) and not metric.known:
        return None  # "target 8.5 %": an accuracy or an error rate? unknown
    return "min"

"""What a figure measures, as terms two texts can compare: "compress MB/s", `compress_mbps` and "compress
throughput" are one metric; "real-time factor" and `rtf` are one metric; `decompress_mbps` is another.

A metric is its *terms* (the distinctive words, lower case, without the words a unit already says), its
*stat* (p50/p90/p95/p99/mean/min/max; median and p50 are one, and a figure that names none is the headline,
i.e. the median), and its *unit* (roadmap/records/figures.py normalises units; `scale` converts within one
dimension, so 1.2 GB/s and 1200 MB/s compare).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from roadmap.analysis.terms import normalise

# unit -> (dimension, factor to the dimension's base unit)
_SCALE: dict[str, tuple[str, float]] = {
    "us": ("time", 1e-6),
    "ms": ("time", 1e-3),
    "s": ("time", 1.0),
    "min": ("time", 60.0),
    "KB": ("bytes", 1e3),
    "MB": ("bytes", 1e6),
    "GB": ("bytes", 1e9),
    "KiB": ("bytes", 2.0**10),
    "MiB": ("bytes", 2.0**20),
    "GiB": ("bytes", 2.0**30),
    "KB/s": ("bytes/s", 1e3),
    "MB/s": ("bytes/s", 1e6),
    "GB/s": ("bytes/s", 1e9),
    "TB/s": ("bytes/s", 1e12),
    "MiB/s": ("bytes/s", 2.0**20),
    "GiB/s": ("bytes/s", 2.0**30),
}
# Words of a JSON key or a header that name a unit: `compress_mbps`, `p95_first_partial_ms`, `wer_pct`.
KEY_UNITS = {
    "ms": "ms",
    "us": "us",
    "s": "s",
    "sec": "s",
    "secs": "s",
    "seconds": "s",
    "mbps": "MB/s",
    "gbps": "GB/s",
    "mibps": "MiB/s",
    "gibps": "GiB/s",
    "pct": "%",
    "percent": "%",
    "gib": "GiB",
    "gb": "GB",
    "mib": "MiB",
    "mb": "MB",
    "kb": "KB",
    "kib": "KiB",
    "qps": "q/s",
    "tflops": "TFLOP/s",
}
# "<thing> per s" in a key: tok_per_s, requests_per_s, mb_per_s
_PER_S = {
    "tok": "tok/s",
    "tokens": "tok/s",
    "token": "tok/s",
    "req": "req/s",
    "requests": "req/s",
    "request": "req/s",
    "mb": "MB/s",
    "gb": "GB/s",
    "mib": "MiB/s",
    "gib": "GiB/s",
    "q": "q/s",
    "queries": "q/s",
}
_UNIT_WORDS = {
    **KEY_UNITS,
    **{
        u.lower(): u
        for u in (
            "MB/s",
            "GB/s",
            "MiB/s",
            "GiB/s",
            "KB/s",
            "tok/s",
            "req/s",
            "q/s",
            "us",
            "ms",
            "s",
            "%",
            "x",
            "GiB",
            "MiB",
            "GB",
            "MB",
        )
    },
    "tokens/s": "tok/s",
    "tok/sec": "tok/s",
    "requests/s": "req/s",
    "seconds": "s",
    "sec": "s",
    "µs": "us",
    "percent": "%",
}
STATS = {
    "p50": "p50",
    "median": "p50",
    "p90": "p90",
    "p95": "p95",
    "p99": "p99",
    "p999": "p999",
    "mean": "mean",
    "avg": "mean",
    "average": "mean",
    "min": "min",
    "max": "max",
}
# Words a unit or the sentence already carries, or that every metric has: never what tells two metrics apart.
_GENERIC = (
    frozenset(
        """
latency time throughput speed rate value values result results current figure figures metric metrics number
numbers measured measure measurement score total overall is are was of the a an at on in for with by to and or
per vs versus ours our run runs repetitions repetition headline new now today latest
target goal gate bar threshold budget limit cap slo sla required requirement interim against its
""".split()
    )
    | frozenset(KEY_UNITS)
    | {"tok", "tokens", "token", "req", "requests"}
)
# Greek letters are words too: a quantity's symbol (κ, λ, ρ, η) names what a figure measures.
_WORD = re.compile(r"[a-zα-ω][a-z0-9α-ω]*|[0-9]+[a-z][a-z0-9]*")
# camelCase splits into its words; one lower-case letter before capitals is a prefix of the abbreviation (nDCG, mAP)
_SPLIT_CAMEL = re.compile(r"(?<=[a-z])(?<!\b[a-z])(?=[A-Z])|(?<=\b[a-z])(?=[A-Z][a-z])")


@dataclass(frozen=True)
class Metric:
    terms: frozenset[str]  # distinctive words: {"compress"}, {"first", "partial"}
    words: tuple[str, ...] = ()  # every word in order, for abbreviations: ("real", "time", "factor")
    stat: str | None = None  # "p95", "mean", ...; None: the headline (median)

    @property
    def known(self) -> bool:
        return bool(self.terms)


NO_METRIC = Metric(frozenset())


def words_of(text: str) -> list[str]:
    """Lower-case words of a phrase or a key: `p95_first_partial_ms` -> p95, first, partial, ms. A difference or a
    sum sign (`ΔTTFT`, `Σ`) is none: it says what is done with the metric after it."""
    if "Δ" in text or "Σ" in text:
        text = text.replace("Δ", " ").replace("Σ", " ")
    return _WORD.findall(_SPLIT_CAMEL.sub(" ", text).lower().replace("_", " "))


# Whose figure it is, when not ours: a figure of one side never matches a figure of another.
SIDES = frozenset({"peer", "upstream", "vllm", "sglang", "tgi", "llama", "baseline", "reference", "competitor"})
# Short forms teams write in keys and headers: `gpu_mem`, "tput".
_SYNONYMS = {
    "mem": "memory",
    "tput": "throughput",
    "thpt": "throughput",
    "lat": "latency",
    "err": "error",
    "errors": "error",
    "acc": "accuracy",
    "ppl": "perplexity",
}


def long_form(word: str) -> str:
    """The word a short form in a key or header stands for (`ppl` -> perplexity), else the word."""
    return _SYNONYMS.get(word, word)


def metric_of(words: Iterable[str]) -> Metric:
    ws = [_SYNONYMS.get(w, w) for w in words if not w.isdigit()]
    stat = next((STATS[w] for w in ws if w in STATS), None)
    terms = frozenset(normalise(w) for w in ws if w not in _GENERIC and w not in STATS)
    return Metric(terms, tuple(w for w in ws if w not in STATS), None if stat == "p50" else stat)


# A quantity's symbol: one Latin or Greek letter, with a subscript (`c_p`, `T_{g}`); not Δ (a difference) or Σ (a
# sum).
SYMBOL_LETTER = "[A-Za-zΑ-ΓΕ-ΡΤ-Ωα-ω]"
_SYMBOL = re.compile(rf"({SYMBOL_LETTER})(?:_\{{?([A-Za-z0-9α-ω]{{1,6}})\}}?)?")


def symbol_metric(text: str) -> Metric | None:
    """The quantity a symbol names, when `text` is one (`κ`, `T`, `c_p`, as in `κ = 1,37 W/(m·K)` or a `κ [W/(m·K)]`
    header): its own term, whatever word the letter also is ("a" is an article and thermal diffusivity's symbol).
    None for anything else."""
    m = _SYMBOL.fullmatch(text.strip())
    if m is None:
        return None
    term = m.group(1).lower() + (f"_{m.group(2).lower()}" if m.group(2) else "")
    return Metric(frozenset({term}), (term,), None)


def without(metric: Metric, words: frozenset[str] | set[str]) -> Metric:
    """`metric` less the words of a series ("broker-publish" in "p99 publish latency"): a series is not a metric."""
    words = set(words) - SIDES  # `peer-4b` names the peer's series; "peer" still says whose figure
    if not words or not metric.terms & words:
        return metric
    return Metric(metric.terms - words, tuple(w for w in metric.words if w not in words), metric.stat)


# Words of a key that name a wall-clock duration: after them `min` is minutes (`wall_min`), not a minimum.
_CLOCK = frozenset({"wall", "walltime", "runtime", "elapsed", "duration", "wallclock"})


def key_metric(path: str) -> tuple[Metric, str | None]:
    """(metric, unit) of a JSON number's key path: `metrics.ttft_ms.p99` -> ({ttft}, p99), "ms"."""
    ws = [w for w in words_of(path) if w not in ("metrics", "metric", "results", "result", "summary")]
    unit = None
    for i in range(1, len(ws) - 1):
        if ws[i] == "per" and ws[i + 1] in ("s", "sec", "second") and ws[i - 1] in _PER_S:
            unit = _PER_S[ws[i - 1]]
            ws = ws[: i - 1] + ws[i + 2 :]
            break
    if unit is None and len(ws) >= 2 and ws[-1] == "s" and ws[-2] in _PER_S:
        unit = _PER_S[ws[-2]]  # tok_s, req_s, mb_s: per second
        ws = ws[:-2]
    if unit is None and len(ws) >= 2 and ws[-1] in ("min", "mins", "minutes", "h", "hours") and ws[-2] in _CLOCK:
        # `wall_min`, `runtime_hours`: a wall-clock duration in minutes or hours, not the minimum of a metric
        unit = "min" if ws[-1].startswith("min") else "h"
        ws = ws[:-1]
    if unit is None:
        for i in range(len(ws) - 1, -1, -1):
            if ws[i] in KEY_UNITS:
                unit = KEY_UNITS[ws[i]]
                del ws[i]
                break
    return metric_of(ws), unit


def unit_named(value: object) -> str | None:
    """The unit a JSON `"unit"` field names ("ms", "MB/s", "tokens/s"), normalised; None for anything else."""
    if not isinstance(value, str) or len(value) > 16:
        return None
    return _UNIT_WORDS.get(value.strip().lower())


def scale(unit: str | None) -> tuple[str | None, float]:
    """(dimension, factor): units of one dimension convert; any other unit is its own dimension."""
    if unit is None:
        return None, 1.0
    return _SCALE.get(unit, (unit, 1.0))


def same_dimension(a: str | None, b: str | None) -> bool:
    return scale(a)[0] == scale(b)[0]


def initials(words: tuple[str, ...]) -> str:
    return "".join(w[0] for w in words if w not in ("of", "the", "and"))


def matches(a: Metric, b: Metric) -> int:
    """How well two metrics agree: 3 the same terms, 2 one is the other's abbreviation (`rtf`, "real-time
    factor"), 1 one's terms are a part of the other's ("WER, test-clean" and `wer_pct`), 0 different. Stats
    must agree (no stat is the median), and sides (a peer's, upstream's figure) too."""
    if a.stat != b.stat or not (a.known and b.known) or a.terms & SIDES != b.terms & SIDES:
        return 0  # the peer's throughput is not ours
    if a.terms == b.terms:
        return 3
    for short, long_ in ((a, b), (b, a)):
        if len(short.terms) == 1 and len(long_.words) >= 2:
            (term,) = short.terms
            if len(term) >= 2 and initials(long_.words) == term:
                return 2
    if a.terms < b.terms or b.terms < a.terms:
        return 1
    return 0

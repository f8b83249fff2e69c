"""Figures a statement quotes: value + normalised unit + the metric words written near it.

`6831.71 vs 6643.40 tok/s` gives two tok/s figures (a `/`- or `vs`-chain shares its unit); a table cell
inherits unit and metric from its header (`Throughput (tok/s)` over `6831.71`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

from roadmap.records.model import Figure

_UNITS = {  # as written (lower-cased) -> normalised
    "tok/s": "tok/s",
    "toks/s": "tok/s",
    "token/s": "tok/s",
    "tokens/s": "tok/s",
    "tokens/sec": "tok/s",
    "tok/sec": "tok/s",
    "req/s": "req/s",
    "reqs/s": "req/s",
    "request/s": "req/s",
    "requests/s": "req/s",
    "tflop/s": "TFLOP/s",
    "tflops": "TFLOP/s",
    "gb/s": "GB/s",
    "gib/s": "GiB/s",
    "tb/s": "TB/s",
    "ms/call": "ms/call",
    "ms/token": "ms/token",
    "ms/tok": "ms/token",
    "ms/step": "ms/step",
    "ms": "ms",
    "us": "us",
    "µs": "us",
    "s": "s",
    "sec": "s",
    "secs": "s",
    "seconds": "s",
    "min": "min",
    "gib": "GiB",
    "gb": "GB",
    "mib": "MiB",
    "mb": "MB",
    "%": "%",
    "x": "x",
    "×": "x",
    "mb/s": "MB/s",
    "mib/s": "MiB/s",
    "kb/s": "KB/s",
    "kb": "KB",
    "kib": "KiB",
    "qps": "q/s",
}
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?")  # digit-led candidates: a cheap scan; sign and context are checked after
_STRICT = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\d.]\d)")  # no "1.2.3" versions, no "12,5"
# Matched only where a number ended (one position, not a scan), so the long alternation stays cheap.
_UNIT_RE = re.compile(rf"(\s?)({_UNIT_ALT})(?![A-Za-z0-9/µ])", re.IGNORECASE)
# Any other rate a team measures: "img/s", "rows/sec", "fps", "ops/s" (one word per second).
_RATE_RE = re.compile(r"\s?([A-Za-z]{1,12}/s(?:ec)?|fps)(?![A-Za-z0-9/])", re.IGNORECASE)
_RATE_ALIASES = {"img": "image", "imgs": "image", "sample": "sample", "smp": "sample", "row": "row", "op": "op"}
_CHAIN_GAP = re.compile(r"^\s*(?:/|vs\.?|versus|->|→|to)\s*$", re.IGNORECASE)
_BASES = {
    "throughput": "throughput",
    "ttft": "ttft",
    "tpot": "tpot",
    "itl": "itl",
    "latency": "latency",
    "vram": "vram",
    "memory": "vram",
    "speedup": "speedup",
    "ratio": "ratio",
    "e2e": "latency",
    # quality and efficiency figures teams quote without a unit ("real-time factor 0.231", "recall 0.947")
    "factor": "factor",
    "rtf": "rtf",
    "wer": "wer",
    "cer": "cer",
    "recall": "recall",
    "accuracy": "accuracy",
    "precision": "precision",
    "mfu": "mfu",
}
_QUALS = {"output", "total", "prefill", "decode", "peak", "input"}
_PCTS = {"p50", "p90", "p95", "p99", "median", "mean", "min", "max"}
# Run on lower-cased text: a case-insensitive alternation is several times slower in `re`.
# Each word's leading `\b` is written as a lookbehind after its first letter: the alternation then opens with
# literals, so `re` skips to their first letters in C instead of trying every position.
_METRIC_WORD = re.compile(
    "("
    + "|".join(f"{w[0]}(?<!\\w{w[0]}){w[1:]}" for w in sorted({*_BASES, *_QUALS, *_PCTS}, key=len, reverse=True))
    + r")\b"
)
_DIGIT = re.compile(r"\d")
_CLAUSE_END = re.compile(r"[;|\n]|\.\s")
_WORDISH = frozenset("._")
_SIGNS = "+-−"


# A magnitude letter between a number and its unit: "41.2k commits/s", "1.9M ops/s", "12K tok/s". Taken only when
# a unit follows, so "4k BPE" stays a count and "3M" a bare token.
_MAGNITUDE = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}


class _Num:
    __slots__ = ("start", "end", "sign", "num", "frac", "written", "unit", "scale")

    def __init__(
        self, start: int, end: int, sign: str, num: str, frac: str, written: str, unit: str | None, scale: float = 1.0
    ):
        self.start, self.end, self.sign, self.num, self.frac = start, end, sign, num, frac
        self.written, self.unit, self.scale = written, unit, scale

    @property
    def value(self) -> float:
        v = float(self.num.replace(",", "") + self.frac) * self.scale
        return -v if self.sign in ("-", "−") else v


# A decimal comma ("47,5 min", "3,1 h": most of Europe and Latin America writes decimals so): one or two digits
# after the comma, and a unit after them. "1,000" (three digits) stays a thousands separator.
_DECIMAL_COMMA = re.compile(r",(\d{1,2})(?![\d,])")


def _numbers(text: str) -> list[_Num]:
    out: list[_Num] = []
    covered = 0  # where the last number read ended: "47,5 min" is one number, not 47 and "5 min"
    for cand in _DIGITS.finditer(text):
        s = cand.start()
        if s < covered:
            continue
        before = text[s - 1] if s else ""
        if before.isalnum() or before in _WORDISH:
            continue  # inside a word or a version: H200, p50, v1.2
        m = _STRICT.match(text, s)
        if m is None:
            continue
        dc = _DECIMAL_COMMA.match(text, m.end()) if m.group(2) is None and "," not in m.group(1) else None
        if dc is not None and _unit_at(text, dc.end())[0] is not None:
            unit, unit_end = _unit_at(text, dc.end())
            out.append(_Num(s, unit_end, "", m.group(1), "." + dc.group(1), text[s:unit_end], unit))
            covered = unit_end
            continue
        sign = ""
        if before and before in _SIGNS and (s < 2 or not (text[s - 2].isalnum() or text[s - 2] in _WORDISH)):
            sign = before
        start = s - len(sign)
        end = m.end()
        scale = 1.0
        unit, unit_end = _unit_at(text, end)
        if unit is None and end < len(text) and text[end] in _MAGNITUDE:
            unit, unit_end = _unit_at(text, end + 1)
            if unit is None or unit in ("x", "%"):
                unit, unit_end = None, end
            else:
                scale = _MAGNITUDE[text[end]]
        end = unit_end
        out.append(_Num(start, end, sign, m.group(1), m.group(2) or "", text[start:end], unit, scale))
    return out


def _unit_at(text: str, pos: int) -> tuple[str | None, int]:
    """The unit written at `pos` (right after a number) and where it ends; (None, pos) when there is none."""
    # Every unit and rate opens with a letter, `%` or `×`, at `pos` or after one space: most numbers are
    # followed by something else (punctuation, a digit), and need neither regex.
    first = text[pos : pos + 1]
    if first.isspace():
        first = text[pos + 1 : pos + 2]
    if not (first.isalpha() or first == "%" or first == "×"):
        return None, pos
    um = _UNIT_RE.match(text, pos)
    if um and not (um.group(2).lower() == "x" and um.group(1)):  # "2 x 3" is a product; ratios are "1.0283x"
        # lower() turns the micro sign (U+00B5) into the Greek mu (U+03BC): both spell micro
        unit = _UNITS.get(um.group(2).lower().replace("\u03bc", "\u00b5"))
        if unit is not None:
            return unit, um.end()
    rate = _RATE_RE.match(text, pos)
    if rate is not None:
        return rate_unit(rate.group(1)), rate.end()
    return None, pos


def rate_unit(written: str) -> str:
    """`Images/sec` -> "image/s", `fps` -> "frame/s": one spelling per rate, singular, per second."""
    low = written.lower()
    if low == "fps":
        return "frame/s"
    word = low.split("/", 1)[0]
    if word.endswith("s") and len(word) > 3 and not word.endswith("ss"):
        word = word[:-1]
    return f"{_RATE_ALIASES.get(word, word)}/s"


def metric_of(window: str) -> str | None:
    """Normalised metric words in `window`: "output throughput", "ttft p50", "vram", or None."""
    return _metric([m.group(1) for m in _METRIC_WORD.finditer(window.lower())])


def _metric(words: list[str]) -> str | None:
    base = qual = pct = None
    for w in words:
        if w in _BASES:
            base = _BASES[w]
        elif w in _QUALS:
            qual = w
        else:
            pct = w
    if base is None:
        return pct
    return " ".join(p for p in (qual, base, pct) if p)


def _words_between(words: list[tuple[int, int, str]], starts: list[int], lo: int, hi: int) -> list[str]:
    """The words lying within [lo, hi]. `words` are whole words in text order, none overlapping, so their ends
    rise with their starts: those inside are a run from the first starting at `lo` on (found by bisection)."""
    out = []
    for k in range(bisect_left(starts, lo), len(words)):
        s, e, w = words[k]
        if e > hi:
            break
        out.append(w)
    return out


def header_unit(header: str) -> str | None:
    if "(" in header:
        inner = header.rsplit("(", 1)[1].split(")", 1)[0].strip()
        m = _UNIT_RE.fullmatch(inner)
        if m:
            return _UNITS[m.group(2).lower()]
    for word in re.findall(r"[\w/%µ×]+", header.lower()):
        if word in _UNITS and (len(word) > 1 or word == "%"):
            return _UNITS[word]
        if _RATE_RE.fullmatch(word):
            return rate_unit(word)
    return None


def is_figure(text: str) -> bool:
    """True when `text` is exactly one number with an optional unit (`256`, `1.0283x`, `-2.5%`)."""
    nums = _numbers(text)
    return len(nums) == 1 and nums[0].start == 0 and nums[0].end == len(text)


def single_figure(text: str) -> Figure | None:
    """The figure `text` consists of, surrounding spaces aside (`1510`, `212 ms`, `0.142`), unit None when it
    is written without one; None when the text is anything else. A table cell that is one number is a figure
    of its column."""
    stripped = text.strip()
    nums = _numbers(stripped)
    if len(nums) != 1 or nums[0].start != 0 or nums[0].end != len(stripped):
        return None
    n = nums[0]
    return Figure(
        value=n.value,
        text=n.written,
        unit=n.unit,
        metric=None,
        start=len(text) - len(text.lstrip()),
    )


@lru_cache(maxsize=256)
def _header_unit(header: str) -> str | None:  # a table's every cell asks for its column's: once per header
    return header_unit(header)


@lru_cache(maxsize=256)
def _header_metric(header: str) -> str | None:
    return metric_of(header)


def find_figures(text: str, header: str | None = None) -> list[Figure]:
    """Figures in `text` (already masked of dates, shas, ids and paths by the caller)."""
    if _DIGIT.search(text) is None:
        return []
    raw = _numbers(text)
    if not raw:
        return []
    # A `/`- or `vs`-chain shares the unit of its last member: "6831.71 vs 6643.40 tok/s".
    chained = [
        i > 0 and _CHAIN_GAP.match(text[raw[i - 1].end : raw[i].start] or "x") is not None for i in range(len(raw))
    ]
    for i in range(len(raw) - 2, -1, -1):
        if raw[i].unit is None and raw[i + 1].unit is not None and chained[i + 1]:
            raw[i].unit = raw[i + 1].unit
    h_unit = _header_unit(header) if header else None
    whole = text.strip()
    if not any(n.unit is not None or n.frac or (h_unit and whole == n.written) for n in raw):
        return []  # unitless integers only ("stage 14", "497 calls"): counts, whatever metric words surround them
    h_metric = _header_metric(header) if header else None
    words = [(m.start(), m.end(), m.group(1)) for m in _METRIC_WORD.finditer(text.lower())]
    starts = [s for s, _, _ in words]
    out: list[Figure] = []
    prev_end = 0
    chain_metric: str | None = None
    for i, n in enumerate(raw):
        metric = None
        if words:
            lo = max(prev_end, n.start - 60)
            for cut in _CLAUSE_END.finditer(text, lo, n.start):
                lo = cut.end()
            metric = _metric(_words_between(words, starts, lo, n.start))
        if metric is None and chained[i]:
            metric = chain_metric
        if metric is None and words:
            hi = min(raw[i + 1].start if i + 1 < len(raw) else len(text), n.end + 30)
            cut_a = _CLAUSE_END.search(text, n.end, hi)
            metric = _metric(_words_between(words, starts, n.end, cut_a.start() if cut_a else hi))
        metric = metric or h_metric
        unit = n.unit
        if unit is None and h_unit and (n.frac or whole == n.written):
            unit = h_unit
        prev_end = n.end
        chain_metric = metric
        # Unitless integers are counts and ordinals ("item 14", "497 calls"); unitless decimals count when a
        # metric is named, e.g. "throughput 5769.99/5660.70".
        if unit is None and not (n.frac and metric):
            continue
        out.append(Figure(value=n.value, text=n.written, unit=unit, metric=metric, start=n.start))
    return out

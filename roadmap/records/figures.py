"""Figures a statement quotes: value + normalised unit + the metric words written near it.

`6831.71 vs 6643.40 tok/s` gives two tok/s figures (a `/`- or `vs`-chain shares its unit); a table cell
inherits unit and metric from its header (`Throughput (tok/s)` over `6831.71`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

from roadmap.records.language import language
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
_PRODUCT = re.compile(r"\s+\d")


def _product(text: str, um: re.Match[str]) -> bool:
    """Is the `×` just read a product sign, spaced on both sides before a number ("3 × 5 shots")? A ratio is
    written against its number ("1.31x 0.6B") or with nothing after it ("0.98 × faster"); a spaced `x` is never
    one, and a letter or digit right after the sign is no unit (`_UNIT_RE`)."""
    return bool(um.group(1)) and um.group(2) == "×" and _PRODUCT.match(text, um.end()) is not None


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
# after the comma, read as decimals where the figure says it is one: a unit follows, or the caller knows (a column
# with a unit, a file that writes its decimals so: `comma`). "1,000" (three digits) stays a thousands separator, and
# "1,2,3" an enumeration, "27,37-45" a list of ranges.
_DECIMAL_COMMA = re.compile(r",(\d{1,2})(?!\d|,\d|\s?[-–]\d)")


# What says a whole file writes its decimals with a comma: its language, and its numbers. A decimal comma is a
# number with one or two digits after its comma ("0,88", "2,05"), a decimal point one with digits after a point
# that is neither a version ("1.2.3") nor a date ("14.02.2026"); dates, times and enumerations ("1,2,3") count as
# neither.
_COMMA_NUMBER = re.compile(r"(?<![\d.,])\d+,\d{1,2}(?![\d,.]\d|\d)")
_POINT_NUMBER = re.compile(r"(?<![\d.,])\d+\.\d+(?![\d,.]\d|\d)")
_WORD_RE = re.compile(r"[^\W\d_]+")
# French function words (records/language.py tells English, Spanish/Portuguese and German apart; French writes
# decimal commas too).
_FRENCH = frozenset("le les des du est et une pour avec dans sur pas qui au aux sont été cette ces".split())
_ENGLISH_MARKERS = frozenset("the of to and is for with on in this that it be are was were from by not".split())


def decimal_comma(text: str) -> bool:
    """Does this file write its decimals with a comma? A language that does (German, Spanish, Portuguese, French),
    and at least two numbers written so, more than with a decimal point. Then a figure's decimal comma needs no
    unit after it: `| B | 0,95 |` under a Recall header is 0.95. An English file never: there "1,420" is a
    thousands separator, and "1,5" without a unit no figure."""
    commas = len(_COMMA_NUMBER.findall(text))
    if commas < 2 or commas <= len(_POINT_NUMBER.findall(text)):
        return False
    words = [w.lower() for w in _WORD_RE.findall(text[:20000])]
    if language(words) != "en":
        return True
    french = sum(1 for w in words if w in _FRENCH)
    return french >= 2 and french > sum(1 for w in words if w in _ENGLISH_MARKERS)


def _in_list(text: str, s: int) -> bool:
    """Is the number at `s` a later member of a list of numbers ("lines 50,60,76", where a path masked the
    first): right after a comma?"""
    return s > 0 and text[s - 1] == ","


def _numbers(text: str, comma: bool = False) -> list[_Num]:
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
        num, frac, end = m.group(1), m.group(2) or "", m.end()
        if not frac and "," not in num and not _in_list(text, s):
            dc = _DECIMAL_COMMA.match(text, end)
            if dc is not None and (comma or _unit_at(text, dc.end())[0] is not None):
                frac, end = "." + dc.group(1), dc.end()
        sign = ""
        if before and before in _SIGNS and (s < 2 or not (text[s - 2].isalnum() or text[s - 2] in _WORDISH)):
            sign = before
        start = s - len(sign)
        scale = 1.0
        unit, unit_end = _unit_at(text, end)
        if unit is None and end < len(text) and text[end] in _MAGNITUDE:
            unit, unit_end = _unit_at(text, end + 1)
            if unit is None or unit in ("x", "%"):
                unit, unit_end = None, end
            else:
                scale = _MAGNITUDE[text[end]]
        end = unit_end
        covered = end
        out.append(_Num(start, end, sign, num, frac, text[start:end], unit, scale))
    return out


# A composite SI-style unit: symbols (with a prefix) joined by `/` and `·` (or `*`, `⋅`), a denominator in
# parentheses, exponents as `^2`, `^-1` or superscripts: `W/(m·K)`, `m/s²`, `J/(kg·K)`, `kg·m^-3`, `mm²/s`. An
# operator or an exponent makes it one; a lone symbol ("300 K", "5 m") is not read as a unit.
_SI_SYMBOLS = ("mol cd Hz Pa Wb lm lx Bq Gy Sv eV Wh bar rad sr min m g s A K N J W C V F Ω S T H L l h °C").split()
_SI_PREFIX = "[yzafpnµμumcdkMGTPE]"
_SI_ATOM = (
    "(?:"
    + "|".join(
        f"{_SI_PREFIX}?{re.escape(u)}" if u not in ("min", "h", "°C", "eV", "bar") else re.escape(u)
        for u in sorted(_SI_SYMBOLS, key=len, reverse=True)
    )
    + ")"
)
_SI_EXP = r"(?:\^\{?[-−]?\d\}?|[⁻]?[¹²³⁴⁵⁶⁷⁸⁹])"
_SI_FACTOR = rf"{_SI_ATOM}{_SI_EXP}?"
_SI_MUL = r"[·⋅*•]"
_SI_TERM = rf"{_SI_FACTOR}(?:{_SI_MUL}{_SI_FACTOR})*"
_COMPOSITE_RE = re.compile(rf"(\s?)({_SI_TERM}(?:/(?:\({_SI_TERM}\)|{_SI_TERM}))?)(?![\w/+#(^¹²³⁴⁵⁶⁷⁸⁹⁻])")
# Two capitals split by a slash name other things in the records teams keep more often than a unit: key/value
# ("8 K/V heads"), "N/A", "H/W", "S/W", "T/F". A unit of two bare symbols is not read (`W/K`; `W/(m·K)` is).
_LETTER_PAIR = re.compile(r"[A-Z]/[A-Z]")
_OPERATOR = re.compile(rf"{_SI_MUL}|\^|[¹²³⁴⁵⁶⁷⁸⁹]")
_SUPERSCRIPT = str.maketrans("0123456789-−", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁻")


def _composite_at(text: str, pos: int) -> tuple[str | None, int]:
    """The composite unit written at `pos` (`W/(m·K)`), normalised (`·` for every product sign, exponents as
    superscripts, `u` and `μ` as `µ`), and where it ends; (None, pos) for anything else."""
    m = _COMPOSITE_RE.match(text, pos)
    if m is None:
        return None, pos
    written = m.group(2)
    if not ("/" in written or _OPERATOR.search(written)) or _LETTER_PAIR.fullmatch(written):
        return None, pos
    return normalise_unit(written), m.end()


def normalise_unit(written: str) -> str:
    """One spelling of a composite unit: `W/(m*K)` and `W/(m⋅K)` are `W/(m·K)`; `m/s^2` is `m/s²`."""
    out = re.sub(r"[⋅*•]", "·", written)
    out = re.sub(r"\^\{?([-−]?\d)\}?", lambda e: e.group(1).translate(_SUPERSCRIPT), out)
    out = re.sub(r"(?<![A-Za-z])[uμ](?=[A-Za-zΩ°])", "µ", out)
    return out


def _unit_at(text: str, pos: int) -> tuple[str | None, int]:
    """The unit written at `pos` (right after a number) and where it ends; (None, pos) when there is none."""
    # Every unit and rate opens with a letter, `%` or `×`, at `pos` or after one space: most numbers are
    # followed by something else (punctuation, a digit), and need neither regex.
    first = text[pos : pos + 1]
    if first.isspace():
        first = text[pos + 1 : pos + 2]
    if not (first.isalpha() or first == "%" or first == "×" or first == "°"):
        return None, pos
    um = _UNIT_RE.match(text, pos)
    if um and not (um.group(2).lower() == "x" and um.group(1)) and not _product(text, um):
        # "2 x 3", "3 × 5 shots", "3×5" are products; ratios are "1.0283x", "0.98 ×", "1.31x 0.6B"
        # lower() turns the micro sign (U+00B5) into the Greek mu (U+03BC): both spell micro
        unit = _UNITS.get(um.group(2).lower().replace("\u03bc", "\u00b5"))
        if unit is not None:
            return unit, um.end()
    rate = _RATE_RE.match(text, pos)
    composite, composite_end = _composite_at(text, pos)
    if composite is not None and (rate is None or composite_end > rate.end()):
        return composite, composite_end  # "m/s²" is more than the rate "m/s"
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
    """The unit a column header gives its cells: in brackets or parentheses (`κ [W/(m·K)]`, `Latency (ms)`),
    after "in" (`Throughput in tok/s`), else a unit word of it (`p99 ms`)."""
    for start, _, inner in unit_groups(header):
        if inner in ("s", "es") and start and header[start - 1].isalpha():
            continue  # "Line(s)", "Match(es)": a plural, not seconds
        unit = unit_of(inner)
        if unit is not None:
            return unit
    for word in re.findall(r"[\w/%µ×]+", header.lower()):
        if word in _UNITS and (len(word) > 1 or word == "%"):
            return _UNITS[word]
        if _RATE_RE.fullmatch(word):
            return rate_unit(word)
    return None


_IN_UNIT = re.compile(r"\s(?:in|en|em)\s+(\S+)\s*$")


def unit_groups(header: str) -> list[tuple[int, int, str]]:
    """Where a header may write its unit, last first: each outermost `[...]` or `(...)` group (a group may nest:
    `(W/(m·K))`) as (start, end, content), and the word after a closing "in"."""
    out: list[tuple[int, int, str]] = []
    if "(" in header or "[" in header:
        depth, start, opener = 0, -1, ""
        for k, ch in enumerate(header):
            if depth == 0 and ch in "([":
                depth, start, opener = 1, k, ch
            elif depth and ch == opener:
                depth += 1
            elif depth and ch == {"(": ")", "[": "]"}[opener]:
                depth -= 1
                if depth == 0:
                    out.append((start, k + 1, header[start + 1 : k].strip()))
    m = _IN_UNIT.search(header)
    if m is not None:
        out.append((m.start(), m.end(), m.group(1)))
    out.sort(key=lambda g: -g[0])
    return out


def unit_of(written: str) -> str | None:
    """The unit `written` is, whole (`ms`, `tok/s`, `W/(m·K)`), normalised; None for anything else."""
    m = _UNIT_RE.fullmatch(written)
    if m:
        return _UNITS[m.group(2).lower().replace("\u03bc", "\u00b5")]
    if _RATE_RE.fullmatch(written):
        return rate_unit(written.strip())
    unit, end = _composite_at(written, 0)
    return unit if unit is not None and end == len(written) else None


def strip_unit(header: str) -> str:
    """The header without the unit it gives its cells: `κ [W/(m·K)]` -> `κ`, `Latency (ms)` -> `Latency`."""
    for start, end, inner in unit_groups(header):
        if unit_of(inner) is not None:
            return (header[:start] + " " + header[end:]).strip()
    return header


def is_figure(text: str) -> bool:
    """True when `text` is exactly one number with an optional unit (`256`, `1.0283x`, `-2.5%`)."""
    nums = _numbers(text)
    return len(nums) == 1 and nums[0].start == 0 and nums[0].end == len(text)


def single_figure(text: str, comma: bool = False) -> Figure | None:
    """The figure `text` consists of, surrounding spaces aside (`1510`, `212 ms`, `0.142`), unit None when it
    is written without one; None when the text is anything else. A table cell that is one number is a figure
    of its column. With `comma`, a decimal comma needs no unit after it (`1,42` in a column with a unit)."""
    stripped = text.strip()
    nums = _numbers(stripped, comma)
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


def find_figures(text: str, header: str | None = None, comma: bool = False) -> list[Figure]:
    """Figures in `text` (already masked of dates, shas, ids and paths by the caller). A decimal comma is read as
    one before a unit, in a column whose header gives a unit, and anywhere with `comma` (a file that writes its
    decimals so, records/figures.decimal_comma)."""
    if _DIGIT.search(text) is None:
        return []
    h_unit = _header_unit(header) if header else None
    raw = _numbers(text, comma or h_unit is not None)
    if not raw:
        return []
    # A `/`- or `vs`-chain shares the unit of its last member: "6831.71 vs 6643.40 tok/s".
    chained = [
        i > 0 and _CHAIN_GAP.match(text[raw[i - 1].end : raw[i].start] or "x") is not None for i in range(len(raw))
    ]
    for i in range(len(raw) - 2, -1, -1):
        if raw[i].unit is None and raw[i + 1].unit is not None and chained[i + 1]:
            raw[i].unit = raw[i + 1].unit
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

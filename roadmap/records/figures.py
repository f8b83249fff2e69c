"""Figures a statement quotes: value + normalised unit + the metric words written near it.

`6831.71 vs 6643.40 tok/s` gives two tok/s figures (a `/`- or `vs`-chain shares its unit); a table cell
inherits unit and metric from its header (`Throughput (tok/s)` over `6831.71`).
"""
from __future__ import annotations

import re

from roadmap.records.model import Figure

_UNITS = {  # as written (lower-cased) -> normalised
    "tok/s": "tok/s", "toks/s": "tok/s", "token/s": "tok/s", "tokens/s": "tok/s", "tokens/sec": "tok/s",
    "tok/sec": "tok/s", "req/s": "req/s", "reqs/s": "req/s", "request/s": "req/s", "requests/s": "req/s",
    "tflop/s": "TFLOP/s", "tflops": "TFLOP/s", "gb/s": "GB/s", "gib/s": "GiB/s", "tb/s": "TB/s",
    "ms/call": "ms/call", "ms/token": "ms/token", "ms/tok": "ms/token", "ms/step": "ms/step", "ms": "ms",
    "us": "us", "µs": "us", "s": "s", "sec": "s", "secs": "s", "seconds": "s", "min": "min",
    "gib": "GiB", "gb": "GB", "mib": "MiB", "mb": "MB", "%": "%", "x": "x", "×": "x",
}
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
FIGURE_RE = re.compile(
    rf"(?<![\w.])(?P<sign>[+\-−]?)(?P<num>\d{{1,3}}(?:,\d{{3}})+|\d+)(?P<frac>\.\d+)?(?![\d.]\d)"
    rf"(?:(?P<sp>\s?)(?P<unit>{_UNIT_ALT})(?![A-Za-z0-9/µ]))?", re.IGNORECASE)
_CHAIN_GAP = re.compile(r"^\s*(?:/|vs\.?|versus|->|→|to)\s*$", re.IGNORECASE)
_BASES = {"throughput": "throughput", "ttft": "ttft", "tpot": "tpot", "itl": "itl", "latency": "latency",
          "vram": "vram", "memory": "vram", "speedup": "speedup", "ratio": "ratio", "e2e": "latency"}
_QUALS = {"output", "total", "prefill", "decode", "peak", "input"}
_PCTS = {"p50", "p90", "p95", "p99", "median", "mean", "min", "max"}
_METRIC_WORD = re.compile(r"\b(" + "|".join(sorted({*_BASES, *_QUALS, *_PCTS}, key=len, reverse=True)) + r")\b",
                          re.IGNORECASE)
_CLAUSE_END = re.compile(r"[;|\n]|\.\s")


def metric_of(window: str) -> str | None:
    """Normalised metric words in `window`: "output throughput", "ttft p50", "vram", or None."""
    base = qual = pct = None
    for m in _METRIC_WORD.finditer(window):
        w = m.group(1).lower()
        if w in _BASES:
            base = _BASES[w]
        elif w in _QUALS:
            qual = w
        else:
            pct = w
    if base is None:
        return pct
    return " ".join(p for p in (qual, base, pct) if p)


def header_unit(header: str) -> str | None:
    m = FIGURE_RE.search("1 " + header.split("(")[-1].rstrip(")")) if "(" in header else None
    if m and m.group("unit"):
        return _UNITS[m.group("unit").lower()]
    for word in re.findall(r"[\w/%µ×]+", header.lower()):
        if word in _UNITS and len(word) > 1:
            return _UNITS[word]
    return None


def find_figures(text: str, header: str | None = None) -> list[Figure]:
    """Figures in `text` (already masked of dates, shas, ids and paths by the caller)."""
    if not any(c.isdigit() for c in text):
        return []
    raw = []
    for m in FIGURE_RE.finditer(text):
        unit = m.group("unit")
        if unit and unit.lower() == "x" and m.group("sp"):
            unit = None  # "2 x 3" is a product, not a ratio; a ratio is written "1.0283x"
        raw.append([m, _UNITS[unit.lower()] if unit else None])
    # A `/`- or `vs`-chain shares the unit of its last member: "6831.71 vs 6643.40 tok/s".
    for i in range(len(raw) - 2, -1, -1):
        if raw[i][1] is None and raw[i + 1][1] is not None:
            gap = text[raw[i][0].end():raw[i + 1][0].start()]
            if _CHAIN_GAP.match(gap):
                raw[i][1] = raw[i + 1][1]
    h_unit = header_unit(header) if header else None
    h_metric = metric_of(header) if header else None
    out: list[Figure] = []
    prev_end = 0
    chain_metric: str | None = None
    for i, (m, unit) in enumerate(raw):
        start, end = m.start(), m.end()
        lo = max(prev_end, start - 60)
        window = text[lo:start]
        cut = list(_CLAUSE_END.finditer(window))
        if cut:
            window = window[cut[-1].end():]
        metric = metric_of(window)
        chained = i > 0 and _CHAIN_GAP.match(text[raw[i - 1][0].end():start] or "x")
        if metric is None and chained:
            metric = chain_metric
        if metric is None:
            nxt = raw[i + 1][0].start() if i + 1 < len(raw) else len(text)
            after = text[end:min(nxt, end + 30)]
            cut_a = _CLAUSE_END.search(after)
            metric = metric_of(after[:cut_a.start()] if cut_a else after)
        metric = metric or h_metric
        if unit is None and h_unit and (m.group("frac") or text.strip() == m.group(0).strip()):
            unit = h_unit
        prev_end = end
        chain_metric = metric
        # Unitless integers are counts and ordinals ("item 14", "497 calls"); unitless decimals count when a
        # metric is named, e.g. "throughput 5769.99/5660.70".
        if unit is None and not (m.group("frac") and metric):
            continue
        value = float(m.group("num").replace(",", "") + (m.group("frac") or ""))
        if m.group("sign") in ("-", "−"):
            value = -value
        out.append(Figure(value=value, text=m.group(0), unit=unit, metric=metric, start=start))
    return out

"""Comparing figures: rounding tolerance (units converted), metric families, words that call one figure old, and
every number an evidence entry holds (RL202 backs figures by them).

Shared by RL201 (figure-superseded) and RL202 (figure-unbacked).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Iterator

from roadmap.analysis.metric_terms import scale

if TYPE_CHECKING:
    from roadmap.evidence.store import EvidenceEntry
    from roadmap.records.model import Figure

FAMILIES = ("throughput", "ttft", "tpot", "itl", "latency", "vram")
# Words right around a figure that say it is not current ("the 2310 ms of 2026-07-12 is superseded").
HISTORICAL = re.compile(
    r"\bsupersed\w*|\breplaced by\b|\bpreviously\b|\bformerly\b|\bwas\b|\bused to\b|"
    r"\bbefore the\b|\bold\b|\boutdated\b",
    re.I,
)


# A magnitude letter before a unit, as records/figures.py reads one ("41.2k commits/s"), not a unit's own prefix
# ("1.9MB", "2 GiB", "5 kb").
# A decimal comma as records/figures.py reads one: one or two digits after it, no enumeration ("1,42" is 1.42 to
# the hundredth; "1,420" is 1420, "1,2,3" a list).
_WRITTEN = re.compile(r"\d+(?:,\d{3}(?!\d))*(?:\.(\d+)|,(\d{1,2})(?!\d|,\d))?([kKMG](?=\s\S|(?![bBi])[a-z]))?")
_MAGNITUDE_PLACES = {"k": 3, "K": 3, "M": 6, "G": 9}


def decimals(text: str) -> int:
    """Decimal places of the first number as written, in units of its value: "41.2k" is 41,200 to the hundred (-2),
    "1,42 W/(m·K)" (a decimal comma) to the hundredth (2)."""
    m = _WRITTEN.search(text)
    if not m:
        return 0
    return len(m.group(1) or m.group(2) or "") - _MAGNITUDE_PLACES.get(m.group(3) or "", 0)


def close(value: float, text: str, other: float, other_text: str | None = None) -> bool:
    """Equal within the rounding of the less precise of the two as written (`1.0283x` vs 1.028346)."""
    places = decimals(text) if other_text is None else min(decimals(text), decimals(other_text))
    return abs(value - other) <= 0.5 * 10.0**-places + 1e-9 * max(1.0, abs(value))


def close_scaled(
    value: float, text: str, unit: str | None, other: float, other_unit: str | None, other_text: str | None = None
) -> bool:
    """`close`, after converting `other` from its unit into `unit` (412.6 MB/s against 0.4126 GB/s)."""
    (_, a), (_, b) = scale(unit), scale(other_unit)
    return close(value, text, other * b / a, other_text if a == b else None)


def family(fig: "Figure") -> str | None:
    if fig.unit == "x" or not fig.metric:
        return None
    return next((w for w in fig.metric.split() if w in FAMILIES), None)


def comparable(a: "Figure", b: "Figure") -> bool:
    """Same unit, and not two different named metrics (TTFT vs TPOT)."""
    if a.unit is None or a.unit != b.unit:
        return False
    fa, fb = family(a), family(b)
    return fa is None or fb is None or fa == fb


_CLAUSE = re.compile(r"[;,()|]|\.\s|\bvs\b")
# Words that say, of one figure, that a newer one replaced it ("0.9864x, superseded by 1.0283x", "previously
# 412 MB/s", "the old 2310 ms"): narrower than HISTORICAL, whose "was" also tells a past measurement.
EXPLICITLY_OLD = re.compile(
    r"\bsupersed(?:ed|es)\b(?! by)|\bpreviously\b|\bformerly\b|\boutdated\b|\bobsolete\b|"
    r"\bno longer\b|\bstale\b|\bold (?:figure|number|value|result|one|ratio|rate)\b|"
    r"\bthe old one\b|\breplaced by\b|\bsuperseded by\b",
    re.I,
)


def marked_historical(text: str, fig: "Figure") -> bool:
    """Is this particular figure called old within its own clause ("previously 0.9864x", "2310 ms ... is
    superseded")? The clause ends at , ; ( ) | or a sentence end, so the current figure beside it is not."""
    start = fig.start
    end = start + len(fig.text)
    left = _CLAUSE.split(text[max(0, start - 60) : start])[-1]
    right = _CLAUSE.split(text[end : end + 60])[0]
    return bool(HISTORICAL.search(left) or HISTORICAL.search(right))


def explicitly_old(text: str, fig: "Figure") -> bool:
    """Is this figure called replaced where it is quoted ("0.9864x (superseded by 1.0283x)", "previously 412")?
    "superseded by X" and "replaced by X" make what comes before them old, never X itself."""
    start, end = fig.start, fig.start + len(fig.text)
    left = _CLAUSE.split(text[max(0, start - 60) : start])[-1]
    right = _CLAUSE.split(text[end : end + 60])[0]
    if re.search(r"\b(?:superseded|replaced) by\s*$", left, re.I):
        return False
    if _FROM_OLD.search(left):
        return True  # "now takes 1.2 s, down from 1.9 s": the figure it came from
    return bool(EXPLICITLY_OLD.search(left) or EXPLICITLY_OLD.search(right))


# The figure a reported change started from: "down from 1.9 s", "up from 412", "dropped from 56.0% to 16.6%".
_FROM_OLD = re.compile(
    r"\b(?:down|up|dropped|drops|fell|falls|rose|rises|improved|improves|went|regressed|was\s+reduced|"
    r"was\s+increased)\s+(?:\w+\s+){0,1}from\s*~?$",
    re.I,
)  # a reported change; "cut the peak from 48.3 GB" (a goal) names no old figure


# A tool's saved plain output (criterion's `.txt`) holds labelled figures, as a summary does: RL201 reads them
# (analysis/evidence_figures.py). A log (`.log`) holds every number a run printed and is not read; nor does RL202
# back a figure by the numbers of a text file.
PLAIN_TEXT = (".txt",)


def evidence_numbers(entry: "EvidenceEntry", tree: Any = None) -> list[tuple[str, float]]:
    """(path of the number, value) for every number in the entry's result.json, plus the numbers written
    in its markdown summary (foreign evidence has nothing else)."""
    out: list[tuple[str, float]] = []
    if entry.raw is not None:
        out.extend(_walk(entry.raw, ""))
    if tree is not None:
        for f in entry.files:
            if f.endswith(".md"):
                data = tree.read_bytes(f)
                if data and len(data) <= 256 * 1024:
                    for m in re.finditer(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]\d)", data.decode("utf-8", "replace")):
                        out.append((f"{f}:text", float(m.group())))
    return out


def _walk(obj: Any, path: str) -> Iterator[tuple[str, float]]:
    if isinstance(obj, bool):
        return
    if isinstance(obj, (int, float)):
        yield path, float(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _walk(v, f"{path}.{k}" if path else str(k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _walk(v, f"{path}[{i}]")

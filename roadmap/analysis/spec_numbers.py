"""The numbers a piece of work is specified by, for RL101 to see a commit state the same one.

"Put an LRU in front of the probes, bounded at 5,000 entries" and "resolver: LRU for resolved specifiers ... Cap
5000": a commit that says the directive's words *and* its bound, size or count built what the directive specified.
Words alone meet by chance often enough to stay a hint (checks/directive_landed.py); a specified number written in
both is a second, independent kind of evidence, as a row id or a ticket named is.

Only numbers that specify something count: 100 or more (small numbers are step numbers, counts of anything, ports'
digits), written whole or with a thousands separator or a k/M suffix ("5,000", "5_000", "5k"); never a year, a
date, a time, a version, a decimal (a measurement: "2.3s to 1.4s"), an issue or PR number (`#1183`), or digits
inside a name or a hash.
"""

from __future__ import annotations

import re
from functools import lru_cache

_NUMBER = re.compile(r"(?<![\w.,#/:@-])(\d{1,3}(?:[,_]\d{3})+|\d+)(?:\s?([kKM])\b)?(?![\w.,]?\d|[-/:]\d|\w)")
_SCALE = {"k": 1_000, "K": 1_000, "M": 1_000_000}
MIN_SPECIFIED = 100


@lru_cache(maxsize=1 << 14)
def spec_numbers(text: str) -> frozenset[int]:
    """The specifying numbers written in `text`, as values ("5,000" and "5k" are 5000)."""
    if not any(ch.isdigit() for ch in text):
        return frozenset()
    out = set()
    for m in _NUMBER.finditer(text):
        value = int(m.group(1).replace(",", "").replace("_", "")) * _SCALE.get(m.group(2) or "", 1)
        if value < MIN_SPECIFIED or m.group(2) is None and 1900 <= value <= 2100:
            continue  # a count of anything, or a year
        out.add(value)
    return frozenset(out)

"""A constant a record writes as code with its value: "keeps `BUSY_TIMEOUT_MS` at 0", "`BATCH_GROESSE` steht auf
500", "`POOL_SIZE` is 8", "`X` = 30", "`X` vale 4".

The shapes are shared by the log structure (records/structure.py: a setting's value stated in an older entry of
a log stays current while no later entry names the setting) and by the defaults a statement states
(analysis/stated_defaults.py, which RL104 follows through the code's history).
"""

from __future__ import annotations

import re

NUMBER = r"-?\d+(?:[.,]\d+)?"
CONST_NAME = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]+|k[A-Z]\w+")
# A linking word, then a number that is not a percentage or a ratio.
LINK = (
    r"\s*(?:\([^)]{0,40}\)\s*)?(?:=|:|is|at|to|stays at|steht auf|liegt bei|auf|bei|ist|vale|est(?: à)?|es|è|é)\s+"
    rf"(?P<value>{NUMBER})(?![\w.]*\d)(?!\s*(?:%|x\b|×))"
)
# Said of the past: "no longer", "used to", "was" ("Until the move, X keeps ..." is the present).
WAS = re.compile(r"\b(?:no longer|used to|previously|formerly|was|were|had)\b[^.;]{0,30}$", re.I)
# A sentence that asks for the value, or compares, states none: "raise `X` to 60", "set `X` to 0 on the CI box".
ASKS = re.compile(r"\b(?:raise|lower|set|bump|change|increase|decrease|reduce|try|make|move)\b[^.;]*$", re.I)
_CODE_CONST = re.compile(rf"`(?P<name>{CONST_NAME.pattern})`(?i:{LINK})")


def settings_valued(text: str) -> frozenset[str]:
    """Names of the constants the text writes as code (in backticks) right before a value it states (not one it
    asks for, nor a past one)."""
    if "`" not in text:
        return frozenset()
    return frozenset(
        m.group("name")
        for m in _CODE_CONST.finditer(text)
        if not (WAS.search(text, 0, m.start()) or ASKS.search(text, 0, m.start()))
    )

"""Statement-independent views of a commit message, computed once per commit: the history rules ask for them
for every statement whose news holds the commit. Keyed by the commit (its sha names its message)."""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from roadmap.analysis.terms import tokens

if TYPE_CHECKING:
    from roadmap.history.commit import Commit

MAX_COMMITS = 1 << 15


@lru_cache(maxsize=MAX_COMMITS)
def message_tokens(c: "Commit") -> frozenset[str]:
    """The normalised tokens of the commit's message (subject and body), as a set."""
    return frozenset(tokens(c.message))

"""Statement-independent views of commit messages, computed once: the history rules ask for them for every
statement whose news holds the commit. Per commit keyed by the commit (its sha names its message); over the
whole history, kept in the run's facts."""

from __future__ import annotations

from functools import lru_cache

from roadmap.analysis.context import LintContext
from roadmap.analysis.terms import TermWeights, tokens
from roadmap.history.commit import Commit

MAX_COMMITS = 1 << 15


@lru_cache(maxsize=MAX_COMMITS)
def message_tokens(c: Commit) -> frozenset[str]:
    """The normalised tokens of the commit's message (subject and body), as a set."""
    return frozenset(tokens(c.message))


def term_weights(ctx: LintContext) -> TermWeights:
    """Term weights over every commit message of the linted history, once per run."""
    if ctx.facts.term_weights is None:
        ctx.facts.term_weights = TermWeights.of(c.message for c in ctx.get_history().commits)
    return ctx.facts.term_weights

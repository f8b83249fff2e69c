"""Claims as the records list them: a bullet titled with a claim id, in a section named like "Active claims"
and not like "Checkpoints" or "Closed". Shared by RL402 and the coordination report."""
from __future__ import annotations

import re

from roadmap.analysis.context import LintContext
from roadmap.analysis.surfaces import section_name
from roadmap.records.model import Statement

# Sections that list history rather than live claims.
PAST_SECTIONS = re.compile(r"checkpoint|closed|done|histor|archive|released|past|log\b|finished", re.I)
ACTIVE_SECTIONS = re.compile(r"claim|active|open|in[ -]?flight|current|in progress", re.I)


def claim_of(ctx: LintContext, st: Statement) -> str | None:
    """The claim a bullet is: its row id when that is a claim id (the bullet's title)."""
    cid = st.row_id or st.defines
    return cid if cid and ctx.config.claim_re.fullmatch(cid) else None


def listed_active(st: Statement) -> bool:
    """Is the statement a bullet in a section that lists live claims?"""
    name = section_name(st) if st.section else ""
    return st.kind == "item" and not st.historical and bool(ACTIVE_SECTIONS.search(name)) and \
        not PAST_SECTIONS.search(name)

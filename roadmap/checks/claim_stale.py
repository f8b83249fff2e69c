"""RL402 claim-stale: a claim listed as active that was closed, or that sat idle past its TTL while others
committed to its row."""
from __future__ import annotations

import re
from datetime import date

from roadmap.analysis.asof import news_for
from roadmap.analysis.claims import claim_of, listed_active
from roadmap.analysis.context import LintContext
from roadmap.analysis.surfaces import section_name
from roadmap.findings import Hit, Related
from roadmap.history.index import HistoryIndex
from roadmap.records.model import Statement

CLOSED = re.compile(r"\b(?:closed|released|completed|abandoned|dropped|handed (?:off|over))\b", re.I)
MAX_LISTED = 5


def _closed_elsewhere(ctx: LintContext, st: Statement, cid: str) -> Statement | None:
    for other in ctx.statements():
        if other is st or cid not in other.mentions.claims or listed_active(other):
            continue
        head = other.text[:200]
        if claim_of(ctx, other) == cid and CLOSED.search(head):
            return other
    return None


def _days(a: str, b: str) -> int:
    return (date.fromisoformat(b) - date.fromisoformat(a)).days


def claim_stale(ctx: LintContext) -> list[Hit]:
    """What it does:
    Checks every claim listed as active (a bullet titled with a claim id, in a section named like
    "Claims", "Active claims", "Open" and not like "Checkpoints", "Closed", "Log"). Error: the claim says
    it is closed/released, or another record entry for the same claim says so, yet it is still listed as
    active. Warning: its newest date is older than `claims_ttl_days` (default 14) before the linted
    commit, while commits made since then name its row or the claim itself.

    Why:
    A stale claim blocks a row: nobody else picks it up, while the work has moved on without its owner.

    Example:
    "- CLAIM-GGUF-Q4K (ROAD-V1-C1-GGUF-LOAD) — loader, opened 2026-07-12." still under "Active claims" on
    2026-08-09, while three commits since 2026-07-20 carry `Row: ROAD-V1-C1-GGUF-LOAD`.

    Fix:
    Records only: close the claim (strike it through with the date it closed) or renew it with the date
    and what its owner is doing now.
    """
    findings: list[Hit] = []
    history: HistoryIndex | None = None
    for st in ctx.statements():
        cid = claim_of(ctx, st)
        if cid is None or not listed_active(st):
            continue
        own = CLOSED.search(st.text)
        other = None if own else _closed_elsewhere(ctx, st, cid)
        if own or other is not None:
            where = "it says so itself" if other is None else f"{other.path}:{other.line} records it closed"
            related = [] if other is None else [Related(other.path, other.line, "records the claim closed")]
            findings.append(Hit(
                severity="error", message=f"{cid} is closed ({where}) but still listed under "
                f"'{section_name(st)}'", path=st.path, line=st.line, end_line=st.end_line, record_id=cid,
                related=related, fix=f"Records-only fix: strike {cid} through in '{section_name(st)}' "
                "(with the date it closed) or move it to the closed claims", key=f"closed {cid}"))
            continue
        history = history or ctx.get_history()
        head = history.by_sha(ctx.head) if ctx.head else None
        since = max(st.mentions.dates, default=None) or news_for(ctx, st).date
        if head is None or since is None or _days(since, head.day) <= ctx.config.claims_ttl_days:
            continue
        rows = sorted(({*st.mentions.ids} - {cid}) | {cid})
        touched = {c.sha: c for r in rows for c in history.commits_mentioning(r) if c.day > since}
        if not touched:
            continue
        commits = sorted(touched.values(), key=history.rank)     # graph order, not commit dates
        listed = ", ".join(f"{c.short} ({c.day})" for c in commits[:MAX_LISTED])
        more = f" and {len(commits) - MAX_LISTED} more" if len(commits) > MAX_LISTED else ""
        findings.append(Hit(
            message=f"{cid} has been idle since {since} ({_days(since, head.day)} days, TTL "
                    f"{ctx.config.claims_ttl_days}) while {len(commits)} commit{'s' if len(commits) > 1 else ''} "
                    f"touched {', '.join(rows)}: {listed}{more}",
            path=st.path, line=st.line, end_line=st.end_line, record_id=cid,
            evidence=[{"kind": "commit", "sha": c.sha, "date": c.day, "subject": c.subject} for c in commits],
            fix=f"Records-only fix: close {cid} or renew it with today's date and its owner's current step",
            key=f"idle {cid}"))
    return findings


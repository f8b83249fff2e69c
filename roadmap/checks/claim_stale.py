"""RL402 claim-stale: a claim listed as active that was closed, or that sat idle past its TTL while others
committed to its row or did its work."""

from __future__ import annotations

import re
from datetime import date
from typing import Iterator

from roadmap.analysis.asof import news_for
from roadmap.analysis.claims import PAST_SECTIONS, Claim, claims, closed_by, is_active, ttl_days
from roadmap.analysis.context import LintContext
from roadmap.analysis.evidence_index import row_of
from roadmap.analysis.landing import path_commits
from roadmap.analysis.surfaces import section_name
from roadmap.findings import Hit, Related
from roadmap.history.commit import Commit
from roadmap.history.index import HistoryIndex
from roadmap.records.model import Statement

MAX_LISTED = 5
_WORDS = re.compile(r"[a-z0-9]+")


def _days(a: str, b: str) -> int:
    return (date.fromisoformat(b) - date.fromisoformat(a)).days


def claim_stale(ctx: LintContext) -> Iterator[Hit]:
    """What it does:
    Checks every claim listed as active: a bullet titled with a claim id in a section named like "Active
    claims"; a row of a claims table (a `Claim` column; rows keyed by claim id or by name, with `Status`,
    `Last update`/`Claimed` and `TTL` columns); a claim file with `Status:`/`Claimed:`/`TTL:` lines. Error:
    the claim says it is closed itself, or another record closes it (a claim file whose status is closed,
    a log entry "closed tokenizer-cache", "CLAIM-X: ... Released, closed.") no earlier than its last
    update, yet it is still listed as active; or a commit since its last update says it is done or released
    ("CLAIM-X is done, releasing it"). A row of a board that keeps released claims in its Status column (a
    section not titled as active claims) is not a listing of an active one. Warning: it was last updated longer ago than its TTL (its own, else the
    records' rule such as "claims expire after 7 days", else `claims_ttl_days`, 14) before the linted commit,
    while commits since then name its row or the claim (or every word of its name) or change the scope its row
    names (`src/lsp/hover.rs`); a commit whose subject names its owner (`[wren] ...` for agent-wren) renews it.
    A claim on hold (paused, blocked, parked) is not idle.

    Why:
    A stale claim blocks a row: nobody else picks it up, while the work has moved on without its owner.

    Example:
    `| grpc-streaming | @lee | 2026-05-04 | 2026-05-04 | active | ... |` on a board whose preamble says
    claims expire after 7 days, on 2026-05-13, after "feat(grpc): server-streaming Generate" on 2026-05-09.

    Fix:
    Records only: close the claim (strike it through or move it to the log, with the date it closed) or
    renew it with the date and what its owner is doing now.
    """
    closed = ctx.config.closed_state_set
    listed = [c for c in claims(ctx) if c.shape != "file" or is_active(c, closed)]
    idle: dict[str, list[Claim]] = {}
    for c in listed:
        if c.shape != "file" and PAST_SECTIONS.search(section_name(c.st) if c.st.section else ""):
            continue
        if c.state in closed:
            if c.shape == "table" and _kept_by_state(ctx, c):
                continue  # "set it to Released here (keep the line)": the row says its state, it lists nothing
            yield _closed_hit(c, None)
            continue
        if not is_active(c, closed):
            continue
        other = closed_by(ctx, c)
        if other is not None:
            yield _closed_hit(c, other)
            continue
        released = _released_by_commit(ctx, c)
        if released is not None:
            yield _released_hit(c, released)
            continue
        idle.setdefault(c.key, []).append(c)
    history: HistoryIndex | None = None
    for group in idle.values():
        c = next((g for g in group if g.shape == "file"), group[0])
        history = history or ctx.get_history()
        hit = _idle(ctx, history, c, [g for g in group if g is not c])
        if hit is not None:
            yield hit


def _closed_hit(c: Claim, other: Statement | None) -> Hit:
    where = section_name(c.st) if c.st.section else c.st.path
    if other is not None:
        said = f"{other.path}:{other.line} records it closed"
        related = [Related(other.path, other.line, "records the claim closed")]
    else:
        said = f"it says {c.state} itself" if c.state and c.state != "CLOSED" else "it says so itself"
        related = []
    return Hit(
        severity="error",
        message=f"{c.key} is closed ({said}) but still listed under '{where}'",
        path=c.st.path,
        line=c.line,
        end_line=c.line if c.shape != "bullet" else c.st.end_line,
        record_id=c.key if c.key == c.st.row_id else None,
        related=related,
        fix=f"Records-only fix: strike {c.key} through in '{where}' (with the date it closed) or move it to "
        "the closed claims",
        key=f"closed {c.key}",
    )


def _idle(ctx: LintContext, history: HistoryIndex, c: Claim, others: list[Claim]) -> Hit | None:
    head = history.by_sha(ctx.head) if ctx.head else None
    since = c.since or news_for(ctx, c.st).date
    if head is None or since is None:
        return None
    ttl, source = ttl_days(ctx, c)
    if _days(since, head.day) <= ttl:
        return None
    touched = _touching(ctx, history, c, since)
    owner = _owner_words(ctx, c)
    own = [k.day for k in touched if owner & set(_WORDS.findall(k.subject.lower()))]
    if own:  # its owner's own commits ("[wren] hover: ...") are the claim at work, not others passing by
        since = max(since, *own)
        touched = [k for k in touched if k.day > since and not owner & set(_WORDS.findall(k.subject.lower()))]
    idle = _days(since, head.day)
    if idle <= ttl or not touched:
        return None
    commits = sorted(touched, key=history.rank)  # graph order, not commit dates
    listed = ", ".join(f"{k.short} ({k.day})" for k in commits[:MAX_LISTED])
    more = f" and {len(commits) - MAX_LISTED} more" if len(commits) > MAX_LISTED else ""
    scope = sorted({p.path for cell in _row_cells(ctx, c) for p in cell.mentions.paths if p.path})
    what = ", ".join(c.rows) if c.rows else c.key
    if scope:
        what += f" or its scope {', '.join(scope)}"
    ttl_text = f"{ttl:g}" + ("" if source == "claims_ttl_days" else f" days, {source}")
    return Hit(
        message=f"{c.key} has been idle since {since} ({idle} days, TTL {ttl_text}) while "
        f"{len(commits)} commit{'s' if len(commits) > 1 else ''} touched {what}: {listed}{more}",
        path=c.st.path,
        line=c.line,
        end_line=c.line if c.shape != "bullet" else c.st.end_line,
        record_id=c.key if c.key == c.st.row_id else None,
        related=[Related(o.st.path, o.line, f"{c.key} is also listed here") for o in others],
        evidence=[{"kind": "commit", "sha": k.sha, "date": k.day, "subject": k.subject} for k in commits],
        fix=f"Records-only fix: close {c.key} or renew it with today's date and its owner's current step",
        key=f"idle {c.key}",
    )


def _row_cells(ctx: LintContext, c: Claim) -> tuple[Statement, ...]:
    return row_of(ctx, c.st)[1]


_OWNER_COLUMNS = re.compile(r"^(?:agent|owner|assignee|who|claimed by|by|dev|developer|person)$", re.I)
_GENERIC_OWNER = frozenset({"agent", "bot", "team", "the", "and"})


def _owner_words(ctx: LintContext, c: Claim) -> set[str]:
    """The words of the claim's owner as its row writes it (`agent-wren` -> wren): a commit subject naming one
    is the owner's own."""
    out: set[str] = set()
    for cell in _row_cells(ctx, c):
        if _OWNER_COLUMNS.match((cell.column or "").strip()):
            out |= {w for w in _WORDS.findall(cell.text.lower()) if len(w) >= 3 and w not in _GENERIC_OWNER}
    return out


def _kept_by_state(ctx: LintContext, c: Claim) -> bool:
    """Is the claim a row of a table whose State/Status column says its closed state (a board that keeps the
    lines of released claims), not a row of a list of active claims?"""
    if c.st.section and _ACTIVE_LIST.search(section_name(c.st)):
        return False  # under "Active claims": a closed one there is listed as active, whatever its column says
    columns = {x.lower() for x in ctx.config.state_columns}
    return any((cell.column or "").strip().lower() in columns for cell in _row_cells(ctx, c))


_ACTIVE_LIST = re.compile(r"\b(?:active|open|current|in[- ]progress|live|held|ongoing|taken)\b", re.I)


# A commit that says it gave the claim up: "CLAIM-PARSER-SPLIT is done, releasing it", "release CLAIM-X".
_RELEASE_AFTER = (
    r"(?:is|was|now)?\s*(?:done|released|closed|complete[d]?|finished)\b|[^.\n]{{0,20}}\breleas(?:e|es|ing)\b"
)
_RELEASE_BEFORE = (
    r"\b(?:releas(?:e|es|ed|ing)|clos(?:e|es|ed|ing)|done with|dropp(?:ed|ing))\s+(?:the\s+)?(?:claim\s+)?"
)


def _released_by_commit(ctx: LintContext, c: Claim) -> Commit | None:
    """The first commit after the claim's last update whose message says the claim is done or released."""
    if not ctx.config.claim_re.fullmatch(c.key) or c.since is None:
        return None
    history = ctx.get_history()
    key = re.escape(c.key)
    said = re.compile(rf"(?<![\w-]){key}(?![\w-])\W{{0,3}}{_RELEASE_AFTER}|{_RELEASE_BEFORE}`?{key}(?![\w-])", re.I)
    hits = [k for k in history.commits_mentioning(c.key) if k.day >= c.since and said.search(k.message)]
    return min(hits, key=history.rank) if hits else None


def _released_hit(c: Claim, k: Commit) -> Hit:
    where = section_name(c.st) if c.st.section else c.st.path
    return Hit(
        severity="error",
        message=f"{c.key} is still listed as {c.state or 'active'} under '{where}', but {k.short} ({k.day}) says it "
        f"was released: {k.subject!r}",
        path=c.st.path,
        line=c.line,
        end_line=c.line if c.shape != "bullet" else c.st.end_line,
        record_id=c.key if c.key == c.st.row_id else None,
        evidence=[{"kind": "commit", "sha": k.sha, "date": k.day, "subject": k.subject}],
        fix=f"Records-only fix: mark {c.key} released (since {k.day}) where it is listed",
        key=f"released {c.key}",
    )


def _touching(ctx: LintContext, history: HistoryIndex, c: Claim, since: str) -> list[Commit]:
    """Commits after `since` that name the claim's rows or the claim (a claim id, or every word of a name), or
    that changed a path its row gives as its scope (`src/lsp/hover.rs`)."""
    found: dict[str, Commit] = {}
    paths = {p.path.rstrip("/") for cell in _row_cells(ctx, c) for p in cell.mentions.paths if p.path}
    if paths:
        for path, shas in path_commits(ctx).items():
            if any(path == p or path.startswith(p + "/") for p in paths):
                for sha in shas:
                    k = history.by_sha(sha)
                    if k is not None and k.day > since and not k.is_merge:
                        found[k.sha] = k
    ids = [*c.rows, c.key] if ctx.config.claim_re.fullmatch(c.key) or "-" not in c.key else list(c.rows)
    for token in ids:
        for k in history.commits_mentioning(token):
            if k.day > since:
                found[k.sha] = k
    if not ctx.config.claim_re.fullmatch(c.key):
        parts = set(_WORDS.findall(c.key.lower()))
        if len(parts) >= 2:
            for k in history.commits_after(since):
                if parts <= set(_WORDS.findall(f"{k.subject}\n{k.body}".lower())):
                    found[k.sha] = k
    return list(found.values())

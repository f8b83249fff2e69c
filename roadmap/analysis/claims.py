"""Claims as the records keep them, shared by RL402 and the coordination report.

A claim is listed in one of three shapes:
- a bullet titled with a claim id in a section named like "Active claims" ("- CLAIM-X (owner) — ...");
- a row of a claims table: a table with a `Claim` column, its rows keyed by claim id or by name
  (`| tokenizer-cache | @dvorak | 2026-05-04 | 2026-05-04 | active | ... |`), read with its state, date
  (`Last update`, else `Claimed`/`Since`) and `TTL` columns;
- one file per claim (under a claims/ folder, or named after its claim id) with `Status:`, `Claimed:`,
  `Updated:` and `TTL:` lines.
Its TTL is its own (`TTL: 48h`), else what the records say ("claims expire after 7 days"), else config
`claims_ttl_days`.
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate

from roadmap.analysis.context import LintContext
from roadmap.analysis.states import GROUPS
from roadmap.analysis.surfaces import section_name
from roadmap.records.model import RecordFile, Statement, Table
from roadmap.records.patterns import DATE_RE
from roadmap.records.state_words import leading_state

# Sections that list history rather than live claims.
PAST_SECTIONS = re.compile(r"checkpoint|closed|done|histor|archive|released|past|log\b|finished", re.I)
ACTIVE_SECTIONS = re.compile(r"claim|active|open|in[ -]?flight|current|in progress", re.I)
# Words that close a claim.
CLOSED = re.compile(
    r"\b(?:closed|closing|released|releasing|completed|abandoned|dropped|handed (?:off|over)|"
    r"relinquished|unclaimed)\b",
    re.I,
)
_CLAIM_HEADERS = {"claim", "claim id", "claims", "claim name"}
_SINCE_HEADERS = ("last update", "last updated", "updated", "last activity", "last touched", "renewed")
_START_HEADERS = ("claimed", "claimed at", "claimed on", "since", "opened", "started", "date", "taken")
_TTL = re.compile(r"(\d+(?:\.\d+)?)\s*(h|hrs?|hours?|d|days?|w|wks?|weeks?)\b", re.I)
_RECORD_TTL = re.compile(
    r"\bclaims?\b[^.]{0,60}?\b(?:expire|lapse|go(?:es)? stale|time(?:s)? out|are stale|is stale)"
    r"[^.]{0,30}?\b(?:after|in|past)\s+(\d+(?:\.\d+)?)\s*(hours?|days?|weeks?|h|d|w)\b"
    r"|\bclaim ttl\b\W{0,3}(?:is\s+)?(\d+(?:\.\d+)?)\s*(hours?|days?|weeks?|h|d|w)\b",
    re.I,
)
_KEY_VALUE = re.compile(r"^[\s>*+\-]*[*_]{0,2}([A-Za-z][A-Za-z ]{1,20}?)[*_]{0,2}\s*:[*_]{0,2}\s*(.+?)\s*$")
_HELD = GROUPS["on hold"]
# A closing word that opens a clause of an entry about the claim: "— closed;", ". Released, closed.", ", closed 2026-08-01".
_CLAUSE_CLOSED = re.compile(rf"(?:^|[.;:—–,(]\s+|\s[—–-]\s+){CLOSED.pattern}", re.I)
_LEAD = re.compile(r"^(?:\s+|[^\w(@]+|\d{4}-\d\d-\d\d|T?\d{1,2}:\d\d(?::\d\d)?Z?|\([^)]{0,60}\)|@[\w.-]+:?)*")


@dataclass(frozen=True)
class Claim:
    key: str  # the claim id, or its name as the table writes it
    st: Statement  # where it is listed (the bullet, the table row's key cell, the Status line)
    shape: str  # "bullet" | "table" | "file"
    line: int  # the record line to report (the Status line of a claim file)
    state: str | None  # its own state word (ACTIVE, DONE, paused -> PAUSED), if it states one
    since: str | None  # the newest date it names as updated (or claimed)
    ttl_days: float | None  # its own TTL
    rows: tuple[str, ...]  # the rows it names
    text: str  # its whole row or entry, for "says so itself"


def claims(ctx: LintContext) -> list[Claim]:
    """Every claim the records list (live ones only: history is not a listing), once per run."""
    found = ctx.facts.claims
    if isinstance(found, list):
        return found
    out: list[Claim] = []
    for rf in ctx.records:
        out.extend(_table_claims(ctx, rf))
        out.extend(_bullet_claims(ctx, rf))
        file_claim = _file_claim(ctx, rf)
        if file_claim is not None:
            out.append(file_claim)
    ctx.facts.claims = out
    return out


def claim_of(ctx: LintContext, st: Statement) -> str | None:
    """The claim a bullet is: its title's claim id (its own, not its section's)."""
    cid = st.defines or (st.row_id if st.kind != "item" or _titled(st, st.row_id) else None)
    return cid if cid and ctx.config.claim_re.fullmatch(cid) else None


def listed_active(st: Statement) -> bool:
    """Is the statement a bullet in a section that lists live claims?"""
    return st.kind == "item" and not st.historical and _claims_section(st)


def is_active(c: Claim, closed: frozenset[str]) -> bool:
    """Listed and not closed or on hold by its own state."""
    return c.state is None or (c.state not in closed and c.state not in _HELD)


def ttl_days(ctx: LintContext, c: Claim) -> tuple[float, str]:
    """(days, where it comes from): the claim's own TTL, the records' rule for claims, or the config."""
    if c.ttl_days is not None:
        return c.ttl_days, "its own TTL"
    rule = _records_ttl(ctx, c.st.path)
    if rule is not None:
        return rule
    return float(ctx.config.claims_ttl_days), "claims_ttl_days"


def closed_by(ctx: LintContext, c: Claim) -> Statement | None:
    """Another statement that records the claim closed (a claim file whose status is closed, a log entry
    "closed tokenizer-cache", "CLAIM-X ... Released, closed."), not older than the claim's own last update.
    History counts here: a log entry is exactly where a claim is closed."""
    closed = ctx.config.closed_state_set
    for record in claims(ctx):
        if record.key == c.key and record.st is not c.st and record.state in closed and not _older(record, c):
            return record.st
    is_id = ctx.config.claim_re.fullmatch(c.key) is not None
    near_id = _near(c.key)
    near = (
        None
        if is_id
        else re.compile(
            rf"(?i)\b{CLOSED.pattern}\W+(?:\w+\W+){{0,3}}?{re.escape(c.key)}(?![\w-])"
            rf"|(?<![\w-]){re.escape(c.key)}\W+(?:\w+\W+){{0,3}}?{CLOSED.pattern}"
        )
    )
    for other in _naming(ctx, c.key):  # most statements do not name the claim
        if other is c.st or (other.path, other.line) == (c.st.path, c.st.line) or listed_active(other):
            continue
        if is_id and claim_of(ctx, other) == c.key and _leads(other.text, c.key):
            hit = _CLAUSE_CLOSED.search(other.text) or near_id.search(other.text)
        elif is_id:
            hit = None
        else:
            assert near is not None
            hit = near.search(other.text)
        if hit and not _before(other, c.since):
            return other
    return None


def _naming(ctx: LintContext, key: str) -> list[Statement]:
    """The statements whose text holds `key`, in ctx.statements() order: found by searching every text joined
    once (a NUL between two, which no key holds, so no match spans two), where a substring test per statement per
    claim read every statement's text again for each claim."""
    index = ctx.facts.statement_texts
    if index is None:
        every = list(ctx.statements())
        starts = list(accumulate((len(st.text) + 1 for st in every), initial=0))
        index = ctx.facts.statement_texts = ("\0".join(st.text for st in every), starts, every)
    joined, starts, every = index
    if not key or "\0" in key:
        return [st for st in every if key in st.text]
    out = []
    at = joined.find(key)
    while at != -1:
        n = bisect_right(starts, at) - 1
        out.append(every[n])
        at = joined.find(key, starts[n + 1])  # on from the next statement's text
    return out


def _near(key: str) -> re.Pattern[str]:
    """A closing word within three words of `key`: "closed tokenizer-cache", "CLAIM-X — released"."""
    k = re.escape(key)
    return re.compile(
        rf"(?i){CLOSED.pattern}\W+(?:\w+\W+){{0,3}}?{k}(?![\w-])|(?<![\w-]){k}\W+(?:[\w-]+\W+){{0,3}}?"
        rf"{CLOSED.pattern}"
    )


def _leads(text: str, key: str) -> bool:
    """Does the entry start with `key` (after its date, time and owner)? "2026-03-05 17:35Z (wren) CLAIM-X: ..."."""
    return _LEAD.sub("", text, count=1).startswith(key)


def _older(other: Claim, c: Claim) -> bool:
    return bool(other.since and c.since and other.since < c.since)


def _before(st: Statement, since: str | None) -> bool:
    """Was `st` written before `since` (its leading or newest date is older)? Undated statements are not."""
    if since is None or not st.mentions.dates:
        return False
    return max(st.mentions.dates) < since


def _titled(st: Statement, cid: str | None) -> bool:
    """Does the item's title (before its first `: `, ` — `, `. `) name `cid`?"""
    if not cid:
        return False
    head = re.split(r": | — | – |\. ", st.text, maxsplit=1)[0]
    return cid in head


def _claims_section(st: Statement) -> bool:
    if not st.section:
        return False
    return _lists_claims(section_name(st))


@lru_cache(maxsize=1 << 12)
def _lists_claims(title: str) -> bool:
    """Does a section of this title list live claims? (Once per title: every bullet of a section asks.)"""
    name = re.sub(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\b", "", title)  # ids in a title are not its kind
    return bool(ACTIVE_SECTIONS.search(name)) and not PAST_SECTIONS.search(name)


def _bullet_claims(ctx: LintContext, rf: RecordFile) -> list[Claim]:
    out = []
    for st in rf.statements:
        cid = claim_of(ctx, st)
        if cid is None or not listed_active(st):
            continue
        state = "CLOSED" if CLOSED.search(st.text) else None  # "closed 2026-08-01" in its own text
        out.append(
            Claim(
                cid,
                st,
                "bullet",
                st.line,
                state,
                max(st.mentions.dates, default=None),
                None,
                tuple(i for i in st.mentions.ids if i != cid),
                st.text,
            )
        )
    return out


def _table_claims(ctx: LintContext, rf: RecordFile) -> list[Claim]:
    out: list[Claim] = []
    cfg = ctx.config
    vocabulary = cfg.state_set
    states = {c.lower() for c in cfg.state_columns}
    for table in rf.tables:
        if not table.rows or not _is_claims_table(ctx, table):
            continue
        heads = [h.strip().strip("*_`").lower() for h in table.headers]
        key_col = next((k for k, h in enumerate(heads) if h in _CLAIM_HEADERS), 0)
        state_col = next((k for k, h in enumerate(heads) if h in states), None)
        since_col = next((k for k, h in enumerate(heads) if h in _SINCE_HEADERS), None)
        start_col = next((k for k, h in enumerate(heads) if h in _START_HEADERS), None)
        ttl_col = next((k for k, h in enumerate(heads) if h in ("ttl", "expires", "expiry", "ttl (days)")), None)
        for row in table.rows:
            if key_col >= len(row) or row[key_col].historical:
                continue
            cell = row[key_col]
            key = cell.row_id if cell.row_id and cfg.claim_re.fullmatch(cell.row_id) else _name(cell.text)
            if not key:
                continue
            state = (
                leading_state(row[state_col].text, vocabulary)
                if state_col is not None and state_col < len(row)
                else None
            )
            since = _date_in(row, since_col) or _date_in(row, start_col)
            ttl = _ttl(row[ttl_col].text) if ttl_col is not None and ttl_col < len(row) else None
            rows = tuple(dict.fromkeys(i for c in row for i in c.mentions.ids if i != key))
            out.append(Claim(key, cell, "table", cell.line, state, since, ttl, rows, " | ".join(c.text for c in row)))
    return out


def _is_claims_table(ctx: LintContext, table: Table) -> bool:
    heads = {h.strip().strip("*_`").lower() for h in table.headers}
    if heads & _CLAIM_HEADERS:
        return True
    first = [row[0] for row in table.rows if row]
    return bool(first) and all(c.defines and ctx.config.claim_re.fullmatch(c.defines) for c in first)


def _file_claim(ctx: LintContext, rf: RecordFile) -> Claim | None:
    """A file that is one claim: under a claims/ folder or named after a claim id, with a Status line."""
    parts = rf.path.lower().split("/")
    stem = posixpath.splitext(posixpath.basename(rf.path))[0]
    if (
        "claims" not in parts[:-1]
        and "claim" not in parts[:-1]
        and not ctx.config.claim_re.fullmatch(stem)
        and not stem.lower().startswith("claim")
    ):
        return None
    if any(t.rows for t in rf.tables):
        return None  # a board of claims, read as a table
    fields: dict[str, tuple[str, Statement, int]] = {}
    for st in rf.statements:
        if st.kind not in ("paragraph", "item"):
            continue
        for n, raw in enumerate(st.raw.split("\n")):
            m = _KEY_VALUE.match(raw)
            if m:
                fields.setdefault(m.group(1).strip().lower(), (m.group(2), st, st.line + n))
    status = fields.get("status") or fields.get("state")
    if status is None:
        return None
    value, st, line = status
    title = next((s for s in rf.statements if s.kind == "heading"), None)
    key = (
        title.row_id
        if title is not None and title.row_id and ctx.config.claim_re.fullmatch(title.row_id)
        else stem
        if ctx.config.claim_re.fullmatch(stem)
        else None
    )
    if key is None:
        return None
    state = leading_state(value.strip("*_` "), ctx.config.state_set)
    since = None
    for name in ("last update", "last updated", "updated", "renewed", "claimed", "since", "opened"):
        if name in fields and (d := DATE_RE.search(fields[name][0])):
            since = d.group(1)
            break
    ttl = _ttl(fields["ttl"][0]) if "ttl" in fields else None
    rows = tuple(dict.fromkeys(i for s in rf.statements for i in s.mentions.ids if i != key))
    return Claim(key, st, "file", line, state, since, ttl, rows, value)


def _name(text: str) -> str | None:
    name = text.strip().strip("*_`").strip()
    return name if name and len(name) <= 60 and not any(ch.isspace() for ch in name) else None


def _date_in(row: tuple[Statement, ...], col: int | None) -> str | None:
    if col is None or col >= len(row):
        return None
    dates = row[col].mentions.dates
    return max(dates) if dates else None


def _ttl(text: str) -> float | None:
    m = _TTL.search(text)
    if not m:
        return None
    value, unit = float(m.group(1)), m.group(2).lower()
    return value / 24 if unit.startswith("h") else value * 7 if unit.startswith("w") else value


def _records_ttl(ctx: LintContext, path: str) -> tuple[float, str] | None:
    """A TTL for claims the records state: in the claim's own file first, then in any record."""
    by_file = _ttl_rules(ctx)
    own = by_file.get(path)
    if own is not None:
        return own
    return next((rule for p, rule in by_file.items() if p != path), None)


def _ttl_rules(ctx: LintContext) -> dict[str, tuple[float, str]]:
    """Each record's first rule for claims' TTL, in the records' order (once per run: a rule was looked for
    in every statement of every record once per claim)."""
    if ctx.facts.claim_ttl_rules is None:
        rules: dict[str, tuple[float, str]] = {}
        for rf in ctx.records:
            rule = _file_ttl(rf)
            if rule is not None and rf.path not in rules:
                rules[rf.path] = rule
        ctx.facts.claim_ttl_rules = rules
    return ctx.facts.claim_ttl_rules


def _file_ttl(rf: RecordFile) -> tuple[float, str] | None:
    for st in rf.statements:
        if "laim" not in st.text:
            continue
        m = _RECORD_TTL.search(st.text)
        if m:
            value = m.group(1) or m.group(3)
            unit = (m.group(2) or m.group(4)).lower()
            days = _ttl(f"{value} {unit}")
            if days is not None:
                return days, f"{st.path}:{st.line}"
    return None

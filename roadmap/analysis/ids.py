"""Which hyphenated capitals are ids: those the records define, and undefined ones only in a namespace the
records use.

`BIT-IDENTICAL`, `PRE-EXISTING`, `W3-ON` and `GLM-4-9B` look like ids and are words. A token is an id when a
record defines it (an id column cell, an id-led heading/item/log entry, a claim file), when a heading names it,
or when its prefix is a namespace of the records: a prefix of an id defined in an id column (`ID`, `Row`,
`Key`, ...), or of two ids at least one of which a table cell or a heading defines, or `CLAIM-` once any claim
is defined. With `id_patterns`/`claim_patterns` configured (not the defaults), every match is an id.
"""

from __future__ import annotations

import re
from functools import lru_cache

from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import IdVocabulary
from roadmap.config import DEFAULT_ID_PATTERN
from roadmap.history.git import GitError, run_git
from roadmap.records.loader import defined_ids
from roadmap.records.model import Statement

# The shape of an id mention: letter-initial upper-case parts joined by hyphens (`PORT-9`, `W3-H`, `ROAD-V1-C2`).
ID_SHAPE = re.compile(r"[A-Z](?<![\w./#@$-][A-Z])[A-Z0-9]*(?:-[A-Z0-9]+)+(?![\w/-])")


def prefix(token: str) -> str:
    return token.split("-", 1)[0]


def vocabulary(ctx: LintContext) -> IdVocabulary:
    """The ids of the records and the namespaces they use, computed once per run."""
    if ctx.facts.id_vocabulary is not None:
        return ctx.facts.id_vocabulary
    defined = defined_ids(ctx.records, ctx.config)
    id_columns = {c.lower() for c in ctx.config.id_columns}
    how: dict[str, list[tuple[str, str]]] = {}  # prefix -> (id, "column" | "table" | "heading" | "item")
    names: set[str] = set(defined)
    for token, st in defined.items():
        if st.kind == "cell" and not st.text.lstrip("`*_[( ").startswith(token):
            continue  # an id somewhere inside a cell (`the first CROSS-FAMILY build`) names no namespace
        kind = (
            ("column" if (st.column or "").strip().lower() in id_columns else "table")
            if st.kind == "cell"
            else "heading"
            if st.kind == "heading"
            else "item"
        )
        how.setdefault(prefix(token), []).append((token, kind))
    for rf in ctx.records:
        for table in rf.tables:
            if table.id_column is None:
                continue
            for row in table.rows:  # `PORT-1` in an ID column is an id, whatever the id pattern says
                cell = row[table.id_column] if table.id_column < len(row) else None
                m = ID_SHAPE.match(cell.text.strip()) if cell is not None else None
                if m and m.group(0) not in names and m.group(0).upper() not in ctx.config.state_set:
                    names.add(m.group(0))
                    how.setdefault(prefix(m.group(0)), []).append((m.group(0), "column"))
        for st in rf.statements:
            if st.kind == "heading":
                names.update(m.group(0) for m in ID_SHAPE.finditer(st.text))
        if "|" in rf.text:
            # a table row cut off from its header (a paragraph in between) still names its row in its first cell
            names.update(
                m.group(1) for m in _ORPHAN_ROW.finditer(rf.text) if m.group(1).upper() not in ctx.config.state_set
            )
    namespaces = {}
    for pre, found in how.items():
        kinds = {k for _, k in found}
        if "column" in kinds or (len({t for t, _ in found}) >= 2 and kinds & {"table", "heading"}):
            namespaces[pre] = sorted(found)[0][0]
    cfg = ctx.config
    vocab = IdVocabulary(
        defined=frozenset(names),
        namespaces=namespaces,
        configured=cfg.id_patterns != (DEFAULT_ID_PATTERN,),
        claims_used=any(cfg.claim_re.fullmatch(t) for t in defined),
        code_style=_code_style(ctx, frozenset(names)),
        parts=frozenset(p for t in names for p in _hyphen_prefixes(t)),
    )
    ctx.facts.id_vocabulary = vocab
    return vocab


def _hyphen_prefixes(token: str) -> list[str]:
    """`ROAD-V1-C2` -> ["ROAD-V1"]: the group names a defined id is built from."""
    parts = token.split("-")
    return ["-".join(parts[:i]) for i in range(2, len(parts))]


def in_code(raw: str, token: str) -> bool:
    """`token` is written inside a code span of the statement's markdown (the odd pieces between backticks)."""
    code = _code_text(raw)
    return code is not None and _has_whole(code, token)


@lru_cache(maxsize=4096)
def _code_text(raw: str) -> str | None:
    """The statement's code spans joined (None when it has none)."""
    if "`" not in raw:
        return None
    return "\n".join(raw.split("`")[1::2])


def _has_whole(text: str, token: str) -> bool:
    """`token` occurs in `text` as a whole token (no regex: records name thousands of distinct ids)."""
    i = text.find(token)
    while i >= 0:
        j = i + len(token)
        if (i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_-")) and (
            j == len(text) or not (text[j].isalnum() or text[j] in "_-")
        ):
            return True
        i = text.find(token, i + 1)
    return False


def _code_style(ctx: LintContext, defined: frozenset[str]) -> frozenset[str]:
    """Namespaces whose defined ids the records write as code (`KERNEL-ATTN-FA2`) at least 4 times in 5: in
    those, a bare `KERNEL-INTERNAL` is a word."""
    counts: dict[str, list[int]] = {}
    for rf in ctx.records:
        for st in rf.statements:
            if st.defines or "-" not in st.text:
                continue
            for m in ID_SHAPE.finditer(st.text):
                token = m.group(0)
                if token in defined:
                    c = counts.setdefault(prefix(token), [0, 0])
                    c[0 if in_code(st.raw, token) else 1] += 1
    return frozenset(p for p, (code, bare) in counts.items() if code + bare >= 10 and code >= 4 * bare)


_ORPHAN_ROW = re.compile(r"^[ \t]*\|[ \t]*(?:\*\*)?`?([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)`?(?:\*\*)?[ \t]*\|", re.M)
_RANGE = re.compile(r"([A-Z]+)\d+[A-Z]?-\1\d+[A-Z]?")  # W0-W7, B1-B7: a range of items, not one id
_ADJECTIVE = re.compile(
    r"-[A-Z]*(?:ED|ABLE|IBLE|IC|IVE|LESS|FUL|AL|WISE|ONLY|AWARE|BASED|AGNOSTIC|SENSITIVE|"
    r"FREE|SAFE|SPECIFIC|LEVEL|WIDE|TIME)$"
)
# `MODEL-BUILD time`, `FAST-PATH mode`: a compound word in capitals modifying a noun, not a row.
_MODIFIER = re.compile(
    r"\s+(?:time|mode|path|level|side|style|case|phase|stage|kind|type|flag|bug|check|build|"
    r"format|layout|flow|boundary|semantics|behaviou?r)\b"
)
_NOT_AN_ID_NOW = re.compile(
    r"\b(?:rejected|instead\s+of|formerly|former|renamed|retired|dropped|removed|deleted|"
    r"superseded|no\s+longer|hypothetical|would\s+be)\b",
    re.I,
)
_CAPS_WORD = re.compile(r"[A-Z][A-Z0-9]+")


def undefined_ids(ctx: LintContext, st: Statement) -> list[str]:
    """Ids `st` names that no record defines: in a namespace the records use, written as ids are written there
    (in code when the team writes its ids as code), and not a word in upper case for emphasis (`MODEL-AGNOSTIC`,
    a line in capitals), a range (`W0-W7`), a glob (`BACKEND-CUDA-SM*`) or a part of a defined id (`ROAD-V1` of
    `ROAD-V1-A`, phase `-W3` of `ENG-ASYNC-SCHED`)."""
    out: list[str] = []
    text = st.text
    if "-" not in text:
        return out
    vocab = vocabulary(ctx)
    for m in ID_SHAPE.finditer(text):
        token = m.group(0)
        if token in vocab.defined or token in out or not vocab.is_id(token, ctx.config):
            continue
        if _RANGE.fullmatch(token) or text[m.end() : m.end() + 1] == "*" or token in vocab.parts:
            continue
        head, _, tail = token.rpartition("-")
        if head in vocab.defined and re.fullmatch(r"[A-Z]?\d+[A-Z]?", tail):
            continue
        clause = _clause(text, m.start(), m.end())
        if ctx.config.claim_re.fullmatch(token) and _RELEASED.search(clause):
            continue  # "`CLAIM-X` is released", "(2026-07-24, CLAIM-X, DONE)": a claim's history
        if _NOT_AN_ID_NOW.search(clause):
            continue  # "(Rejected `ENG-X` as primary ...)", "formerly `ROW-A`": the record knows it is not one
        if not ctx.config.claim_re.fullmatch(token) and not in_code(st.raw, token):
            if (
                prefix(token) in vocab.code_style
                or _ADJECTIVE.search(token)
                or _shouting(text, m.start(), m.end())
                or _MODIFIER.match(text, m.end())
            ):
                continue
        out.append(token)
    return out


_RELEASED = re.compile(
    r"\b(?:released|releases|release|closed|done|completed|complete|landed|finished|retired|"
    r"expired|dropped|abandoned|superseded|was|were)\b",
    re.I,
)


def _clause(text: str, start: int, end: int) -> str:
    """The clause around text[start:end], up to the nearest sentence ends."""
    lo = max(text.rfind(". ", 0, start), text.rfind("; ", 0, start), text.rfind("|", 0, start))
    his = [i for i in (text.find(". ", end), text.find("; ", end), text.find("|", end)) if i >= 0]
    return text[lo + 1 : min(his) if his else len(text)]


def _shouting(text: str, start: int, end: int) -> bool:
    """The words on either side are in capitals too: emphasis ("THE GAP IS KERNEL-INTERNAL"), not an id."""
    before = text[max(0, start - 40) : start].split()
    after = text[end : end + 40].split()
    near = [w.strip("*_()[],.;:!?'\"`") for w in (before[-1:] + after[:1])]
    return any(_CAPS_WORD.fullmatch(w) is not None and not any(c.isdigit() for c in w) for w in near)


def row_tag(ctx: LintContext, st: Statement) -> str | None:
    """The statement's row id for a finding, only when it is an id: a word like `BIT-IDENTICAL` that led an
    item is not shown as a row."""
    row = st.row_id
    if row is None:
        return None
    return row if vocabulary(ctx).is_id(row, ctx.config) else None


_HEX = re.compile(r"\b[0-9a-f]{7,40}\b")


def named_in_history(ctx: LintContext) -> frozenset[str]:
    """Every id-shaped or hex token some commit message on the linted history names (a claim released and removed
    from the table, a sha a later commit says it replaced: history, not typos): one `git log` over messages."""
    if ctx.facts.ids_in_messages is not None:
        return ctx.facts.ids_in_messages
    found: set[str] = set()
    if ctx.history is not None:
        texts = [f"{c.subject}\n{c.body}" for c in ctx.history.commits]
    elif ctx.head:
        try:
            out = run_git(ctx.root, "log", "--no-ext-diff", "--format=%B", "--end-of-options", ctx.head, "--")
            texts = [out.decode("utf-8", "replace")]
        except GitError:
            texts = []
    else:
        texts = []
    for text in texts:
        found.update(m.group(0) for m in ID_SHAPE.finditer(text))
        found.update(m.group(0) for m in _HEX.finditer(text))
    ctx.facts.ids_in_messages = frozenset(found)
    return ctx.facts.ids_in_messages

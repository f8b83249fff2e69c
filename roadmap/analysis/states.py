"""Row states as the records write them, shared by RL401, RL403 and the coordination report.

A state is read from three places, case-insensitively, and only from its leading word (records/state_words.py):
- a cell of a `State`/`Status`/`Lifecycle` column (config `state_columns`), for the row's id, or for a row
  without an id, its name in the first column (`| Compression | done | ... |`);
- a `State:` or `Status:` line of a statement that belongs to a row (`State: in progress. Owner: lena.` in a
  row's notes file, `**Row:** `X` · **status:** `ACTIVE``);
- a heading or bullet written `ID — STATE (@owner): ...` (known words only: the rest of a title is prose).
History (logs, closed specs, struck text) is not read. A word the vocabulary lacks is kept as unknown, for
RL403. Words a record defines in a lifecycle table (a State column beside a Meaning column) or in a legend
(`**plated** — merged and playable`, analysis/state_legends.py) are known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from roadmap.analysis.context import LintContext
from roadmap.analysis.refs import fenced_lines
from roadmap.analysis.state_legends import legend_states
from roadmap.records.loader import defined_ids
from roadmap.records.model import RecordFile, Statement, Table
from roadmap.records.state_words import leading_state, leading_word, norm

# Cell texts that hold no directive, though they sit in a directive column.
EMPTY_CELL = {"", "-", "—", "–", "n/a", "na", "none", "nothing", "(none)", "tbd?"}

# Open states that mean the same stage of work: two files that say WIP and "in progress" agree.
GROUPS = {
    "not started": frozenset(
        {"PLANNED", "TODO", "TO-DO", "BACKLOG", "NOT-STARTED", "READY", "PROPOSED", "DRAFT", "QUEUED", "PENDING", "NEW"}
    ),
    "in progress": frozenset(
        {
            "ACTIVE",
            "IN-PROGRESS",
            "WIP",
            "DOING",
            "STARTED",
            "ONGOING",
            "IN-REVIEW",
            "REVIEW",
            "PARTIAL",
            "SPIKE",
            "CLAIMED",
            "GATING",
        }
    ),
    "on hold": frozenset({"BLOCKED", "PARKED", "PAUSED", "ON-HOLD", "DEFERRED", "WAITING"}),
}
GENERIC_OPEN = "OPEN"  # agrees with every state that is not closed
# `State: x` at the start of a line (after list/emphasis markup) or after a `·`/`|` separator on it.
_STATE_KEY = re.compile(
    r"(?:^[\s>*+\-\d.)]*|[·|]\s*)[*_]{0,2}(?:state|status|lifecycle)[*_]{0,2}\s*:[*_]{0,2}\s*"
    r"(\S[^\n·|;]*)",
    re.I,
)
_ROW_KEY = re.compile(
    r"(?:^[\s>*+\-\d.)]*|[·|]\s*)[*_]{0,2}(?:row(?: id)?|item)[*_]{0,2}\s*:[*_]{0,2}\s*`?"
    r"([^\s`*,;·|]+)",
    re.I,
)
_SEPARATOR = re.compile(r"^\s*(?:—|–|-|:|\()\s*")
_MEANING = re.compile(r"^(?:meaning|description|definition|means|what it means|when)$", re.I)
_MARKUP = re.compile(r"[*_`~]")
_LEADING_IDS = re.compile(
    r"^[\s*_`]*(?:[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+[\s*_`,]*)+"
)  # "`ENG-X` closed; ..." -> "closed; ..."
# A record that says it is the truth for the states it lists ("This table is the source of truth for row state",
# "This is the canonical inventory", "Status: canonical", a title like "Roadmap (canonical states)").
_SELF_CANONICAL = re.compile(
    r"\bthis (?:file|table|document|doc|page|matrix|list|record|inventory|board|roadmap)? ?is "
    r"(?:the |our )?(?:single |only |one )?(?:canonical|authoritative|source of truth)\b"
    r"|^\W*status\W*:\W*canonical\b|\((?:the )?canonical\b"
    # a preamble that opens by naming what the file is: "Canonical tracker.", "The single source of truth for ..."
    r"|^\W*(?:the |our )?(?:single |one )?(?:canonical|authoritative) (?:tracker|record|list|status|board|roadmap|"
    r"table|file|register|inventory|matrix)\b|^\W*(?:the |our )?(?:single |one )?source of truth\b",
    re.I,
)


def declares_canonical(rf: RecordFile) -> bool:
    """Does the record say, before its first section, that it is the canonical record of its states?"""
    for st in rf.statements[:8]:
        if len(st.section) > 1 or st.historical:
            break
        if _SELF_CANONICAL.search(st.text):
            return True
    return False


@dataclass(frozen=True)
class StateCell:
    row_id: str  # the row id, or `<column>:<name>` for a row keyed by its name (no id column)
    state: str  # the known state word, normalised (IN-PROGRESS)
    cell: Statement  # where it is written
    canonical: bool  # in a canonical-state file (config `canonical_states`, or it says it is canonical)
    line: int = 0  # the record line of the state itself (a State: line inside a longer statement)
    home: bool = False  # in the row that defines the id in its table's ID column: the row's own record

    @property
    def where(self) -> int:
        return self.line or self.cell.line


@dataclass(frozen=True)
class UnknownState:
    word: str  # the label as written, normalised
    st: Statement
    line: int


@dataclass(frozen=True)
class States:
    cells: list[StateCell]  # row states (a claim's state is read by analysis/claims.py)
    unknown: list[UnknownState]
    vocabulary: frozenset[str]  # known words: config `states` plus those a record defines
    closed: frozenset[str]  # config `closed_states` plus legend words that mean a closed state
    canonical: dict[str, StateCell]  # row id -> its state in its canonical file
    closed_directives: list[tuple[Statement, StateCell]]  # open directives on a closed row, with that state
    meanings: dict[str, str] = field(default_factory=dict)  # a legend's own word -> the known state it means
    row_words: dict[int, tuple[str, bool]] = field(default_factory=dict)  # id(cell) -> its table row's state word

    @cached_property
    def closed_rows(self) -> dict[int, StateCell]:
        """id(directive) -> the closed state of its row."""
        return {id(st): ref for st, ref in self.closed_directives}


def states(ctx: LintContext) -> States:
    """Every state the records write, once per run."""
    found = ctx.facts.states
    if isinstance(found, States):
        return found
    cfg = ctx.config
    defined = _defined_words(ctx)
    meanings = legend_states(ctx.records, cfg.state_set | defined, cfg.closed_state_set)
    vocabulary = cfg.state_set | defined | meanings.keys()
    closed = cfg.closed_state_set | {w for w, s in meanings.items() if s in cfg.closed_state_set}
    columns = {c.lower() for c in cfg.state_columns}
    ids = frozenset(defined_ids(ctx.records, cfg))
    cells: list[StateCell] = []
    unknown: list[UnknownState] = []
    row_words: dict[int, tuple[str, bool]] = {}
    for rf in ctx.records:
        in_canonical = cfg.is_canonical(rf.path) or declares_canonical(rf)
        fences = fenced_lines(rf)
        for table in rf.tables:
            if table.line in fences or _defines_words(table, columns):
                continue
            _table_states(table, columns, vocabulary, in_canonical, cells, unknown, ids, row_words)
        _line_states(rf, fences, vocabulary, in_canonical, cells, unknown, ids)
    rows = [c for c in cells if c.row_id and not cfg.claim_re.fullmatch(c.row_id)]
    canonical: dict[str, StateCell] = {}
    for sc in sorted((c for c in rows if c.canonical), key=lambda c: (not c.home, c.cell.path, c.where)):
        canonical.setdefault(sc.row_id, sc)
    result = States(
        rows,
        unknown,
        frozenset(vocabulary),
        closed,
        canonical,
        _closed_directives(ctx, rows, canonical, closed),
        meanings,
        row_words,
    )
    ctx.facts.states = result
    return result


def row_state(ctx: LintContext, st: Statement) -> tuple[str, bool] | None:
    """The state written in the State/Status column of the table row of cell `st`, and whether it is a word of
    the vocabulary (else the label's first word, as written in capitals); None when `st` is no cell of a row with
    one. Rows keyed by their name count too: which row it is does not matter here, only what it says of itself."""
    return states(ctx).row_words.get(id(st))


def _closed_directives(
    ctx: LintContext, rows: list[StateCell], canonical: dict[str, StateCell], closed: frozenset[str]
) -> list[tuple[Statement, StateCell]]:
    """Open directives on a closed row: in the row's own table row, or anywhere for a canonical row."""
    out: list[tuple[Statement, StateCell]] = []
    seen: set[int] = set()
    by_cell = {id(c.cell): c for c in rows if c.state in closed}
    for rf in ctx.records:
        fences = fenced_lines(rf)
        for table in rf.tables:
            for row in table.rows:
                own = next((by_cell[id(c)] for c in row if id(c) in by_cell), None)
                if own is None:
                    continue
                for st in row:
                    if _open_directive(st, fences, closed) and id(st) not in seen:
                        seen.add(id(st))
                        out.append((st, own))
        for st in rf.statements:
            ref = canonical.get(st.row_id or "")
            # the directive names the row itself: one that only sits under a heading naming it may be newer work
            if (
                ref is not None
                and ref.state in closed
                and id(st) not in seen
                and _open_directive(st, fences, closed)
                and (st.defines == ref.row_id or ref.row_id in st.mentions.ids)
            ):
                seen.add(id(st))
                out.append((st, ref))
    return out


def _open_directive(st: Statement, fences: frozenset[int], closed: frozenset[str]) -> bool:
    """A directive still asking for work: not empty, and not a note that its work closed (`X closed; ...`)."""
    text = st.directive_text or st.text
    if not st.directive or st.historical or st.line in fences or text.strip().strip("*_`").lower() in EMPTY_CELL:
        return False
    rest = _LEADING_IDS.sub("", text, count=1)
    return leading_state(rest, closed) is None


def state_cells(ctx: LintContext) -> list[StateCell]:
    return states(ctx).cells


def group_of(state: str, closed: frozenset[str], meanings: dict[str, str] | None = None) -> str:
    """The stage a state is at: "closed", one of GROUPS, "open" (OPEN) or the word itself (a configured word).
    A legend's own word is at the stage of the state its meaning names (`meanings`)."""
    if state in closed:
        return "closed"
    state = (meanings or {}).get(state, state)
    if state in closed:
        return "closed"
    if state == GENERIC_OPEN:
        return "open"
    return next((g for g, words in GROUPS.items() if state in words), state)


def disagree(a: str, b: str, closed: frozenset[str], meanings: dict[str, str] | None = None) -> str | None:
    """ "error" when one state is closed and the other is not, "warning" when two open states are at different
    stages (planned vs in progress vs on hold), None when they agree."""
    ga, gb = group_of(a, closed, meanings), group_of(b, closed, meanings)
    if ga == gb:
        return None
    if "closed" in (ga, gb):
        return "error"
    if "open" in (ga, gb):
        return None
    return "warning"


def row_key(table: Table, cells: tuple[Statement, ...], state_col: int) -> str | None:
    """A table row's key: the id the row defines, else `<first column>:<name>` when the first column names the
    row. A row that only mentions an id, or sits under a heading that names one, is not that id's row."""
    for c in cells:
        if c.defines:
            return c.defines
    col = table.id_column if table.id_column is not None else 0
    if col == state_col or col >= len(cells) or any(c.row_id for c in cells):
        return None
    name = " ".join(_MARKUP.sub("", cells[col].text).lower().split())
    if not name or len(name) > 60 or (table.id_column is None and not any(ch.isalpha() for ch in name)):
        return None
    return f"{_MARKUP.sub('', table.headers[col]).strip().lower()}:{name}"


MIN_KNOWN_FOR_IDLESS = 2  # known state words a column of id-less rows must hold before its other words count


def _table_states(
    table: Table,
    columns: set[str],
    vocabulary: frozenset[str],
    canonical: bool,
    cells: list[StateCell],
    unknown: list[UnknownState],
    ids: frozenset[str],
    row_words: dict[int, tuple[str, bool]],
) -> None:
    for k, header in enumerate(table.headers):
        if _MARKUP.sub("", header).strip().lower() not in columns:
            continue
        known_rows = 0
        idless: list[UnknownState] = []  # unknown words of rows without an id: kept if the column holds states
        for row in table.rows:
            if k >= len(row) or row[k].historical:
                continue
            known = leading_state(row[k].text, vocabulary)
            word = known or _unknown_word(row[k].text, ids)
            if word:  # what every row says of itself, keyed by name or id or neither (row_state)
                row_words.update((id(c), (word, known is not None)) for c in row)
            known_rows += known is not None
            key = row_key(table, row, k)
            if key is None:
                if not known and not row[k].row_id and (word := _label_word(row[k].text, ids)):
                    idless.append(UnknownState(word, row[k], row[k].line))
                continue
            cell = row[k]
            state = known
            if state:
                home = (
                    table.id_column is not None and table.id_column < len(row) and row[table.id_column].defines == key
                )
                cells.append(StateCell(key, state, cell, canonical, home=home))
            elif cell.row_id and (word := _unknown_word(cell.text, ids)):  # rows with an id: a table of work
                unknown.append(UnknownState(word, cell, cell.line))
            elif not cell.row_id and (word := _label_word(cell.text, ids)):
                idless.append(UnknownState(word, cell, cell.line))
        # A table of work without an id column (`| Tarea | Responsable | Estado |`): its column is a state column
        # when at least two rows say a state roadmap knows; an HTTP `| Code | Status |` table says none.
        if known_rows >= MIN_KNOWN_FOR_IDLESS:
            unknown.extend(idless)
        return


def _line_states(
    rf: RecordFile,
    fences: frozenset[int],
    vocabulary: frozenset[str],
    canonical: bool,
    cells: list[StateCell],
    unknown: list[UnknownState],
    ids: frozenset[str],
) -> None:
    for st in rf.statements:
        if st.kind == "cell" or st.historical or st.line in fences:
            continue
        lead = _title_state(st, vocabulary)
        if lead:
            cells.append(StateCell(st.row_id or "", lead, st, canonical, st.line))
            continue
        if "tat" not in st.raw and "ycle" not in st.raw:  # cheap: no State:/Status:/Lifecycle: here
            continue
        for n, raw in enumerate(st.raw.split("\n")):
            m = _STATE_KEY.search(raw)
            if not m:
                continue
            subject = _subject(st, raw)
            if subject is None:
                break
            value = _MARKUP.sub("", m.group(1))
            state = leading_state(value, vocabulary)
            if state:
                cells.append(StateCell(subject, state, st, canonical, st.line + n))
            elif (word := _unknown_word(value, ids)) is not None:
                unknown.append(UnknownState(word, st, st.line + n))
            break


_TOTALS = frozenset({"total", "totals", "sum", "subtotal", "overall", "all"})


def _label_word(text: str, ids: frozenset[str]) -> str | None:
    """An id-less row's state cell as a label: one or two words, no sentence ("available (measured this spike)"
    is a note), and no totals row."""
    plain = _MARKUP.sub("", text).strip()
    if not plain or len(plain.split()) > 2 or "(" in plain:
        return None
    word = _unknown_word(plain, ids)
    return None if word is None or word.lower() in _TOTALS else word


def _unknown_word(text: str, ids: frozenset[str]) -> str | None:
    """A one-word label that is not a row id (`BACKEND-PLATFORM (landed)` names a row, not a state)."""
    word = leading_word(text, words=1)
    if word is None or text.lstrip(" \t*_`[(").split()[0].strip("*_`.,;:()[]") in ids:
        return None
    return word


def _subject(st: Statement, raw: str) -> str | None:
    """The row a State:/Status: line is about: a `Row: X` on the same line, else the statement's row."""
    m = _ROW_KEY.search(raw)
    if m and m.group(1).strip("`*") in st.mentions.ids:
        return m.group(1).strip("`*")
    return st.row_id


def _title_state(st: Statement, vocabulary: frozenset[str]) -> str | None:
    """`FW-OTA — WIP (@jo): ...`: a heading or item that starts with its row's id, then a known state."""
    if st.kind not in ("item", "heading") or not st.row_id:
        return None
    at = st.text.find(st.row_id)
    if at < 0 or at > 12:
        return None
    rest = st.text[at + len(st.row_id) :]
    sep = _SEPARATOR.match(rest)
    if not sep:
        return None
    value = rest[sep.end() :]
    state = leading_state(value, vocabulary)
    if state is None or leading_word(value) is None and not _emoji_only(value):
        return None
    return state


def _emoji_only(value: str) -> bool:
    return bool(value.strip()) and not value.strip()[0].isalnum()


def _defined_words(ctx: LintContext) -> set[str]:
    """State words a record defines: the labels of a lifecycle table (a State column beside a Meaning one)."""
    columns = {c.lower() for c in ctx.config.state_columns}
    out: set[str] = set()
    for rf in ctx.records:
        for table in rf.tables:
            if _defines_words(table, columns):
                k = next(i for i, h in enumerate(table.headers) if _MARKUP.sub("", h).strip().lower() in columns)
                out.update(w for row in table.rows if k < len(row) for w in [leading_word(row[k].text)] if w)
    return out


def _defines_words(table: Table, columns: set[str]) -> bool:
    """A table that defines state words: a State column of bare labels beside a Meaning/Description column."""
    heads = [_MARKUP.sub("", h).strip().lower() for h in table.headers]
    if not any(h in columns for h in heads) or not any(_MEANING.match(h) for h in heads) or not table.rows:
        return False
    k = next(i for i, h in enumerate(heads) if h in columns)
    labels = [leading_word(row[k].text) for row in table.rows if k < len(row)]
    return all(lbl is not None and norm(row[k].text.strip(" `*_")) == lbl for lbl, row in zip(labels, table.rows))

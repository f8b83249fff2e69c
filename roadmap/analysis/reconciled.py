"""Has the record already reconciled a landing itself? Then its earlier plan text is history, not stale.

A spec is often written as a plan and then kept as a chronological record: its status header turns to "LANDED,
DEFAULT-ON", a later dated section ("## L7 result (2026-07-23)", "## 2026-07-17 — DEFAULT FLIPPED ON") or a
"What actually landed" section says what the commit did. The plan bullets above stay as they were written, on
purpose. A finding there sends a person to fix what the record already says.

The same file reconciles a landing when
- its status header (the status line, the preamble, or a first section whose title carries a landed state in
  capitals) says the work landed, or a section after the statement is titled as a result, an addendum, as what
  landed, or with a date (leading or not) that is not older than the statement's own entry's; or, in a log kept
  newest first, a section above it belongs to a newer entry ("## Übergabe 12.03.2026" above "## Übergabe
  05.03.2026"), less the to-dos that entry leaves open; and
- that block records the commit the finding names: its id, or most of the words of its subject (RL101; a newer
  entry instead reports the to-do done, in the to-do's own words and some of the subject's, by a closed-state word
  of any language that it does not deny, "erledigt am 09.03." and not "noch nicht erledigt", or under a label that
  says so, "Erledigt seit der letzten Übergabe:"); or the switch the statement calls opt-in together with a flip
  to on (RL104).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import NamedTuple

from roadmap.analysis.context import LintContext
from roadmap.analysis.landing import MIN_TWIN_COVER_PLAIN, MIN_TWIN_SHARED, done_terms
from roadmap.analysis.work import terms_of
from roadmap.history.commit import Commit
from roadmap.records.kinds import leading_date, title_of, trailing_date
from roadmap.records.model import Statement
from roadmap.records.still_open import still_open

# A state that says the work is in, as a header writes it (in capitals: "landed" in prose is often a plan's verb).
_LANDED_STATE = re.compile(
    r"\b(?:LANDED|DONE|COMPLETED?|SHIPPED|MERGED|RESOLVED|IMPLEMENTED|DEFAULT[- ]ON|FLIPPED(?: ON)?)\b"
)
# A section that records what happened after the plan.
_RESULT_TITLE = re.compile(
    r"\bresults?\b|\bwhat (?:actually )?(?:landed|shipped|changed|was (?:built|done))\b|\bcompletion record\b|"
    r"\bas (?:landed|built|shipped)\b|\bimplementation notes\b|\boutcome\b|\baddend(?:um|a)\b",
    re.I,
)
_FLIP = re.compile(
    r"\bdefault\s+(?:flipped\s+|is\s+now\s+|now\s+|turned\s+)?on\b|\bflipped\s+(?:to\s+)?(?:default[- ])?on\b|"
    r"\bon\s+by\s+default\b|\bdefault-on\b|\benabled\s+by\s+default\b",
    re.I,
)
# A title that carries its date anywhere ("Addendum 2026-07-19 (CLAIM-X)", "Rerun — 2026-07-23") records that day.
_DATED = re.compile(r"(?<![\d-])20\d\d-[01]\d-[0-3]\d(?![\d-])")
_HEX = re.compile(r"(?<![\w-])[0-9a-f]{7,40}(?![\w-])")
MIN_SUBJECT_TERMS = 3  # a subject of fewer words is too short to recognise in other words
MIN_SUBJECT_COVER = 0.6  # share of the commit subject's work terms the block says


class _Block(NamedTuple):
    line: int
    title: str
    members: list[Statement]
    # for an entry of a log kept newest first, above the statement and dated after its own: what it reports done
    done: list[Statement] | None = None


def _blocks(ctx: LintContext, st: Statement) -> Iterator[_Block]:
    """Each block of `st`'s file that records what happened: the status header, every section after `st` titled
    as a result, as what landed, or with a date (no older than `st`'s own entry), and every section above `st`
    that belongs to a newer entry of a log kept newest first, less what that entry leaves open."""
    rf = ctx.record(st.path)
    if rf is None:
        return
    sections: dict[tuple[str, ...], list[Statement]] = {}
    for other in rf.statements:
        if other is not st:
            sections.setdefault(other.section, []).append(other)
    header: list[Statement] = []
    first_section: tuple[str, ...] | None = None
    for key, members in sections.items():
        if len(key) <= 1:
            header.extend(m for m in members if m.kind != "heading" or len(m.section) == 0)
        elif first_section is None:
            first_section = key[:2]
    status = [m for m in header if _LANDED_STATE.search(m.text)]
    if status and st.section[:1] and len(st.section) > 1:
        yield _Block(status[0].line, "status header", status)
    if first_section is not None and st.section[:2] != first_section and _LANDED_STATE.search(first_section[1]):
        members = [m for key, ms in sections.items() if key[:2] == first_section for m in ms]
        if members and min(m.line for m in members) < st.line:
            yield _Block(members[0].line, title_of(first_section[1]), members)
    own = _date_of(st.section)
    closed = _closed_word(ctx.config.closed_states)
    for key, members in sections.items():
        if len(key) <= 1 or key == st.section[: len(key)]:
            continue
        title = title_of(key[-1])
        dated = _date_of(key)
        if own is not None and dated is not None and dated < own:
            continue  # an older entry, wherever the log puts it
        titled = _RESULT_TITLE.search(title) or _title_date(title) or _LANDED_STATE.search(title)
        if titled and (later := [m for m in members if m.line > st.line]):
            yield _Block(later[0].line, title, later)
        elif own is not None and dated is not None and dated > own and all(m.line < st.line for m in members):
            kept, done = _reported(members, closed)
            if kept:
                yield _Block(kept[0].line, title, kept, done)


def _reported(members: list[Statement], closed: re.Pattern[str]) -> tuple[list[Statement], list[Statement]]:
    """(what an entry does not leave open, what it reports done): its statements less its to-dos and what it calls
    open or not done; of those, each that says done in a closed-state word, or an item under a label that does
    ("Erledigt seit der letzten Übergabe:")."""
    kept: list[Statement] = []
    done: list[Statement] = []
    label: bool | None = None
    for m in members:
        said = _done_said(m.text, closed)
        if m.kind != "item":
            label = said if m.text.rstrip().endswith(":") else None
        elif said is None and label:
            said = True
        if said or said is None and not m.directive:
            kept.append(m)
        if said:
            done.append(m)
    return kept, done


def _title_date(title: str) -> str | None:
    m = _DATED.search(title)
    return leading_date(title) or trailing_date(title) or (m.group(0) if m else None)


@lru_cache(maxsize=4096)
def _date_of(section: tuple[str, ...]) -> str | None:
    """The date of the innermost heading of `section` titled with one ("### Offen" under "## Übergabe 12.03.2026");
    the file's title is no entry of it."""
    return next((d for t in reversed(section[1:]) if (d := _title_date(title_of(t)))), None)


def _says_commit(members: list[Statement], commit: Commit) -> bool:
    text = " ".join(m.text for m in members)
    if _names_commit(text, commit):
        return True
    subject = terms_of(commit.subject)
    if len(subject) < MIN_SUBJECT_TERMS:
        return False
    said = subject & terms_of(text)
    return len(said) >= MIN_SUBJECT_TERMS and len(said) >= MIN_SUBJECT_COVER * len(subject)


def _names_commit(text: str, commit: Commit) -> bool:
    return any(commit.sha.startswith(h) for h in _HEX.findall(text))


@lru_cache(maxsize=16)
def _closed_word(closed: tuple[str, ...]) -> re.Pattern[str]:
    """The configured closed states as words of prose, any case, a hyphen also a space: "done", "Erledigt"."""
    words = sorted({re.escape(w.lower()).replace("\\-", "[- ]") for w in closed}, key=len, reverse=True)
    return re.compile(rf"(?<![\w-])(?:{'|'.join(words)})(?![\w-])", re.I)


# "not done", "nicht erledigt", "pas fait", "no hecho", "noch nicht fertig": a closed word denied
_DENIED = re.compile(r"\b(?:not|nicht|no|não|nao|pas|non|nie|never|yet|kein\w*)\s+(?:\w+\s+)?$", re.I)


def _done_said(text: str, closed: re.Pattern[str]) -> bool | None:
    """True where a closed-state word says the work is done ("erledigt am 09.03."); False where the text says it is
    not: the word denied ("noch nicht erledigt", "not done yet", "todavía no está hecho") or something "still open"
    ("A erledigt, B noch offen"); None where it says neither."""
    if still_open(text, [text]):
        return False
    hit = closed.search(text)
    if hit is None:
        return None
    return _DENIED.search(text[: hit.start()]) is None


def _done_twin(m: Statement, commit: Commit, todo: frozenset[str], closed: re.Pattern[str]) -> bool:
    """A statement a newer entry reports done ("Block-Jacobi statt ILU(0) im Druck-PCG: erledigt am 09.03. (...)")
    is the to-do's (`todo`, its terms): it names little the to-do does not, analysis/landing.py's bar for a done
    mark, once its trailing note and its closed-state word are set aside; and it names the commit's work too."""
    said = done_terms(m) - terms_of(" ".join(closed.findall(m.text)))
    shared = todo & said
    return (
        len(shared) >= MIN_TWIN_SHARED
        and len(shared) >= MIN_TWIN_COVER_PLAIN * len(said)
        and len(terms_of(commit.subject) & said) >= MIN_SUBJECT_TERMS
    )


def landing_reconciled(ctx: LintContext, st: Statement, commit: Commit) -> str | None:
    """Where `st`'s own file records that `commit` landed, as a clause for messages; None when it does not. A newer
    entry of a log kept newest first says it by the commit's id or by reporting the to-do itself done: the words of
    the subject it may repeat for other reasons ("the cache is in review")."""
    closed = _closed_word(ctx.config.closed_states)
    todo = terms_of(st.directive_text or st.text)
    for block in _blocks(ctx, st):
        if block.done is None:
            hit = _says_commit(block.members, commit)
        else:
            text = " ".join(m.text for m in block.members)
            hit = _names_commit(text, commit) or any(_done_twin(m, commit, todo, closed) for m in block.done)
        if hit:
            return f"its {block.title!r} at line {block.line} records {commit.short}"
    return None


def _flag_words(flag: str) -> frozenset[str]:
    """`VT_GGUF_KEEP_F16` -> {gguf, keep, f16}: the words a record writes the switch with (`keep-f16`)."""
    return frozenset(w for w in re.split(r"[^a-z0-9]+", flag.lower()) if len(w) > 2)


def flip_reconciled(ctx: LintContext, st: Statement, flags: list[str]) -> str | None:
    """Where `st`'s own file records that one of `flags` (or, with none, the statement's feature) was turned on by
    default after it: a header or later section that names the switch and says it is on."""
    wanted = [w for w in (_flag_words(f) for f in flags) if w]
    for _, title, members, _ in _blocks(ctx, st):
        title_flips = bool(_FLIP.search(title))
        for m in members:
            words = frozenset(re.split(r"[^a-z0-9]+", m.text.lower()))
            if any(w <= words for w in wanted) and (title_flips or _FLIP.search(m.text)):
                return f"its {title!r} at line {m.line} records the flip"
    return None

"""RL401 state-contradiction."""

from __future__ import annotations

import re
from typing import Iterator

from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import News, Reason
from roadmap.analysis.stale import analyse, hits_for
from roadmap.analysis.work import sentences
from roadmap.analysis.states import StateCell, disagree, row_state, states
from roadmap.findings import Hit, Related
from roadmap.history.git import GitError
from roadmap.records.model import Statement


def state_contradiction(ctx: LintContext) -> Iterator[Hit]:
    """What it does:
    Compares every row's state with the row's state in its canonical file (`canonical_states`, by default
    the roadmap and development-matrix files under the record folders). A state is the leading word of a
    `State`/`Status`/`Lifecycle` cell, of a `State:`/`Status:` line, or of a title written
    `ID — STATE (@owner)`; a row without an id column is keyed by its name in the first column. A closed
    state (`closed_states`, such as DONE) against an open one is an error; two open states at different
    stages (planned, in progress, on hold: WIP and "in progress" agree) are a warning. A row whose state is
    closed but which still has an open directive (in its own table row, or anywhere for a canonical row)
    is a warning; so is the other way round, a table row whose remaining work landed (RL101) in a commit that
    says the work is finished while its State/Status cell is still open (an open state of the vocabulary, or a
    label written as ongoing, such as Soaking). History is not read: logs, closed specs and struck text keep
    the states they had.

    Why:
    When two files disagree about a row, at least one of them is wrong, and the reader cannot tell which
    without archaeology. Open directives on a closed row send people to do work that is finished.

    Example:
    ```markdown
    - FW-OTA — WIP (@jo): delta apply works on rev C.   <- agents/sprint/2026-w22.md
    | FW-OTA | Delta OTA updates over BLE | DONE | — |  <- agents/ROADMAP.md (canonical)
    ```
    `FW-OTA is WIP here but DONE in agents/ROADMAP.md:7 (canonical)`.

    Fix:
    Make the non-canonical file agree with the canonical state (or change the canonical state if that is
    what moved). For a closed row, strike through or delete its remaining directives, or reopen the row.
    """
    found = states(ctx)
    closed = found.closed
    for sc in found.cells:
        ref = found.canonical.get(sc.row_id)
        if ref is None or sc.cell is ref.cell:
            continue
        severity = disagree(sc.state, ref.state, closed, found.meanings)
        if severity is None:
            continue
        name = _name(sc.row_id)
        yield Hit(
            severity=severity,
            message=f"{name} is {sc.state} here but {ref.state} in {ref.cell.path}:{ref.where} (canonical)",
            path=sc.cell.path,
            line=sc.where,
            end_line=sc.where if sc.line else sc.cell.end_line,
            record_id=sc.row_id if name == sc.row_id else None,
            related=[Related(ref.cell.path, ref.where, f"canonical state of {name}: {ref.state}")],
            evidence=[{"kind": "statement", "path": ref.cell.path, "line": ref.where, "text": ref.cell.text}],
            fix=f"change the state here to {ref.state}, or update the canonical row if the state really changed",
            key=f"state:{sc.row_id}:{sc.state}:{ref.state}",
        )
    grouped: set[int] = set()
    if ctx.head is not None and any(d.code == "RL401" for d in ctx.detectors):
        try:
            grouped = {id(st) for g in analyse(ctx) for st in g.surfaces}
        except GitError:
            grouped = set()
        else:
            yield from hits_for(ctx, "RL401")
    for st, ref in found.closed_directives:  # those the stale analysis could not date (uncommitted, no git)
        if id(st) not in grouped:
            yield _closed_hit(st, ref)


def applies(st: Statement) -> bool:
    return st.directive and not st.historical


def detect(ctx: LintContext, st: Statement, news: News) -> Reason | None:
    """The closed-row reason of a stale directive: its row is closed, in its own table row or canonically. Or the
    other way round: the row's remaining work landed in a commit that says the work is finished, while the row's
    state is still an open one."""
    ref = states(ctx).closed_rows.get(id(st))
    if ref is None:
        return _finished_but_open(ctx, st)
    return Reason(
        "RL401",
        "warning",
        f"is still open while {_name(ref.row_id)} is {ref.state} in {ref.cell.path}:{ref.where}",
        "strike through or delete the directive (the row is closed), or reopen the row",
        statements=[(ref.cell, f"{_name(ref.row_id)} is {ref.state}")],
    )


def _closed_hit(st: Statement, ref: StateCell) -> Hit:
    text = " ".join((st.directive_text or st.text).split())
    short = text if len(text) <= 80 else text[:77] + "..."
    name = _name(ref.row_id)
    return Hit(
        severity="warning",
        message=f'{name} is {ref.state} in {ref.cell.path}:{ref.where}, but this directive is still open: "{short}"',
        path=st.path,
        line=st.line,
        end_line=st.end_line,
        record_id=ref.row_id if name == ref.row_id else None,
        related=[]
        if (st.path, st.line) == (ref.cell.path, ref.where)
        else [Related(ref.cell.path, ref.where, f"{name} is {ref.state}")],
        fix="strike through or delete the directive (the row is closed), or reopen the row",
        key=f"closed-directive:{ref.row_id}:{text[:200]}",
    )


def _name(key: str) -> str:
    """A row's name for messages: its id, or the name a row without an id is keyed by (`feature:compression`)."""
    return f"'{key.split(':', 1)[1]}'" if ":" in key else key


# A commit that says a whole piece of work is over: "The PG13 -> PG15 upgrade is finished", "migration complete",
# "this completes the cut-over" (not "is not finished yet", read per sentence).
_FINISHED = re.compile(
    r"\b(?:is|are|was|were|now|fully|all)\s+(?:now\s+|fully\s+|all\s+|officially\s+)?"
    r"(?:finished|complete|completed|done|over|wrapped\s+up)\b|"
    r"\b(?:migration|upgrade|rollout|roll-out|cut-?over|move|switch|project|workstream)\s+(?:is\s+)?"
    r"(?:finished|complete|completed|done)\b|"
    r"\b(?:this\s+)?(?:finishes|completes|concludes|wraps\s+up|closes\s+out)\s+(?:the|our|this)\b",
    re.I,
)
_NEGATED = re.compile(r"\bnot\b|n't\b|\byet\b|\bnearly\b|\balmost\b|\bonce\b|\bwhen\b|\bafter\b", re.I)


def says_finished(message: str) -> bool:
    """Does some sentence of the message say a piece of work is finished (and not that it will be, or is not)?"""
    return any(_FINISHED.search(s) is not None and _NEGATED.search(s) is None for s in sentences(message))


def _finished_but_open(ctx: LintContext, st: Statement) -> Reason | None:
    """A directive cell of a table row whose work landed (RL101, tested first) in a commit saying the work is
    finished, while the row's State/Status cell holds an open state: a known word that is not closed, or a word
    outside the vocabulary written as ongoing ("Soaking", "Baking": an -ing form)."""
    landed = ctx.facts.landed.get(id(st))
    if landed is None or not landed.commits or st.kind != "cell":
        return None
    found = row_state(ctx, st)
    if found is None:
        return None
    word, known = found
    closed = states(ctx).closed
    if (known and word in closed) or (not known and not _ONGOING.fullmatch(word)):
        return None
    commit = landed.commits[0][0]
    if not says_finished(commit.message):
        return None
    return Reason(
        "RL401",
        "warning",
        f"leaves its row {word} while {commit.short} says that work is finished",
        f"set the row's state to a closed one (the work landed in {commit.short}), or write what is left",
        commits=[(commit, "finished")],
    )


_ONGOING = re.compile(r"[A-Za-z]{3,}ING", re.I)  # an unknown state written as ongoing: SOAKING, BAKING, CANARYING

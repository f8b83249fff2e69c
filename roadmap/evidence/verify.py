"""The evidence validator: every problem with one entry, worded once for RL501 and `roadmap evidence verify`.

The entry's own problems (unreadable or invalid JSON, the schema in docs/evidence-schema.json, a name dated
unlike `created`) were found when the store loaded it; this adds what needs the repository: the commit it
measured must be on the history checked, and the tree must have been clean. Only evidence that declares a
schema of ours promises those fields; another team's evidence is checked for nothing but parsing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable, Protocol

from roadmap.evidence.store import EvidenceEntry
from roadmap.history.git import GitError, run_git

_SHA40 = re.compile(r"[0-9a-f]{40}")
_LINE = re.compile(r"\(line (\d+) column \d+")


@dataclass(frozen=True)
class EvidenceProblem:
    message: str
    severity: str = "error"  # a dirty tree alone is a warning
    line: int = 1  # the line of result.json it is on, when known (JSON syntax errors)


def checked(entry: EvidenceEntry) -> bool:
    """Has the entry anything to validate? Ours (it declares our schema) or JSON that does not parse; foreign
    evidence that parses is read for its date, series and numbers, never validated."""
    return entry.declared is not None or bool(entry.problems)


def where(entry: EvidenceEntry) -> str:
    """The file the entry's problems are in: its result.json, else the entry itself."""
    return entry.result_path or entry.path


class History(Protocol):
    """The history evidence commits are checked against (roadmap.history.index.HistoryIndex is one)."""

    @property
    def head(self) -> str: ...

    def contains(self, sha: str) -> bool: ...


class RevHistory:
    """The commits of one revision's history, read with one `git rev-list` on first use."""

    def __init__(self, root: Path, rev: str = "HEAD"):
        self.root = root
        self.rev = rev

    @cached_property
    def _shas(self) -> tuple[str, ...]:
        try:
            out = run_git(self.root, "rev-list", "--end-of-options", self.rev)
        except GitError as exc:
            why = str(exc).splitlines()[0]
            raise GitError(
                f"cannot read the history of {self.rev} to check the commits the evidence names ({why}); "
                f"run it in a clone that has {self.rev}, or commit first"
            ) from None
        return tuple(out.decode().split())

    @property
    def head(self) -> str:
        return self._shas[0] if self._shas else self.rev

    def contains(self, sha: str) -> bool:
        return sha in self._set

    @cached_property
    def _set(self) -> frozenset[str]:
        return frozenset(self._shas)


def verify_entry(entry: EvidenceEntry, history: Callable[[], History], rev: str) -> list[EvidenceProblem]:
    """Every problem with `entry`, in order; [] when valid. `history()` gives the history its commit must be on
    (asked only when the entry names one; it raises GitError when git cannot read it, which the caller reports
    once); `rev` names that history as the user knows it ("HEAD", or `--at REV`)."""
    prefix = where(entry) + ": "
    problems = [EvidenceProblem(p.removeprefix(prefix), line=_line(p)) for p in entry.problems]
    if entry.declared is None:
        return problems
    if entry.commit and _SHA40.fullmatch(entry.commit) and not (hist := history()).contains(entry.commit):
        problems.append(
            EvidenceProblem(
                f"commit {entry.commit[:12]} is not on the history of {hist.head[:9]} (not "
                f"on {rev}'s history: measured on an unmerged or rewritten branch?)"
            )
        )
    if entry.dirty:
        problems.append(
            EvidenceProblem(
                "taken on a dirty tree (dirty: true): the measured code is not a commit", severity="warning"
            )
        )
    return problems


def severity(problems: list[EvidenceProblem]) -> str:
    return "error" if any(p.severity == "error" for p in problems) else "warning"


def _line(problem: str) -> int:
    m = _LINE.search(problem)
    return int(m.group(1)) if m else 1

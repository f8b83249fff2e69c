"""Which commits of the history a later commit of the same history reverted: their work did not land.

A revert is read from the message the history pass already has:
- git's own form: `This reverts commit <sha>.` (subject `Revert "<original subject>"`), whatever the subject;
- a conventional-commit `revert:` / `revert(scope):` subject, or a `Revert "..."` one, whose message says
  "reverts <sha>" ("This reverts 996b5a5's engine changes");
- git's `Revert "<subject>"` whose message names no sha (edited away): the one older commit of that subject (or,
  for a quote cut short, the one whose subject starts with it).
A reverted merge takes out the commits it brought in. The sha may be abbreviated; it must resolve to exactly one
commit older than the revert (one that resolves to nothing, or to several, is ignored). A revert of a revert
re-lands the original: a commit is reverted when some revert of it is not itself reverted. Computed once per run,
newest first, so each revert's own fate is known before the commits it reverts are looked at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from roadmap.history.commit import Commit
from roadmap.history.index import AmbiguousShaError, HistoryIndex

# git's boilerplate, written by `git revert` itself: a revert whatever its subject says
_GIT_BODY = re.compile(r"\bThis reverts commit ([0-9a-fA-F]{7,40})\b")
# a subject that says the commit is a revert: git's `Revert "..."`, conventional `revert:` / `revert(scope)!:`
_REVERT_SUBJECT = re.compile(r'^\s*(?:Revert\s+["“]|revert(?:\([^)]*\))?!?\s*:)', re.I)
# ... and where such a commit names what it reverts: "reverts 996b5a5", "This reverts commit `996b5a5`'s ..."
_REVERTS_SHA = re.compile(r"\brevert(?:s|ed|ing)?\s+(?:commits?\s+)?[`'\"(]?([0-9a-fA-F]{7,40})\b", re.I)
# git's subject, when the message names no sha ("This reverts the MoE device-chaining."): the original's subject
_GIT_SUBJECT = re.compile(r'^Revert "(.+)"$')
MIN_QUOTED_PREFIX = 24  # a quote cut short names its commit by its start only when that start is this long


@dataclass(frozen=True)
class Reverts:
    reverted: frozenset[str]  # shas whose work a later revert (itself standing) took out
    reverts: frozenset[str]  # shas of the revert commits themselves (they undo work, they do none)

    def undone(self, commit: Commit) -> bool:
        """Is this commit no landing: reverted by a later commit, or a revert itself?"""
        return commit.sha in self.reverted or commit.sha in self.reverts


def reverted_shas(commit: Commit) -> list[str]:
    """The (possibly abbreviated) shas a commit's message says it reverts; none for a commit that is no revert."""
    found = _GIT_BODY.findall(commit.body)
    if _REVERT_SUBJECT.search(commit.subject):
        found += _REVERTS_SHA.findall(commit.message)
    return list(dict.fromkeys(s.lower() for s in found))


def find_reverts(history: HistoryIndex) -> Reverts:
    """Every revert of the history, and what it reverted (newest first: a revert's own fate first)."""
    targets: dict[str, list[str]] = {}  # reverted sha -> the reverts of it
    subjects: dict[str, list[Commit]] | None = None
    for commit in history.commits:
        shas = reverted_shas(commit)
        found: list[Commit] = []
        for short in shas:
            try:
                target = history.by_sha(short)
            except AmbiguousShaError:
                continue
            if target is not None:
                found.append(target)
        if not shas and (m := _GIT_SUBJECT.match(commit.subject.strip())):
            if subjects is None:  # built on the first such revert only
                subjects = {}
                for c in history.commits:
                    subjects.setdefault(c.subject.strip(), []).append(c)
            quoted = m.group(1).strip()
            older = [c for c in subjects.get(quoted, ()) if history.rank(c) < history.rank(commit)]
            if not older and len(quoted) >= MIN_QUOTED_PREFIX:  # a quote cut short: the subject it starts
                older = [
                    c
                    for subject, cs in subjects.items()
                    if subject.startswith(quoted)
                    for c in cs
                    if history.rank(c) < history.rank(commit)
                ]
            found = older if len(older) == 1 else []  # one commit of that subject before it, or none is sure
        for target in found:
            if target.sha != commit.sha and history.rank(target) < history.rank(commit):
                # a merge reverted (`git revert -m 1`) takes out the work of the branch it brought in
                for sha in {target.sha, *(history.merged_in(target) if target.is_merge else ())}:
                    targets.setdefault(sha, []).append(commit.sha)
    # A commit whose subject says it is a revert undoes work and does none, even when what it reverted cannot be
    # told ("revert(engine): the search was slower", the sha left out): its words describe the work it took out.
    said = frozenset(c.sha for c in history.commits if _REVERT_SUBJECT.search(c.subject))
    if not targets:
        return Reverts(frozenset(), said)
    reverted: set[str] = set()
    for commit in history.commits:  # newest first: every revert of a commit is newer than it
        if any(r not in reverted for r in targets.get(commit.sha, ())):
            reverted.add(commit.sha)
    reverting = frozenset(r for rs in targets.values() for r in rs) | said
    return Reverts(frozenset(reverted), reverting)

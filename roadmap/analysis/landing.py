"""Did the work a directive asks for land? The facts RL101 and the surfaces grouping share.

- the work terms of a directive (analysis/work.py) without the parts of its own ids;
- the history's work-term weights and postings, once per run;
- the statements the records themselves mark done ("✅ CSV export streams rows", "- [x] ...", a row whose
  state is closed): an open directive whose work another record already calls done is stale on arrival,
  whatever the history says;
- the commit that wrote a statement (git blame), which never counts as the commit that did its work.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from roadmap.analysis.asof import newest_blame
from roadmap.analysis.context import LintContext, uncounted_pathspecs
from roadmap.analysis.reverts import Reverts, find_reverts
from roadmap.analysis.surfaces import subject_ids
from roadmap.analysis.work import WorkWeights, terms_of
from roadmap.history.commit import Commit
from roadmap.history.declared import declared_names
from roadmap.history.git import GitError, run_git, show_patch
from roadmap.records.model import Statement

# A line the records write as done: a ticked box, a check mark, or a leading "Done"/"Landed"/"Shipped".
_DONE_MARK = re.compile(
    r"^\s*(?:[-*+]|\d+[.)])?\s*\[[xX]\]|[✅✔☑]|^\s*(?:[-*+]\s*)?(?:\*\*)?(?:done|landed|shipped|merged|"
    r"completed?|fixed|resolved)\b(?:\*\*)?\s*[:—–-]",
    re.I,
)
_OPEN_MARK = re.compile(r"[🚧⏳❌⬜]|\[ \]")
# Files that document rather than build: a commit that changes only these did not build anything.
_DOC_PATH = re.compile(
    r"(?:^|/)(?:docs?|documentation|\.?agents?)/|\.(?:md|markdown|rst|txt|adoc)$|"
    r"(?:^|/)(?:README|CHANGELOG|CHANGES|LICENSE|NOTICE|AUTHORS|CONTRIBUTING)[^/]*$",
    re.I,
)
_DOC_WORK = re.compile(
    r"^\W*(?:document|describe|explain|write\s+(?:up|down|docs?)|note|record|publish)\b|"
    r"\b(?:readme|docs?|documentation|guide|changelog|runbook|how-?to)\b",
    re.I,
)
# An example, template or skill's sample output says "[x] done" of work in another project, not this one's.
_EXAMPLE_PATH = re.compile(r"(?:^|/)(?:examples?|samples?|templates?|skills|fixtures)/", re.I)
MIN_TWIN_SHARED = 3  # two shared words ('e2e', 'spec') are a topic, not the same piece of work
MIN_TWIN_TERMS = 3  # a done statement of fewer terms is a label or a figure, not a piece of work
# The cells of a closed row that say what its work was (not its figures, owners or evidence).
_WORK_COLUMN = re.compile(
    r"capabilit|title|item|feature|task|descri|work|what|scope|deliverable|change|summary|goal|"
    r"outcome|name|area|topic|remedia|mitigat|action|finding|\bfix\b|\bbug\b|\bissue\b|request",
    re.I,
)
MIN_TWIN_COVER = 0.7  # share of the done statement's (IDF-weighted) terms the directive names
MIN_TWIN_COVER_PLAIN = 0.75  # and of its terms counted plainly: a done item naming one thing more is other work


def work_weights(ctx: LintContext) -> WorkWeights:
    if ctx.facts.work_weights is None:
        ctx.facts.work_weights = WorkWeights.of(ctx.get_history().commits)
    return ctx.facts.work_weights


def reverts(ctx: LintContext) -> Reverts:
    """The history's reverts and the commits they took out (once per run): neither landed any work."""
    if ctx.facts.reverts is None:
        ctx.facts.reverts = find_reverts(ctx.get_history())
    return ctx.facts.reverts


def written_by(ctx: LintContext, st: Statement) -> str | None:
    """The commit that last wrote the statement's lines (None when blame cannot tell)."""
    return newest_blame(ctx, st.path, st.line, st.end_line)


def changed_paths(ctx: LintContext, commits: list[Commit]) -> dict[str, tuple[str, ...]]:
    """The paths each commit changed (one `git log --no-walk` for every commit not asked about before)."""
    cache = ctx.facts.changed_paths
    todo = [c.sha for c in commits if c.sha not in cache]
    if todo:
        try:
            out = run_git(
                ctx.root,
                "log",
                "--no-walk=unsorted",
                "--stdin",
                "--name-only",
                "--no-renames",
                "--format=%x00%H",
                input=("\n".join(todo) + "\n").encode(),
            )
        except GitError:
            out = b""
        for chunk in out.decode("utf-8", "replace").split("\0")[1:]:
            sha, _, names = chunk.partition("\n")
            cache[sha.strip()] = tuple(n for n in names.split("\n") if n.strip())
        for sha in todo:
            cache.setdefault(sha, ())
    return {c.sha: cache[c.sha] for c in commits}


def declared_terms(ctx: LintContext, commit: Commit) -> frozenset[str]:
    """The work terms of the names a commit declares in the code it adds (`func continues(line string)` ->
    continu); nothing for a commit that builds nothing. From the history pass's patch text; a `git show` only
    for a commit that pass did not read."""
    cache = ctx.facts.declared_terms
    if commit.sha not in cache:
        names: frozenset[str] = frozenset()
        if not builds_nothing(changed_paths(ctx, [commit])[commit.sha]):
            found = ctx.get_history().declared_names(commit.sha)  # read in the history pass, or cached with it
            names = found if found is not None else _shown_names(ctx, commit)
        cache[commit.sha] = terms_of(" ".join(sorted(names)))
    return cache[commit.sha]


def _shown_names(ctx: LintContext, commit: Commit) -> frozenset[str]:
    """declared_names of `git show` (a commit the history pass has no patch text for: a merge, a huge or unreadable
    diff, a history limited to some paths), in the files the history pass counts."""
    out = show_patch(ctx.root, commit.sha, ".", *uncounted_pathspecs(ctx.config))
    return declared_names(out)


def path_commits(ctx: LintContext) -> dict[str, set[str]]:
    """path -> the commits of the linted history that changed it (one `git log --name-only` pass, no diffs);
    also fills every commit's changed paths."""
    if ctx.facts.path_commits is None:
        out: dict[str, set[str]] = {}
        cache = ctx.facts.changed_paths
        try:
            raw = run_git(
                ctx.root,
                "log",
                "--name-only",
                "--no-renames",
                "--format=%x00%H",
                "--end-of-options",
                ctx.get_history().head,
            )
        except GitError:
            raw = b""
        for chunk in raw.decode("utf-8", "replace").split("\0")[1:]:
            sha, _, names = chunk.partition("\n")
            sha = sha.strip()
            paths = tuple(n for n in names.split("\n") if n.strip())
            cache[sha] = paths
            for p in paths:
                out.setdefault(p, set()).add(sha)
        ctx.facts.path_commits = out
    return ctx.facts.path_commits


def builds_nothing(paths: tuple[str, ...]) -> bool:
    """Did a commit change only documentation and records (no code, no config, no tests)?"""
    return bool(paths) and all(_DOC_PATH.search(p) for p in paths)


# A commit that says it changes nothing a user sees: "No behaviour change", "refactor only", "cosmetic".
_NO_BEHAVIOUR = re.compile(
    r"\bno\s+(?:functional|behaviou?r(?:al)?|user[- ]visible|runtime|logic)\s+changes?\b|\b(?:pure|purely|only\s+a|just\s+a)"
    r"\s+(?:refactor\w*|rename|cosmetic\w*|formatting)\b|\brefactor(?:ing)?\s+only\b|\bcosmetic\s+only\b",
    re.I,
)
# ... which can do only work that is itself such a change.
_STYLE_WORK = re.compile(
    r"\b(?:refactor|rename|clean\s*up|cleanup|tidy|restructur|reformat|style|cosmetic|polish|simplif)", re.I
)


def changes_no_behaviour(message: str, st: Statement) -> bool:
    """Does the commit say it changes no behaviour while the directive asks for a behaviour (a fix, a feature)?"""
    return _says_no_behaviour(message) and not _STYLE_WORK.search(st.directive_text or st.text)


@lru_cache(maxsize=1 << 15)
def _says_no_behaviour(message: str) -> bool:
    """Once per commit message: RL101 asks it of every candidate commit of every directive."""
    return _NO_BEHAVIOUR.search(message) is not None


def asks_documentation(st: Statement) -> bool:
    return bool(_DOC_WORK.search(st.directive_text or st.text))


def is_done(st: Statement, closed_rows: set[tuple[str, int]]) -> bool:
    """Does the record write this statement as done work (a ticked box, a check mark, a closed row)?"""
    if st.kind == "cell":
        return (st.path, st.line) in closed_rows and bool(_WORK_COLUMN.search(st.column or ""))
    raw = st.raw.strip()
    return bool(_DONE_MARK.search(raw)) and not _OPEN_MARK.search(raw)


def _closed_rows(ctx: LintContext) -> set[tuple[str, int]]:
    """(record path, line) of every row whose state is closed: a row is one line, whichever table holds it (a row
    index alone would match row 0 of every other table in the file)."""
    closed = {s.upper() for s in ctx.config.closed_states}
    out: set[tuple[str, int]] = set()
    for rf in ctx.records:
        for table in rf.tables:
            col = table.column(*ctx.config.state_columns)
            if col is None:
                continue
            for row in table.rows:
                if col < len(row):
                    words = row[col].text.strip().split()
                    if words and words[0].strip("*_`.,;:").upper() in closed:
                        out.update((c.path, c.line) for c in row)
    return out


# What a done mark adds after the work, in parentheses at its end: when or where it landed ("(merged this morning)",
# "(PR #54)", "(2026-06-18)"). A note about the mark, not more work.
_MARK_NOTE = re.compile(r"\s*\([^()]*\)[\s✅✔☑.]*$")


def done_terms(st: Statement) -> frozenset[str]:
    """The work terms of a statement the records mark done, without the note its mark ends with."""
    text = st.directive_text or st.text
    for i in subject_ids(st):
        text = text.replace(i, " ")
    return terms_of(_MARK_NOTE.sub(" ", text))


def done_statements(ctx: LintContext) -> dict[str, list[tuple[Statement, frozenset[str]]]]:
    """work term -> the statements the records mark done that have it (with their terms)."""
    if ctx.facts.done_statements is None:
        closed = _closed_rows(ctx)
        index: dict[str, list[tuple[Statement, frozenset[str]]]] = {}
        for st in ctx.statements():
            if is_done(st, closed) and len(t := done_terms(st)) >= MIN_TWIN_TERMS and not _EXAMPLE_PATH.search(st.path):
                for term in t:
                    index.setdefault(term, []).append((st, t))
        ctx.facts.done_statements = index
    return ctx.facts.done_statements


def may_have_twin(ctx: LintContext, terms: frozenset[str]) -> bool:
    """Can done_twin find a twin for these terms at all? A twin shares MIN_TWIN_SHARED terms with them, each
    one a key of the done-statement index: fewer keys among the terms rule every twin out, before anything
    about the directive (the commit that wrote it) is worked out."""
    if len(terms) < MIN_TWIN_SHARED:
        return False
    index = done_statements(ctx)
    return sum(t in index for t in terms) >= MIN_TWIN_SHARED


def done_twin(
    ctx: LintContext, st: Statement, terms: frozenset[str], accept: Callable[[Statement], bool] | None = None
) -> Statement | None:
    """A statement the records mark done whose work is this directive's: it names nothing the directive does
    not (by IDF weight), and shares at least two terms with it. The directive's own table row is no twin, nor a
    statement `accept` refuses."""
    if len(terms) < MIN_TWIN_SHARED:
        return None
    weights = work_weights(ctx)
    ids = subject_ids(st)
    best: tuple[float, Statement] | None = None
    index = done_statements(ctx)
    pool = {id(o): (o, t) for term in sorted(terms) for o, t in index.get(term, ())}  # one order every run
    for other, t in pool.values():
        if ids and (other_ids := subject_ids(other)) and not (ids & other_ids):
            continue  # another row's done work
        if other is st or (
            other.kind == "cell" and st.kind == "cell" and other.path == st.path and other.table_row == st.table_row
        ):
            continue
        shared = terms & t
        if len(shared) < MIN_TWIN_SHARED or len(shared) < MIN_TWIN_COVER_PLAIN * len(t):
            continue
        cover = weights.idf_sum(shared) / (weights.idf_sum(t) or 1.0)  # exact sums: the same float in any set order
        if cover >= MIN_TWIN_COVER and (best is None or cover > best[0]) and (accept is None or accept(other)):
            best = (cover, other)
    return best[1] if best else None

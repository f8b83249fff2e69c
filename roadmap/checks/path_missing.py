"""RL301 path-missing."""
from __future__ import annotations

import difflib
import posixpath
from typing import Any, Iterator

from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import RefSite
from roadmap.analysis.refs import anchored, looks_like_file, path_refs, quote, resolve
from roadmap.findings import Hit
from roadmap.history.git import GitError
from roadmap.history.paths import PathFate, PathFates


def fates(ctx: LintContext) -> PathFates | None:
    """Deletions/renames on the linted revision's ancestry, loaded once, only when a path is missing."""
    if not ctx.facts.path_fates_loaded:
        ctx.facts.path_fates_loaded = True
        if ctx.head:
            try:
                ctx.facts.path_fates = PathFates.load(ctx.root, ctx.head, ctx.tree.exists)
            except GitError:
                ctx.facts.path_fates = None   # unknown history: still report the path, without when/where
    return ctx.facts.path_fates


def find_fate(pf: PathFates | None, candidates: tuple[str, ...]) -> PathFate | None:
    if pf is None:
        return None
    for cand in candidates:
        fate = pf.fate(cand)
        if fate is not None:
            return fate
    return None


def close_match(ctx: LintContext, path: str) -> str | None:
    """An existing path that is one typo away (same directory depth), for "did you mean"."""
    cache = ctx.facts.close_matches
    if path not in cache:
        by_depth = ctx.facts.paths_by_depth
        if by_depth is None:
            by_depth = ctx.facts.paths_by_depth = {}
            for p in (*ctx.tree.files, *ctx.tree.dirs):
                by_depth.setdefault(p.count("/"), []).append(p)
        # only similar lengths can reach the cutoff; keeps difflib off most of a big tree
        pool = [p for p in by_depth.get(path.count("/"), ()) if abs(len(p) - len(path)) <= max(2, len(path) // 8)]
        hits = difflib.get_close_matches(path, pool, n=1, cutoff=0.88)
        cache[path] = hits[0] if hits else None
    return cache[path]


def _dir_known(ctx: LintContext, path: str) -> bool:
    """Its directory exists in this repository (so the path is meant to be ours)."""
    parent = posixpath.dirname(path)
    return parent == "" or ctx.tree.is_dir(parent)


def path_missing(ctx: LintContext) -> Iterator[Hit]:
    """What it does:
    Flags a file or directory reference (`path`, `path:line`, `path#L10`, `[text](path)`, `path::Symbol`) that
    does not exist in the linted tree. When git history shows the path was deleted or renamed, the message
    says so, with the commit (sha, date) and where it went.

    Why:
    A record that points at a file that is gone sends the next reader on a search, and usually means the
    statement itself went stale with the code it described.

    Example:
    ```markdown
    The scheduler lives in `engine/sched.py:40-80`.
    ```
    after `engine/sched.py` was renamed to `engine/core/scheduler.py`:
    `engine/sched.py:40-80 does not exist: renamed to engine/core/scheduler.py in 1a2b3c4d5 (2026-07-27, ...)`.

    Fix:
    Point the reference at the new path (and re-check the lines), or drop it if the thing is gone.
    Paths in fenced code blocks, URLs, absolute/`~` paths, paths outside the repository and struck-through
    or historical text are never flagged; a bare path to a file that never existed is flagged only when an
    existing path is one typo away (planned files are normal in a roadmap).
    """
    evidence_root = ctx.config.evidence.root.strip("/")
    for site in path_refs(ctx):
        ref = site.ref
        res = resolve(ctx, ref, site.rf.path)
        if res.path is not None or res.ambiguous or not res.candidates:
            continue
        if evidence_root and res.candidates[0].startswith(evidence_root + "/") and site.st.mentions.evidence:
            continue   # an evidence name: RL304 reports it
        if not anchored(ref) and (ref.form == "bare" and "/" not in ref.path.strip("/")):
            continue   # a bare file name in prose ("edit pyproject.toml") is not a located reference
        if not anchored(ref) and not looks_like_file(ref.path) and not (ref.text or ref.path).endswith("/"):
            continue
        finding = _finding(ctx, site, res.candidates)
        if finding is not None:
            yield finding


def _finding(ctx: LintContext, site: RefSite, candidates: tuple[str, ...]) -> Hit | None:
    ref = site.ref
    fate = find_fate(fates(ctx), candidates)
    main = candidates[0]
    severity = "error"
    fix: str
    evidence: list[dict[str, Any]] = []
    if fate is not None:
        how = fate.describe()
        evidence.append({"kind": "commit", "sha": fate.sha, "date": fate.date, "subject": fate.subject})
        if fate.kind == "renamed" and fate.to and fate.to_exists:
            fix = f"point the reference at {fate.to}" + (" and re-check the line numbers" if ref.line else "")
        else:
            fix = "drop the reference or point it at what replaced it"
    else:
        guess = close_match(ctx, main)
        if not anchored(ref):
            if guess is None or site.st.directive:
                return None   # never existed and nothing close: most likely a file still to be written
            severity = "warning"
        elif guess is None and not _dir_known(ctx, main):
            return None       # a directory this repository never had: another repository's file
        pf = fates(ctx)
        how = "no commit on this branch's history deleted or renamed it" if pf and pf.complete else \
            "history is shallow or unreadable, so whether it ever existed is unknown"
        if guess:
            how += f"; did you mean {guess}?"
        fix = f"correct the path to {guess}" if guess else "correct the path or drop the reference"
    return Hit(
        severity=severity, message=f"{quote(ref)} does not exist: {how}", path=site.rf.path, line=site.line,
        end_line=site.line, record_id=site.st.row_id, evidence=evidence, fix=fix, key=f"{ref.path}")

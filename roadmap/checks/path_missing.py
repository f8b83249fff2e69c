"""RL301 path-missing."""

from __future__ import annotations

import posixpath
from typing import Any, Iterator

from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import RefSite
from roadmap.analysis.ids import row_tag
from roadmap.analysis.gone import acknowledged_gone, removal_planned
from roadmap.analysis.refs import anchored, is_foreign, looks_like_file, path_refs, quote, resolve
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
                ctx.facts.path_fates = None  # unknown history: still report the path, without when/where
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
    """An existing file or directory beside `path` whose name is one letter away (`src/kep.py` -> `src/kept.py`):
    a typo, not a file still to be written (`dlq.ts` is not a typo of `index.ts`, nor `model2.py` of `model1.py`)."""
    cache = ctx.facts.close_matches
    if path not in cache:
        by_depth = ctx.facts.paths_by_depth
        if by_depth is None:
            by_depth = ctx.facts.paths_by_depth = {}
            for p in (*ctx.tree.files, *ctx.tree.dirs):
                by_depth.setdefault(p.count("/"), []).append(p)
        parent, _, name = path.rpartition("/")
        hits = [
            p
            for p in by_depth.get(path.count("/"), ())
            if p.rpartition("/")[0] == parent and _one_letter_apart(name, p.rpartition("/")[2])
        ]
        cache[path] = hits[0] if len(hits) == 1 else None
    return cache[path]


def _one_letter_apart(a: str, b: str) -> bool:
    """One letter inserted, deleted or replaced (digits are versions, not typos)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        rest_equal, diff = a[i + 1 :] == b[i + 1 :], a[i] + b[i]
    elif len(a) > len(b):
        rest_equal, diff = a[i + 1 :] == b[i:], a[i]
    else:
        rest_equal, diff = a[i:] == b[i + 1 :], b[i]
    return rest_equal and diff.isalpha()


def path_missing(ctx: LintContext) -> Iterator[Hit]:
    """What it does:
    Flags a file or directory reference (`path`, `path:line`, `path#L10`, `[text](path)`, `path::Symbol`) that
    existed in this repository and no longer exists in the linted tree: the message says whether it was deleted
    or renamed, with the commit (sha, date) and where it went.

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
    Only references that are ours are checked: a path in an Upstream/Reference column, after "upstream" or
    another project's name (`in vLLM`, `llama.cpp's`), pinned with `@ <sha>`, or under a configured `external`
    root is another project's. A path that never existed here is a file still to be written or another
    project's, so it is flagged only when a file beside it is one letter away and the path is written once (a
    typo, as a warning). In a shallow clone, where deleted and never-written cannot be told apart, a located
    reference into a directory of ours is reported as information. Paths in fenced code blocks, URLs, absolute/`~` paths, paths outside the repository,
    struck-through or historical text, paths the text already calls removed or former, and paths the record
    itself plans to remove (or tells how to restore) are never flagged.
    """
    evidence_root = ctx.config.evidence.root.strip("/")
    for site in path_refs(ctx):
        ref = site.ref
        res = resolve(ctx, ref, site.rf.path)
        if res.path is not None or res.ambiguous or not res.candidates:
            continue
        if evidence_root and res.candidates[0].startswith(evidence_root + "/") and site.st.mentions.evidence:
            continue  # an evidence name: RL304 reports it
        if not anchored(ref) and not looks_like_file(ref.path) and not (ref.text or ref.path).endswith("/"):
            continue
        pf = fates(ctx)
        fate = find_fate(pf, res.candidates)
        guess = None if fate is not None else _typo_of(ctx, site, res.candidates[0])
        unknown = (
            fate is None
            and guess is None
            and (pf is None or not pf.complete)
            and anchored(ref)
            and ctx.tree.is_dir(posixpath.dirname(res.candidates[0]) or ".")
        )
        if fate is None and guess is None and not unknown:
            continue  # never in this repository: a file still to be written, or another project's
        if is_foreign(ctx, site):
            continue  # another project's file: never checked against this tree
        if acknowledged_gone(site) or res.candidates[0] in removal_planned(ctx, site.rf):
            continue  # "(former `x.cpp:378`)", "Disable/remove: `x.yml`": the record expects it gone
        yield _finding(ctx, site, fate, guess) if not unknown else _unknown_history(ctx, site)


def _unknown_history(ctx: LintContext, site: RefSite) -> Hit:
    """A shallow clone cannot tell a deleted file from one never written: say so, as information."""
    return Hit(
        severity="info",
        message=f"{quote(site.ref)} does not exist: history is shallow or unreadable, so "
        f"whether it ever existed here is unknown",
        path=site.rf.path,
        line=site.line,
        end_line=site.line,
        record_id=row_tag(ctx, site.st),
        fix="fetch the full history (`git fetch --unshallow`) and lint again",
        key=f"{site.ref.path}",
    )


def _typo_of(ctx: LintContext, site: RefSite, main: str) -> str | None:
    """Never in this repository's history: a file still to be written, or another project's. Only a one-letter
    typo of a file beside it, written once and outside a directive, is worth a warning."""
    pf = fates(ctx)
    if "/" not in main or site.st.directive or pf is None or not pf.complete:
        return None
    guess = close_match(ctx, main)
    if guess is not None and sum(rf.text.count(site.ref.path) for rf in ctx.records) > 1:
        return None  # named again elsewhere: a file people plan or discuss (`xpu.cpp` beside `cpu.cpp`)
    return guess


def _finding(ctx: LintContext, site: RefSite, fate: PathFate | None, guess: str | None) -> Hit:
    ref = site.ref
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
        severity = "warning"
        how = f"no commit on this branch's history deleted or renamed it; did you mean {guess}?"
        fix = f"correct the path to {guess}"
    return Hit(
        severity=severity,
        message=f"{quote(ref)} does not exist: {how}",
        path=site.rf.path,
        line=site.line,
        end_line=site.line,
        record_id=row_tag(ctx, site.st),
        evidence=evidence,
        fix=fix,
        key=f"{ref.path}",
    )

"""Was a symbol introduced in *code* by a commit? The history index counts `-S` deltas over every file,
records and notes included; a plan that names `VT_ASYNC_DEVICE_MIRROR` before anyone writes it must not
look like the flag landing. These helpers re-count, for the few candidate commits only, on code paths.
"""
from __future__ import annotations

import re

from roadmap.analysis.context import LintContext
from roadmap.history.git import GitError, run_git

DOC_SUFFIXES = ("md", "markdown", "rst", "txt", "adoc")
SHA = re.compile(r"^[0-9a-f]{40}$")


def code_pathspec(ctx: LintContext) -> list[str]:
    """Everything but records, evidence and prose docs."""
    specs = ["."] + [f":(exclude,glob)**/*.{s}" for s in DOC_SUFFIXES]
    specs.append(f":(exclude){ctx.config.evidence.root.strip('/')}")
    specs += [f":(exclude,glob){g}" for g in ctx.config.records]
    return specs


MAX_SNAPSHOT_BYTES = 64 << 20   # code at one revision read into memory at most; past it, one `git grep` per symbol


def in_code_at(ctx: LintContext, symbol: str, rev: str) -> bool:
    """Does `symbol` occur in a code file of `rev`? (A git failure reads as "present": no introduction
    is ever inferred from an error.) Answers what `git grep -l -F -e <symbol> <rev> -- <code pathspec>`
    would: from the revision's code files read once (`code_snapshot`), else from that grep."""
    cache = ctx.facts.in_code
    key = (symbol, rev)
    if key not in cache:
        try:
            if not SHA.match(rev):          # git grep has no --end-of-options: only full shas reach it
                return True
            snapshot = code_snapshot(ctx, rev) if symbol and "\n" not in symbol else None
            if snapshot is not None:
                needle = symbol.encode("utf-8", "surrogateescape")
                cache[key] = any(needle in blob for blob in snapshot)
            else:
                out = run_git(ctx.root, "grep", "-l", "-F", "-e", symbol, rev, "--", *code_pathspec(ctx),
                              check=False)
                cache[key] = bool(out.strip()) or not _rev_ok(ctx, rev)
        except GitError:
            cache[key] = True
    return cache[key]


def code_snapshot(ctx: LintContext, rev: str) -> list[bytes] | None:
    """The contents of the files `git grep` searches at `rev` under the code pathspec (those it lists for an
    empty pattern: every non-empty file, binaries included), read with one `git cat-file --batch`; once
    per revision. None (callers grep per symbol) when the revision is unknown, a name cannot be fed to
    cat-file, or the code is larger than MAX_SNAPSHOT_BYTES."""
    cache = ctx.facts.code_snapshots
    if rev not in cache:
        cache[rev] = _read_snapshot(ctx, rev)
    return cache[rev]


def _read_snapshot(ctx: LintContext, rev: str) -> list[bytes] | None:
    listed = run_git(ctx.root, "grep", "-l", "-z", "-e", "", rev, "--", *code_pathspec(ctx), check=False)
    names = [n for n in listed.split(b"\0") if n]
    if not names:
        return [] if _rev_ok(ctx, rev) else None
    if any(b"\n" in n for n in names):
        return None
    query = b"".join(n + b"\n" for n in names)
    sizes = run_git(ctx.root, "cat-file", "--batch-check=%(objecttype) %(objectsize)", input=query, check=False)
    rows = sizes.split(b"\n")[:len(names)]
    if len(rows) != len(names) or any(not r.startswith(b"blob ") for r in rows):
        return None
    if sum(int(r.split()[1]) for r in rows) > MAX_SNAPSHOT_BYTES:
        return None
    out = run_git(ctx.root, "cat-file", "--batch", input=query, check=False)
    blobs: list[bytes] = []
    pos = 0
    for _ in names:                 # "<oid> blob <size>\n<content>\n" per name
        nl = out.find(b"\n", pos)
        head = out[pos:nl].split() if nl >= 0 else []
        if len(head) != 3 or head[1] != b"blob":
            return None
        size = int(head[2])
        blobs.append(out[nl + 1:nl + 1 + size])
        pos = nl + 1 + size + 1
    return blobs


def _rev_ok(ctx: LintContext, rev: str) -> bool:
    return bool(run_git(ctx.root, "cat-file", "-t", rev, check=False).strip())


def code_delta(ctx: LintContext, symbol: str, sha: str) -> int:
    """Net change in `symbol`'s count made by commit `sha` in code files (first-parent diff; root: all)."""
    cache = ctx.facts.code_deltas
    key = (symbol, sha)
    if key not in cache:
        diff = None if "\n" in symbol else _code_diff(ctx, sha)   # counted line by line: no symbol spans lines
        cache[key] = 0 if diff is None else diff[0].count(symbol) - diff[1].count(symbol)
    return cache[key]


def _code_diff(ctx: LintContext, sha: str) -> tuple[str, str] | None:
    """(added lines, removed lines) of commit `sha` in code files, newline-joined: one `git diff-tree` per
    commit, however many symbols ask about it. None when git cannot diff it."""
    cache = ctx.facts.code_diffs
    if sha not in cache:
        try:
            out = run_git(ctx.root, "diff-tree", "-p", "-U0", "--root", "--no-ext-diff", "--no-textconv",
                          "--no-color", "-r", "--end-of-options", sha, "--", *code_pathspec(ctx))
        except GitError:
            cache[sha] = None
        else:
            added, removed = [], []
            for line in out.decode("utf-8", "replace").split("\n"):
                if line.startswith("+") and not line.startswith("+++ "):
                    added.append(line)
                elif line.startswith("-") and not line.startswith("--- "):
                    removed.append(line)
            cache[sha] = ("\n".join(added), "\n".join(removed))
    return cache[sha]

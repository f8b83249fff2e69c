"""RL001 record-unreadable."""

from __future__ import annotations

from typing import Iterator

from roadmap.analysis.context import LintContext
from roadmap.analysis.refs import path_refs, resolve
from roadmap.findings import Hit


def record_unreadable(ctx: LintContext) -> Iterator[Hit]:
    """What it does:
    Reports input the records parser could not read as intended: a binary file matched by a record glob,
    bytes that are not UTF-8, a cell or statement too long to analyse (capped), a malformed table. Also,
    as info, every file the linter would have read but did not on purpose: a record, a referenced source
    or an evidence file that is a symlink leading outside the work tree or not a regular file (roadmap
    never reads outside the repository); and, as a warning, a record or source larger than
    `max_file_bytes`.

    Why:
    Everything else the linter says about a file assumes it was read correctly. Saying what was skipped,
    and where, is better than silently checking less than the user thinks.

    Example:
    A record glob matches `agents/diagram.png`, or `agents/log.md` contains a Latin-1 byte on line 12:
    `agents/log.md:12: not valid UTF-8; decoded with replacement characters`.

    Fix:
    Re-save the file as UTF-8, shorten the cell, or exclude the file from the `records` globs
    (`exclude` in `[tool.roadmap]`).
    """
    for rf in ctx.records:
        for p in rf.problems:
            yield Hit(
                message=p.message,
                path=p.path or rf.path,
                line=max(1, p.line),
                end_line=max(1, p.line),
                severity=p.severity,
                key=p.message,
                fix="re-save as UTF-8 text, or exclude the file from the record globs",
            )
    yield from _skipped_sources(ctx)
    yield from _skipped_evidence(ctx)


def _skip_hit(ctx: LintContext, target: str, path: str, line: int, what: str) -> Hit | None:
    skip = ctx.tree.skipped(target)
    if skip is None:
        return None
    return Hit(
        message=f"{what} `{target}` was not read: {skip.reason}; nothing in it is checked",
        path=path,
        line=line,
        end_line=line,
        severity="info" if skip.on_purpose else "warning",
        key=f"skipped {target}",
        fix="replace the symlink with the file itself"
        if skip.kind == "outside"
        else "raise `max_file_bytes` in [tool.roadmap]"
        if skip.kind == "size"
        else "point at a regular file",
    )


def _skipped_sources(ctx: LintContext) -> Iterator[Hit]:
    """Files that path references point at, once each, at the first reference."""
    seen = {rf.path for rf in ctx.records}  # a record not read says so itself
    for site in path_refs(ctx):
        target = resolve(ctx, site.ref, site.rf.path).path
        if target is None or target in seen or target not in ctx.tree.files:
            continue
        seen.add(target)
        hit = _skip_hit(ctx, target, site.rf.path, site.line, "referenced file")
        if hit is not None:
            yield hit


def _skipped_evidence(ctx: LintContext) -> Iterator[Hit]:
    """Evidence files the store reads (JSON results, markdown summaries) left unread on purpose; one too large
    is invalid evidence instead (RL501)."""
    prefix = ctx.config.evidence.root.strip("/") + "/"
    for f in sorted(ctx.tree.files):
        if f.startswith(prefix) and f.endswith((".json", ".md")):
            skip = ctx.tree.skipped(f)
            if skip is not None and skip.on_purpose:
                hit = _skip_hit(ctx, f, f, 1, "evidence file")
                if hit is not None:
                    yield hit

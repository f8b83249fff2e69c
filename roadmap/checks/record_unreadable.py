"""RL001 record-unreadable."""
from __future__ import annotations

from typing import Iterator

from roadmap.analysis.context import LintContext
from roadmap.findings import Hit


def record_unreadable(ctx: LintContext) -> Iterator[Hit]:
    """What it does:
    Reports input the records parser could not read as intended: a binary file matched by a record glob,
    bytes that are not UTF-8, a cell or statement too long to analyse (capped), a malformed table.

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
            yield Hit(message=p.message, path=p.path or rf.path, line=max(1, p.line), end_line=max(1, p.line),
                      key=p.message, fix="re-save as UTF-8 text, or exclude the file from the record globs")

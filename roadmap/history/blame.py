"""Batched blame: when each record line was last changed, one `git blame --incremental` call per file.

The rules use it for a statement's as-of fallback (news = commits after the blamed commit). Lines not yet
committed (working tree edits) come back with the null sha and the current time: they are "now".
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

from roadmap.history.git import GitError, blame_spans, resolve_rev

NULL_SHA = "0" * 40
_ONLY = re.compile(r"has only (\d+) lines?")


class BlameLine(NamedTuple):
    sha: str  # commit that last changed the line; NULL_SHA when not committed yet
    author_time: int  # epoch seconds (now, for uncommitted lines)
    commit_time: int  # epoch seconds (now, for uncommitted lines)

    @property
    def committed(self) -> bool:
        return self.sha != NULL_SHA


def _ranges(line_ranges: Iterable[int | tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, merged, 1-based inclusive ranges."""
    spans = sorted((r, r) if isinstance(r, int) else (min(r), max(r)) for r in line_ranges)
    out: list[tuple[int, int]] = []
    for a, b in spans:
        a = max(a, 1)
        if b < a:
            continue
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def blame_lines(
    root: str | Path, rev: str | None, path: str, line_ranges: Iterable[int | tuple[int, int]]
) -> dict[int, BlameLine]:
    """{line: BlameLine} for the given lines of `path`, in one git call.

    `rev=None` blames the working tree file (uncommitted lines are now); otherwise the file at `rev`
    (`--at REV`). Lines past the end of the file are left out. Raises GitError for an unknown rev or a path
    that is not in the repository at that revision.
    """
    spans = _ranges(line_ranges)
    if not spans:
        return {}
    sha = resolve_rev(root, rev) if rev is not None else None
    for _ in range(2):
        try:
            return _lines(blame_spans(root, sha, path, spans))
        except GitError as e:
            m = _ONLY.search(str(e))
            if m is None:
                raise GitError(f"cannot blame {path}{' at ' + sha[:9] if sha else ''}: {e}") from None
            n = int(m.group(1))  # clamp to the file's length and ask once more
            spans = [(a, min(b, n)) for a, b in spans if a <= n]
            if not spans:
                return {}
    return {}


def _lines(spans: list[tuple[str, int, int, range]]) -> dict[int, BlameLine]:
    now = int(time.time())
    result: dict[int, BlameLine] = {}
    for sha, author_time, commit_time, lines in spans:
        line = BlameLine(sha, now, now) if sha == NULL_SHA else BlameLine(sha, author_time, commit_time)
        for n in lines:
            result[n] = line
    return result


def blame_files(
    root: str | Path,
    rev: str | None,
    requests: Mapping[str, Iterable[int | tuple[int, int]]],
    on_error: Callable[[GitError], dict[int, BlameLine]] | None = None,
) -> dict[str, dict[int, BlameLine]]:
    """blame_lines for several files, a few git processes at a time. A file git cannot blame raises its
    GitError, or gets `on_error(error)` as its result when that is given."""
    try:
        sha = resolve_rev(root, rev) if rev is not None else None
    except GitError:
        sha = rev  # each file reports the bad revision

    def one(p: str, r: Iterable[int | tuple[int, int]]) -> dict[int, BlameLine]:
        try:
            return blame_lines(root, sha, p, r)
        except GitError as e:
            if on_error is None:
                raise
            return on_error(e)

    with ThreadPoolExecutor(max_workers=4) as pool:
        futs = {p: pool.submit(one, p, r) for p, r in requests.items()}
        return {p: f.result() for p, f in futs.items()}

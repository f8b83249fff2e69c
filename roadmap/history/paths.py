"""Path fate: when and where a path that no longer exists went (deleted, or renamed and to where).

One `git log --diff-filter=DR -M --name-status` call over the linted revision's ancestry answers every
missing path a lint run meets; it is built lazily, only when a referenced path is missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from roadmap.history.git import GitError, is_shallow, run_git


@dataclass(frozen=True)
class PathFate:
    path: str  # the path as it was
    kind: str  # "deleted" | "renamed"
    sha: str  # the commit that deleted/renamed it
    date: str  # commit date, YYYY-MM-DD
    subject: str
    to: str | None = None  # renamed: the path it ended up at after following later renames
    to_exists: bool = False  # whether `to` exists at the linted revision

    def describe(self) -> str:
        when = f"{self.sha[:9]} ({self.date}, {self.subject!r})"
        if self.kind == "renamed" and self.to:
            where = self.to if self.to_exists else f"{self.to}, which no longer exists either"
            return f"renamed to {where} in {when}"
        return f"deleted in {when}"


@dataclass(frozen=True)
class _Event:
    kind: str
    sha: str
    date: str
    subject: str
    new: str | None


class PathFates:
    """Deletions and renames on the ancestry of `rev`, newest first per path."""

    def __init__(self, events: dict[str, _Event], exists: Callable[[str], bool], complete: bool):
        self._events = events
        self._exists = exists
        self.complete = complete  # False for a shallow clone: an unknown fate is not "never existed"
        self._under: dict[str, list[str]] | None = None  # directory -> the paths with events below it

    @classmethod
    def load(cls, root: str | Path, rev: str, exists: Callable[[str], bool]) -> "PathFates":
        """`exists(path) -> bool` says whether a path exists at the linted revision."""
        shallow = is_shallow(root)
        out = run_git(
            root,
            "log",
            "--no-ext-diff",
            "--no-textconv",
            "--diff-filter=DR",
            "-M",
            "--name-status",
            "-z",
            "--format=%x1e%H%x1f%cs%x1f%s",
            "--end-of-options",
            rev,
            "--",
        )
        return cls(_parse(out.decode("utf-8", "surrogateescape")), exists, complete=not shallow)

    def fate(self, path: str) -> PathFate | None:
        path = path.strip("/")
        ev = self._events.get(path)
        if ev is None:
            return self._dir_fate(path)
        return self._resolve(path, ev)

    def _resolve(self, path: str, ev: _Event) -> PathFate:
        to = ev.new
        seen = {path}
        # Follow later renames of the destination (a -> b, then b -> c) to where it lives now.
        while to is not None and not self._exists(to) and to not in seen:
            seen.add(to)
            nxt = self._events.get(to)
            if nxt is None or nxt.kind != "renamed":
                break
            to = nxt.new
        return PathFate(path, ev.kind, ev.sha, ev.date, ev.subject, to, bool(to and self._exists(to)))

    def _dir_fate(self, path: str) -> PathFate | None:
        """A directory is gone when files under it were deleted/renamed; report the newest such event."""
        prefix = path + "/"
        if self._under is None:  # built once: a lint asks for hundreds of missing paths
            self._under = {}
            for p in self._events:
                parts = p.split("/")
                for i in range(1, len(parts)):
                    self._under.setdefault("/".join(parts[:i]), []).append(p)
        under = [(p, self._events[p]) for p in self._under.get(path, ())]
        if not under:
            return None
        p, ev = max(under, key=lambda pe: (pe[1].date, pe[0]))
        if ev.kind == "renamed" and ev.new:
            rel = p[len(prefix) :]
            if ev.new.endswith("/" + rel):
                new_dir = ev.new[: -len(rel) - 1]
                return PathFate(path, "renamed", ev.sha, ev.date, ev.subject, new_dir, self._exists(new_dir))
        return PathFate(path, "deleted", ev.sha, ev.date, ev.subject)


def _parse(text: str) -> dict[str, _Event]:
    events: dict[str, _Event] = {}
    for chunk in text.split("\x1e"):
        if not chunk:
            continue
        header, _, rest = chunk.partition("\0")
        parts = header.split("\x1f")
        if len(parts) != 3:
            raise GitError("unexpected `git log --name-status` output while looking up renamed/deleted paths")
        sha, date, subject = parts
        fields = [f.lstrip("\n") for f in rest.split("\0")]
        i = 0
        while i < len(fields):
            status = fields[i]
            if not status:
                i += 1
                continue
            if status.startswith("R") and i + 2 < len(fields):
                old, new = fields[i + 1], fields[i + 2]
                events.setdefault(old, _Event("renamed", sha, date, subject, new))
                i += 3
            elif status.startswith("D"):
                events.setdefault(fields[i + 1], _Event("deleted", sha, date, subject, None))
                i += 2
            else:
                i += 1
    return events

"""The tree the records are checked against: the working tree (default) or the tree of a commit (`--at REV`).

Nothing outside the work tree is read: a symlink is followed only while its target stays inside the tree
(checked on the resolved path, roadmap/safefs.py), special files are never opened, and no file larger than
`max_bytes` is read. `skipped(path)` says why a listed file was not read, for the finding that reports it.
"""

from __future__ import annotations

import os
import posixpath
from functools import cached_property
from pathlib import Path

from roadmap.history.git import object_info, read_object, run_git
from roadmap.records.source import split_lines
from roadmap.safefs import OUTSIDE, DEFAULT_MAX_BYTES, Declined, Skip, check_contained, read_contained, size_text

_MAX_LINK_HOPS = 8
_LINK, _GITLINK = "120000", "160000"


class Tree:
    """Files at a revision. `rev=None` reads the working tree under `root`."""

    def __init__(self, root: str | Path, rev: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES):
        self.root = Path(root)
        self.rev = rev
        self.max_bytes = max_bytes
        self._cache: dict[str, bytes | None] = {}
        self._why: dict[str, Skip | None] = {}
        self._resolved: dict[str, tuple[str | None, Skip | None]] = {}

    @cached_property
    def _real_root(self) -> str:
        return os.path.realpath(self.root)

    @cached_property
    def _entries(self) -> dict[str, tuple[str, str, int]]:
        """path -> (mode, object id, size) of every entry of `rev`'s tree (`git ls-tree -r -l`)."""
        assert self.rev is not None
        out = run_git(self.root, "ls-tree", "-r", "-z", "-l", "--full-tree", "--end-of-options", self.rev)
        entries: dict[str, tuple[str, str, int]] = {}
        for row in out.decode("utf-8", "surrogateescape").split("\0"):
            meta, tab, path = row.partition("\t")
            parts = meta.split()
            if tab and len(parts) == 4:
                mode, _, oid, size = parts
                entries[path] = (mode, oid, int(size) if size.isdigit() else 0)
        return entries

    @cached_property
    def files(self) -> frozenset[str]:
        """Repo-relative posix paths: tracked files plus untracked-not-ignored ones for the working tree."""
        if self.rev is None:
            out = run_git(self.root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
            names = {p for p in out.decode("utf-8", "surrogateescape").split("\0") if p}
            return frozenset(p for p in names if (self.root / p).exists())
        return frozenset(self._entries)

    @cached_property
    def dirs(self) -> frozenset[str]:
        out: set[str] = set()
        for f in self.files:
            parts = f.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                out.add("/".join(parts[:i]))
        return frozenset(out)

    def exists(self, path: str) -> bool:
        path = path.strip("/")
        return path in self.files or path in self.dirs

    def is_dir(self, path: str) -> bool:
        return path.strip("/") in self.dirs

    def skipped(self, path: str) -> Skip | None:
        """Why the listed file `path` is not read (a symlink whose target is outside the work tree, not a
        regular file, larger than the cap), or None when it can be read."""
        if path not in self.files:
            return None
        if path not in self._why:
            self._why[path] = self._check(path)
        return self._why[path]

    def _check(self, path: str) -> Skip | None:
        if self.rev is None:
            try:
                check_contained(self.root, path, self.max_bytes, self._real_root)
            except Declined as exc:
                return Skip(exc.kind, str(exc))
            except OSError:
                return None  # unreadable for an ordinary reason: read_bytes says None, nothing to report
            return None
        return self._resolve_at_rev(path)[1]

    def read_bytes(self, path: str) -> bytes | None:
        """The file's bytes (b"" for an empty file), or None when it is not in the tree, cannot be read, or is
        not read (skipped(path) says why)."""
        if path not in self._cache:
            data: bytes | None = None
            if path in self.files and self.skipped(path) is None:
                if self.rev is None:
                    try:
                        data = read_contained(self.root, path, self.max_bytes, self._real_root)
                    except Declined as exc:
                        self._why[path] = Skip(exc.kind, str(exc))
                    except OSError:
                        data = None
                else:
                    data = self._blob_at_rev(path)
            self._cache[path] = data
        return self._cache[path]

    def _resolve_at_rev(self, path: str) -> tuple[str | None, Skip | None]:
        """(the regular-file entry `path` stands for at `rev`: itself, or where its symlinks lead inside the
        tree; None) or (None, why it is not read). Cached per path."""
        hit = self._resolved.get(path)
        if hit is None:
            hit = self._resolved[path] = self._follow(path)
        return hit

    def _follow(self, path: str) -> tuple[str | None, Skip | None]:
        for _ in range(_MAX_LINK_HOPS + 1):
            entry = self._entries.get(path)
            if entry is None:
                return None, Skip("special", "a symlink to a path that is not in the tree")
            mode, _, size = entry
            if mode == _GITLINK:
                return None, None  # a submodule: git has no blob to read, as for a missing object
            if mode != _LINK:
                if size > self.max_bytes:
                    return None, Skip(
                        "size", f"{size} bytes, larger than the {size_text(self.max_bytes)} cap (`max_file_bytes`)"
                    )
                return path, None
            link = blob_at(self.root, self.rev or "HEAD", path, 4096)
            if link is None:
                return None, Skip("special", "a symlink that could not be followed")
            target = link.decode("utf-8", "surrogateescape")
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
            if target.startswith("/") or joined == ".." or joined.startswith("../"):
                return None, Skip("outside", OUTSIDE)
            path = joined
        return None, Skip("special", f"a chain of more than {_MAX_LINK_HOPS} symlinks")

    def _blob_at_rev(self, path: str) -> bytes | None:
        """The blob's bytes at `rev`: b"" for an empty file, None when git cannot read it (a gitlink, a missing
        object) or it is not read (a symlink leaving the tree, too large)."""
        if self.rev is None:
            return None
        target, why = self._resolve_at_rev(path)
        if target is None:
            return None
        return blob_at(self.root, self.rev, target, self.max_bytes)

    def consulted(self) -> list[str]:
        """Every path read or asked `skipped` about so far: what a run depended on (roadmap/runcache.py)."""
        return sorted(set(self._cache) | set(self._why))

    def read_lines(self, path: str) -> list[str] | None:
        data = self.read_bytes(path)
        if data is None:
            return None
        return split_lines(data.decode("utf-8", "replace"))


def blob_at(root: str | Path, rev: str, path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes | None:
    """One file's bytes at `rev` without listing the tree: None when the path is not there, git cannot read
    it, or it is larger than `max_bytes` (its size is asked first, so a huge blob is never read)."""
    name = f"{rev}:{path}"
    info = object_info(root, name)
    if info is None or info[0] != "blob" or info[1] > max_bytes:
        return None
    got = read_object(root, name)
    return got[1] if got is not None and got[0] == "blob" else None

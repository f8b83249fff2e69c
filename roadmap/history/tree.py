"""The tree the records are checked against: the working tree (default) or the tree of a commit (`--at REV`)."""
from __future__ import annotations

from functools import cached_property
from pathlib import Path

from roadmap.history.git import read_object, run_git


class Tree:
    """Files at a revision. `rev=None` reads the working tree under `root`."""

    def __init__(self, root: str | Path, rev: str | None = None):
        self.root = Path(root)
        self.rev = rev
        self._cache: dict[str, bytes | None] = {}

    @cached_property
    def files(self) -> frozenset[str]:
        """Repo-relative posix paths: tracked files plus untracked-not-ignored ones for the working tree."""
        if self.rev is None:
            out = run_git(self.root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
            names = {p for p in out.decode("utf-8", "surrogateescape").split("\0") if p}
            return frozenset(p for p in names if (self.root / p).exists())
        out = run_git(self.root, "ls-tree", "-r", "-z", "--name-only", "--end-of-options", self.rev)
        return frozenset(p for p in out.decode("utf-8", "surrogateescape").split("\0") if p)

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

    def read_bytes(self, path: str) -> bytes | None:
        """The file's bytes (b"" for an empty file), or None when it is not in the tree or cannot be read."""
        if path not in self._cache:
            data: bytes | None = None
            if path in self.files:
                if self.rev is None:
                    try:
                        data = (self.root / path).read_bytes()
                    except OSError:
                        data = None
                else:
                    data = self._blob_at_rev(path)
            self._cache[path] = data
        return self._cache[path]

    def _blob_at_rev(self, path: str) -> bytes | None:
        """The blob's bytes at `rev`: b"" for an empty file, None only when git cannot read it (a gitlink,
        a missing object)."""
        return blob_at(self.root, self.rev, path) if self.rev is not None else None

    def read_files(self) -> dict[str, bytes | None]:
        """Every file read so far and what it held (None: absent or unreadable): what a run depended on."""
        return dict(self._cache)

    def read_lines(self, path: str) -> list[str] | None:
        data = self.read_bytes(path)
        if data is None:
            return None
        return data.decode("utf-8", "replace").splitlines()


def blob_at(root: str | Path, rev: str, path: str) -> bytes | None:
    """One file's bytes at `rev` without listing the tree: None when the path is not there or git cannot read it."""
    got = read_object(root, f"{rev}:{path}")
    return got[1] if got is not None and got[0] == "blob" else None

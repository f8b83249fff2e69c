"""Files the way roadmap must touch them: reads that never leave the work tree, open a special file or take
more than a cap, and writes that leave either the old file or the new one, never half of one.

    data = read_contained(root, "agents/roadmap.md", max_bytes=4 << 20)   # raises Declined(reason)
    write_atomic(Path("out/report.md"), text.encode())

A repository is untrusted input (CI lints pull requests from forks): a record can be a symlink to
`/etc/passwd` or `/dev/zero`, so every read resolves the path first and refuses what resolves outside.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import NamedTuple

DEFAULT_MAX_BYTES = 8 << 20  # per file (a 50,000-row table is ~5 MiB); config `max_file_bytes` overrides it
OUTSIDE = "a symlink whose target is outside the work tree"
SPECIAL = "not a regular file (a directory, FIFO, device or socket)"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the check must not block the open


def _read_umask() -> int:
    mask = os.umask(0o022)  # os.umask is the only way to read it; done once, at import, before any thread
    os.umask(mask)
    return mask


_UMASK = _read_umask()


class Declined(Exception):
    """A file roadmap will not read; the message says why in words for a finding ("a symlink whose ...").
    `kind`: "outside" (its target leaves the work tree), "special" (not a regular file) or "size"."""

    def __init__(self, message: str, kind: str = "size"):
        super().__init__(message)
        self.kind = kind


class Skip(NamedTuple):
    """Why a listed file is not read: Declined's kind and message."""

    kind: str
    reason: str

    @property
    def on_purpose(self) -> bool:
        """Skipped by design (a symlink out of the tree, a FIFO): an info finding, not a warning."""
        return self.kind in ("outside", "special")


def inside(real_root: str, real: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def check_contained(root: Path, rel: str, max_bytes: int, real_root: str | None = None) -> str:
    """The resolved path of `root/rel` when it may be read, else Declined: its target leaves the work tree,
    it is not a regular file, or it is larger than `max_bytes`. OSError when it cannot be stat'ed."""
    real_root = real_root or os.path.realpath(root)
    full = os.path.join(root, rel)
    real = os.path.realpath(full)
    if not inside(real_root, real):
        raise Declined(OUTSIDE, "outside")
    st = os.stat(real)
    if not stat.S_ISREG(st.st_mode):
        raise Declined(SPECIAL, "special")
    if st.st_size > max_bytes:
        raise Declined(f"{st.st_size} bytes, larger than the {size_text(max_bytes)} cap (`max_file_bytes`)")
    return real


def read_contained(root: Path, rel: str, max_bytes: int = DEFAULT_MAX_BYTES, real_root: str | None = None) -> bytes:
    """The bytes of `root/rel` (at most `max_bytes`), or Declined; OSError when the file cannot be read."""
    real = check_contained(root, rel, max_bytes, real_root)
    fd = os.open(real, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped between the check and the open
            raise Declined(SPECIAL, "special")
        chunks: list[bytes] = []
        left = max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        raise Declined(f"larger than the {size_text(max_bytes)} cap (`max_file_bytes`)")
    return data


def read_file(path: Path, max_bytes: int, follow: bool = True) -> bytes:
    """A file named outright (a baseline the user passed; with follow=False, a cache entry roadmap wrote,
    whose last component must not be a symlink): a regular file of at most `max_bytes`, else Declined.
    OSError when it cannot be opened."""
    flags = os.O_RDONLY | _NONBLOCK | getattr(os, "O_CLOEXEC", 0) | (0 if follow else _NOFOLLOW)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise Declined(SPECIAL, "special")
        if st.st_size > max_bytes:
            raise Declined(f"{st.st_size} bytes, larger than {size_text(max_bytes)}")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise Declined(f"larger than {size_text(max_bytes)}")
    return data


def write_atomic(path: Path, data: bytes, mode: int | None = None, durable: bool = True) -> None:
    """Write `data` to `path` through a temporary file in the same directory renamed over it: a crash or a
    full disk leaves the old file (or none), never a truncated one. `mode`: permission bits for the new file
    (default: 0o666 less the umask, as open() would); `durable=False` skips the fsync (a cache, which is
    rebuilt when lost). Raises OSError."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:40]}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.chmod(tmp, mode if mode is not None else 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def no_symlink_between(root: Path, rel: str) -> bool:
    """Is every component of `root/rel` below `root` a real directory or file (no symlink)?"""
    d = Path(root)
    for part in Path(rel).parts:
        d = d / part
        if d.is_symlink():
            return False
    return True


def size_text(n: int) -> str:
    return f"{n / (1 << 20):g} MiB" if n >= 1 << 20 else f"{n} bytes"

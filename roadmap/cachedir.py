"""The gitignored `.roadmap_cache/` directory: checksummed files written atomically, read back or rejected.

Every cache file is a header line `<magic> <version> <sha256 of the body>` and a body. `read_checked`
returns the body only when the header and checksum agree; anything else (truncated, edited, another
version) is None, and the caller rebuilds. The checksum catches damage, not malice: callers still decode
the body as untrusted data (JSON, validated field by field, never pickle).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from roadmap.safefs import Declined, read_file
from roadmap.safefs import write_atomic as _replace_file

CACHE_DIR = ".roadmap_cache"
_IGNORE = "# created by roadmap; the whole directory is a cache\n*\n"
MAX_CACHE_BYTES = 256 << 20  # one cache file (the history index of a very large repository); past it, rebuilt


def cache_root(root: str | Path) -> Path:
    return Path(root) / CACHE_DIR


def seal(magic: bytes, version: int, body: bytes) -> bytes:
    return magic + b" %d %s\n" % (version, hashlib.sha256(body).hexdigest().encode()) + body


def unseal(magic: bytes, version: int, raw: bytes) -> bytes | None:
    """The body of a sealed file, or None when its header or checksum is wrong."""
    head, nl, body = raw.partition(b"\n")
    parts = head.split()
    if not nl or len(parts) != 3 or parts[0] != magic or parts[1] != str(version).encode():
        return None
    if hashlib.sha256(body).hexdigest().encode() != parts[2]:
        return None
    return body


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` (under `<root>/.roadmap_cache/`) through a temporary file renamed into place.
    The cache directory is created with a `.gitignore` that ignores it whole, so linting never makes a
    repository dirty. Raises OSError."""
    top = next((p for p in (path, *path.parents) if p.name == CACHE_DIR), None)
    if top is None:
        raise OSError(f"{path} is not under a {CACHE_DIR}/ directory")
    if not is_plain(top, path.parent):
        raise OSError(f"{top} or a directory in it is a symlink; roadmap does not write through it")
    path.parent.mkdir(parents=True, exist_ok=True)
    ensure_ignored(top)
    _replace_file(path, data, durable=False)


def ensure_ignored(top: Path) -> None:
    """`top/.gitignore` ignores the whole cache directory. Checked by content, not by existence, and written
    atomically: a write cut short by a full disk leaves no empty file that would stay wrong for good."""
    ignore = top / ".gitignore"
    try:
        current = read_file(ignore, 4096, follow=False)
    except (OSError, Declined):
        current = None
    if current != _IGNORE.encode():
        if ignore.is_symlink():
            raise OSError(f"{ignore} is a symlink; roadmap does not write through it")
        _replace_file(ignore, _IGNORE.encode())


def read_cache_file(path: Path, max_bytes: int = MAX_CACHE_BYTES) -> bytes:
    """A cache file's bytes, read only from a plain `.roadmap_cache/` (no symlinked directory or file, a
    regular file, at most `max_bytes`). OSError otherwise, which every caller treats as "no cache"."""
    top = next((p for p in (path, *path.parents) if p.name == CACHE_DIR), None)
    if top is None or not is_plain(top, path.parent):
        raise OSError(f"{path} is not in a plain {CACHE_DIR}/ directory")
    try:
        return read_file(path, max_bytes, follow=False)
    except Declined as exc:
        raise OSError(f"{path}: {exc}") from None


def is_plain(top: Path, inner: Path) -> bool:
    """No directory from `top` down to `inner` is a symlink (a repository could commit one that points
    anywhere; the cache never writes or deletes through it)."""
    d = inner
    while True:
        if d.is_symlink():
            return False
        if d == top or d == d.parent:
            return True
        d = d.parent

"""The gitignored `.roadmap_cache/` directory: checksummed files written atomically, read back or rejected.

Every cache file is a header line `<magic> <version> <sha256 of the body>` and a body. `read_checked`
returns the body only when the header and checksum agree; anything else (truncated, edited, another
version) is None, and the caller rebuilds. The checksum catches damage, not malice: callers still decode
the body as untrusted data (JSON, validated field by field, never pickle).
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

CACHE_DIR = ".roadmap_cache"
_IGNORE = "# created by roadmap; the whole directory is a cache\n*\n"


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
    ignore = top / ".gitignore"
    if not ignore.exists():
        ignore.write_text(_IGNORE)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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

"""Parsed records cached by content in `<repo>/.roadmap_cache/records-v1/`: an unchanged record file is
never parsed twice.

An entry's key is the sha256 of everything the parse depends on: the cache format, the parser's own
source (roadmap/records/*.py, roadmap/config.py, the markdown-it version), the config, the record's path
and its bytes. So an entry never goes stale: a changed file, config or parser simply has another key.
Each entry is a sealed JSON file (see roadmap/cachedir.py) decoded field by field (records/codec.py); a
damaged or malformed entry is discarded and the file parsed again, never trusted. Entries not used for a
while are pruned, oldest first, once there are many more than the records of a run.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from roadmap.cachedir import cache_root, is_plain, read_cache_file, seal, unseal, write_atomic
from roadmap.records.codec import decode_record, encode_record

if TYPE_CHECKING:
    from roadmap.config import Config
    from roadmap.records.model import RecordFile

VERSION = 1
MAGIC = b"roadmap-records-cache"
SUBDIR = f"records-v{VERSION}"
KEEP_MIN = 64  # entries always kept (other revisions, other configs); past this, unused ones go
_ENTRY_NAME = re.compile(r"[0-9a-f]{64}\.json")


@lru_cache(maxsize=1)
def parser_fingerprint() -> str | None:
    """sha256 over the source of the code a parse runs: a changed parser never reads an old entry. None
    when the source cannot be read (e.g. run from a zip): then there is no cache."""
    import markdown_it

    here = Path(__file__).resolve().parent
    h = hashlib.sha256(f"markdown-it-py {markdown_it.__version__}\n".encode())
    try:
        for p in sorted(here.glob("*.py")) + [here.parent / "config.py"]:
            h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    except OSError:
        return None
    return h.hexdigest()


def config_fingerprint(config: "Config") -> str:
    doc = asdict(config)
    doc.pop("source", None)  # where the config came from does not change a parse
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


class RecordCache:
    """Lookups and writes of parsed records for one run; `stats` counts hits, misses and rejected entries."""

    def __init__(self, root: str | Path, config: "Config"):
        self.dir = cache_root(root) / SUBDIR
        self._salt = f"{VERSION}\0{parser_fingerprint()}\0{config_fingerprint(config)}\0".encode()
        self.used: set[str] = set()
        self.stats = {"hits": 0, "misses": 0, "rejected": 0, "written": 0}

    def key(self, path: str, data: bytes) -> str:
        h = hashlib.sha256(self._salt)
        h.update(path.encode("utf-8", "surrogateescape") + b"\0")
        h.update(data)
        return h.hexdigest()

    def get(self, key: str, path: str) -> "RecordFile | None":
        self.used.add(key)
        entry = self.dir / f"{key}.json"
        try:
            raw = read_cache_file(entry)
        except OSError:
            self.stats["misses"] += 1
            return None
        rf = _decode(raw, key, path)
        if rf is None:
            self.stats["rejected"] += 1
            return None
        self.stats["hits"] += 1
        try:
            os.utime(entry)  # recently used: kept by `prune`
        except OSError:
            pass
        return rf

    def put(self, key: str, rf: "RecordFile") -> None:
        body = json.dumps([key, encode_record(rf)], separators=(",", ":")).encode("ascii")
        try:
            write_atomic(self.dir / f"{key}.json", seal(MAGIC, VERSION, body))
        except OSError:
            return  # a read-only checkout still lints, just without the cache
        self.stats["written"] += 1

    def prune(self) -> None:
        """Drop the least recently used entries this run did not use, past max(KEEP_MIN, 4x this run's).
        Only files named and headed like entries go, and never through a symlinked directory."""
        if not is_plain(self.dir.parent, self.dir):
            return
        try:
            entries = [
                (p.stat().st_mtime, p)
                for p in self.dir.glob("*.json")
                if p.stem not in self.used and _ENTRY_NAME.fullmatch(p.name) and _is_entry(p)
            ]
        except OSError:
            return
        keep = max(KEEP_MIN, 4 * len(self.used)) - len(self.used)
        for _, p in sorted(entries, reverse=True)[max(0, keep) :]:
            try:
                p.unlink(missing_ok=True)
            except OSError:
                return


def _is_entry(p: Path) -> bool:
    if p.is_symlink():
        return False
    with p.open("rb") as fh:
        return fh.read(len(MAGIC) + 1) == MAGIC + b" "


def _decode(raw: bytes, key: str, path: str) -> "RecordFile | None":
    body = unseal(MAGIC, VERSION, raw)
    if body is None:
        return None
    try:
        doc = json.loads(body)
        if type(doc) is not list or len(doc) != 2 or doc[0] != key:
            return None
        rf = decode_record(doc[1])
    except (ValueError, TypeError, KeyError, IndexError, RecursionError, UnicodeDecodeError):
        return None
    return rf if rf.path == path else None

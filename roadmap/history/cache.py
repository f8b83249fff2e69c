"""Per-commit cache of parsed metadata and -S deltas, keyed by commit sha, in `<repo>/.roadmap_cache/`.

A commit's record is immutable (its sha names its content), so entries never go stale; what can grow is
the symbol set. Each scanned commit stores the set of symbols it was scanned for and its deltas (only the
symbols that hit), so a later run with new symbols rescans exactly the commits that lack them. Commits
whose diff could not be read are cached as metadata only, so the next run tries them again.
Each scanned commit also keeps the names its patch declares in code (history/declared.py), under the id of the
pattern that found them: RL101 reads them instead of asking `git show` per commit.

The file is one JSON document behind a header line carrying its sha256: a truncated, edited or otherwise
invalid file is discarded and rebuilt, never trusted. Writes go to a temporary file renamed into place.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roadmap.cachedir import CACHE_DIR, read_cache_file, seal, unseal, write_atomic
from roadmap.history.commit import Commit
from roadmap.history.declared import PATTERN_ID

VERSION = 1
MAGIC = b"roadmap-history-cache"
__all__ = ["CACHE_DIR", "HistoryCache"]


@dataclass
class HistoryCache:
    path: Path
    commits: dict[str, Commit] = field(default_factory=dict)
    # sha -> (symbols this commit was scanned for, {symbol: net delta} for the ones that hit)
    scans: dict[str, tuple[frozenset[str], dict[str, int]]] = field(default_factory=dict)
    # sha -> the names its patch declares in code (history/declared.py), for the commits the history pass read
    declared: dict[str, frozenset[str]] = field(default_factory=dict)
    state: str = "cold"  # cold (no file) | warm | corrupt (discarded) | disabled
    dirty: bool = False

    @classmethod
    def open(cls, root: str | Path, key: str, enabled: bool = True) -> "HistoryCache":
        path = Path(root) / CACHE_DIR / f"history-v{VERSION}-{key}.json"
        if not enabled:
            return cls(path, state="disabled")
        try:
            raw = read_cache_file(path)
        except FileNotFoundError:
            return cls(path, state="cold")
        except OSError:
            return cls(path, state="corrupt")
        try:
            commits, scans, declared = _decode(raw)
        except (ValueError, TypeError, KeyError, IndexError, UnicodeDecodeError, RecursionError):
            return cls(path, state="corrupt", dirty=True)
        return cls(path, commits, scans, declared, state="warm")

    def put(
        self,
        commit: Commit,
        scanned_for: frozenset[str] | None,
        deltas: dict[str, int],
        declared: frozenset[str] | None = None,
    ) -> None:
        """Record a commit; `scanned_for=None` means its diff was not read (metadata only); `declared=None`, that
        its declared names were not read (a cached value is kept only while its diff is)."""
        self.commits[commit.sha] = commit
        if scanned_for is None:
            self.scans.pop(commit.sha, None)
            self.declared.pop(commit.sha, None)
        else:
            self.scans[commit.sha] = (scanned_for, deltas)
            if declared is not None:
                self.declared[commit.sha] = declared
        self.dirty = True

    def save(self) -> bool:
        """Write atomically when something changed; False when the directory is not writable."""
        if self.state == "disabled" or not self.dirty:
            return False
        try:
            write_atomic(self.path, _encode(self.commits, self.scans, self.declared))
        except OSError:
            return False
        self.dirty = False
        return True


def _encode(
    commits: dict[str, Commit],
    scans: dict[str, tuple[frozenset[str], dict[str, int]]],
    declared: dict[str, frozenset[str]],
) -> bytes:
    ksets: dict[frozenset[str], int] = {}
    scan_rows: dict[str, list[Any]] = {}
    for sha, (k, deltas) in scans.items():
        idx = ksets.setdefault(k, len(ksets))
        scan_rows[sha] = [idx, deltas]
    doc = {
        "version": VERSION,
        "ksets": [sorted(k) for k in ksets],
        "commits": [c.to_json() for c in commits.values()],
        "scans": scan_rows,
        "declared_by": PATTERN_ID,  # a cache written under another pattern holds other names: not read
        "declared": {sha: sorted(names) for sha, names in declared.items() if sha in scans},
    }
    return seal(MAGIC, VERSION, json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def _decode(
    raw: bytes,
) -> tuple[dict[str, Commit], dict[str, tuple[frozenset[str], dict[str, int]]], dict[str, frozenset[str]]]:
    body = unseal(MAGIC, VERSION, raw)
    if body is None:
        raise ValueError("not a roadmap history cache of this version, or its checksum does not match")
    doc = json.loads(body)
    if not isinstance(doc, dict) or doc.get("version") != VERSION:
        raise ValueError("wrong version")
    ksets = [frozenset(_strs(k)) for k in doc["ksets"]]
    commits = {}
    for row in doc["commits"]:
        c = Commit.from_json(row)
        commits[c.sha] = c
    scans: dict[str, tuple[frozenset[str], dict[str, int]]] = {}
    for sha, (idx, deltas) in doc["scans"].items():
        if sha not in commits or not isinstance(deltas, dict) or not isinstance(idx, int) or idx < 0:
            raise ValueError("malformed scan record")
        if not all(isinstance(s, str) and type(d) is int for s, d in deltas.items()):
            raise ValueError("malformed delta")
        scans[sha] = (ksets[idx], deltas)
    declared: dict[str, frozenset[str]] = {}
    if doc.get("declared_by") == PATTERN_ID:
        rows = doc.get("declared", {})
        if not isinstance(rows, dict):
            raise ValueError("malformed declared names")
        for sha, names in rows.items():
            if sha not in scans:
                raise ValueError("declared names of a commit not scanned")
            declared[sha] = frozenset(_strs(names))
    return commits, scans, declared


def _strs(x: object) -> list[str]:
    if not isinstance(x, list) or not all(isinstance(s, str) for s in x):
        raise ValueError("expected a list of strings")
    return x

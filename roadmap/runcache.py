"""A whole lint run's result, cached in `<repo>/.roadmap_cache/runs-v1/`: an unchanged repository lints from it
without parsing a record or walking history.

A run's findings are a function of the tool (its source), the options and config, the commit linted (HEAD or
`--at`), what else the repository holds (objects and config, roadmap/history/git.py `state_stamp`: RL304 asks
which commits exist), the file listing of the tree, the bytes of every file the run read or asked about through
the Tree (records, evidence, the code files references point at), and the tracked files that differ from the
commit (git commands that read the working tree itself see those: analysis/default_flips.py). The first group is
the entry's key; the rest, as digests, are its dependencies. A later run with the same key re-lists the tree and
re-hashes those files: all equal, the stored result is the answer; anything else is a normal run, whose result
replaces the entry. `--at REV` lints a commit, so its listing and files are part of the key already.

Entries are sealed JSON (roadmap/cachedir.py) decoded field by field; a damaged one is a miss, never trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from roadmap.cachedir import cache_root, is_plain, seal, unseal, write_atomic
from roadmap.config import Config
from roadmap.findings import SEVERITIES, Edit, Finding, Related
from roadmap.history.git import state_stamp, worktree_changes
from roadmap.history.tree import Tree
from roadmap.safefs import Declined, read_contained

VERSION = 1
MAGIC = b"roadmap-run-cache"
SUBDIR = f"runs-v{VERSION}"
KEEP = 16  # entries kept (other option sets, other revisions), most recently used first
_NO_CAP = 1 << 40  # a code file git reads is hashed whatever its size
_ENTRY_NAME = re.compile(r"[0-9a-f]{64}\.json")


@dataclass
class CachedRun:
    """What a run reported, as the runner returns it (roadmap/lint.py LintResult)."""

    head: str | None
    findings: list[Finding]
    records: int
    statements: int
    suppressed: int


@lru_cache(maxsize=1)
def tool_fingerprint() -> str | None:
    """sha256 over the roadmap package's source, the evidence schema and the versions of what parses for it.
    None when the source cannot be read: then there is no run cache."""
    import git
    import markdown_it

    here = Path(__file__).resolve().parent
    h = hashlib.sha256(f"{sys.version}\0{markdown_it.__version__}\0{git.__version__}\0".encode())
    try:
        for p in sorted(here.rglob("*.py")):
            h.update(str(p.relative_to(here)).encode() + b"\0" + p.read_bytes() + b"\0")
        from roadmap.evidence.schema import SCHEMA_FILE

        h.update(SCHEMA_FILE.read_bytes())
    except OSError:
        return None
    return h.hexdigest()


def run_key(root: Path, config: Config, head: str | None, options: dict[str, Any]) -> str | None:
    """The entry key for a run, or None when there can be no entry (source unreadable)."""
    tool = tool_fingerprint()
    if tool is None:
        return None
    doc = {"tool": tool, "config": asdict(config), "head": head, "options": options, "state": state_stamp(root)}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()


def _state(tree: Tree, path: str) -> str:
    """What a run saw of one file: its bytes' sha256 (or that it was not read), and why it is skipped if it is
    (a referenced file's RL5 finding quotes that reason without reading the file)."""
    data = tree.read_bytes(path)
    skip = tree.skipped(path)
    digest = "-" if data is None else hashlib.sha256(data).hexdigest()
    return digest if skip is None else f"{digest} {skip.kind}: {skip.reason}"


def worktree_digest(root: Path, head: str) -> str:
    """The tracked files that differ from the commit linted, and their bytes: what a git command reading the
    working tree rather than the Tree sees (analysis/default_flips.py greps the code files for flags)."""
    h = hashlib.sha256()
    for p in worktree_changes(root, head):
        try:
            data = read_contained(root, p, _NO_CAP)
            h.update(p.encode("utf-8", "surrogateescape") + b"\0" + hashlib.sha256(data).digest())
        except (Declined, OSError) as exc:
            h.update(p.encode("utf-8", "surrogateescape") + b"\0" + type(exc).__name__.encode())
    return h.hexdigest()


def listing_digest(tree: Tree) -> str:
    return hashlib.sha256("\0".join(sorted(tree.files)).encode("utf-8", "surrogateescape")).hexdigest()


def load(root: Path, key: str, tree: Tree, head: str | None) -> CachedRun | None:
    """The stored result for `key` when its dependencies are unchanged in `tree` (a working tree), else None."""
    path = cache_root(root) / SUBDIR / f"{key}.json"
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    body = unseal(MAGIC, VERSION, raw)
    if body is None:
        return None
    try:
        doc = json.loads(body)
        if type(doc) is not dict or doc.get("key") != key:
            return None
        listing, deps, worktree = doc["listing"], doc["deps"], doc["worktree"]
        if listing is not None and listing != listing_digest(tree):
            return None
        if worktree is not None and (head is None or worktree != worktree_digest(root, head)):
            return None
        if type(deps) is not dict or any(type(p) is not str or _state(tree, p) != h for p, h in deps.items()):
            return None
        run = _decode_run(doc["run"])
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError, UnicodeError):
        return None
    try:
        os.utime(path)  # recently used: kept by `_prune`
    except OSError:
        pass
    return run


def store(root: Path, key: str, tree: Tree, run: CachedRun) -> None:
    """Write the entry for `key`: the result, and for a working tree its listing and the files the run read."""
    working = tree.rev is None
    doc = {
        "key": key,
        "listing": listing_digest(tree) if working else None,
        "worktree": worktree_digest(root, run.head) if working and run.head else None,
        "deps": {p: _state(tree, p) for p in tree.consulted()} if working else {},
        "run": _encode_run(run),
    }
    body = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")  # key order is output order
    try:
        write_atomic(cache_root(root) / SUBDIR / f"{key}.json", seal(MAGIC, VERSION, body))
    except OSError:
        return  # a read-only checkout still lints, just without the cache
    _prune(cache_root(root) / SUBDIR, key)


def _prune(folder: Path, keep_key: str) -> None:
    if not is_plain(folder.parent, folder):
        return
    try:
        entries = sorted(
            (
                (p.stat().st_mtime, p)
                for p in folder.glob("*.json")
                if _ENTRY_NAME.fullmatch(p.name) and p.stem != keep_key
            ),
            reverse=True,
        )
    except OSError:
        return
    for _, p in entries[KEEP - 1 :]:
        try:
            with p.open("rb") as fh:
                if fh.read(len(MAGIC) + 1) != MAGIC + b" ":
                    continue
            p.unlink(missing_ok=True)
        except OSError:
            return


def _encode_run(run: CachedRun) -> dict[str, Any]:
    return {
        "head": run.head,
        "records": run.records,
        "statements": run.statements,
        "suppressed": run.suppressed,
        "findings": [_encode_finding(f) for f in run.findings],
    }


def _encode_finding(f: Finding) -> list[Any]:
    return [
        f.code,
        f.name,
        f.severity,
        f.message,
        f.path,
        f.line,
        f.end_line,
        f.record_id,
        [[r.path, r.line, r.message] for r in f.related],
        f.evidence,
        f.fix,
        [[e.path, e.line, e.col, e.old, e.new] for e in f.edits],
        f.key,
    ]


def _decode_run(doc: Any) -> CachedRun:
    head = doc["head"]
    counts = [doc["records"], doc["statements"], doc["suppressed"]]
    if (head is not None and type(head) is not str) or any(type(n) is not int for n in counts):
        raise ValueError("malformed run")
    return CachedRun(head, [_decode_finding(x) for x in doc["findings"]], *counts)


def _decode_finding(row: Any) -> Finding:
    code, name, severity, message, path, line, end_line, record_id, related, evidence, fix, edits, key = row
    texts = (code, name, message, path, key)
    if (
        not all(type(t) is str for t in texts)
        or severity not in SEVERITIES
        or type(line) is not int
        or type(end_line) is not int
        or (record_id is not None and type(record_id) is not str)
        or (fix is not None and type(fix) is not str)
        or type(evidence) is not list
        or not all(type(e) is dict for e in evidence)
    ):
        raise ValueError("malformed finding")
    rel = [Related(_str(p), _int(n), _str(m)) for p, n, m in related]
    eds = [Edit(_str(p), _int(n), _int(c), _str(o), _str(w)) for p, n, c, o, w in edits]
    return Finding(code, name, severity, message, path, line, end_line, record_id, rel, evidence, fix, eds, key)


def _str(x: Any) -> str:
    if type(x) is not str:
        raise ValueError("expected a string")
    return x


def _int(x: Any) -> int:
    if type(x) is not int:
        raise ValueError("expected an integer")
    return x

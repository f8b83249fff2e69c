"""The one streamed `git log -p -U0` pass: commit metadata and per-symbol -S deltas, commit by commit.

Measured on a 10,000-commit generated history (tools/bench_history.py): `git log -p -U0` emits 20 MB in
2.0 s, while `git log --raw` + `git cat-file --batch` of every changed blob moves 127 MB that Python would
have to scan; the patch stream wins, and binary file pairs (no text hunks) alone go through cat-file.

Commits are fed explicitly (`--no-walk=unsorted --stdin`, in the caller's order) so that an incremental
run reads only the commits its cache lacks, and a commit whose objects are missing can be skipped
(marked unknown) while the rest of the walk goes on.
"""

from __future__ import annotations

import re
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from roadmap.history.commit import Commit, parse_trailers, split_message
from roadmap.history.declared import MAX_DIFF_BYTES, declared_names
from roadmap.history.git import GitError, object_info, popen_git, read_object
from roadmap.history.pickaxe import SymbolMatcher

FORMAT = (
    "%x00%x01%H%x1f%P%x1f%at%x1f%ct%x1f%aI%x1f%cI%x1f"
    "%(trailers:only,unfold,separator=%x1e,key_value_separator=%x1d)%x1f%B%x00%x02"
)
# Pinned to git's built-in defaults so results match a plain `git log -S` and do not depend on user config:
# rename detection on (a pure rename is not a -S hit), root commits diffed, no diff for merges.
LOG_ARGS = (
    "-c",
    "diff.renames=true",
    "-c",
    "log.showRoot=true",
    "-c",
    "diff.relative=false",
    "log",
    "--no-walk=unsorted",
    "--stdin",
    "-p",
    "-U0",
    "--full-index",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--diff-merges=off",
    f"--format={FORMAT}",
)
MAX_COMMIT_BYTES = 64 << 20  # changed-line bytes of one commit beyond which its hits are "unknown"
MAX_BLOB_BYTES = 64 << 20  # binary blob size beyond which its pair is "unknown"
MAX_UNKNOWN = 50  # commits with missing objects after which the rest of a walk is not read (all unknown)
NULL_SHA = "0" * 40
_MISSING = re.compile(
    r"unable to read|bad object|missing (blob|tree|commit|object)|corrupt|could not read|"
    r"invalid object|not a valid object|failed to read|unable to parse",
    re.I,
)


@dataclass
class Scanned:
    """One commit as read from the stream: metadata, and {symbol: net delta} for its -S hits."""

    commit: Commit
    deltas: dict[str, int]
    unknown: str | None = None
    declared: frozenset[str] | None = None  # names its patch declares (declared.py); None: not read from the stream


class BlobCounter:
    """Reads whole blobs (binary file pairs) through GitPython's persistent `git cat-file --batch`."""

    def __init__(self, root: str | Path):
        self.root = root

    def read(self, sha: str) -> bytes | None | str:
        """Blob bytes; None when the object is absent; a reason string when it is too large."""
        if sha == NULL_SHA:
            return b""
        info = object_info(self.root, sha)
        if info is None:
            return None
        if info[1] > MAX_BLOB_BYTES:
            return f"blob {sha[:9]} is {info[1]} bytes, over the {MAX_BLOB_BYTES} byte limit"
        got = read_object(self.root, sha)
        return None if got is None else got[1]


class _Commit:
    """Accumulates one commit's patch while it streams by."""

    __slots__ = ("header", "files", "added", "removed", "binary", "blob_ids", "size", "unknown", "patch", "patch_size")

    def __init__(self, header: bytes):
        self.header = header
        self.files: list[tuple[bytes, bytes]] = []
        self.added: list[bytes] | None = None
        self.removed: list[bytes] = []
        self.binary: list[tuple[str, str]] = []
        self.blob_ids: tuple[str, str] | None = None
        self.size = 0
        self.unknown: str | None = None
        self.patch: list[bytes] | None = []  # the patch text as `git show` prints it; None past MAX_DIFF_BYTES
        self.patch_size = 0

    def end_file(self) -> None:
        if self.added is not None and (self.added or self.removed):
            self.files.append((b"\n".join(self.added), b"\n".join(self.removed)))
        self.added = None
        self.removed = []
        self.blob_ids = None


def _parse_header(raw: bytes) -> Commit:
    head, _, _ = raw.partition(b"\x00\x02")
    parts = head[2:].split(b"\x1f", 7)
    if len(parts) != 8:
        raise GitError("unexpected `git log` output; is this git 2.32 or newer?")
    sha, parents, at, ct, ai, ci, trailers, body = (p.decode("utf-8", "replace") for p in parts)
    subject, rest = split_message(body)
    return Commit(sha, tuple(parents.split()), ai, int(at), ci, int(ct), subject, rest, parse_trailers(trailers))


def _finish(cur: _Commit, matcher: SymbolMatcher, blobs: BlobCounter) -> Scanned:
    cur.end_file()
    commit = _parse_header(cur.header)
    if cur.unknown:
        return Scanned(commit, {}, cur.unknown)
    deltas = matcher.deltas(cur.files)
    # a merge's patch is not streamed (`--diff-merges=off`): `git show` prints its combined diff instead
    declared = declared_names(b"".join(cur.patch)) if cur.patch is not None and not commit.is_merge else None
    for old, new in cur.binary:
        a, b = blobs.read(old), blobs.read(new)
        if a is None or b is None:
            return Scanned(commit, {}, f"object {(old if a is None else new)[:9]} is missing")
        if isinstance(a, str):
            return Scanned(commit, {}, a)
        if isinstance(b, str):
            return Scanned(commit, {}, b)
        for sym, d in matcher.count_blob_delta(a, b).items():
            deltas[sym] = deltas.get(sym, 0) + d
    return Scanned(commit, deltas, declared=declared)


def _stream(
    root: str | Path,
    shas: list[str],
    matcher: SymbolMatcher,
    pathspecs: tuple[str, ...],
    blobs: BlobCounter,
    state: dict[str, str | None],
) -> Iterator[Scanned]:
    """Yield each commit of `shas` as it completes; on git failure set state['error'] / state['partial']."""
    proc = popen_git(root, *LOG_ARGS, *(("--", *pathspecs) if pathspecs else ()), stdin=subprocess.PIPE)
    stdin, stdout, stderr = proc.stdin, proc.stdout, proc.stderr
    assert stdin and stdout and stderr
    payload = "".join(s + "\n" for s in shas).encode()

    def feed() -> None:  # a thread, so a large list never deadlocks against git's output
        try:
            stdin.write(payload)
            stdin.close()
        except OSError:
            pass

    errors: list[bytes] = []

    def drain() -> None:  # git may warn per commit (rename limits): a full stderr pipe would stall it
        errors.append(stderr.read())

    feeder = threading.Thread(target=feed, daemon=True)
    drainer = threading.Thread(target=drain, daemon=True)
    feeder.start()
    drainer.start()
    try:
        cur: _Commit | None = None
        in_header = False
        in_hunk = False
        for line in stdout:
            if line[:2] == b"\x00\x01":
                if cur is not None:
                    yield _finish(cur, matcher, blobs)
                cur = _Commit(line)
                in_header = b"\x00\x02" not in line
                in_hunk = False
                state["partial"] = line[2:42].decode()
                continue
            if cur is None:
                continue
            if in_header:
                cur.header += line
                in_header = b"\x00\x02" not in line
                continue
            if cur.patch is not None and (cur.patch or line.startswith(b"diff --git ")):
                cur.patch_size += len(line)
                if cur.patch_size > MAX_DIFF_BYTES:
                    cur.patch = None  # too long to read names from: `git show` is asked, if anyone asks
                else:
                    cur.patch.append(line)
            c = line[:1]
            if in_hunk and (c == b"+" or c == b"-"):
                if cur.unknown is None:
                    cur.size += len(line)
                    if cur.size > MAX_COMMIT_BYTES:
                        cur.unknown = f"diff larger than {MAX_COMMIT_BYTES} bytes"
                        cur.files, cur.added, cur.removed = [], [], []
                    elif c == b"+":
                        cur.added.append(line[1:-1] if line[-1:] == b"\n" else line[1:])  # type: ignore[union-attr]
                    else:
                        cur.removed.append(line[1:-1] if line[-1:] == b"\n" else line[1:])
            elif c == b"@":
                in_hunk = True
            elif line.startswith(b"diff --git "):
                cur.end_file()
                cur.added = []
                in_hunk = False
            elif not in_hunk and line.startswith(b"index "):
                ids = line[6:].split()[0].split(b"..")
                if len(ids) == 2:
                    cur.blob_ids = (ids[0].decode(), ids[1].decode())
            elif not in_hunk and line.startswith(b"Binary files ") and cur.blob_ids is not None:
                cur.binary.append(cur.blob_ids)
        rc = proc.wait()
        feeder.join()
        drainer.join()
        err = b"".join(errors).decode("utf-8", "replace").strip()
        if rc != 0:
            state["error"] = err or f"git log exited {rc}"
            return
        if cur is not None:
            yield _finish(cur, matcher, blobs)
        state["partial"] = None
    finally:  # a consumer that stops early (an exception, Ctrl-C) must not leave git running
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        drainer.join()
        stdout.close()
        stderr.close()


def scan_commits(
    root: str | Path,
    shas: list[str],
    matcher: SymbolMatcher,
    pathspecs: tuple[str, ...] = (),
    progress: Callable[[int, int], None] | None = None,
    max_unknown: int = MAX_UNKNOWN,
) -> Iterator[Scanned]:
    """Stream `shas` (in order) through one `git log -p` and yield a Scanned per commit.

    A commit whose objects git cannot read is yielded with `unknown` set and the walk resumes after it;
    an error that is not a missing object raises GitError. Commits git drops (a pathspec they do not touch)
    are not yielded: the caller reads their metadata separately.
    """
    remaining = list(shas)
    done = 0
    blobs = BlobCounter(root)
    unknown = 0
    while remaining:
        state: dict[str, str | None] = {"partial": None, "error": None}
        seen: set[str] = set()
        for sc in _stream(root, remaining, matcher, pathspecs, blobs, state):
            seen.add(sc.commit.sha)
            done += 1
            if progress:
                progress(done, len(shas))
            yield sc
        if state["error"] is None:
            return
        if not _MISSING.search(state["error"]):
            raise GitError(f"git log: {state['error']}")
        rest = [s for s in remaining if s not in seen]
        culprit = state["partial"] if state["partial"] in rest else rest[0]
        single: dict[str, str | None] = {"partial": None, "error": None}
        got = list(_stream(root, [culprit], matcher, pathspecs, blobs, single))
        error = single["error"]
        if error is None:
            yield from got
        else:
            unknown += 1
            yield Scanned(_metadata(root, culprit), {}, _reason(error))
        done += 1
        remaining = [s for s in rest if s != culprit]
        if unknown >= max_unknown and remaining:
            why = f"not read: {unknown} earlier commits had missing objects ({_reason(error or '')})"
            for s in remaining:
                yield Scanned(_metadata(root, s), {}, why)
            return


def _reason(err: str) -> str:
    line = next((x for x in err.splitlines() if _MISSING.search(x)), err.splitlines()[0] if err else "")
    return line.removeprefix("fatal: ").removeprefix("error: ").strip() or "diff could not be read"


def _metadata(root: str | Path, sha: str) -> Commit:
    """Metadata of one commit without its diff (a commit whose diff cannot be read)."""
    return next(iter(read_metadata(root, [sha])))


def read_metadata(root: str | Path, shas: list[str]) -> list[Commit]:
    """Metadata only (no patches) for `shas`, in order: commits a pathspec-limited stream dropped."""
    if not shas:
        return []
    proc = popen_git(
        root, "log", "--no-walk=unsorted", "--stdin", "--no-color", f"--format={FORMAT}", stdin=subprocess.PIPE
    )
    out, err = proc.communicate("".join(s + "\n" for s in shas).encode())
    if proc.returncode != 0:
        raise GitError(f"git log: {err.decode('utf-8', 'replace').strip()}")
    return [_parse_header(b"\x00\x01" + rec) for rec in out.split(b"\x00\x01")[1:]]

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
from typing import IO
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
    extra: object = None  # what the caller's per-commit function gave for it, in the process that read it


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
    """One commit's patch, read from its whole block of the stream at once."""

    __slots__ = ("header", "files", "binary", "unknown", "patch")

    def __init__(self, header: bytes):
        self.header = header
        self.files: list[tuple[bytes, bytes]] = []  # per file pair: (added lines, removed lines), joined by \n
        self.binary: list[tuple[str, str]] = []  # (old, new) blob ids of binary file pairs
        self.unknown: str | None = None
        self.patch: bytes | None = b""  # the patch text as `git show` prints it; None past MAX_DIFF_BYTES


# A `-U0` hunk line, after the newline that ends the line before it (a hunk's first line is its `@@` header, so
# every `+`/`-` line of a hunk body follows a newline): a literal prefix lets the regex engine skip to it.
_ADDED = re.compile(rb"\n\+([^\n]*)")
_REMOVED = re.compile(rb"\n-([^\n]*)")
_FILE_START = b"diff --git "


def _line_starts(text: bytes, prefix: bytes) -> list[int]:
    """Where the lines of `text` that begin with `prefix` begin (a find per line found, not a look at every line)."""
    out = [0] if text.startswith(prefix) else []
    at = text.find(b"\n" + prefix)
    while at != -1:
        out.append(at + 1)
        at = text.find(b"\n" + prefix, at + 1)
    return out


def _read_block(block: bytes) -> _Commit:
    """A commit's block of the stream (from its \\x00\\x01 header to the next one) as a _Commit: the header
    lines up to the one holding \\x00\\x02, then per file pair the `+`/`-` lines of its hunks (the `+++`/`---`
    lines before the first hunk are no change), its blob ids and whether git called it binary.

    Reading each commit as one block, with a regex per kind of line, gives what a loop over the stream's lines
    gave (the patch of mudler/vllm.cpp's history is 68 MB, 1.5 million lines) in a fraction of its time."""
    mark = block.find(b"\x00\x02")
    eol = block.find(b"\n", mark) if mark != -1 else -1
    if eol == -1:
        return _Commit(block)  # header only (a commit without a diff, or the stream's end)
    cur = _Commit(block[: eol + 1])
    text = block[eol + 1 :]
    files = _line_starts(text, _FILE_START)
    if not files:
        return cur
    patch = text[files[0] :]
    cur.patch = patch if len(patch) <= MAX_DIFF_BYTES else None  # longer: `git show` is asked, if anyone asks
    starts = [a - files[0] for a in files] + [len(patch)]
    size = 0
    for a, b in zip(starts, starts[1:]):
        size += _read_file(cur, patch[a:b])
    if size > MAX_COMMIT_BYTES:
        cur.unknown = f"diff larger than {MAX_COMMIT_BYTES} bytes"
        cur.files = []
    return cur


def _read_file(cur: _Commit, section: bytes) -> int:
    """Add one file pair's section (from its `diff --git` line) to `cur`; the bytes of its changed lines."""
    hunk = section.find(b"\n@")
    header = section if hunk == -1 else section[: hunk + 1]
    blob_ids: tuple[str, str] | None = None
    for line in header.split(b"\n"):
        if line.startswith(b"index "):
            ids = line[6:].split()[0].split(b"..")
            if len(ids) == 2:
                blob_ids = (ids[0].decode(), ids[1].decode())
        elif line.startswith(b"Binary files ") and blob_ids is not None:
            cur.binary.append(blob_ids)
    if hunk == -1:
        return 0
    body = section[hunk:]
    added = _ADDED.findall(body)
    removed = _REMOVED.findall(body)
    if added or removed:
        cur.files.append((b"\n".join(added), b"\n".join(removed)))
    # each line with its sign and its newline (the stream's last line may have none)
    size = sum(map(len, added)) + sum(map(len, removed)) + 2 * (len(added) + len(removed))
    if not body.endswith(b"\n") and body[body.rfind(b"\n") + 1 :][:1] in (b"+", b"-"):
        size -= 1
    return size


def _parse_header(raw: bytes) -> Commit:
    head, _, _ = raw.partition(b"\x00\x02")
    parts = head[2:].split(b"\x1f", 7)
    if len(parts) != 8:
        raise GitError("unexpected `git log` output; is this git 2.32 or newer?")
    sha, parents, at, ct, ai, ci, trailers, body = (p.decode("utf-8", "replace") for p in parts)
    subject, rest = split_message(body)
    return Commit(sha, tuple(parents.split()), ai, int(at), ci, int(ct), subject, rest, parse_trailers(trailers))


def _finish(cur: _Commit, matcher: SymbolMatcher, blobs: BlobCounter) -> Scanned:
    commit = _parse_header(cur.header)
    if cur.unknown:
        return Scanned(commit, {}, cur.unknown)
    deltas = matcher.deltas(cur.files)
    # a merge's patch is not streamed (`--diff-merges=off`): `git show` prints its combined diff instead
    declared = declared_names(cur.patch) if cur.patch is not None and not commit.is_merge else None
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


_BLOCK_START = re.compile(rb"\x00\x01")
CHUNK = 1 << 20  # bytes read from git at a time
_HOLD_BYTES = 2 * MAX_COMMIT_BYTES  # one commit's block held in memory before its changed lines are counted


def _oversized(partial: bytes) -> _Commit | None:
    """The commit whose block `partial` begins, marked unknown, when the changed lines read so far are already
    over MAX_COMMIT_BYTES (its whole patch can only be more); None while they are not."""
    cur = _read_block(partial)
    if cur.unknown is None:
        return None
    return cur


def _read_chunk(stdout: IO[bytes]) -> bytes:
    read1 = getattr(stdout, "read1", None)
    return read1(CHUNK) if read1 is not None else stdout.read(CHUNK)


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
        pending = b""  # the stream read so far from the last commit's \x00\x01 on
        big: _Commit | None = None  # the commit being read when its changed lines alone are over the limit
        hold = _HOLD_BYTES  # pending's size at which its changed lines are counted next (doubling: linear work)
        while chunk := _read_chunk(stdout):
            seek = max(len(pending) - 1, 0)  # a marker may straddle two chunks
            pending += chunk
            # every block but the last is complete: the next commit's header has begun
            starts = [m.start() for m in _BLOCK_START.finditer(pending, seek)]
            if not starts:
                if len(pending) > hold and big is None:
                    big = _oversized(pending)
                    hold *= 2
                if big is not None:  # its verdict is known: the rest of its patch is not kept
                    pending = pending[-1:]
                continue
            hold = _HOLD_BYTES
            if big is not None:
                yield _finish(big, matcher, blobs)
                big = None
            elif pending.startswith(b"\x00\x01") and starts[0] != 0:
                starts.insert(0, 0)  # the block held from the last chunk ends where this chunk's first begins
            for a, b in zip(starts, starts[1:]):
                yield _finish(_read_block(pending[a:b]), matcher, blobs)
            pending = pending[starts[-1] :]
            if len(pending) >= 42:
                state["partial"] = pending[2:42].decode()
        rc = proc.wait()
        feeder.join()
        drainer.join()
        err = b"".join(errors).decode("utf-8", "replace").strip()
        if rc != 0:
            state["error"] = err or f"git log exited {rc}"
            return
        if big is not None:
            yield _finish(big, matcher, blobs)
        elif pending.startswith(b"\x00\x01"):
            yield _finish(_read_block(pending), matcher, blobs)
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

"""The one module that talks to git, through GitPython: a `git.Repo` per repository for discovery, refs,
rev-parse and object reads, and GitPython's process interface (`Git.execute`) for every git command.

Record text is data: anything taken from a record reaches git only as a list argument after `--end-of-options`
(never through a shell), or on stdin, and revisions must look like a sha or resolve with `git rev-parse --verify`.
Every command runs with SAFE_CONFIG, so a repository's own config cannot make reading it run a program.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import subprocess
import threading
from collections import OrderedDict
from pathlib import Path
from typing import IO, Any

import git as gitpython
from git.cmd import Git

SHA_RE = re.compile(r"^[0-9a-f]{7,40}$")
FULL_SHA_RE = re.compile(r"^[0-9a-f]{40}$")
# Settings that could make reading a repository run a program the repository chose.
SAFE_CONFIG = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "diff.external=",
    "-c",
    "core.pager=cat",
    "-c",
    "log.showSignature=false",
    "-c",
    "core.quotepath=off",
)
# GitPython sets LC_ALL/LANGUAGE=C itself; an empty GIT_EXTERNAL_DIFF is git's "unset".
ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "GIT_OPTIONAL_LOCKS": "0", "GIT_EXTERNAL_DIFF": ""}
_OPEN_REPOS = 8  # repositories kept open (each may hold two `git cat-file` processes)
_REPOS: OrderedDict[str, gitpython.Repo] = OrderedDict()
# GitPython's persistent `cat-file` processes serve one request at a time: blame runs in threads (blame.py).
_LOCK = threading.RLock()


class GitError(Exception):
    """git failed or the repository cannot be read as asked; the message names the fix."""


def repo(root: str | Path) -> gitpython.Repo:
    """The `git.Repo` of the repository whose top level is `root`, opened once and kept (a few at a time)."""
    key = str(root)
    with _LOCK:
        r = _REPOS.get(key)
        if r is not None:
            _REPOS.move_to_end(key)
            return r
        try:
            r = gitpython.Repo(key)
        except (gitpython.InvalidGitRepositoryError, gitpython.NoSuchPathError) as exc:
            raise GitError(
                f"{root} is not a git repository ({type(exc).__name__}); run inside a git checkout"
            ) from None
        opts = [v for k, v in zip(SAFE_CONFIG[::2], SAFE_CONFIG[1::2]) if k == "-c"]
        r.git.set_persistent_git_options(c=opts)  # also the `cat-file --batch` processes GitPython keeps
        r.git.update_environment(**ENV)
        _REPOS[key] = r
        while len(_REPOS) > _OPEN_REPOS:
            _, old = _REPOS.popitem(last=False)
            old.close()
        return r


def close_all() -> None:
    """Stop the `git cat-file` processes of every open repository (tests, long-lived callers)."""
    with _LOCK:
        while _REPOS:
            _, r = _REPOS.popitem()
            r.close()


_INHERITED: list[gitpython.Repo] = []  # a forked child's copies of its parent's repositories, never used or closed


def after_fork() -> None:
    """In a forked child: open repositories afresh. The inherited ones talk to the parent's `cat-file` processes
    through shared pipes, so they are set aside untouched (closing them would stop the parent's processes)."""
    global _LOCK
    _LOCK = threading.RLock()  # another thread of the parent may have held it at the fork
    _INHERITED.extend(_REPOS.values())
    _REPOS.clear()


def _command(args: tuple[str, ...]) -> list[str]:
    return [str(Git.GIT_PYTHON_GIT_EXECUTABLE or "git"), *SAFE_CONFIG, *args]


class GitProcess:
    """A streamed git command started through GitPython's `Git.execute(as_process=True)`.

    Holds GitPython's AutoInterrupt handle, which stops git when dropped: a consumer that stops early never
    leaves git running."""

    def __init__(self, handle: Any):
        self._handle = handle
        proc: subprocess.Popen[bytes] = handle.proc
        self.proc = proc

    @property
    def stdin(self) -> IO[bytes] | None:
        return self.proc.stdin

    @property
    def stdout(self) -> IO[bytes] | None:
        return self.proc.stdout

    @property
    def stderr(self) -> IO[bytes] | None:
        return self.proc.stderr

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode

    def wait(self) -> int:
        return self.proc.wait()

    def poll(self) -> int | None:
        return self.proc.poll()

    def kill(self) -> None:
        self.proc.kill()

    def communicate(self, input: bytes | None = None) -> tuple[bytes, bytes]:
        out, err = self.proc.communicate(input)
        return out or b"", err or b""


def popen_git(root: str | Path, *args: str, stdin: int | None = None) -> GitProcess:
    """A streamed git command (stdout and stderr as pipes) for one-pass walks over history.

    `stdin=subprocess.PIPE` lets the caller feed revisions (`--stdin`) or object names (`cat-file --batch`).
    """
    handle = repo(root).git.execute(_command(args), istream=stdin, as_process=True)
    return GitProcess(handle)


def run_git(root: str | Path, *args: str, input: bytes | None = None, check: bool = True) -> bytes:
    """stdout of one git command; GitError naming git's complaint when it fails and `check` is set."""
    code, out, err = _run(root, args, input)
    if check and code != 0:
        text = err.decode("utf-8", "replace").strip()
        raise GitError(f"git {' '.join(args[:3])}: {text or 'exit ' + str(code)}")
    return out


def show_patch(root: str | Path, sha: str, *paths: str) -> bytes:
    """The patch of commit `sha` (zero context lines, no header, no textconv or external diff), limited to `paths`
    when given; b"" when git cannot show it."""
    try:
        return run_git(
            root,
            "show",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "-U0",
            "--format=",
            "--end-of-options",
            sha,
            "--",
            *paths,
        )
    except GitError:
        return b""


def git_succeeds(root: str | Path, *args: str) -> bool:
    """Did the command exit 0 (`merge-base --is-ancestor`, `cat-file -e`)?"""
    return _run(root, args, None)[0] == 0


def _run(root: str | Path, args: tuple[str, ...], input: bytes | None) -> tuple[int, bytes, bytes]:
    proc = popen_git(root, *args, stdin=subprocess.PIPE if input is not None else None)
    out, err = proc.communicate(input)
    return proc.wait(), out, err


def toplevel(path: str | Path) -> Path | None:
    """The top level of the work tree containing `path` (GitPython's discovery), or None outside one."""
    try:
        r = gitpython.Repo(str(path), search_parent_directories=True)
    except (gitpython.InvalidGitRepositoryError, gitpython.NoSuchPathError, NotADirectoryError):
        return None
    top = r.working_tree_dir
    r.close()
    return Path(top) if top is not None else None


def resolve_rev(root: str | Path, rev: str) -> str:
    """A full commit sha for `rev`, or GitError naming the fix.

    HEAD and full shas are read through GitPython's refs and object database (no process of their own);
    anything else is asked of `git rev-parse --verify`, after `--end-of-options`."""
    if rev.startswith("-"):
        raise GitError(f"revision {rev!r} looks like an option; pass a commit sha, branch or tag")
    sha = ""
    if rev == "HEAD" or FULL_SHA_RE.match(rev):
        try:
            with _LOCK:
                sha = repo(root).commit(rev).hexsha
        except (ValueError, gitpython.BadName, gitpython.BadObject, gitpython.GitCommandError, TypeError):
            sha = ""
    else:
        code, out, _ = _run(root, ("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"), None)
        sha = out.decode().strip() if code == 0 else ""
    if not FULL_SHA_RE.match(sha):
        raise GitError(f"{rev!r} is not a commit in this repository; check `git log --oneline` for a valid revision")
    return sha


@functools.lru_cache(maxsize=32)
def empty_tree(root: str | Path) -> str:
    """The id of the empty tree in this repository's hash (a diff against it lists a whole tree)."""
    return run_git(root, "hash-object", "-t", "tree", "--stdin", input=b"").decode().strip()


def state_stamp(root: str | Path) -> str:
    """A digest of what a lint may read from the repository besides the history of the commit it lints: the
    object store (pack files, loose-object directories, alternates), the shallow boundary, and the git config
    files (the repository's and the user's). Read from the file system, no process: a run cache key part
    (roadmap/runcache.py)."""
    r = repo(root)
    common, own = Path(r.common_dir), Path(r.git_dir)
    home = Path(os.environ.get("HOME", "~")).expanduser()
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    h = hashlib.sha256()
    for d in (common / "objects", common / "objects" / "pack"):
        try:
            for e in sorted(os.scandir(d), key=lambda e: e.name):
                st = e.stat(follow_symlinks=False)
                h.update(f"{d.name}/{e.name} {st.st_mtime_ns} {st.st_size}\n".encode("utf-8", "surrogateescape"))
        except OSError:
            h.update(f"{d.name}: unreadable\n".encode())
    for f in (
        common / "objects" / "info" / "alternates",
        common / "shallow",
        common / "config",
        own / "config.worktree",
        home / ".gitconfig",
        xdg / "git" / "config",
        Path("/etc/gitconfig"),
    ):
        try:
            h.update(str(f).encode("utf-8", "surrogateescape") + b"\0" + f.read_bytes() + b"\0")
        except OSError:
            h.update(str(f).encode("utf-8", "surrogateescape") + b"\0absent\0")
    return h.hexdigest()


def worktree_changes(root: str | Path, rev: str) -> list[str]:
    """Tracked paths whose working-tree file may differ from `rev` (`git diff-index`, by the index's stat
    data, so a touched but equal file is listed too): every other tracked file reads as it is at `rev`."""
    out = run_git(root, "diff-index", "-z", "--name-only", "--no-renames", "--end-of-options", rev, "--")
    return sorted(p for p in out.decode("utf-8", "surrogateescape").split("\0") if p)


def is_shallow(root: str | Path) -> bool:
    return run_git(root, "rev-parse", "--is-shallow-repository").decode().strip() == "true"


def read_object(root: str | Path, name: str) -> tuple[str, bytes] | None:
    """(type, bytes) of the object `name` names (`<sha>`, `<rev>:<path>`) through GitPython's persistent
    `git cat-file --batch`; None when it is missing or the name cannot be sent (a line feed in it)."""
    if "\n" in name or not name:
        return None
    try:
        with _LOCK:
            _, kind, _, data = repo(root).git.get_object_data(name)
    except ValueError:
        return None
    return _text(kind), data


def object_info(root: str | Path, name: str) -> tuple[str, int] | None:
    """(type, size) of the object `name` names, through GitPython's persistent `git cat-file --batch-check`;
    None when it is missing or the name cannot be sent."""
    if "\n" in name or not name:
        return None
    try:
        with _LOCK:
            _, kind, size = repo(root).git.get_object_header(name)
    except ValueError:
        return None
    return _text(kind), int(size)


def blame_spans(
    root: str | Path, rev: str | None, path: str, spans: list[tuple[int, int]]
) -> list[tuple[str, int, int, range]]:
    """(sha, author time, commit time, final line numbers) for the lines `spans` names (1-based, inclusive), from
    one `git blame --incremental --no-textconv` through GitPython (`Repo.blame_incremental`); `rev=None` blames the
    working tree file. `rev` must be a full sha (resolve_rev). GitError with git's complaint when it fails."""
    if rev is not None and not FULL_SHA_RE.match(rev):
        raise GitError(f"{rev!r} is not a full commit sha")
    try:
        entries = repo(root).blame_incremental(rev, path, L=[f"{a},{b}" for a, b in spans], no_textconv=True)
        return [
            (e.commit.hexsha, int(e.commit.authored_date), int(e.commit.committed_date), e.linenos) for e in entries
        ]
    except gitpython.GitCommandError as exc:
        why = str(exc.stderr).strip().strip("'").strip() or f"exit {exc.status}"
        raise GitError(f"git blame: {why}") from None


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value

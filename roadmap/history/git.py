"""The one way roadmap talks to git: list arguments (never a shell), validated revisions, no repo-configured programs.

Record text is data: anything taken from a record reaches git only as an argument after `--end-of-options`
or as stdin, and revisions must look like a sha or resolve with `git rev-parse --verify`.
"""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

SHA_RE = re.compile(r"^[0-9a-f]{7,40}$")
# Settings that could make reading a repository run a program the repository chose.
SAFE_CONFIG = ("-c", "core.fsmonitor=false", "-c", "diff.external=", "-c", "core.pager=cat",
               "-c", "log.showSignature=false", "-c", "core.quotepath=off")


class GitError(Exception):
    """git failed or the repository cannot be read as asked; the message names the fix."""


def git_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"})
    env.pop("GIT_EXTERNAL_DIFF", None)
    return env


def run_git(root: str | Path, *args: str, input: bytes | None = None, check: bool = True) -> bytes:
    proc = subprocess.run(["git", *SAFE_CONFIG, "-C", str(root), *args], input=input,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=git_env())
    if check and proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip()
        raise GitError(f"git {' '.join(args[:3])}: {err or 'exit ' + str(proc.returncode)}")
    return proc.stdout


def popen_git(root: str | Path, *args: str, stdin: int | None = None) -> subprocess.Popen[bytes]:
    """A streamed git command (stdout as a pipe) for one-pass walks over history.

    `stdin=subprocess.PIPE` lets the caller feed revisions (`--stdin`) or object names (`cat-file --batch`).
    """
    return subprocess.Popen(["git", *SAFE_CONFIG, "-C", str(root), *args], stdin=stdin, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=git_env())


def toplevel(path: str | Path) -> Path | None:
    try:
        out = run_git(path, "rev-parse", "--show-toplevel")
    except (GitError, FileNotFoundError, NotADirectoryError):
        return None
    return Path(out.decode().strip())


def resolve_rev(root: str | Path, rev: str) -> str:
    """A full commit sha for `rev`, or GitError naming the fix."""
    if rev.startswith("-"):
        raise GitError(f"revision {rev!r} looks like an option; pass a commit sha, branch or tag")
    try:
        out = run_git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    except GitError:
        out = b""
    sha = out.decode().strip()
    if not SHA_RE.match(sha):
        raise GitError(f"{rev!r} is not a commit in this repository; check `git log --oneline` for a valid revision")
    return sha


def is_shallow(root: str | Path) -> bool:
    return run_git(root, "rev-parse", "--is-shallow-repository").decode().strip() == "true"

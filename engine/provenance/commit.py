"""Which code ran: a 40-hex commit, whether the tree had changes, and the command, for evidence and servers alike.

Rules:
* commit: `--commit SHA` (40 hex, or a prefix `git rev-parse` resolves where a repository is present); without
  it, `git rev-parse HEAD` of the repository holding the engine; with neither, an error asking for --commit.
* dirty: `--dirty`/`--clean` when given. Otherwise, with --commit given, false: the caller vouches that the
  tree measured is that commit (the GPU machine has no .git to ask). Otherwise `git status --porcelain` over
  engine/ and pyproject.toml (untracked files included): any change there makes the measurement dirty.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import EngineError

REPO_ROOT = Path(__file__).resolve().parents[2]
DIRTY_PATHS = ("engine", "pyproject.toml")
_SHA = re.compile(r"^[0-9a-f]{40}$")
_SHORT = re.compile(r"^[0-9a-f]{7,39}$")


class ProvenanceError(EngineError):
    """--commit / --dirty cannot be settled; the message names the flag to pass."""


@dataclass(frozen=True)
class Provenance:
    """The code a server runs: a 40-hex commit (None: not stated) and whether the tree had changes."""

    commit: str | None = None
    dirty: bool | None = None
    command: str | None = None  # the command line that started it


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def resolve_commit(commit: str | None, dirty: bool | None, repo: Path = REPO_ROOT) -> tuple[str, bool]:
    """(40-hex commit, dirty) per the module docstring."""
    in_repo = _git(["rev-parse", "--is-inside-work-tree"], repo) is not None
    if commit is not None:
        commit = commit.strip().lower()
        if not _SHA.match(commit):
            resolved = (
                _git(["rev-parse", "--verify", "--end-of-options", f"{commit}^{{commit}}"], repo)
                if in_repo and _SHORT.match(commit)
                else None
            )
            if not resolved:
                raise ProvenanceError(
                    f"--commit {commit!r} is not a 40-hex commit sha; pass the full sha of the "
                    f"code measured (git rev-parse HEAD)"
                )
            commit = resolved.strip()
        return commit, bool(dirty) if dirty is not None else False
    if not in_repo:
        raise ProvenanceError(
            "no git repository here to read the commit from; pass --commit <40-hex sha> of the "
            "code measured (and --dirty if it had uncommitted changes)"
        )
    head = (_git(["rev-parse", "HEAD"], repo) or "").strip()
    if not _SHA.match(head):
        raise ProvenanceError("git rev-parse HEAD gave no commit (an empty repository?); pass --commit <40-hex sha>")
    if dirty is None:
        status = _git(["status", "--porcelain", "--", *DIRTY_PATHS], repo)
        dirty = bool(status and status.strip())
    return head, dirty


def resolve_provenance(commit: str | None, dirty: bool | None, command: str | None = None) -> Provenance:
    """--commit checked (and a short sha resolved where a repository is present) the way `engine bench` does;
    without --commit the commit stays unknown (a server never guesses from a checkout it may not run)."""
    if commit is None:
        return Provenance(None, dirty, command)
    sha, is_dirty = resolve_commit(commit, dirty)
    return Provenance(sha, is_dirty, command)


def add_provenance_args(g: Any, commit_help: str, tree: str) -> None:
    """--commit and --dirty/--clean: which code a measurement (or a server) ran; shared by bench and serve."""
    g.add_argument("--commit", default=None, help=commit_help)
    dirty = g.add_mutually_exclusive_group()
    dirty.add_argument(
        "--dirty",
        dest="dirty",
        action="store_const",
        const=True,
        default=None,
        help=f"the tree {tree} had uncommitted changes",
    )
    dirty.add_argument(
        "--clean",
        dest="dirty",
        action="store_const",
        const=False,
        help=f"the tree {tree} is exactly --commit (the default when --commit is given)",
    )

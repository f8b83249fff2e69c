"""Shared fixtures for roadmap tests: `git_repo`, a factory of small git repositories with DATED commits.

    def test_x(git_repo):
        repo = git_repo()                                    # empty repo on branch main, in tmp_path
        a = repo.commit({"src/a.py": "x = 1\n"}, "feat: a", "2026-07-25")
        repo.commit({"src/a.py": None}, "chore: drop a", "2026-07-27T10:00:00")   # None deletes
        repo.commit({"b.py": "y\n"}, "wip", "2026-07-28", branch="feature")       # lands on `feature`, back on main
        repo.merge("feature", "merge feature", "2026-07-29")

Dates are ISO dates or datetimes (UTC when no offset is given) and set both author and committer dates,
so history-based rules see exactly the timeline a test describes.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Callable

import pytest

IDENTITY = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.com",
}


def git_date(date: str) -> str:
    """'2026-07-25' or '2026-07-25T10:00:00' -> a git date string, UTC unless an offset is given."""
    if "T" not in date and " " not in date:
        date = f"{date}T12:00:00"
    if not (date.endswith("Z") or "+" in date[10:] or "-" in date[10:]):
        date += "+00:00"
    return date


class GitRepo:
    """A git repository in a temporary directory, driven by plain `git` subprocess calls."""

    def __init__(self, path: Path, branch: str = "main"):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", branch)
        self.git("config", "user.name", IDENTITY["GIT_AUTHOR_NAME"])
        self.git("config", "user.email", IDENTITY["GIT_AUTHOR_EMAIL"])
        self.git("config", "commit.gpgsign", "false")

    def git(self, *args: str, date: str | None = None, input: bytes | None = None) -> str:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(IDENTITY)
        if date is not None:
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = git_date(date)
        proc = subprocess.run(
            ["git", "-C", str(self.path), *args], input=input, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        if proc.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr.decode(errors='replace')}")
        return proc.stdout.decode("utf-8", "replace").strip()

    @property
    def branch(self) -> str:
        return self.git("symbolic-ref", "--short", "HEAD")

    def write(self, files: dict[str, str | bytes | None]) -> None:
        """Change the working tree only (no commit): str/bytes writes a file, None deletes it."""
        for name, content in files.items():
            target = self.path / name
            if content is None:
                if target.exists():
                    target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")

    def commit(
        self, files: dict[str, str | bytes | None], message: str, date: str = "2026-01-01", branch: str | None = None
    ) -> str:
        """Write `files` (None deletes), commit them with `date`, return the new sha.

        With `branch`, the commit lands on that branch (created from the current HEAD when new) and the
        repository is switched back to the branch it was on, so unmerged side branches are one call.
        """
        previous = None
        if branch is not None:
            previous = self.branch if self.has_commits() else None
            exists = bool(self.git("branch", "--list", branch))
            self.git("checkout", "-q", *([] if exists else ["-b"]), branch)
        self.write(files)
        for name, content in files.items():
            if content is None:
                self.git("rm", "-q", "--cached", "--ignore-unmatch", "--", name)
            else:
                self.git("add", "--", name)
        self.git("commit", "-q", "--allow-empty", "-m", message, date=date)
        sha = self.rev("HEAD")
        if previous is not None and previous != branch:
            self.git("checkout", "-q", previous)
        return sha

    def mv(self, old: str, new: str, message: str, date: str, content: str | None = None) -> str:
        """Rename a file in one commit (optionally changing its content), return the sha."""
        (self.path / new).parent.mkdir(parents=True, exist_ok=True)
        self.git("mv", "--", old, new)
        if content is not None:
            (self.path / new).write_text(content, encoding="utf-8")
            self.git("add", "--", new)
        self.git("commit", "-q", "-m", message, date=date)
        return self.rev("HEAD")

    def merge(self, branch: str, message: str | None = None, date: str = "2026-01-01") -> str:
        """Merge `branch` into the current branch with a merge commit (--no-ff), return its sha."""
        self.git("merge", "-q", "--no-ff", "-m", message or f"Merge branch '{branch}'", branch, date=date)
        return self.rev("HEAD")

    def checkout(self, ref: str, create: bool = False) -> None:
        self.git("checkout", "-q", *(["-b"] if create else []), ref)

    def rev(self, ref: str = "HEAD") -> str:
        return self.git("rev-parse", "--verify", f"{ref}^{{commit}}")

    def has_commits(self) -> bool:
        return (
            subprocess.run(
                ["git", "-C", str(self.path), "rev-parse", "--verify", "-q", "HEAD"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            ).returncode
            == 0
        )

    def read(self, name: str) -> str:
        return (self.path / name).read_text(encoding="utf-8")


@pytest.fixture
def git_repo(tmp_path: Path) -> Callable[..., GitRepo]:
    """Factory: `git_repo(name="repo", branch="main") -> GitRepo` under this test's tmp_path."""
    made: list[str] = []

    def make(name: str = "repo", branch: str = "main") -> GitRepo:
        if name in made:
            raise ValueError(f"git_repo({name!r}) already made in this test")
        made.append(name)
        return GitRepo(tmp_path / name, branch=branch)

    return make


# --- rule fixtures: a directory tree (+ optional setup.yaml history) committed into a fresh repo ----------------

FIXTURES = Path(__file__).parent / "fixtures"
EXPECT_RE = re.compile(r"<!--\s*expect:\s*(.*?)\s*-->")
ITEM_RE = re.compile(r'(RL\d{3})(?:\s+"([^"]*)")?')


def build_fixture(repo: GitRepo, fixture_dir: Path, date: str = "2026-08-01") -> dict[str, str]:
    """Replay `setup.yaml` (if any), then commit every other file of `fixture_dir` on `date`.

    setup.yaml:  commits: [{name, date, message, files: {path: text|null}, rename: {old: new}, branch}]
    Text files may say `{{sha:NAME}}` for the sha of a setup commit. Returns {name: sha}.
    """
    import yaml

    shas: dict[str, str] = {}
    setup = fixture_dir / "setup.yaml"
    if setup.exists():
        for n, step in enumerate(yaml.safe_load(setup.read_text(encoding="utf-8"))["commits"], 1):
            name = str(step.get("name", n))
            for old, new in (step.get("rename") or {}).items():
                (repo.path / new).parent.mkdir(parents=True, exist_ok=True)
                repo.git("mv", "--", old, new)
            shas[name] = repo.commit(
                step.get("files") or {}, step["message"], str(step["date"]), branch=step.get("branch")
            )
    files: dict[str, str | bytes | None] = {}
    for f in sorted(fixture_dir.rglob("*")):
        if f.is_file() and f != setup:
            data = f.read_bytes()
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                files[f.relative_to(fixture_dir).as_posix()] = data
                continue
            for name, sha in shas.items():
                text = text.replace("{{sha:%s}}" % name, sha).replace("{{short:%s}}" % name, sha[:9])
            files[f.relative_to(fixture_dir).as_posix()] = text
    if files:
        shas["records"] = repo.commit(files, "docs: records", date)
    return shas


def expectations(root: Path, paths: list[str]) -> dict[tuple[str, int, str], list[str]]:
    """`<!-- expect: RL301 "substring", RL302 -->` at the end of a line -> {(path, line, code): [substrings]}."""
    out: dict[tuple[str, int, str], list[str]] = {}
    for rel in paths:
        text = (root / rel).read_bytes().decode("utf-8", "replace")
        for n, line in enumerate(text.splitlines(), 1):
            for m in EXPECT_RE.finditer(line):
                for code, sub in ITEM_RE.findall(m.group(1)):
                    out.setdefault((rel, n, code), []).extend([sub] if sub else [])
    return out


@pytest.fixture
def fixture_repo(git_repo) -> Callable[[str], tuple[GitRepo, dict[str, str]]]:
    """`fixture_repo("RL301-path-missing") -> (repo, shas)`: tests/roadmap/fixtures/rules/<name> as a git repo."""

    def make(name: str) -> tuple[GitRepo, dict[str, str]]:
        repo = git_repo(name.replace("/", "_"))
        return repo, build_fixture(repo, FIXTURES / "rules" / name)

    return make

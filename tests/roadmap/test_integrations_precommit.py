"""pre-commit runs this repository's hook (.pre-commit-hooks.yaml) on a temporary repository: the changed
records are reported, other markdown files are not, and a clean commit passes.

The first test needs no network: the hook is used as written except `language: system`, with `roadmap` on PATH
(pre-commit would otherwise build a virtualenv and pip-install this project into it). The second runs the hook
exactly as written (`pre-commit try-repo`): it needs the package index for the hook's virtualenv and skips,
saying so, where pre-commit cannot build it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytest.importorskip("pre_commit", reason="pre-commit is not installed (it is in the dev extra)")

ROOT = Path(__file__).resolve().parents[2]
IDENTITY = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}
STALE = "# Plan\n\nSee `src/a.py:99`.\n"  # src/a.py has 2 lines: RL302
FIXED = "# Plan\n\nSee `src/a.py:2`.\n"


def _env(tmp_path: Path, path_dirs: list[Path] = ()) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(
        IDENTITY,
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        NO_COLOR="1",
        PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    )
    env["PATH"] = os.pathsep.join([*map(str, path_dirs), env.get("PATH", "")])
    return env


def _git(repo: Path, *args: str, env: dict[str, str]) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def _target_repo(tmp_path: Path, env: dict[str, str], config: str | None = None) -> Path:
    repo = tmp_path / "target"
    (repo / "agents").mkdir(parents=True)
    (repo / "src").mkdir()
    (repo / "src" / "a.py").write_text("a = 1\nb = 2\n")
    (repo / "agents" / "plan.md").write_text(STALE)
    (repo / "README.md").write_text("See `src/a.py:42` (README.md is not a record).\n")
    if config is not None:
        (repo / ".pre-commit-config.yaml").write_text(config)
    _git(tmp_path, "init", "-q", "-b", "main", str(repo), env=env)
    _git(repo, "add", ".", env=env)
    _git(repo, "commit", "-q", "-m", "init", env=env)
    return repo


def _pre_commit(repo: Path, env: dict[str, str], *args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_the_hook_reports_changed_records_only(tmp_path):
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "roadmap").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m roadmap "$@"\n')
    (shim / "roadmap").chmod(0o755)
    env = _env(tmp_path, [shim])

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    for hook in hooks:
        assert hook["language"] == "python"
        hook["language"] = "system"  # offline: `roadmap` from PATH instead of a virtualenv
    hook_repo = tmp_path / "hooks"
    hook_repo.mkdir()
    (hook_repo / ".pre-commit-hooks.yaml").write_text(yaml.safe_dump(hooks))
    _git(tmp_path, "init", "-q", "-b", "main", str(hook_repo), env=env)
    _git(hook_repo, "add", ".", env=env)
    _git(hook_repo, "commit", "-q", "-m", "hooks", env=env)
    rev = _git(hook_repo, "rev-parse", "HEAD", env=env)
    config = yaml.safe_dump({"repos": [{"repo": str(hook_repo), "rev": rev, "hooks": [{"id": "roadmap"}]}]})
    repo = _target_repo(tmp_path, env, config)

    proc = _pre_commit(repo, env, "run", "--files", "agents/plan.md", "README.md")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "roadmap lint" in proc.stdout and "Failed" in proc.stdout
    assert "agents/plan.md" in proc.stdout and "RL302" in proc.stdout and "src/a.py:99" in proc.stdout
    assert "README.md" not in proc.stdout and "src/a.py:42" not in proc.stdout

    proc = _pre_commit(repo, env, "run", "--files", "README.md")  # no record among the files: passes
    assert proc.returncode == 0, proc.stdout + proc.stderr

    (repo / "agents" / "plan.md").write_text(FIXED)
    _git(repo, "add", ".", env=env)
    proc = _pre_commit(repo, env, "run", "--all-files")
    assert proc.returncode == 0 and "Passed" in proc.stdout, proc.stdout + proc.stderr


def test_the_hook_as_written_builds_and_runs(tmp_path):
    env = _env(tmp_path)
    env.update(PIP_RETRIES="0", PIP_TIMEOUT="10")  # offline, pip gives up at once instead of retrying
    repo = _target_repo(tmp_path, env)
    try:
        proc = _pre_commit(repo, env, "try-repo", str(ROOT), "roadmap", "--all-files", timeout=150)
    except subprocess.TimeoutExpired:
        pytest.skip("pre-commit did not build the hook's virtualenv within 150 s (a slow or absent package index)")
    if "An error has occurred" in proc.stdout + proc.stderr:
        pytest.skip(
            "pre-commit could not build the hook's virtualenv (pip install of this project needs the "
            "package index): " + (proc.stdout + proc.stderr).strip().splitlines()[-1]
        )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "agents/plan.md" in proc.stdout and "RL302" in proc.stdout

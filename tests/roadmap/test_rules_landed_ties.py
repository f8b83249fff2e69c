"""RL101 names the same commit on every run: of commits that report a directive's work equally well, the one that
did it first, whatever order Python's string hashing (PYTHONHASHSEED) puts a set of commits in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

STATUS = ".agents/status.md"
TODO = ".agents/todo.md"
ROOT = Path(__file__).resolve().parents[2]


def _lint(path: Path, seed: int) -> list[dict]:
    # ROOT first, the caller's path after it (where the machine keeps packages such as GitPython)
    path_env = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": path_env}
    out = subprocess.run(
        [sys.executable, "-m", "roadmap", "lint", str(path), "--format", "json", "--no-cache", "--select", "RL1"],
        capture_output=True,
        text=True,
        env=env,
        cwd=path,
    )
    return json.loads(out.stdout)["findings"]


def test_the_first_of_equal_matches_is_named_on_every_run(git_repo):
    repo = git_repo()
    repo.commit({"api/export.ts": "export const csv = buffer\n"}, "init", "2026-06-01")
    first = repo.commit({"api/export.ts": "export const csv = stream\n"}, "stream CSV export rows", "2026-06-02")
    repo.commit({"api/export.py": "def export(): pass\n"}, "stream CSV export rows in python", "2026-06-03")
    repo.commit({"api/export.go": "package api\n"}, "stream CSV export rows in go", "2026-06-04")
    repo.commit({STATUS: "# Week 23\n\n- ✅ CSV export streams rows\n"}, "status", "2026-06-05")
    repo.commit({TODO: "# Todo\n\n- [ ] Stream the CSV export rows\n"}, "todo", "2026-06-06")
    named = set()
    for seed in (0, 1, 2, 3):
        [f] = _lint(repo.path, seed)
        assert "already marks done" in f["message"]
        named.add(f["evidence"][0]["sha"])
    assert named == {first}

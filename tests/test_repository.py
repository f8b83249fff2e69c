"""This repository's own gates: its records in agents/ match its history and evidence (`roadmap lint` is
clean), and every evidence directory it commits is valid. The project dogfoods its linter here, in CI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _roadmap(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "roadmap", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_roadmap_lint_on_this_repository_is_clean():
    proc = _roadmap("lint", ".", "--fail-on", "warning")
    assert proc.returncode == 0, f"roadmap lint . found stale records:\n{proc.stdout}\n{proc.stderr}"


def test_committed_evidence_is_valid():
    proc = _roadmap("evidence", "verify")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 invalid" in proc.stdout

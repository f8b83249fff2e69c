"""The engine's structure, checked: imports flow one way with no cycles (pyproject.toml's import-linter contracts)
and the strictly typed modules pass mypy --strict (pyproject.toml's [tool.mypy] overrides)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STRICT = ["engine/core", "engine/config.py", "engine/args.py", "engine/utils.py"]


def _tool(name: str) -> str:
    path = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


def _env() -> dict[str, str]:
    paths = [str(ROOT), *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths))


def test_engine_imports_flow_down_the_layers_without_cycles() -> None:
    proc = subprocess.run(
        [_tool("lint-imports"), "--no-cache", "--contract", "engine-layers", "--contract", "engine-acyclic"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_strict_modules_pass_mypy(tmp_path: Path) -> None:
    proc = subprocess.run(
        [_tool("mypy"), "--cache-dir", str(tmp_path), *STRICT],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr

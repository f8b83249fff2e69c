"""The engine's version: the installed distribution's, else pyproject.toml's when run from a source tree."""

from __future__ import annotations

import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from engine.utils import DISTRIBUTION


def engine_version() -> str:
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a source tree (the GPU machine: PYTHONPATH=.), not installed
        pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
        m = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.read_text(), re.M) if pyproject.is_file() else None
        return m.group(1) if m else "unknown"

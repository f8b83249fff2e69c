"""Speed work never changes what is reported: the seed repository's findings, at HEAD and along its timeline,
equal a committed snapshot, and equal each other whether the run reads no cache, fills a cold one, reads a
warm one, or is answered whole from the run cache (roadmap/runcache.py).

The snapshot (fixtures/seed/findings.json) is every field a finding reports plus its safe-fix edits. A rule
change that is meant to change findings regenerates it:

    ROADMAP_UPDATE_SNAPSHOT=1 .venv/bin/python -m pytest tests/roadmap/test_findings_stable.py
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from roadmap.cachedir import CACHE_DIR
from roadmap.lint import LintOptions, lint
from roadmap.render import render
from seed_repo import build_seed_repo

SNAPSHOT = Path(__file__).parent / "fixtures" / "seed" / "findings.json"
# (label, --at commit key of build_seed_repo or None for the working tree, --select)
RUNS = [
    ("head", None, ()),
    ("at-spec", "spec", ()),
    ("at-landing", "landing", ()),
    ("at-rerun_0803", "rerun_0803", ()),
    ("at-merge", "merge", ()),
    ("head-RL3", None, ("RL3",)),
]


def _doc(result: Any) -> dict[str, Any]:
    """Every field a finding reports, and the JSON output byte for byte (key order included)."""
    return {
        "json": render(result, "json"),
        "head": result.head,
        "records": result.records,
        "statements": result.statements,
        "suppressed": result.suppressed,
        "findings": [
            {**f.to_json(), "edits": [[e.path, e.line, e.old, e.new] for e in f.edits]}
            for f in sorted(result.findings, key=lambda f: f.sort_key())
        ],
    }


@pytest.fixture(scope="module")
def seed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("seed-stable") / "repo"
    return root, build_seed_repo(root)


def _all_runs(
    root: Path, shas: dict[str, str], use_cache: bool, run_cache: bool = False, from_cache: bool = False
) -> dict[str, Any]:
    out = {}
    for label, at, select in RUNS:
        opts = LintOptions(use_cache=use_cache, at=shas[at] if at else None, select=select, run_cache=run_cache)
        result = lint(root, opts)
        assert result.from_cache == from_cache, label
        out[label] = _doc(result)
    return out


def test_findings_equal_the_snapshot_with_and_without_caches(seed: tuple[Path, dict[str, str]]) -> None:
    root, shas = seed
    shutil.rmtree(root / CACHE_DIR, ignore_errors=True)
    uncached = _all_runs(root, shas, use_cache=False)
    cold = _all_runs(root, shas, use_cache=True)
    warm = _all_runs(root, shas, use_cache=True)
    stored = _all_runs(root, shas, use_cache=True, run_cache=True)
    answered = _all_runs(root, shas, use_cache=True, run_cache=True, from_cache=True)
    assert cold == uncached
    assert warm == uncached
    assert stored == uncached
    assert answered == uncached
    if os.environ.get("ROADMAP_UPDATE_SNAPSHOT"):
        SNAPSHOT.write_text(json.dumps(uncached, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    want = json.loads(SNAPSHOT.read_text())
    for label in want:
        assert uncached[label] == want[label], f"{label}: findings differ from {SNAPSHOT.name} (see the docstring)"
    assert sorted(uncached) == sorted(want)

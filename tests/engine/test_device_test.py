"""tools/device_test, the whole-suite runner for the GPU machine, on a small selection here: the files it writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_it_writes_the_environment_the_log_the_junit_and_a_summary(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}  # not this run's xdist worker id
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "device_test"),
            str(out),
            "--jobs",
            "1",
            "--",
            "tests/engine/test_bench_workloads.py",
            "tests/engine/test_device_test.py",
            "-k",
            "not writes_the_environment",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert sorted(p.name for p in out.iterdir()) == ["environment.json", "junit.xml", "pytest.log", "summary.json"]
    environment = json.loads((out / "environment.json").read_text())
    assert environment["modules"]["pytest"] and environment["python"] and "cuda" in environment
    summary = json.loads((out / "summary.json").read_text())
    cases = list(ET.parse(out / "junit.xml").getroot().iter("testcase"))
    assert summary["exit_code"] == 0 and not summary["cut_at_budget"] and summary["failed"] == 0
    assert summary["tests"] == len(cases) == summary["passed"] + summary["skipped"] > 0
    assert "--junitxml" in (out / "pytest.log").read_text().splitlines()[0]
    assert "device_test: exit 0" in proc.stdout


def test_a_usage_error_is_one_line(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "device_test"), str(tmp_path), "--jobs", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stderr.strip() == "device_test: error: --jobs must be >= 1 and --budget > 0"

"""tools/device_serve.py, the H200 script of issue 12's serving evidence, smoke-run on CPU with a tiny Qwen3: the
offline pass, engine serve, the bench points, one JSON with every field the lead reads, and a table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_tiny_run_writes_offline_online_and_ratios(tmp_path: Path) -> None:
    out = tmp_path / "serve.json"
    proc = subprocess.run(
        [
            sys.executable,
            "tools/device_serve.py",
            "--tiny",
            "--out",
            str(out),
            "--num-prompts",
            "12",
            "--concurrencies",
            "1,12",
            "--c1-prompts",
            "2",
            "--rates",
            "40",
        ],
        cwd=REPO,
        env={
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
            "OMP_NUM_THREADS": "1",
            "PATH": "/usr/bin:/bin",
        },
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["offline"]["output_tok_per_s"] > 0 and result["offline"]["output_tokens"] == 12 * 100, result[
        "offline"
    ]
    points = result["points"]
    (warm,) = result["warmup_points"]  # one untimed pass of the whole workload at the top concurrency
    assert warm["warmup"] and warm["max_concurrency"] == 12 and warm["completed"] == 12, warm
    assert [(p["max_concurrency"], p["request_rate"]) for p in points] == [(1, "inf"), (12, "inf"), (None, 40.0)], (
        points
    )
    for p in points:
        assert p["failed"] == 0 and p["completed"] == p["num_prompts"], (p, result["server_log_tail"])
        # tok/s is kept to 2 decimals and the ratio to 4, each from the unrounded figure
        assert p["online_over_offline"] == pytest.approx(
            p["output_tok_per_s"] / result["offline"]["output_tok_per_s"], abs=2e-4
        )
        assert p["ttft_ms"]["p50"] <= p["ttft_ms"]["p99"] and p["itl_ms"] and p["tpot_ms"]
    assert (
        "offline:" in proc.stdout
        and "c=12 n=12" in proc.stdout
        and "warm-up c=12" in proc.stdout
        and "rate=40.0" in proc.stdout
    )

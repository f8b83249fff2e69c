"""tools/device_step_profile.py runs on CPU (--tiny): the H200 measurement script itself is checked without a GPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_step_profile_tiny_smoke(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("triton")
    from triton_interp import interpreter_loop_problem

    with monkeypatch.context() as m:  # --tiny runs the kernels under TRITON_INTERPRET=1: can this triton's?
        m.setenv("TRITON_INTERPRET", "1")
        problem = interpreter_loop_problem()
    if problem:
        pytest.skip(problem)
    out = tmp_path / "profile.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    env.pop("ENGINE_COMPILE", None)
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "device_step_profile.py"),
            "--tiny",
            "--batches",
            "1",
            "3",
            "--steps",
            "1",
            "--out",
            str(out),
        ],
        check=True,
        env=env,
        cwd=ROOT,
        timeout=300,
        capture_output=True,
    )
    result = json.loads(out.read_text())
    assert result["device"] == "cpu" and [r["batch"] for r in result["runs"]] == [1, 3]
    for run in result["runs"]:
        # Every timed, host-timed and profiled step was a pure decode step through the padded graph path.
        assert run["graph_mode"] == "replay" and run["attention_kernels"] == "triton"
        assert run["graph_steps"] == 3 * run["steps"]
        phases = run["host_phases_ms"]
        assert phases["step"] > 0 and 0 < phases["host_work"] <= phases["step"]
        assert phases["execute_model/prepare_inputs"] > 0 and phases["schedule"] > 0
        assert run["step_ms"] > 0 and 0 < run["bound_ms"] and run["step_weight_bytes"] > 0
        kv_bytes_per_token = 2 * 2 * 2 * 64 * 4  # layers x (K, V) x KV heads x head_dim x float32
        assert run["step_kv_bytes"] == run["batch"] * run["context_tokens_per_row"] * kv_bytes_per_token

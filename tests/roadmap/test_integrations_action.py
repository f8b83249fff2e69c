"""The GitHub Action (action.yml) runs its lint step as written, in a fake runner environment: annotations in the
log, a SARIF file, a Markdown job summary, the exit status as an output and as the step's status.

Only the install step (setup-python and pip on a runner) is not run here; `roadmap` comes from this checkout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text())


def _lint_step(tmp_path: Path, repo: Path, inputs: dict[str, str]) -> tuple[subprocess.CompletedProcess, Path, Path]:
    step = next(s for s in _action()["runs"]["steps"] if s.get("id") == "lint")
    defaults = {name: spec.get("default", "") for name, spec in _action()["inputs"].items()}
    values = {**defaults, **inputs}
    env_of_step = {k: v.replace("${{ inputs.", "").replace(" }}", "") for k, v in step["env"].items()}
    shim = tmp_path / "bin"
    shim.mkdir(exist_ok=True)
    (shim / "roadmap").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m roadmap "$@"\n')
    (shim / "roadmap").chmod(0o755)
    output, summary = tmp_path / "github_output", tmp_path / "step_summary"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        {k: values[name] for k, name in env_of_step.items()},
        NO_COLOR="1",
        GITHUB_OUTPUT=str(output),
        GITHUB_STEP_SUMMARY=str(summary),
        PATH=os.pathsep.join([str(shim), env["PATH"]]),
        PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    )
    proc = subprocess.run(
        ["bash", "-e", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    return proc, output, summary


def test_the_action_is_composite_and_installs_roadmap_alone():
    action = _action()
    assert action["runs"]["using"] == "composite"
    install = next(s for s in action["runs"]["steps"] if s.get("name") == "Install roadmap")
    assert '"$GITHUB_ACTION_PATH"' in install["run"] and "[" not in install["run"]  # no extras: no torch
    lint = next(s for s in action["runs"]["steps"] if s.get("id") == "lint")
    assert "${{" not in lint["run"], "inputs reach the script as environment variables, never spliced into it"


def test_the_lint_step_annotates_writes_sarif_and_summary(tmp_path, git_repo):
    repo = git_repo()
    repo.commit(
        {"src/a.py": "a = 1\nb = 2\n", "agents/plan.md": "# Plan\n\nSee `src/a.py:99`.\n"}, "init", "2026-07-01"
    )
    proc, output, summary = _lint_step(tmp_path, repo.path, {})
    assert proc.returncode == 1, proc.stderr
    assert "::error file=agents/plan.md,line=3," in proc.stdout and "RL302" in proc.stdout
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    assert outputs == {"exit-code": "1", "sarif-file": "roadmap.sarif"}
    sarif = json.loads((repo.path / "roadmap.sarif").read_text())
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["RL302"]
    text = summary.read_text()
    assert text.startswith("### roadmap lint") and "RL302" in text and "agents/plan.md:3" in text


def test_the_lint_step_passes_a_clean_repository_and_takes_args(tmp_path, git_repo):
    repo = git_repo()
    repo.commit(
        {"src/a.py": "a = 1\nb = 2\n", "agents/plan.md": "# Plan\n\nSee `src/a.py:99`.\n"}, "init", "2026-07-01"
    )
    proc, output, _ = _lint_step(tmp_path, repo.path, {"args": "--ignore RL302", "sarif-file": ""})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "::" not in proc.stdout
    assert output.read_text().splitlines() == ["exit-code=0", "sarif-file="]
    assert not (repo.path / "roadmap.sarif").exists()

"""The `roadmap` command line: exit codes, formats, selection, errors as one line (never a traceback)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from roadmap.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def lines_repo(fixture_repo):
    repo, _ = fixture_repo("RL302-line-out-of-range")
    return repo


def test_python_dash_m_roadmap_help_teaches_with_examples():
    proc = subprocess.run([sys.executable, "-m", "roadmap", "lint", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0
    for text in (
        "--select",
        "--fail-on",
        "--since",
        "--at",
        "--baseline",
        "examples:",
        "roadmap lint --output-format sarif",
        "disable-next-line",
        "exit status",
    ):
        assert text in proc.stdout


def test_exit_codes_follow_fail_on(capsys, lines_repo, monkeypatch):
    monkeypatch.chdir(lines_repo.path / "agents")  # default PATH: the repository containing cwd
    code, out, _ = run(capsys, "lint")
    assert code == 1 and "RL302" in out and "agents/specs/refs.md" in out
    assert run(capsys, "lint", "--fail-on", "never")[0] == 0
    assert run(capsys, "lint", "--select", "RL303")[0] == 0
    assert run(capsys, "lint", "--ignore", "RL302", "--fail-on", "info")[0] == 0


def test_json_to_file_and_statistics(capsys, lines_repo, tmp_path):
    target = tmp_path / "out.json"
    code, out, _ = run(capsys, "lint", str(lines_repo.path), "--format", "json", "-o", str(target))
    assert code == 1 and out == ""
    doc = json.loads(target.read_text())
    assert doc["summary"] == {"error": 4, "warning": 0, "info": 0}
    assert doc["head"] == lines_repo.rev()
    code, out, _ = run(capsys, "lint", str(lines_repo.path), "--statistics")
    assert out.splitlines() == ["     4  RL302  line-out-of-range", "     4  total"]
    code, out, _ = run(capsys, "lint", str(lines_repo.path), "--statistics", "--format", "json")
    assert json.loads(out) == [{"code": "RL302", "name": "line-out-of-range", "count": 4}]


def test_path_argument_limits_the_report_to_those_records(capsys, lines_repo):
    (lines_repo.path / "agents" / "other.md").write_text("See `src/short.py:99`.\n")
    code, out, _ = run(capsys, "lint", str(lines_repo.path / "agents" / "other.md"), "--format", "json")
    assert {f["path"] for f in json.loads(out)["findings"]} == {"agents/other.md"}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["lint", "--at", "no-such-rev"], "is not a commit in this repository"),
        (["lint", "--at=--upload-pack=evil"], "looks like an option"),
        (["lint", "--since", "deadbeef"], "is not a commit in this repository"),
        (["lint", "--select", "XX9"], "no rule matches 'XX9'"),
        (["lint", "--baseline", "missing.json"], "--write-baseline"),
        (["lint", "--config", "nope.yaml"], "config file not found"),
        (["lint", "--fix", "--at", "HEAD"], "drop one of them"),
        (["rule", "RL999"], "no rule 'RL999'"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(capsys, lines_repo, monkeypatch, argv, message):
    monkeypatch.chdir(lines_repo.path)
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    assert message in err and err.startswith("roadmap: error: ") and err.count("\n") == 1
    assert "Traceback" not in err


def test_bad_config_names_file_and_key(capsys, lines_repo, monkeypatch):
    (lines_repo.path / "roadmap.yaml").write_text("recrods: ['agents/*.md']\n")
    monkeypatch.chdir(lines_repo.path)
    code, _, err = run(capsys, "lint")
    assert code == 2 and "roadmap.yaml" in err and "recrods" in err and "did you mean" in err


def test_not_a_git_repository(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "lint")
    assert code == 2 and "is not inside a git repository" in err and err.count("\n") == 1


def test_argparse_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["lint", "--format", "yaml"])
    assert exc.value.code == 2


def test_rule_lists_and_explains(capsys):
    code, out, _ = run(capsys, "rule")
    assert code == 0
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("RL")]
    assert listed == sorted(listed) and {"RL001", "RL301", "RL302", "RL303", "RL304", "RL401", "RL901"} <= set(listed)
    code, out, _ = run(capsys, "rule", "rl303")
    assert code == 0 and out.startswith("RL303 anchor-drifted (default severity: warning)")
    for section in ("What it does:", "Why:", "Example:", "Fix:"):
        assert section in out


def test_no_colour_when_not_a_tty(lines_repo):
    proc = subprocess.run(
        [sys.executable, "-m", "roadmap", "lint", str(lines_repo.path)], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 1 and "\x1b[" not in proc.stdout and "RL302" in proc.stdout


def test_github_format_in_a_subprocess(lines_repo):
    proc = subprocess.run(
        [sys.executable, "-m", "roadmap", "lint", str(lines_repo.path), "--format", "github"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0].startswith(
        "::error file=agents/specs/refs.md,line=6,endLine=6,title=RL302 line-out-of-range::"
    )

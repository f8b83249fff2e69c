"""Exit codes, one per outcome (roadmap/exits.py): 0 nothing at or above --fail-on, 1 findings, 2 the user's
mistake (usage, config, git), 3 a bug of ours; CI can tell findings from a run that checked nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from roadmap import exits
from roadmap.cli import main
from roadmap.findings import Hit
from roadmap.registry import RULES, Rule

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def lines_repo(fixture_repo):
    repo, _ = fixture_repo("RL302-line-out-of-range")
    return repo


def test_0_when_nothing_reaches_fail_on_and_1_when_something_does(capsys, lines_repo):
    path = str(lines_repo.path)
    assert run(capsys, "lint", path)[0] == exits.FINDINGS == 1
    assert run(capsys, "lint", path, "--select", "RL303")[0] == exits.OK == 0
    assert run(capsys, "lint", path, "--fail-on", "never")[0] == 0


def test_fail_on_never_is_accepted_in_config_as_on_the_cli(capsys, lines_repo):
    (lines_repo.path / "roadmap.yaml").write_text("records: ['agents/**/*.md']\nfail_on: never\n")
    code, out, _ = run(capsys, "lint", str(lines_repo.path))
    assert code == 0 and "RL302" in out  # reported, and the run still passes
    assert run(capsys, "lint", str(lines_repo.path), "--fail-on", "error")[0] == 1  # the CLI wins


def test_2_for_a_usage_config_or_git_error(capsys, lines_repo, tmp_path):
    assert run(capsys, "lint", str(lines_repo.path), "--select", "XX9")[0] == exits.USAGE == 2
    (lines_repo.path / "roadmap.yaml").write_text("fail_on: sometimes\n")
    code, _, err = run(capsys, "lint", str(lines_repo.path))
    assert code == 2 and "fail_on" in err and "never" in err
    code, _, err = run(capsys, "lint", str(tmp_path))
    assert code == 2 and "not inside a git repository" in err


def test_3_when_a_rule_crashes(capsys, lines_repo, monkeypatch):
    def crashes(ctx) -> list[Hit]:
        raise KeyError("oops")

    monkeypatch.setitem(RULES, "RL198", Rule("RL198", "crashes", "error", "x", crashes))
    code, _, err = run(capsys, "lint", str(lines_repo.path), "--select", "RL198")
    assert code == exits.INTERNAL == 3
    assert err.startswith("roadmap: internal error: rule RL198 crashed: KeyError") and "--ignore RL198" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_3_for_any_unexpected_exception(capsys, lines_repo, monkeypatch):
    import roadmap.lint

    def broken(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(roadmap.lint, "lint", broken)
    code, _, err = run(capsys, "lint", str(lines_repo.path))
    assert code == 3 and err.startswith("roadmap: internal error: ZeroDivisionError: division by zero")
    assert "this is a bug in roadmap" in err and "Traceback" not in err
    monkeypatch.setenv("ROADMAP_DEBUG", "1")
    code, _, err = run(capsys, "lint", str(lines_repo.path))
    assert code == 3 and "Traceback" in err


def test_exit_codes_are_documented_in_help_and_readme():
    proc = subprocess.run([sys.executable, "-m", "roadmap", "lint", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert " ".join(exits.HELP.split()) in " ".join(proc.stdout.split())
    [line] = [l for l in (ROOT / "README.md").read_text(encoding="utf-8").splitlines() if l.startswith("Exit codes:")]
    for code in ("0 ", "1 ", "2 ", "3 "):
        assert code in line
    assert "`never`" in line and "internal error" in line


def test_the_command_exits_with_its_code_and_its_whole_output(capsys, lines_repo, tmp_path):
    """`python -m roadmap` leaves without tearing its heap down (roadmap/__main__.py): its exit code, its report on
    a pipe and its `-o` file are those of the command run here, and exit hooks still run."""
    path = str(lines_repo.path)
    want_code, want_out, _ = run(capsys, "lint", path, "--format", "json")
    hook = tmp_path / "hook.py"
    hook.write_text(
        "import atexit, runpy, sys\n"
        f"atexit.register(lambda: open({str(tmp_path / 'ran')!r}, 'w').close())\n"
        "sys.argv = ['roadmap', *sys.argv[1:]]\n"
        "runpy.run_module('roadmap', run_name='__main__')\n"
    )
    # ROOT first, the rest of the path kept: packages may come from PYTHONPATH (tools/device_test puts wheels there)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.run([sys.executable, str(hook), "lint", path, "--format", "json"], capture_output=True, env=env)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()  # a crash exits 1 too, as findings do
    assert proc.returncode == want_code == exits.FINDINGS
    assert proc.stdout.decode() == want_out
    assert (tmp_path / "ran").exists()
    out = tmp_path / "report.json"
    proc = subprocess.run(
        [sys.executable, "-m", "roadmap", "lint", path, "--format", "json", "-o", str(out), "--fail-on", "never"],
        cwd=ROOT,
        capture_output=True,
    )
    assert proc.returncode == 0 and out.read_text(encoding="utf-8") == want_out

"""--at, --since, baselines, shallow clones and the lazy history hook."""

from __future__ import annotations

import json
import subprocess

import pytest

from roadmap.registry import RULES, Rule
from roadmap.cli import main
from roadmap.lint import LintOptions, lint

RECORD = "agents/notes.md"
SOURCE = "".join(f"line_{n} = {n}\n" for n in range(1, 11))  # 10 lines


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def codes_lines(out: str) -> list[tuple[str, int]]:
    return [(f["code"], f["line"]) for f in json.loads(out)["findings"]]


@pytest.fixture
def timeline(git_repo):
    """A: record refs src/a.py:9 (fine, 10 lines). B: src/a.py shrinks to 5 lines (ref now stale)."""
    repo = git_repo()
    a = repo.commit(
        {"src/a.py": SOURCE, RECORD: "# Notes\n\n- Setting at `src/a.py:9`.\n"}, "docs: notes", "2026-07-01"
    )
    b = repo.commit({"src/a.py": SOURCE[: SOURCE.index("line_6")]}, "refactor: shrink a.py", "2026-07-05")
    return repo, a, b


def test_at_lints_the_records_as_they_were(capsys, timeline):
    repo, a, _ = timeline
    code, out, _ = run(capsys, "lint", str(repo.path), "--format", "json")
    assert code == 1 and codes_lines(out) == [("RL302", 3)]
    code, out, _ = run(capsys, "lint", str(repo.path), "--format", "json", "--at", a[:10])
    doc = json.loads(out)
    assert code == 0 and doc["findings"] == [] and doc["head"] == a


def test_since_reports_only_lines_changed_since(capsys, timeline):
    repo, _, b = timeline
    # a new stale reference committed after B, and another one only in the working tree
    repo.commit({RECORD: repo.read(RECORD) + "- Also `src/a.py:7`.\n"}, "docs: more", "2026-07-06")
    repo.write({RECORD: repo.read(RECORD) + "- And `src/a.py:8`.\n", "agents/new.md": "See `src/a.py:99`.\n"})
    code, out, _ = run(capsys, "lint", str(repo.path), "--format", "json")
    assert codes_lines(out) == [("RL302", 1), ("RL302", 3), ("RL302", 4), ("RL302", 5)]
    code, out, _ = run(capsys, "lint", str(repo.path), "--format", "json", "--since", b)
    assert [(f["path"], f["line"]) for f in json.loads(out)["findings"]] == [
        ("agents/new.md", 1),
        (RECORD, 4),
        (RECORD, 5),
    ]
    code, out, _ = run(capsys, "lint", str(repo.path), "--format", "json", "--since", "HEAD")
    assert [(f["path"], f["line"]) for f in json.loads(out)["findings"]] == [("agents/new.md", 1), (RECORD, 5)]


def test_baseline_hides_known_findings_even_when_lines_move(capsys, timeline, tmp_path):
    repo, _, _ = timeline
    baseline = tmp_path / "baseline.json"
    code, _, err = run(capsys, "lint", str(repo.path), "--write-baseline", str(baseline))
    assert code == 0 and "wrote 1 finding(s)" in err
    assert json.loads(baseline.read_text())["findings"][0]["code"] == "RL302"
    assert run(capsys, "lint", str(repo.path), "--baseline", str(baseline))[0] == 0
    repo.write(
        {RECORD: "# Notes\n\nIntro paragraph.\n\n" + repo.read(RECORD).split("\n", 2)[2] + "- New `src/a.py:6`.\n"}
    )
    code, out, err = run(capsys, "lint", str(repo.path), "--baseline", str(baseline), "--format", "json")
    assert code == 1 and codes_lines(out) == [("RL302", 6)] and "1 finding(s) hidden by baseline" in err


def test_bad_baseline_is_a_usage_error(capsys, timeline, tmp_path):
    repo, _, _ = timeline
    bad = tmp_path / "b.json"
    bad.write_text("{not json")
    code, _, err = run(capsys, "lint", str(repo.path), "--baseline", str(bad))
    assert code == 2 and "not readable JSON" in err


def _shallow_clone(repo, tmp_path):
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo.path}", str(clone)], check=True)
    return clone


def test_shallow_clone_path_rules_say_history_is_unknown(capsys, fixture_repo, tmp_path):
    repo, _ = fixture_repo("RL301-path-missing")
    clone = _shallow_clone(repo, tmp_path)
    code, out, _ = run(capsys, "lint", str(clone), "--select", "RL301", "--format", "json")
    msgs = {f["line"]: f["message"] for f in json.loads(out)["findings"]}
    assert "history is shallow" in msgs[7] and "renamed" not in msgs[7]


def test_history_is_lazy_and_a_shallow_clone_is_exit_2_when_a_rule_needs_it(capsys, monkeypatch, timeline, tmp_path):
    repo, _, _ = timeline
    asked: list[bool] = []

    def needs_history(ctx):
        asked.append(True)
        ctx.get_history()
        return []

    monkeypatch.setitem(RULES, "RL199", Rule("RL199", "needs-history", "error", "x", needs_history))
    result = lint(repo.path, LintOptions(ignore=("RL199",)))
    assert result.context.history is None and not asked  # deselected: history never built
    result = lint(repo.path, LintOptions(select=("RL199",)))
    assert result.context.history is not None and asked
    clone = _shallow_clone(repo, tmp_path)
    code, _, err = run(capsys, "lint", str(clone), "--select", "RL199")
    assert code == 2 and "shallow" in err and "unshallow" in err and "Traceback" not in err

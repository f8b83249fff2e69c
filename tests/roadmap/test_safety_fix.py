"""`--fix` edits exactly the span a finding owns, runs to a fixed point, writes atomically and never through a
symlink (issue 10: each test is one of its repros, named after what it guards)."""

from __future__ import annotations

import os

import pytest

from roadmap.cli import main
from roadmap.findings import Edit, Finding, Hit
from roadmap.fix import apply_edits, plan_fixes
from roadmap.registry import RULES, Rule

SOURCE_BEFORE = (
    "".join(f"# line {n}\n" for n in range(1, 41))
    .replace("# line 3\n", "def foo():\n")
    .replace("# line 30\n", "def baz():\n")
)
SOURCE_AFTER = SOURCE_BEFORE.replace("def foo():\n", "# line 3\n").replace("# line 5\n", "def foo():\n")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def drifted_repo(git_repo, record: str | bytes):
    """`foo` moved from src/a.py:3 to :5 in the second commit; `baz` stayed on :30."""
    repo = git_repo()
    repo.commit({"src/a.py": SOURCE_BEFORE, "agents/r.md": record}, "docs: record", "2026-07-01")
    repo.commit({"src/a.py": SOURCE_AFTER}, "refactor: move foo", "2026-07-02")
    return repo


def test_fix_edits_only_the_drifted_reference(capsys, git_repo):
    repo = drifted_repo(git_repo, "- `foo` (src/a.py:3) and `baz` (src/a.py:30)\n")
    code, _, err = run(capsys, "lint", str(repo.path), "--fix", "--select", "RL303")
    assert repo.read("agents/r.md") == "- `foo` (src/a.py:5) and `baz` (src/a.py:30)\n"
    assert "fixed 1 finding(s) in 1 file(s)" in err and code == 0
    code, out, _ = run(capsys, "lint", str(repo.path), "--select", "RL3", "--format", "json")
    assert code == 0 and '"RL303"' not in out


@pytest.mark.parametrize("separator", ["\u2028", "\x0c", "\x85", "\x1c", "\x1d", "\x1e", "\r"])
def test_fix_edits_the_right_line_when_a_line_holds_a_unicode_separator(capsys, git_repo, separator):
    record = f"# Notes{separator}still the title line\n\n- `foo` (src/a.py:3)\n- `baz` (src/a.py:30)\n"
    repo = drifted_repo(git_repo, record.encode())
    code, _, err = run(capsys, "lint", str(repo.path), "--fix", "--select", "RL303")
    assert "fixed 1 finding(s)" in err
    assert (repo.path / "agents/r.md").read_bytes() == record.replace("src/a.py:3)", "src/a.py:5)").encode()


def test_fix_runs_until_every_copy_of_a_reference_on_a_line_is_fixed(capsys, git_repo):
    repo = drifted_repo(git_repo, "- `foo` (src/a.py:3), again `foo` (src/a.py:3)\n")
    code, _, err = run(capsys, "lint", str(repo.path), "--fix", "--select", "RL303")
    assert repo.read("agents/r.md") == "- `foo` (src/a.py:5), again `foo` (src/a.py:5)\n"
    assert code == 0 and "did not converge" not in err


def test_fix_keeps_a_byte_order_mark_and_crlf_and_undecodable_bytes(capsys, git_repo):
    record = "\ufeff- `foo` (src/a.py:3) caf".encode() + b"\xe9\r\n- `baz` (src/a.py:30)\r\n"
    repo = drifted_repo(git_repo, record)
    run(capsys, "lint", str(repo.path), "--fix", "--select", "RL303")
    assert (repo.path / "agents/r.md").read_bytes() == record.replace(b"a.py:3)", b"a.py:5)")


def test_fix_never_writes_through_a_symlinked_record(capsys, git_repo):
    repo = git_repo()
    repo.commit({"src/a.py": SOURCE_BEFORE, "notes/r.md": "- `foo` (src/a.py:3)\n"}, "docs: record", "2026-07-01")
    (repo.path / "agents").mkdir()
    (repo.path / "agents" / "r.md").symlink_to("../notes/r.md")  # inside the tree: read, never written
    repo.commit({"src/a.py": SOURCE_AFTER}, "refactor: move foo", "2026-07-02")
    code, out, err = run(capsys, "lint", str(repo.path), "--fix", "--select", "RL303")
    assert (repo.path / "agents" / "r.md").is_symlink()
    assert repo.read("notes/r.md") == "- `foo` (src/a.py:3)\n"  # not a record; never written through the link
    assert "no fix written to agents/r.md: a symlink" in err
    assert "agents/r.md" in out and "RL303" in out


def test_fix_reports_a_fix_that_does_not_converge(capsys, git_repo, monkeypatch):
    """A rule whose fix does not make its finding go away is named, never counted as fixed (as ruff does)."""
    repo = git_repo()
    repo.commit({"agents/r.md": "- keep x here\n"}, "docs: record", "2026-07-01")

    def stubborn(ctx) -> list[Hit]:
        line = (repo.path / "agents/r.md").read_text().split("\n")[0]
        col = line.index("x") if "x" in line else line.index("y")
        old = line[col]
        return [
            Hit(
                "always wrong",
                "agents/r.md",
                1,
                1,
                edits=[Edit("agents/r.md", 1, col, old, "y" if old == "x" else "x")],
            )
        ]

    monkeypatch.setitem(RULES, "RL198", Rule("RL198", "stubborn", "error", "x", stubborn))
    code, _, err = run(capsys, "lint", str(repo.path), "--fix", "--select", "RL198")
    assert "the fix for RL198 at agents/r.md:1 did not converge" in err and "fixed 0 finding(s)" in err
    assert code == 1


def test_a_failed_write_leaves_the_record_and_no_temporary_file(git_repo, monkeypatch):
    repo = drifted_repo(git_repo, "- `foo` (src/a.py:3)\n")
    from roadmap.fix import write_fixes
    from roadmap.lint import LintOptions, lint

    plan = plan_fixes(repo.path, lint(repo.path, LintOptions(select=("RL303",))).findings)
    assert plan.files

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    assert write_fixes(repo.path, plan) == ["agents/r.md"]
    assert repo.read("agents/r.md") == "- `foo` (src/a.py:3)\n"
    assert sorted(p.name for p in (repo.path / "agents").iterdir()) == ["r.md"]


def test_an_edit_whose_span_no_longer_holds_its_text_is_skipped():
    text = "- src/x.py:3 and src/x.py:30\n"
    wrong_place = Edit("a.md", 1, 2, "src/x.py:30", "src/x.py:31")  # `old` is not at column 2
    right = Edit("a.md", 1, 17, "src/x.py:30", "src/x.py:31")
    after, applied, skipped = apply_edits(text, [wrong_place, right])
    assert after == "- src/x.py:3 and src/x.py:31\n" and applied == [right] and skipped == [wrong_place]


def test_overlapping_edits_are_never_merged():
    first, second = Edit("a.md", 1, 0, "abc", "x"), Edit("a.md", 1, 1, "bc", "y")
    after, applied, skipped = apply_edits("abcd\n", [first, second])
    assert after == "xd\n" and applied == [first] and skipped == [second]


def test_plan_refuses_a_record_outside_the_tree(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("- src/x.py:3\n")
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.md").symlink_to(outside)
    f = Finding(
        "RL303", "anchor-drifted", "warning", "m", "a.md", 1, 1, edits=[Edit("a.md", 1, 2, "src/x.py:3", "src/x.py:4")]
    )
    plan = plan_fixes(root, [f])
    assert plan.files == [] and "a.md" in plan.refused and outside.read_text() == "- src/x.py:3\n"

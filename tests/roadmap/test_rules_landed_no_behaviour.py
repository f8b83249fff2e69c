"""RL101 does not take a commit that says it changes no behaviour ("No behaviour change", "pure refactor") as the
fix or feature a directive asks for, however many words they share; it still takes one for a directive that asks
for exactly such a change (a rename, a cleanup). Voice: a game studio's bug board."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

BOARD = """# Bugs (client)

| Key | Title | State |
|---|---|---|
| GS-88 | Inventory grid crashes when a stack splits during a trade | OPEN |
| GS-91 | Rename the inventory grid's slot helpers to the new naming scheme | OPEN |
"""


def _repo(git_repo, message: str):
    repo = git_repo()
    repo.commit({"client/inventory_grid.py": "def split_stack(s):\n    return s\n"}, "grid", "2026-03-01")
    repo.commit({"agents/bugs.md": BOARD}, "bug board", "2026-03-02")
    code = "def split_stack(stack):\n    return stack\n\n\ndef slot_at(grid, i):\n    return grid[i]\n"
    repo.commit({"client/inventory_grid.py": code}, message, "2026-03-09")
    return repo


def _rows(repo) -> set[str]:
    text = (repo.path / "agents/bugs.md").read_text().split("\n")
    found = lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings
    return {text[f.line - 1].split("|")[1].strip() for f in found if f.path == "agents/bugs.md"}


def test_a_no_behaviour_change_commit_does_not_fix_the_crash(git_repo):
    msg = "inventory grid: tidy the stack split and trade helpers\n\nRenames locals in the grid. No behaviour change."
    rows = _rows(_repo(git_repo, msg))
    assert "GS-88" not in rows


def test_it_still_lands_the_rename_it_is(git_repo):
    msg = "inventory grid: rename the slot helpers to the new naming scheme\n\nPure refactor, no behaviour change."
    assert "GS-91" in _rows(_repo(git_repo, msg))

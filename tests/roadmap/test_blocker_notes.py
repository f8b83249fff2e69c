"""A note that says, unlabelled, what its open row waits for ("In progress | waiting on the `PartitionPruner` from the
query team") names work left, whoever does it, as a "Blocked on:" item does: once a commit lands that work, RL101
reports the note. Found missing by a blind scenario of 2026-12-05 (an OKR table whose KR was "blocked until the
export API lands" weeks after it had). A data platform team's epics table, each case beside its controls: the
blocker only on an unmerged branch, a closed row, a note that reports a past block, and a row that waits for
nothing."""

from __future__ import annotations

from linted import codes_on
from roadmap.lint import LintOptions, lint
from roadmap.records.classify import waits_for

BOARD = "planning/epics.md"


def _board(state: str, note: str) -> str:
    return (
        "# Data platform epics\n\n| Epic | Owner | State | Notes |\n|---|---|---|---|\n"
        f"| Partition-aware scans | @ravi | {state} | {note} |\n"
        "| Cold storage tiering | @mei | In progress | compaction job drafted |\n"
    )


def _repo(git_repo, state: str, note: str, *, merged: bool = True):
    repo = git_repo()
    repo.commit({"query/planner.py": "def plan(q):\n    return q\n"}, "query: planner", "2026-04-01")
    repo.commit({BOARD: _board(state, note)}, "planning: epics board", "2026-04-03")
    pruner = "class PartitionPruner:\n    def prune(self, parts):\n        return parts\n"
    repo.commit(
        {"query/pruner.py": pruner}, "DATA-88 query: partition pruner", "2026-04-09", branch=None if merged else "wip"
    )
    repo.commit({"query/planner.py": "def plan(q):\n    return q  # pruned\n"}, "query: tidy", "2026-04-10")
    return repo


WAITING = "waiting on the `PartitionPruner` from the query team (DATA-88)"


def test_a_note_whose_blocker_landed_is_stale(git_repo):
    repo = _repo(git_repo, "In progress", WAITING)
    assert "RL101" in codes_on(repo, BOARD, "Partition-aware scans")
    [f] = [f for f in lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings]
    assert "waits for work that landed" in f.message


def test_a_spanish_note_waits_the_same_way(git_repo):
    repo = _repo(git_repo, "Bloqueado", "bloqueado hasta que llegue `PartitionPruner` (DATA-88)")
    assert "RL101" in codes_on(repo, BOARD, "Partition-aware scans")


def test_a_blocker_that_landed_only_on_an_unmerged_branch_still_blocks(git_repo):
    repo = _repo(git_repo, "In progress", WAITING, merged=False)
    assert "RL101" not in codes_on(repo, BOARD, "Partition-aware scans")


def test_a_closed_rows_note_is_history(git_repo):
    repo = _repo(git_repo, "Done", WAITING)
    assert "RL101" not in codes_on(repo, BOARD, "Partition-aware scans")


def test_a_note_that_reports_a_past_block_waits_for_nothing(git_repo):
    repo = _repo(git_repo, "In progress", "we were blocked on `PartitionPruner` for a week (DATA-88)")
    assert "RL101" not in codes_on(repo, BOARD, "Partition-aware scans")


def test_the_clause_a_note_waits_for():
    assert waits_for("design done; waiting on the schema migration; owner back Monday") == (
        "waiting on the schema migration"
    )
    assert waits_for("Blocked by DATA-12") == "Blocked by DATA-12"
    assert waits_for("wartet auf das neue Schema") == "wartet auf das neue Schema"
    assert waits_for("vendor contract still with legal; no eng work until it is signed") is None
    assert waits_for("the unblocked path is faster") is None

"""RL101 does not count a commit that says the directive's target is still not reached as the work landing,
even when its trailer names the row: a payments team's latency punch-list, with a positive control where the
target is reported met."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

LIST = """# Punch-list (payments latency)

1. PAY-LAT-3: cut the authorize p99 under 120 ms by batching the fraud-score calls.
"""


def _repo(git_repo, message: str):
    repo = git_repo()
    repo.commit({"svc/authorize.py": "def authorize(r):\n    return score(r)\n"}, "authorize", "2026-05-01")
    repo.commit({"agents/punch-list.md": LIST}, "punch-list", "2026-05-02")
    code = "def authorize(r):\n    return score_batch([r])[0]\n\ndef score_batch(rs):\n    return [0 for _ in rs]\n"
    repo.commit({"svc/authorize.py": code}, message, "2026-05-09")
    return repo


def _on_item(repo) -> list:
    found = lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings
    return [f for f in found if f.path == "agents/punch-list.md" and f.severity in ("error", "warning")]


def test_a_commit_saying_the_target_is_still_unmet_is_not_the_landing(git_repo):
    msg = (
        "authorize: batch the fraud-score calls\n\np99 down to 141 ms, the 120 ms target still unmet.\n\nRow: PAY-LAT-3"
    )
    assert _on_item(_repo(git_repo, msg)) == []


def test_a_commit_saying_it_falls_short_is_not_the_landing(git_repo):
    msg = "authorize: batch fraud-score calls; falls short of the 120 ms p99 (138 ms)\n\nRow: PAY-LAT-3"
    assert _on_item(_repo(git_repo, msg)) == []


def test_a_commit_reporting_the_target_met_is_the_landing(git_repo):
    msg = (
        "authorize: batch the fraud-score calls\n\nauthorize p99 now 96 ms, under the 120 ms target.\n\nRow: PAY-LAT-3"
    )
    [f] = _on_item(_repo(git_repo, msg))
    assert f.code == "RL101"

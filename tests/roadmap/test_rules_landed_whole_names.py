"""RL101 reads names as whole names. A payments team's punch-list names `ledger_lock` and `MAX_RETRY_BUDGET`:
a commit that adds `ledger_lock_timeout_ms` has not introduced `ledger_lock`, and a change to the file the item
names counts only where it changes the line with the upper-case constant the item is about. Each positive has
its control beside it."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

TODO = ".agents/payments-todo.md"
LEDGER = "payments/ledger.py"


def _found(repo) -> dict[int, str]:
    return {f.line: f.severity for f in lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings}


def _ledger(git_repo, item: str):
    repo = git_repo()
    repo.commit({LEDGER: "MAX_RETRY_BUDGET = 3\n\n\ndef post(entry):\n    return entry\n"}, "ledger", "2026-02-01")
    repo.commit({TODO: f"# Payments punch-list\n\n- [ ] {item}\n"}, "todo", "2026-02-02")
    return repo


def test_a_symbol_introduced_whole_is_evidence(git_repo):
    repo = _ledger(git_repo, "Serialise postings behind a `ledger_lock` so two workers never post one entry twice.")
    repo.commit(
        {
            LEDGER: "import threading\n\nMAX_RETRY_BUDGET = 3\nledger_lock = threading.Lock()\n\n\ndef post(entry):\n"
            "    with ledger_lock:\n        return entry\n"
        },
        "ledger: one lock around postings",
        "2026-02-05",
    )
    assert 3 in _found(repo)


def test_a_longer_name_that_contains_the_symbol_is_not_it(git_repo):
    repo = _ledger(git_repo, "Serialise postings behind a `ledger_lock` so two workers never post one entry twice.")
    repo.commit(
        {"payments/config.py": "ledger_lock_timeout_ms = 500  # reserved for the lock we still owe\n"},
        "config: reserve a timeout setting",
        "2026-02-05",
    )
    assert 3 not in _found(repo)


ITEM = "`payments/ledger.py`: `MAX_RETRY_BUDGET` retries declined postings three times; cut it to one."


def test_a_change_at_the_named_constant_of_the_named_file_counts(git_repo):
    repo = _ledger(git_repo, ITEM)
    repo.commit(
        {LEDGER: "MAX_RETRY_BUDGET = 1\n\n\ndef post(entry):\n    return entry\n"},
        "ledger: cut MAX_RETRY_BUDGET to one retry for declined postings",
        "2026-02-05",
    )
    assert _found(repo).get(3) == "warning"


def test_a_change_elsewhere_in_the_named_file_does_not(git_repo):
    repo = _ledger(git_repo, ITEM)
    repo.commit(
        {
            LEDGER: "MAX_RETRY_BUDGET = 3\n\n\ndef post(entry):\n    log(entry)  # declined postings retried\n    return entry\n"
        },
        "ledger: log declined postings before retries",
        "2026-02-05",
    )
    assert _found(repo).get(3) in (None, "info")

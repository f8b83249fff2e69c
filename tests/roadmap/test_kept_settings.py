"""A commit that says a switch or a setting keeps its state ("stays default off", "remains opt-in") did not do the
work of switching it: those words are what it left alone. Found missing by a blind scenario of 2026-12-05 (an
Android team's parked known issue); the negative control is a commit that does switch it while naming another
setting that stays."""

from __future__ import annotations

from linted import codes_on

ISSUES = "docs/known-issues.md"


def _codes(repo, needle: str) -> set[str]:
    return codes_on(repo, ISSUES, needle)


def _repo(git_repo, message: str, flags: str):
    repo = git_repo()
    issues = (
        "# Known issues\n\n"
        "- [ ] Make the Rust tokenizer backend the default once its parity suite is green for a week "
        "(`use_rust_tokenizer`, default `false` today).\n"
    )
    repo.commit(
        {ISSUES: issues, "src/flags.py": "USE_RUST_TOKENIZER = False\nLOG_BACKEND = False\n"}, "docs", "2026-05-01"
    )
    repo.commit({"src/flags.py": flags}, message, "2026-05-09")
    return repo


def test_a_commit_that_keeps_the_switch_off_does_not_make_it_the_default(git_repo):
    repo = _repo(
        git_repo,
        "flags: log which tokenizer backend served each request\n\nSo the parity suite can compare backends. "
        "use_rust_tokenizer remains off by default; this only adds the log line.",
        "USE_RUST_TOKENIZER = False\nLOG_BACKEND = True\n",
    )
    assert "RL101" not in _codes(repo, "Make the Rust tokenizer backend the default")


def test_a_commit_that_switches_it_while_another_setting_stays_does(git_repo):
    repo = _repo(
        git_repo,
        "flags: the Rust tokenizer backend is the default now\n\nParity suite green since 2026-05-02; "
        "use_rust_tokenizer defaults to true. The legacy backend logging stays opt-in.",
        "USE_RUST_TOKENIZER = True\nLOG_BACKEND = False\n",
    )
    assert "RL101" in _codes(repo, "Make the Rust tokenizer backend the default")

"""RL101 by a specified number: a commit whose subject says the directive's work, and whose message states the bound,
size or count the directive specifies ("bounded at 20,000 entries" / "Cap 20000"), built that specification: a
warning, where the same words alone stay a hint (info). Found by a blind scenario of 2026-12-05 (an RFC step for "a
least-recently-used cache ... bounded at 5,000 entries" landed as "resolver: LRU for resolved specifiers ... Cap
5000"). A maps team's geocoder plan, each case beside its controls: no number, another number, the number in a
commit about other work; and which numbers specify."""

from __future__ import annotations

import pytest

from roadmap.analysis.spec_numbers import spec_numbers
from roadmap.lint import LintOptions, lint

PLAN = "docs/geo-plan.md"
ITEM = (
    "Put a least-recently-used cache in front of the geocoder lookups, keyed on the normalised address and bounded "
    "at 20,000 entries so memory stays flat under the batch imports."
)


def _severity(git_repo, message: str) -> str | None:
    repo = git_repo()
    repo.commit({"geo/lookup.py": "def geocode(addr):\n    return None\n"}, "geo: lookup", "2026-03-01")
    repo.commit({PLAN: f"# Geocoder plan\n\n## Steps\n\n1. {ITEM}\n"}, "docs: geocoder plan", "2026-03-02")
    repo.commit({"geo/cache.py": "class Cache:\n    pass\n"}, message, "2026-03-06")
    found = [f for f in lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings if f.path == PLAN]
    return found[0].severity if found else None


LRU = "geo: LRU for geocoder lookups (#311)\n\nKeyed on the normalised address; misses are cached too."


def test_the_specified_bound_stated_with_the_work_makes_a_warning(git_repo):
    assert _severity(git_repo, LRU + " Cap 20000, evicts the oldest entry on insert.") == "warning"


def test_the_same_words_without_the_bound_stay_a_hint(git_repo):
    assert _severity(git_repo, LRU + " The cap is configurable.") == "info"


def test_another_bound_is_no_evidence(git_repo):
    assert _severity(git_repo, LRU + " Cap 10000, evicts the oldest entry on insert.") == "info"


def test_the_number_in_a_commit_about_other_work_is_nothing(git_repo):
    assert _severity(git_repo, "billing: retry failed invoices\n\nUp to 20000 invoices per run.") is None


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("bounded at 5,000 entries", {5000}),
        ("Cap 5000; 5_000; 5k rows", {5000}),
        ("256 requests, 16 workers, port 8080", {256, 8080}),  # 16: a count of anything
        ("(#1183) on 2026-03-25 at 09:48, v0.15.0, 2.3s to 1.4s, in 2025", set()),  # ids, dates, versions, decimals
        ("sha c55d7dbd3 on the H200", set()),  # digits inside names
    ],
)
def test_which_numbers_specify(text: str, numbers: set[int]) -> None:
    assert spec_numbers(text) == numbers

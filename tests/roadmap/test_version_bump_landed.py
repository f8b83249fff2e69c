"""RL101 by a version: "Upgrade `axios` to 1.7.2" is done by the commit that names the dependency and writes that
very version into the code, before the line was written (stale on arrival) or after it. Found missing by a blind
scenario of 2026-12-05 (a mobile release checklist asking for a Sentry bump merged days before). A web team's
dependency list, each case beside its controls: another version, the version only in the changelog, another
dependency, a reverted bump; and the pairs read out of the ways teams write a bump."""

from __future__ import annotations

import json

import pytest

from linted import codes_on
from roadmap.checks.bumped_already import bumps

PLAN = "docs/release-4.2.md"


def _package(axios: str) -> str:
    return json.dumps({"name": "web", "dependencies": {"axios": axios, "react": "18.3.1"}}, indent=2) + "\n"


def _repo(git_repo, item: str, *, to: str = "1.7.2", before: bool = True, message: str = "", where: str = ""):
    repo = git_repo()
    repo.commit({"package.json": _package("1.6.8"), "CHANGELOG.md": "# Changelog\n"}, "web: initial", "2026-06-01")
    bump = {where: f"# Changelog\n\n- axios {to}\n"} if where else {"package.json": _package(to)}
    subject = message or f"deps: bump axios from 1.6.8 to {to} (#412)"
    if before:
        repo.commit(bump, subject, "2026-06-03")
    repo.commit({PLAN: f"# Release 4.2\n\n## Before the freeze\n\n- [ ] {item}\n"}, "docs: 4.2 checklist", "2026-06-05")
    if not before:
        repo.commit(bump, subject, "2026-06-08")
    repo.commit({"README.md": "# web\n"}, "docs: readme", "2026-06-09")
    return repo


ITEM = "Upgrade `axios` to 1.7.2 (CVE-2024-39338)"


def test_a_bump_merged_before_the_line_was_written_is_stale_on_arrival(git_repo):
    assert "RL101" in codes_on(_repo(git_repo, ITEM), PLAN, "Upgrade `axios`")


def test_a_bump_after_the_line_landed_it(git_repo):
    assert "RL101" in codes_on(_repo(git_repo, ITEM, before=False), PLAN, "Upgrade `axios`")


def test_a_german_item_asks_the_same(git_repo):
    assert "RL101" in codes_on(_repo(git_repo, "`axios` auf 1.7.2 aktualisieren"), PLAN, "`axios` auf")


def test_a_bump_to_another_version_is_other_work(git_repo):
    repo = _repo(git_repo, ITEM, to="1.7.1")
    assert "RL101" not in codes_on(repo, PLAN, "Upgrade `axios`")


def test_a_version_written_only_in_the_changelog_is_no_bump(git_repo):
    repo = _repo(git_repo, ITEM, where="CHANGELOG.md")
    assert "RL101" not in codes_on(repo, PLAN, "Upgrade `axios`")


def test_a_commit_that_names_another_dependency_is_no_bump_of_this_one(git_repo):
    repo = _repo(git_repo, ITEM, message="deps: refresh the lockfile (#412)")
    assert "RL101" not in codes_on(repo, PLAN, "Upgrade `axios`")


@pytest.mark.parametrize(
    ("text", "pairs"),
    [
        ("- [ ] Bump `io.sentry:sentry-android` to 8.5.0 (ANR fix)", [("io.sentry:sentry-android", "8.5.0")]),
        ("2. **Upgrade** `tokio` to 1.38.0 before the release", [("tokio", "1.38.0")]),
        ("Upgrade the Gradle wrapper to 8.12", [("Gradle", "8.12")]),
        ("Update react from 18.2.0 to 18.3.1", [("react", "18.3.1")]),
        ("Actualizar `axios` a 1.7.2", [("axios", "1.7.2")]),
        ("Bump versionCode to 340 and versionName to 3.4.0", [("versionName", "3.4.0")]),  # 340 may be anything
        ("Raise the timeout to 30 s", []),
        ("Update the README to mention 1.2.0", []),
        ("Write the 1.2 to 1.3 migration guide", []),  # no bump verb
        ("- [ ] bump redis 6->7 (terraform/redis.tf)", [("redis", "7")]),  # a major pair by its arrow
        ("Upgrade node 18 → 20 in CI", [("node", "20")]),
        ("bump the retries 5->3", []),  # down is no bump
    ],
)
def test_the_pairs_a_bump_asks_for(text: str, pairs: list[tuple[str, str]]) -> None:
    assert bumps(text) == pairs


def test_a_reverted_bump_left_the_work(git_repo):
    repo = git_repo()
    repo.commit({"package.json": _package("1.6.8")}, "web: initial", "2026-06-01")
    sha = repo.commit({"package.json": _package("1.7.2")}, "deps: bump axios from 1.6.8 to 1.7.2 (#412)", "2026-06-02")
    repo.commit(
        {"package.json": _package("1.6.8")},
        f'Revert "deps: bump axios from 1.6.8 to 1.7.2 (#412)"\n\nThis reverts commit {sha}.',
        "2026-06-03",
    )
    repo.commit({PLAN: f"# Release 4.2\n\n## Before the freeze\n\n- [ ] {ITEM}\n"}, "docs: 4.2 checklist", "2026-06-05")
    assert "RL101" not in codes_on(repo, PLAN, "Upgrade `axios`")


def _redis_repo(git_repo, major_item: str, to: str):
    repo = git_repo()
    repo.commit({"terraform/redis.tf": 'engine_version = "6.2"\n'}, "infra: initial", "2026-01-05")
    repo.commit({"terraform/redis.tf": f'engine_version = "{to}"\n'}, f"redis 6.2 -> {to}", "2026-01-07")
    repo.commit({"TODO.md": f"# todo\n\n- [ ] {major_item}\n"}, "todo", "2026-01-09")
    return repo


def test_a_major_bump_by_its_arrow_is_done_by_a_commit_writing_that_major(git_repo):
    """ "bump redis 6->7" is done by "redis 6.2 -> 7.1" (the code now says 7.1); not by a bump to 6.4."""
    assert "RL101" in codes_on(_redis_repo(git_repo, "bump redis 6->7", "7.1"), "TODO.md", "bump redis")


def test_a_bump_to_another_major_is_other_work(git_repo):
    assert "RL101" not in codes_on(_redis_repo(git_repo, "bump redis 6->7", "6.4"), "TODO.md", "bump redis")

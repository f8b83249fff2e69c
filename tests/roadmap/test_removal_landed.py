"""RL101 by a removal: a directive that asks to remove a name (`Remove the X flag`, `Drop legacy X`, `Eliminar el
flag X`) is stale when a commit took the name out of the code, before the line was written (stale on arrival) or
after it, whatever the commit's message says. Found missing by a blind scenario of 2026-12-05 (a release checklist
pasted from a planning page after the flag was gone). A backend team's settings cleanup, each case beside its
controls: the name still in the code, the name removed and added back, and a line that names it without asking to
remove it."""

from __future__ import annotations

from linted import codes_on
from roadmap.lint import LintOptions, lint

PLAN = "ops/cleanup.md"
SETTINGS = "app/settings.py"
WITH = "USE_V2_ROUTER = True\nuse_v1_serializer = True\n"
WITHOUT = "USE_V2_ROUTER = True\n"


def _repo(
    git_repo,
    item: str,
    *,
    removed_before: bool,
    removed_after: bool = False,
    added_back: bool = False,
    subject: str = "api: v2 serializer everywhere",
):
    repo = git_repo()
    repo.commit({SETTINGS: WITH, "app/api.py": "from .settings import use_v1_serializer\n"}, "settings", "2026-05-01")
    if removed_before:
        repo.commit({SETTINGS: WITHOUT, "app/api.py": "x = 1\n"}, "api: one serializer path (#88)", "2026-05-03")
    if added_back:
        repo.commit({SETTINGS: WITH}, "settings: restore the old serializer for the partner feed", "2026-05-04")
    repo.commit({PLAN: f"# Cleanup for 2.0\n\n## Open\n\n- [ ] {item}\n"}, "docs: cleanup list", "2026-05-06")
    if removed_after:
        repo.commit({SETTINGS: WITHOUT, "app/api.py": "x = 1\n"}, subject, "2026-05-09")
    repo.commit({"README.md": "# svc\n"}, "docs: readme", "2026-05-10")
    return repo


ITEM = "Drop the legacy `use_v1_serializer` setting from the API"


def test_a_name_removed_before_the_line_was_written_is_stale_on_arrival(git_repo):
    assert "RL101" in codes_on(_repo(git_repo, ITEM, removed_before=True), PLAN, "use_v1_serializer")


def test_a_name_removed_after_the_line_was_written_landed(git_repo):
    assert "RL101" in codes_on(_repo(git_repo, ITEM, removed_before=False, removed_after=True), PLAN, "use_v1")


def test_the_removal_outweighs_a_word_match_of_the_same_commit(git_repo):
    subject = "settings: drop the legacy v1 serializer setting from the API"
    repo = _repo(git_repo, ITEM, removed_before=False, removed_after=True, subject=subject)
    [f] = [f for f in lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings if f.path == PLAN]
    assert f.severity == "warning" and "takes `use_v1_serializer` out of the code" in f.message


def test_the_verbs_of_other_languages_ask_too(git_repo):
    item = "Eliminar el flag `use_v1_serializer` de la API"
    assert "RL101" in codes_on(_repo(git_repo, item, removed_before=True), PLAN, "use_v1_serializer")


def test_a_name_still_in_the_code_is_left_to_remove(git_repo):
    assert "RL101" not in codes_on(_repo(git_repo, ITEM, removed_before=False), PLAN, "use_v1_serializer")


def test_a_name_added_back_is_there_to_remove(git_repo):
    repo = _repo(git_repo, ITEM, removed_before=True, added_back=True)
    assert "RL101" not in codes_on(repo, PLAN, "use_v1_serializer")


def test_a_line_that_names_it_without_asking_to_remove_it(git_repo):
    item = "Document the fallback the partner feed used while `use_v1_serializer` was around"
    assert "RL101" not in codes_on(_repo(git_repo, item, removed_before=True), PLAN, "use_v1_serializer")

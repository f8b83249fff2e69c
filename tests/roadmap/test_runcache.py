"""The run cache answers a lint only when nothing the run read changed (roadmap/runcache.py): the same commit,
config, options, tool and repository state, the same file listing, and the same bytes in every file it read."""

from __future__ import annotations

from pathlib import Path

import pytest

from roadmap.cachedir import CACHE_DIR
from roadmap.lint import LintOptions, LintResult, lint
from roadmap.runcache import SUBDIR

PLAN = """# Punch-list

As of 2026-07-25.

## Punch-list

1. Wire `DeviceTokenMirror` into the runner (see `src/runner.py:2`).
2. Tidy `src/gone.py`.
"""


def _lint(root: Path, **opts: object) -> LintResult:
    return lint(root, LintOptions(run_cache=True, **opts))  # type: ignore[arg-type]


def _json(result: LintResult) -> list[dict[str, object]]:
    return [{**f.to_json(), "edits": f.edits, "key": f.key} for f in result.findings]


@pytest.fixture
def repo(git_repo):
    r = git_repo()
    r.commit(
        {"agents/punch-list.md": PLAN, "src/runner.py": "x = 1\ny = 2\n", "src/gone.py": "z\n"},
        "docs: plan",
        "2026-07-25",
    )
    r.commit(
        {"src/runner.py": "class DeviceTokenMirror: ...\ny = 2\n", "src/gone.py": None}, "feat: mirror", "2026-07-27"
    )
    return r


def _fresh(root: Path, **opts: object) -> list[dict[str, object]]:
    return _json(lint(root, LintOptions(use_cache=False, **opts)))  # type: ignore[arg-type]


def test_an_unchanged_repository_is_answered_from_the_cache(repo):
    first = _lint(repo.path)
    again = _lint(repo.path)
    assert not first.from_cache and again.from_cache
    assert _json(again) == _json(first) == _fresh(repo.path)
    assert {f.code for f in again.findings} == {"RL101", "RL301"}
    assert (again.records, again.statements, again.head) == (first.records, first.statements, first.head)
    assert again.context is None and again.config == first.config


@pytest.mark.parametrize("change", ["record", "code file read", "new file", "commit", "config"])
def test_a_change_to_anything_the_run_read_is_a_miss(repo, change):
    _lint(repo.path)
    if change == "record":
        repo.write({"agents/punch-list.md": PLAN.replace("Tidy `src/gone.py`", "Tidy `src/gone2.py`")})
    elif change == "code file read":  # src/runner.py:2 is read to check the reference
        repo.write({"src/runner.py": "class DeviceTokenMirror: ...\n"})
    elif change == "new file":  # a reference may now resolve: the listing changed
        repo.write({"src/gone.py": "back\n"})
    elif change == "commit":
        repo.commit({"src/other.py": "w\n"}, "chore: other", "2026-07-28")
    else:
        repo.write({"pyproject.toml": '[tool.roadmap]\nrecords = ["agents/**/*.md", "notes/*.md"]\n'})
    after = _lint(repo.path)
    assert not after.from_cache
    assert _json(after) == _fresh(repo.path)
    assert _lint(repo.path).from_cache


def test_options_and_new_objects_key_the_entry(repo):
    _lint(repo.path)
    assert not _lint(repo.path, select=("RL3",)).from_cache
    assert _lint(repo.path, select=("RL3",)).from_cache and _lint(repo.path).from_cache
    repo.git("hash-object", "-w", "--stdin", input=b"a new object a record may name\n")  # RL304 asks git
    assert not _lint(repo.path).from_cache


def test_a_damaged_entry_is_rebuilt_and_no_cache_reads_none(repo):
    first = _lint(repo.path)
    [entry] = (repo.path / CACHE_DIR / SUBDIR).glob("*.json")
    entry.write_bytes(entry.read_bytes()[:-20] + b"x" * 20)
    again = _lint(repo.path)
    assert not again.from_cache and _json(again) == _json(first)
    assert _lint(repo.path).from_cache
    assert not lint(repo.path, LintOptions(run_cache=True, use_cache=False)).from_cache


def test_at_a_revision_is_keyed_by_that_commit(repo):
    head = repo.rev()
    repo.write({"agents/punch-list.md": "# Punch-list\n"})  # the working tree is not what --at reads
    first = _lint(repo.path, at=head)
    assert not first.from_cache and _lint(repo.path, at=head).from_cache
    assert _json(first) == _fresh(repo.path, at=head)


def test_why_a_referenced_file_is_not_read_is_a_dependency(git_repo):
    """RL5's note quotes the size of a referenced file too large to read: the file is never read, only asked
    about, and a new size is still a miss."""
    r = git_repo()
    r.commit(
        {
            "pyproject.toml": "[tool.roadmap]\nmax_file_bytes = 4096\n",
            "agents/punch-list.md": PLAN,
            "src/runner.py": "x\n" * 3000,
        },
        "docs: plan",
        "2026-07-25",
    )
    first = _lint(r.path)
    assert any("6000 bytes" in f.message for f in first.findings)
    r.write({"src/runner.py": "x\n" * 3500})
    after = _lint(r.path)
    assert not after.from_cache and any("7000 bytes" in f.message for f in after.findings)
    assert _json(after) == _fresh(r.path)


def test_a_tracked_file_edited_in_the_working_tree_is_a_miss_though_the_tree_never_read_it(repo):
    """RL104 greps the working tree's code for flags with git itself (analysis/default_flips.py), not through the
    Tree: an edit to any tracked file is a miss, and the run after it is answered again."""
    repo.commit({"src/flags.py": "USE_MIRROR = False\n"}, "feat: flags", "2026-07-28")
    _lint(repo.path)
    assert _lint(repo.path).from_cache
    repo.write({"src/flags.py": "USE_MIRROR = True\n"})
    after = _lint(repo.path)
    assert not after.from_cache and _json(after) == _fresh(repo.path)
    assert _lint(repo.path).from_cache

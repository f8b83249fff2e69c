"""Batched blame: one call per file, many ranges, the working tree (uncommitted = now) and a past revision."""

from __future__ import annotations

import time

import pytest

from roadmap.history import blame as blame_mod
from roadmap.history.blame import NULL_SHA, blame_files, blame_lines
from roadmap.history.git import GitError

RECORD_V1 = "# Roadmap\n\n| id | next |\n|---|---|\n| R-1 | port it |\n| R-2 | rerun |\n"


@pytest.fixture
def repo(git_repo):
    r = git_repo()
    first = r.commit({"rec.md": RECORD_V1}, "docs: record", "2026-07-25")
    second = r.commit(
        {"rec.md": RECORD_V1.replace("rerun", "rerun the 4B series")}, "docs: edit R-2", "2026-07-27T08:00:00"
    )
    return r, first, second


def test_ranges_in_one_call(repo, monkeypatch):
    r, first, second = repo
    calls = []
    real = blame_mod.blame_spans
    monkeypatch.setattr(blame_mod, "blame_spans", lambda *a, **k: calls.append(a) or real(*a, **k))
    got = blame_lines(r.path, None, "rec.md", [5, (6, 6), (1, 2)])
    assert len(calls) == 1 and calls[0][3] == [(1, 2), (5, 6)]  # 1-2 and 5-6 (5 and 6 merged)
    assert set(got) == {1, 2, 5, 6}
    assert got[5].sha == first and got[6].sha == second
    assert got[6].commit_time == got[6].author_time == 1785139200 and got[6].committed


def test_working_tree_edits_are_now(repo):
    r, first, _ = repo
    r.write({"rec.md": RECORD_V1.replace("port it", "port it (claimed)")})
    before = int(time.time())
    got = blame_lines(r.path, None, "rec.md", [(4, 6)])
    assert got[5].sha == NULL_SHA and not got[5].committed and got[5].commit_time >= before
    assert got[4].sha == first


def test_at_a_revision_and_past_the_end(repo):
    r, first, _ = repo
    got = blame_lines(r.path, first, "rec.md", [(6, 40)])  # the file has 6 lines: clamped
    assert set(got) == {6} and got[6].sha == first
    assert blame_lines(r.path, "HEAD", "rec.md", [(50, 60)]) == {}
    with pytest.raises(GitError, match="cannot blame missing.md"):
        blame_lines(r.path, None, "missing.md", [1])
    with pytest.raises(GitError, match="not a commit"):
        blame_lines(r.path, "nosuchrev", "rec.md", [1])


def test_blame_files(repo):
    r, first, second = repo
    r.commit({"other.md": "- Next: x\n"}, "docs: other", "2026-07-28")
    got = blame_files(r.path, "HEAD", {"rec.md": [6], "other.md": [1]})
    assert got["rec.md"][6].sha == second and got["other.md"][1].sha == r.rev("HEAD")


@pytest.mark.timeout(120)
def test_blame_files_in_threads_share_one_repository(git_repo):
    """blame runs a few files at a time; GitPython's persistent cat-file serves one request at a time."""
    r = git_repo()
    files = {f"rec{n}.md": f"- item {n}\n- more {n}\n" for n in range(12)}
    sha = r.commit(files, "docs: records", "2026-07-25")
    for _ in range(3):
        got = blame_files(r.path, sha, {p: [(1, 2)] for p in files})
        assert {p: {n: b.sha for n, b in lines.items()} for p, lines in got.items()} == {
            p: {1: sha, 2: sha} for p in files
        }

"""Commit metadata, trailers, as-of queries (date and sha), token mentions and short shas."""

from __future__ import annotations

import pytest

from roadmap.history.git import GitError
from roadmap.history.commit import Commit
from roadmap.history.index import AmbiguousShaError, HistoryIndex, HistoryStats

MSG = """feat(engine): ENG-ASYNC-SCHED W4 device-resident sampled tokens (opt-in)

THE FINDING. The 2026-07-25 attribution is wrong for this workload.
Mentions ENG-ASYNC-SCHED2 and row/SERVE-ASYNC-LLM.

Row: ENG-ASYNC-SCHED
Co-authored-by: Someone
  Else <s@example.com>
row: SECOND-ROW
"""


@pytest.fixture
def repo(git_repo):
    r = git_repo()
    shas = [
        r.commit({"a.txt": "1\n"}, "chore: start", "2026-07-20"),
        r.commit({"a.txt": "2\n"}, "fix: before the checkpoint", "2026-07-25T09:00:00"),
        r.commit({"a.txt": "3\n"}, MSG, "2026-07-25T23:30:00-05:00"),  # 2026-07-26 in UTC
        r.commit({"a.txt": "4\n"}, "perf: flip the default ON\n\nRow: SERVE-ASYNC-LLM", "2026-08-05"),
    ]
    return r, shas


def test_metadata_and_trailers(repo, tmp_path):
    r, shas = repo
    idx = HistoryIndex.build(r.path, "HEAD", [], cache_dir=tmp_path)
    c = idx.by_sha(shas[2])
    assert c.subject == "feat(engine): ENG-ASYNC-SCHED W4 device-resident sampled tokens (opt-in)"
    assert c.body.startswith("THE FINDING.") and c.body.endswith("row: SECOND-ROW")
    assert c.trailers == {
        "Row": ["ENG-ASYNC-SCHED"],
        "Co-authored-by": ["Someone Else <s@example.com>"],
        "row": ["SECOND-ROW"],
    }
    assert c.trailer_values("ROW") == ["ENG-ASYNC-SCHED", "SECOND-ROW"]
    assert c.commit_date == "2026-07-25T23:30:00-05:00" and c.day == "2026-07-25"
    assert c.commit_time == c.author_time == 1785040200
    assert c.parents == (shas[1],) and idx.by_sha(shas[0]).parents == ()
    assert [x.sha for x in idx.commits] == shas[::-1]


def test_commits_after_date_and_sha(repo, tmp_path):
    r, shas = repo
    idx = HistoryIndex.build(r.path, "HEAD", [], cache_dir=tmp_path)
    after = lambda w, **k: [c.sha for c in idx.commits_after(w, **k)]  # noqa: E731
    assert after("2026-07-25") == [shas[3]]  # the day in each commit's own offset
    assert after("2026-07-25", inclusive=True) == [shas[3], shas[2], shas[1]]
    assert after("2026-07-26T00:00:00Z") == [shas[3], shas[2]]  # a datetime compares instants
    assert after(shas[1]) == [shas[3], shas[2]]  # sha..HEAD
    assert after(shas[1][:8]) == [shas[3], shas[2]]
    assert after(shas[3]) == []
    with pytest.raises(GitError, match="not a commit"):
        idx.commits_after("deadbeef")


def test_commits_mentioning_whole_token(repo, tmp_path):
    r, shas = repo
    idx = HistoryIndex.build(r.path, "HEAD", [], cache_dir=tmp_path)
    assert [c.sha for c in idx.commits_mentioning("ENG-ASYNC-SCHED")] == [shas[2]]
    assert [c.sha for c in idx.commits_mentioning("SERVE-ASYNC-LLM")] == [shas[3], shas[2]]
    assert idx.commits_mentioning("ENG-ASYNC") == []  # a prefix of a token is not the token
    assert idx.commits_mentioning("eng-async-sched") == []
    assert [c.sha for c in idx.commits_mentioning("eng-async-sched", ignore_case=True)] == [shas[2]]
    assert [c.sha for c in idx.commits_mentioning("(opt-in)")] == [shas[2]]  # non-word token: regex path
    assert [c.sha for c in idx.commits_mentioning("SECOND-ROW")] == [shas[2]]


def test_short_shas_and_contains(repo, tmp_path):
    r, shas = repo
    idx = HistoryIndex.build(r.path, "HEAD", [], cache_dir=tmp_path)
    assert idx.resolve_short(shas[2][:7]) == shas[2]
    assert idx.resolve_short("0000000") is None and idx.resolve_short("zzz") is None
    assert idx.contains(shas[0][:9]) and not idx.contains("1234567")


def test_ambiguous_prefix_is_an_error(tmp_path):
    fake = [
        Commit("abcd" + h * 36, (), "2026-01-01T00:00:00+00:00", 0, "2026-01-01T00:00:00+00:00", 0, "s", "")
        for h in ("0", "1")
    ]
    idx = HistoryIndex(tmp_path, fake[0].sha, fake, frozenset(), {}, True, HistoryStats())
    assert idx.resolve_short("abcd1") == "abcd" + "1" * 36
    with pytest.raises(AmbiguousShaError, match="write more hex digits"):
        idx.resolve_short("abcd")


def test_since_limits_the_walk(repo, tmp_path):
    r, shas = repo
    idx = HistoryIndex.build(r.path, "HEAD", [], since=shas[1], cache_dir=tmp_path)
    assert [c.sha for c in idx.commits] == [shas[3], shas[2]]
    assert idx.contains(shas[0])  # outside the walk: asked of git
    idx = HistoryIndex.build(r.path, "HEAD", [], since="2026-08-01", cache_dir=tmp_path)
    assert [c.sha for c in idx.commits] == [shas[3]]


def test_sha_ranges_match_git_rev_list_with_merges_and_clock_skew(git_repo, tmp_path, monkeypatch):
    r = git_repo()
    r.commit({"a": "1\n"}, "root", "2026-03-01")
    r.commit({"b": "1\n"}, "side 1", "2026-03-05", branch="side")
    r.commit({"b": "2\n"}, "side 2 (clock skew: dated before its parent)", "2026-02-01", branch="side")
    r.commit({"a": "2\n"}, "main 1", "2026-03-02")
    r.merge("side", "merge side", "2026-03-06")
    r.commit({"c": "1\n"}, "side2 1", "2026-03-07", branch="side2")
    r.commit({"a": "3\n"}, "main 2", "2026-03-08")
    r.merge("side2", "merge side2", "2026-03-09")
    r.commit({"x": "1\n"}, "unmerged", "2026-03-10", branch="ghost")
    idx = HistoryIndex.build(r.path, "HEAD", [], cache_dir=tmp_path)
    calls = []
    monkeypatch.setattr("roadmap.history.index.run_git", lambda *a, **k: calls.append(a))
    for c in idx.commits:  # every base on HEAD's history: no git process
        want = r.git("rev-list", "HEAD", f"^{c.sha}").split()
        # graph order (--topo-order), never commit dates: "side 2" is dated before its parent
        assert [x.sha for x in idx.commits_after(c.sha)] == [
            s for s in r.git("rev-list", "--topo-order", "HEAD").split() if s in want
        ], c.subject
    assert calls == []
    monkeypatch.undo()
    ghost = r.rev("ghost")  # off HEAD's history: asked of git
    assert {c.sha for c in idx.commits_after(ghost)} == set(r.git("rev-list", "HEAD", f"^{ghost}").split())

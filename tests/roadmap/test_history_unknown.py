"""Shallow clones and missing objects are reported as unknown history, never read as "no hit"."""

from __future__ import annotations

import subprocess

import pytest

from roadmap.history.index import HistoryIndex, ShallowHistoryError


@pytest.fixture
def repo(git_repo):
    r = git_repo()
    for i in range(6):
        r.commit({"a.txt": f"sym_{i}\nkeep\n", f"f{i}.txt": f"other {i}\n"}, f"feat: step {i}", f"2026-01-0{i + 1}")
    return r


def test_shallow_clone_raises_with_the_fix(repo, tmp_path):
    dst = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "3", f"file://{repo.path}", str(dst)], check=True)
    with pytest.raises(ShallowHistoryError, match="git fetch --unshallow"):
        HistoryIndex.build(dst, "HEAD", ["sym_0"], cache_dir=tmp_path / "c")
    # A walk that stays inside the fetched commits is fine.
    base = subprocess.run(
        ["git", "-C", str(dst), "rev-parse", "HEAD~1"], capture_output=True, text=True, check=True
    ).stdout.strip()
    idx = HistoryIndex.build(dst, "HEAD", ["sym_5"], since=base, cache_dir=tmp_path / "c")
    assert [c.subject for c in idx.symbol_hits("sym_5")] == ["feat: step 5"]


def test_missing_blob_marks_commits_unknown_and_is_retried(repo, tmp_path):
    blob = repo.git("rev-parse", "HEAD~3:a.txt")  # written by step 2, replaced by step 3
    (repo.path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    idx = HistoryIndex.build(repo.path, "HEAD", ["sym_2", "sym_4", "keep"])
    unknown = [c.subject for c in idx.unknown_commits]
    assert unknown == ["feat: step 3", "feat: step 2"]
    assert all("unable to read" in c.unknown or "missing" in c.unknown for c in idx.unknown_commits)
    assert [c.subject for c in idx.symbol_hits("sym_4")] == ["feat: step 5", "feat: step 4"]
    assert [c.subject for c in idx.symbol_hits("keep")] == ["feat: step 0"]
    assert idx.stats.unknown_commits == 2 and len(idx.commits) == 6
    again = HistoryIndex.build(repo.path, "HEAD", ["sym_2", "sym_4", "keep"])
    assert again.stats.scanned_commits == 2 and len(again.unknown_commits) == 2  # tried again, not trusted


def test_missing_binary_blob_is_unknown(git_repo):
    r = git_repo()
    r.commit({"x.bin": b"\x00binSym\x00"}, "feat: binary", "2026-01-01")
    r.commit({"x.bin": b"\x00binSym binSym\x00"}, "feat: binary again", "2026-01-02")
    blob = r.git("rev-parse", "HEAD~1:x.bin")
    (r.path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    idx = HistoryIndex.build(r.path, "HEAD", ["binSym"], use_cache=False)
    assert [c.subject for c in idx.unknown_commits] == ["feat: binary again", "feat: binary"]
    assert idx.symbol_hits("binSym") == []


def test_oversized_diff_is_unknown_not_skipped(git_repo, monkeypatch):
    r = git_repo()
    r.commit({"a.txt": "small sym\n"}, "feat: small", "2026-01-01")
    r.commit({"big.txt": "sym line\n" * 200}, "feat: big", "2026-01-02")
    monkeypatch.setattr("roadmap.history.log_stream.MAX_COMMIT_BYTES", 1000)
    idx = HistoryIndex.build(r.path, "HEAD", ["sym"], use_cache=False)
    assert [(c.subject, "larger than" in c.unknown) for c in idx.unknown_commits] == [("feat: big", True)]
    assert [c.subject for c in idx.symbol_hits("sym")] == ["feat: small"]

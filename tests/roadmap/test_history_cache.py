"""The sha-keyed cache: reuse, incremental commits and symbols, corruption, --no-cache, stays out of git status."""

from __future__ import annotations

import json

import pytest

from roadmap.history.index import HistoryIndex


@pytest.fixture
def repo(git_repo):
    r = git_repo()
    r.commit({"a.py": "alpha()\n"}, "feat: alpha\n\nRow: R-1", "2026-01-01")
    r.commit({"a.py": "alpha()\nbeta()\n"}, "feat: beta", "2026-01-02")
    r.commit({"b.py": "gamma = 1\n"}, "feat: gamma", "2026-01-03")
    return r


def hits(idx: HistoryIndex) -> dict[str, list[str]]:
    return {s: [c.sha for c in idx.symbol_hits(s)] for s in sorted(idx.symbols)}


def test_second_build_scans_nothing(repo):
    cold = HistoryIndex.build(repo.path, "HEAD", ["alpha", "beta"])
    assert (cold.stats.cache, cold.stats.scanned_commits) == ("cold", 3)
    warm = HistoryIndex.build(repo.path, "HEAD", ["alpha", "beta"])
    assert (warm.stats.cache, warm.stats.scanned_commits, warm.stats.cached_commits) == ("warm", 0, 3)
    assert hits(warm) == hits(cold)
    assert warm.by_sha(repo.rev("HEAD~2")).trailers == {"Row": ["R-1"]}
    assert repo.git("status", "--porcelain") == ""  # .roadmap_cache/ ignores itself
    assert (repo.path / ".roadmap_cache" / ".gitignore").read_text().strip().endswith("*")


def test_new_commits_and_new_symbols_are_scanned_incrementally(repo):
    HistoryIndex.build(repo.path, "HEAD", ["alpha"])
    repo.commit({"a.py": "beta()\n"}, "fix: drop alpha", "2026-01-04")
    idx = HistoryIndex.build(repo.path, "HEAD", ["alpha"])
    assert idx.stats.scanned_commits == 1
    assert [c.subject for c in idx.symbol_hits("alpha")] == ["fix: drop alpha", "feat: alpha"]
    idx = HistoryIndex.build(repo.path, "HEAD", ["alpha", "gamma"])  # a symbol the cache was not scanned for
    assert idx.stats.scanned_commits == 4
    assert [c.subject for c in idx.symbol_hits("gamma")] == ["feat: gamma"]
    assert HistoryIndex.build(repo.path, "HEAD", ["gamma"]).stats.scanned_commits == 0  # a subset: cached
    assert HistoryIndex.build(repo.path, "HEAD", ["alpha", "gamma"]).stats.scanned_commits == 0


@pytest.mark.parametrize("damage", ["truncate", "garbage", "edited", "empty", "valid-json-wrong-shape"])
def test_corrupt_cache_is_rebuilt_not_trusted(repo, damage):
    good = HistoryIndex.build(repo.path, "HEAD", ["alpha", "beta"])
    path = next((repo.path / ".roadmap_cache").glob("history-*.json"))
    raw = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "garbage":
        path.write_bytes(b"\x00\xff not a cache")
    elif damage == "edited":  # still valid JSON, but a delta was changed by hand: the checksum catches it
        path.write_bytes(raw.replace(b'"alpha":1', b'"alpha":5', 1))
        assert path.read_bytes() != raw
    elif damage == "empty":
        path.write_bytes(b"")
    else:
        head = raw.split(b"\n", 1)[0]
        body = json.dumps({"version": 1, "ksets": [], "commits": [[1, 2]], "scans": {}}).encode()
        import hashlib

        path.write_bytes(head.rsplit(b" ", 1)[0] + b" " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    idx = HistoryIndex.build(repo.path, "HEAD", ["alpha", "beta"])
    assert idx.stats.cache == "corrupt" and idx.stats.scanned_commits == 3
    assert hits(idx) == hits(good)
    again = HistoryIndex.build(repo.path, "HEAD", ["alpha", "beta"])
    assert again.stats.cache == "warm" and again.stats.scanned_commits == 0


def test_no_cache_reads_and_writes_nothing(repo):
    idx = HistoryIndex.build(repo.path, "HEAD", ["alpha"], use_cache=False)
    assert idx.stats.cache == "disabled" and idx.stats.scanned_commits == 3
    assert not (repo.path / ".roadmap_cache").exists()


def test_pathspecs_limit_the_walk_and_key_the_cache(repo, tmp_path):
    idx = HistoryIndex.build(repo.path, "HEAD", ["alpha", "gamma"], pathspecs=["a.py"], cache_dir=tmp_path)
    assert [c.subject for c in idx.commits] == ["feat: beta", "feat: alpha"]
    assert idx.symbol_hits("gamma") == []
    full = HistoryIndex.build(repo.path, "HEAD", ["alpha", "gamma"], cache_dir=tmp_path)
    assert full.stats.scanned_commits == 3 and [c.subject for c in full.symbol_hits("gamma")] == ["feat: gamma"]

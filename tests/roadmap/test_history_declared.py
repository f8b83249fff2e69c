"""Names a commit declares in code, read from the history pass's patch stream (roadmap/history/declared.py): the
same names `git show -U0` gives, for every commit the pass read, in other languages' layouts too; cached with the
history and not trusted under another pattern; absent (so `git show` is asked) where the pass has no patch."""

from __future__ import annotations

import pytest

from roadmap.history import cache as history_cache
from roadmap.history.declared import declared_names
from roadmap.history.index import HistoryIndex

GO = """package runner

var (
\tdefaultDepth = 2 // (async) depth
\tmaxSlots     = 64
)

func (r *Runner) StepAsync(ctx context.Context) error {
\treturn nil
}

type SlotMap struct{ ids []int }
"""
RUST = "pub(crate) fn evict_lru(pool: &mut Pool) {}\npub struct BlockPool;\nconst MAX_BLOCKS: usize = 8;\n"
TS = "export async function streamRows(q: Query) {}\nexport interface RowSink {}\nlet retryBudget = 3\n"
PY = "class KVBlockPool:\n    def evict_oldest(self):\n        pass\n\nasync def drain_queue():\n    pass\n"


@pytest.fixture
def repo(git_repo):
    r = git_repo()
    r.commit({"runner.go": GO, "README.md": "# runner\n"}, "feat: async runner", "2026-01-01")
    r.commit({"pool.rs": RUST, "sink.ts": TS}, "feat: pool and sink", "2026-01-02")
    r.commit({"pool.py": PY, "runner.go": GO.replace("StepAsync", "StepSync")}, "feat: python pool", "2026-01-03")
    r.mv(
        "pool.py", "kv/pool.py", "refactor: move the pool", "2026-01-04", content=PY + "def resize_pool():\n    pass\n"
    )
    r.commit({"logo.bin": b"\x00\x01def binary_blob\x00"}, "chore: logo", "2026-01-05")
    r.commit({"notes.txt": "def\nthe next line is a header\n"}, "docs: a bare keyword at a hunk's end", "2026-01-06")
    r.commit({"b.py": "def on_branch():\n    pass\n"}, "feat: branch work", "2026-01-07", branch="side")
    r.merge("side", "Merge branch 'side'", "2026-01-08")
    r.commit({"pool.rs": None}, "chore: drop the rust pool", "2026-01-09")
    return r


def shown(repo, sha: str) -> frozenset[str]:
    return declared_names(repo.git("show", "--no-color", "-U0", "--format=", sha, "--").encode())


def test_the_stream_declares_what_git_show_declares(repo):
    idx = HistoryIndex.build(repo.path, "HEAD", ["StepAsync"], use_cache=False)
    read = 0
    for c in idx.commits:
        names = idx.declared_names(c.sha)
        if c.is_merge:
            assert names is None  # the pass streams no diff for a merge: `git show` is asked instead
            continue
        assert names == shown(repo, c.sha), c.subject
        read += 1
    assert read == len(idx.commits) - 1
    by_subject = {c.subject: idx.declared_names(c.sha) for c in idx.commits}
    assert {"StepAsync", "SlotMap"} <= by_subject["feat: async runner"]
    assert {"evict_lru", "BlockPool", "MAX_BLOCKS", "streamRows", "RowSink", "retryBudget"} <= by_subject[
        "feat: pool and sink"
    ]
    assert by_subject["refactor: move the pool"] == {"resize_pool"}  # a rename: only the lines it added
    assert by_subject["chore: drop the rust pool"] == frozenset()  # removing code declares nothing
    assert "binary_blob" not in by_subject["chore: logo"]


def test_names_are_cached_with_the_history_and_dropped_under_another_pattern(repo, monkeypatch):
    cold = HistoryIndex.build(repo.path, "HEAD", ["StepAsync"])
    warm = HistoryIndex.build(repo.path, "HEAD", ["StepAsync"])
    assert warm.stats.scanned_commits == 0
    assert {c.sha: warm.declared_names(c.sha) for c in warm.commits} == {
        c.sha: cold.declared_names(c.sha) for c in cold.commits
    }
    monkeypatch.setattr(history_cache, "PATTERN_ID", "another")
    other = HistoryIndex.build(repo.path, "HEAD", ["StepAsync"])
    assert other.stats.scanned_commits == 0
    assert all(other.declared_names(c.sha) is None for c in other.commits)  # not trusted: asked of git again


def test_a_history_limited_to_some_paths_reads_no_names(repo):
    idx = HistoryIndex.build(repo.path, "HEAD", ["StepAsync"], pathspecs=["runner.go"], use_cache=False)
    assert all(idx.declared_names(c.sha) is None for c in idx.commits)


def test_a_patch_past_the_cap_reads_no_names(git_repo, monkeypatch):
    from roadmap.history import log_stream

    monkeypatch.setattr(log_stream, "MAX_DIFF_BYTES", 400)
    r = git_repo()
    r.commit({"small.py": "def small_one():\n    pass\n"}, "feat: small", "2026-01-01")
    r.commit({"big.py": "".join(f"def name_{i:04d}():\n    pass\n" for i in range(50))}, "feat: big", "2026-01-02")
    idx = HistoryIndex.build(r.path, "HEAD", ["small_one"], use_cache=False)
    names = {c.subject: idx.declared_names(c.sha) for c in idx.commits}
    assert names == {"feat: small": frozenset({"small_one"}), "feat: big": None}

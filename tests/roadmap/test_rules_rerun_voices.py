"""RL102 rerun-done on a storage team's re-bench checklist and its series table: evidence dropped by hand in
every layout (date first or last, folder or file), the same chore asked in two files, and look-alike series,
negations and older runs that must stay quiet."""

from __future__ import annotations

import json

from roadmap.lint import LintOptions, lint

EV = "docs/bench-evidence"
CHORES = """# perf chores

## TODO

Re-bench list; tick an item once its run is in docs/bench-evidence/.

- [ ] Re-benchmark the 1k ingest path after the WAL group-commit change
- [ ] measure wal-fsync again with O_DSYNC
- [ ] re-run compaction-l0 after the picker rewrite
- [ ] scan-cold: no need to rerun until the cache change lands
- [ ] redo range-scan with the prefix bloom filter
"""
TABLE = """# series

| series | last run | next |
|---|---|---|
| ingest-1k | 20260601-ingest-1k | re-bench after group commit |
| compaction-l0 | compaction-l0-20260601 | rerun after the picker rewrite |
| range-scan | range-scan-20260601.md | redo with the bloom filter |
"""


def _repo(git_repo):
    repo = git_repo()
    repo.commit(
        {
            f"{EV}/20260601-ingest-1k/result.json": json.dumps({"p99_ms": 41.0}),
            f"{EV}/compaction-l0-20260601/result.json": json.dumps({"mb_per_s": 310.0}),
            f"{EV}/range-scan-20260601.md": "# range-scan\n\n- 88.1 k keys/s\n",
        },
        "bench: baseline",
        "2026-06-01",
    )
    repo.commit({".agents/chores.md": CHORES, ".agents/series.md": TABLE}, "notes: chores", "2026-06-02")
    repo.commit(
        {
            f"{EV}/ingest-1k-20260609.json": json.dumps({"p99_ms": 33.5}),  # date last, a file
            f"{EV}/20260609-ingest-10k/result.json": json.dumps({"p99_ms": 70.2}),  # a look-alike series
            f"{EV}/20260610-wal-fsync.md": "# wal-fsync\n\n- 2.1 ms per fsync\n",  # date first, a file
            f"{EV}/compaction-l0-lowmem-20260610/result.json": json.dumps({"mb_per_s": 250.0}),
            f"{EV}/20260611-scan-cold/summary.md": "# scan-cold\n\n- 12.0 s\n",
        },
        "bench: reruns",
        "2026-06-11",
    )
    return repo


def _findings(repo):
    return lint(repo.path, LintOptions(use_cache=False, select=("RL102",))).findings


def _line(repo, f) -> str:
    return (repo.path / f.path).read_text(encoding="utf-8").split("\n")[f.line - 1]


def _related_lines(repo, f) -> list[str]:
    return [(repo.path / r.path).read_text(encoding="utf-8").split("\n")[r.line - 1] for r in f.related]


def _places(f) -> set[tuple[str, int]]:
    return {(f.path, f.line), *((r.path, r.line) for r in f.related)}


def test_reruns_in_any_layout_each_reported_once_with_the_other_place_asking(git_repo):
    repo = _repo(git_repo)
    found = _findings(repo)
    assert len(found) == 2
    ingest = next(f for f in found if "ingest" in f.message)
    assert _places(ingest) == {(".agents/chores.md", 7), (".agents/series.md", 5)}  # one finding, both places
    assert "ingest-1k-20260609.json" in ingest.message and "ingest-10k" not in ingest.message
    fsync = next(f for f in found if f is not ingest)
    assert _places(fsync) == {(".agents/chores.md", 8)}
    assert "20260610-wal-fsync.md" in fsync.message and fsync.severity == "error"


def test_look_alikes_negations_and_older_runs_stay_quiet(git_repo):
    repo = _repo(git_repo)
    lines = {_line(repo, f) for f in _findings(repo)} | {ln for f in _findings(repo) for ln in _related_lines(repo, f)}
    assert not any("compaction-l0" in ln for ln in lines)  # only compaction-l0-lowmem is newer
    assert not any("scan-cold" in ln for ln in lines)  # "no need to rerun" asks for nothing
    assert not any("range-scan" in ln for ln in lines)  # no newer range-scan run
    repo.commit({f"{EV}/range-scan-20260612/summary.md": "# range-scan\n\n- 97.4 k keys/s\n"}, "bench", "2026-06-12")
    [f] = [f for f in _findings(repo) if "range-scan" in f.message]
    assert _places(f) == {(".agents/chores.md", 11), (".agents/series.md", 7)}


def test_a_rerun_on_a_branch_that_never_merged_is_not_done(git_repo):
    repo = git_repo()
    repo.commit({".agents/chores.md": CHORES}, "notes: chores", "2026-06-02")
    repo.commit({f"{EV}/20260610-wal-fsync.md": "# wal-fsync\n\n- 2.1 ms\n"}, "bench", "2026-06-10", branch="wip")
    assert _findings(repo) == []


def test_a_rerun_asked_after_it_was_done_from_the_run_it_cites(git_repo):
    repo = git_repo()
    repo.commit(
        {
            f"{EV}/20260601-ingest-1k/result.json": json.dumps({"p99_ms": 41.0}),
            f"{EV}/ingest-1k-20260609.json": json.dumps({"p99_ms": 33.5}),
        },
        "bench",
        "2026-06-09",
    )
    repo.commit({".agents/series.md": TABLE}, "notes: series", "2026-06-12")  # cites the 0601 run
    [f] = _findings(repo)
    assert "ingest-1k-20260609.json" in f.message and "the run it cites is older than the text" in f.message
    repo.commit(
        {".agents/series.md": TABLE.replace("| 20260601-ingest-1k |", "| ingest-1k-20260609 |")},
        "notes: newest run",
        "2026-06-13",
    )
    assert _findings(repo) == []  # cites the newest run: the rerun it asks for is still to do

"""RL201 on records without evidence files, in two more voices: a storage team's status page whose rows name a
series id ("wal-commit-64w") that a dated benchmark log also names, and a vision lab's README that calls a figure
"our best so far" while its experiment log later reports a better one. Figures written with a magnitude letter
("63.5k commits/s", "1.9M ops/s") are read as numbers. Negative controls sit beside each positive."""

from __future__ import annotations

from roadmap.analysis.figures_compare import close, decimals
from roadmap.lint import LintOptions, lint
from roadmap.records.figures import find_figures


def _findings(repo, *codes: str):
    return lint(repo.path, LintOptions(use_cache=False, select=codes)).findings


def _on(findings, path: str, needle: str, repo) -> list:
    lines = (repo.path / path).read_text(encoding="utf-8").split("\n")
    return [f for f in findings if f.path == path and needle in lines[f.line - 1]]


def test_magnitude_letters_scale_figures_only_before_a_unit():
    got = [(f.value, f.unit) for f in find_figures("kv-get-4k: 63.5k ops/s, p99 1.9 ms; 1.2M rows/s; 3.5MB; 4k vocab")]
    assert got == [(63500.0, "ops/s"), (1.9, "ms"), (1200000.0, "row/s"), (3.5, "MB")]
    assert decimals("41.2k ops/s") == -2 and decimals("1.9MB") == 1 and decimals("2 GiB") == 0
    assert close(41200.0, "41.2k ops/s", 41213.0) and not close(41200.0, "41.2k ops/s", 41300.0)


STATUS = """# kvstore status

| what | now | comment |
|---|---|---|
| point gets, kv-get-4k | 410k ops/s | hot cache, 32 clients |
| range scans, kv-scan-100 | 22k ops/s | cold |
| point gets, kv-get-16k | 198k ops/s | hot cache |
"""

BENCH_V1 = """# Bench log (reference host: 2x Xeon 6338)

## 2026-02-02

- kv-get-4k: 410k ops/s, p99 0.9 ms
- kv-scan-100: 22k ops/s
- kv-get-16k: 198k ops/s
"""

BENCH_V2 = BENCH_V1.replace(
    "## 2026-02-02",
    "## 2026-03-09 (lock-free read path)\n\n- kv-get-4k: 655k ops/s, p99 0.6 ms\n- kv-get-16k p99: 2.1 ms\n\n## 2026-02-02",
)


def test_a_series_id_shared_by_a_status_row_and_a_dated_bench_entry(git_repo):
    repo = git_repo()
    files = {"roadmap.yaml": "records: ['notes/*.md']\n", "notes/status.md": STATUS, "notes/bench.md": BENCH_V1}
    repo.commit(files, "notes: status page and bench log", "2026-02-03")
    repo.commit({"notes/bench.md": BENCH_V2}, "bench: lock-free read path numbers", "2026-03-09")
    found = _findings(repo, "RL201")
    [f] = _on(found, "notes/status.md", "kv-get-4k", repo)
    assert "410k ops/s" in f.message and "655k ops/s" in f.message
    assert not _on(found, "notes/status.md", "kv-scan-100", repo)  # no newer figure for that id
    assert not _on(found, "notes/status.md", "kv-get-16k", repo)  # newer, but of another metric (p99 ms)
    assert not _on(found, "notes/bench.md", "kv-get-4k: 410k", repo)  # the dated entry itself is history


README = """# ViT-S/16 on ImageNet-1k

Our best top-1 accuracy so far: 78.4% (ViT-S/16, 300 ep, DeiT recipe).
Worst case p99 step time: 410 ms on the 8-GPU node.
"""

LOG_V1 = """# Runs, newest first

## 2026-05-04 baseline

- DeiT recipe, 300 ep: top-1 accuracy 78.4%, top-5 94.1%.
"""


def _lab_repo(git_repo, entry: str):
    repo = git_repo()
    files = {"roadmap.yaml": "records: ['exp/*.md']\n", "exp/README.md": README, "exp/log.md": LOG_V1}
    repo.commit(files, "exp: baseline and readme", "2026-05-05")
    log = LOG_V1.replace("# Runs, newest first\n", "# Runs, newest first\n\n" + entry)
    repo.commit({"exp/log.md": log}, "exp: log the new run", "2026-05-20")
    return repo


def test_a_best_so_far_beaten_by_a_later_log_entry(git_repo):
    repo = _lab_repo(git_repo, "## 2026-05-19 mixup 0.8\n\n- DeiT recipe + mixup: top-1 accuracy 79.1%.\n")
    found = _findings(repo, "RL201")
    [f] = _on(found, "exp/README.md", "Our best top-1 accuracy", repo)
    assert "78.4%" in f.message and "79.1%" in f.message and "exp/log.md" in f.message
    assert not _on(found, "exp/README.md", "Worst case p99 step time", repo)


def test_a_best_so_far_is_not_superseded_by_a_worse_or_other_metric_figure(git_repo):
    worse = "## 2026-05-19 no warmup\n\n- top-1 accuracy 76.9% (diverged at ep 40), top-5 accuracy 95.0%.\n"
    repo = _lab_repo(git_repo, worse)
    assert not _on(_findings(repo, "RL201"), "exp/README.md", "Our best", repo)

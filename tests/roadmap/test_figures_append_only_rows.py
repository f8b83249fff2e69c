"""The rows of an append-only benchmark table that are led by their date are dated runs, like a log's dated
sections: the newest one supersedes an older figure another record still quotes as current (RL201), though the
table itself is history. Old rows, rows called replaced, and a quote that agrees with the newest row are not."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

SPEC = """# Serving SLOs

## Measured

| Series | Hardware | Measured |
|---|---|---|
| resnet50-bs32 | 1x L4 | p95 latency: {figure} (current) |
| bert-base-bs8 | 1x L4 | p95 latency: 12.4 ms (current) |
"""

LOG = """# Inference benchmarks

Append-only: one row per run, never edit a row. Load generator at 200 rps, 10 min per run.

| Date | Series | Build | p95 latency (ms) | Notes |
|---|---|---|---|---|
| {d1} | resnet50-bs32 | r118 | 41.0 | first run |
| {d1} | bert-base-bs8 | r118 | 12.4 | |
{later}"""


def _repo(git_repo, figure: str, later: str, d1: str = "2026-04-02", name: str = "repo"):
    repo = git_repo(name)
    repo.commit({"agents/bench-log.md": LOG.format(d1=d1, later="")}, "bench: first runs", "2026-04-02")
    repo.commit({"agents/slo.md": SPEC.format(figure=figure)}, "docs: SLO page", "2026-04-05")
    repo.commit(
        {"agents/bench-log.md": LOG.format(d1=d1, later=later)}, "bench: rerun after the batching change", "2026-04-20"
    )
    return repo


def _rl201(repo) -> dict[int, str]:
    lines = (repo.path / "agents/slo.md").read_text().split("\n")
    out = {}
    for f in lint(repo.path, LintOptions(use_cache=False, select=("RL201",))).findings:
        assert f.path == "agents/slo.md", f  # the benchmark table is history: none of its rows is flagged
        out[f.line] = lines[f.line - 1]
    return out


NEWER = "| 2026-04-20 | resnet50-bs32 | r131 | 33.5 | dynamic batching |\n"


def test_the_newest_dated_row_supersedes_a_current_quote(git_repo):
    found = _rl201(_repo(git_repo, "41.0 ms", NEWER))
    assert [line for line in found.values() if "resnet50-bs32" in line]
    assert not [line for line in found.values() if "bert-base-bs8" in line]  # its newest row still says 12.4


def test_a_row_led_by_a_written_out_date_is_dated_too(git_repo):
    repo = _repo(git_repo, "41.0 ms", "| 20 Apr 2026 | resnet50-bs32 | r131 | 33.5 | |\n", d1="2 Apr 2026")
    assert [line for line in _rl201(repo).values() if "resnet50-bs32" in line]


def test_a_quote_of_the_newest_row_is_current(git_repo):
    assert _rl201(_repo(git_repo, "33.5 ms", NEWER)) == {}


def test_a_newer_row_struck_through_replaces_nothing(git_repo):
    struck = "| 2026-04-20 | resnet50-bs32 | r131 | ~~33.5~~ | aborted: the rig throttled |\n"
    assert _rl201(_repo(git_repo, "41.0 ms", struck)) == {}


def test_a_row_of_another_metric_replaces_nothing(git_repo):
    other = LOG.replace("p95 latency (ms)", "p50 latency (ms)")
    repo = git_repo()
    repo.commit({"agents/bench-log.md": other.format(d1="2026-04-02", later="")}, "bench: first runs", "2026-04-02")
    repo.commit({"agents/slo.md": SPEC.format(figure="41.0 ms")}, "docs: SLO page", "2026-04-05")
    repo.commit({"agents/bench-log.md": other.format(d1="2026-04-02", later=NEWER)}, "bench: rerun", "2026-04-20")
    assert _rl201(repo) == {}

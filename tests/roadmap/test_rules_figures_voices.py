"""RL201 figure-superseded and RL202 figure-unbacked on records written the way other teams write them: a
service team's latency table with evidence in two layouts, a mobile team's spec and benchmark record with no
evidence at all, a pipeline team's notes where one line calls a figure superseded, and citations that misquote
or misjudge their evidence. Every positive has negative controls beside it."""

from __future__ import annotations

import json

from roadmap.lint import LintOptions, lint

EV = "docs/bench-evidence"


def _findings(repo, *codes: str):
    return lint(repo.path, LintOptions(use_cache=False, select=codes)).findings


def _on(findings, path: str, needle: str, repo) -> list:
    lines = (repo.path / path).read_text(encoding="utf-8").split("\n")
    return [f for f in findings if f.path == path and needle in lines[f.line - 1]]


# --- a Go service team: p50/p99 per series, evidence as a date-last JSON file and a date-first folder ---------

LATENCY = """# ingest latency

Numbers from the load rig (c6i.4xlarge, 200 rps). Target for every series: p99 <= 50 ms.

| Series | p50 (ms) | p99 (ms) | Evidence |
|---|---|---|---|
| ingest-1k | 12.1 | 45.0 | ingest-1k-20260301 |
| ingest-10k | 30.4 | 88.0 | ingest-10k-20260301 |

## Log

- 2026-03-02: ingest-1k p99 45.0 ms on the first rig run.
"""


def _latency_repo(git_repo):
    repo = git_repo()
    repo.commit(
        {
            f"{EV}/ingest-1k-20260301.json": json.dumps({"p50_ms": 12.1, "p99_ms": 45.0}),
            f"{EV}/ingest-10k-20260301.json": json.dumps({"p50_ms": 30.4, "p99_ms": 88.0}),
        },
        "bench: first rig numbers",
        "2026-03-01",
    )
    repo.commit({".agents/latency.md": LATENCY}, "docs: latency table", "2026-03-02")
    repo.commit(
        {f"{EV}/20260310-ingest-1k/result.json": json.dumps({"p50_ms": 11.8, "p99_ms": 39.2})},
        "bench: ingest-1k after the batching change",
        "2026-03-10",
    )
    return repo


def test_a_newer_entry_of_the_series_supersedes_the_table_row(git_repo):
    repo = _latency_repo(git_repo)
    found = _findings(repo, "RL201")
    [f] = _on(found, ".agents/latency.md", "| ingest-1k |", repo)
    assert f.severity == "error" and "12.1 ms, 45.0 ms as current (as of 2026-03-02)" in f.message
    assert "newer evidence 20260310-ingest-1k (2026-03-10) records 11.8 ms, 39.2 ms" in f.message
    assert f.evidence == [{"kind": "evidence", "path": f"{EV}/20260310-ingest-1k", "date": "2026-03-10"}]
    assert not _on(found, ".agents/latency.md", "| ingest-10k |", repo)  # a look-alike series: no newer entry
    assert not _on(found, ".agents/latency.md", "p99 <= 50 ms", repo)  # a target, not a measurement
    assert not _on(found, ".agents/latency.md", "2026-03-02: ingest-1k", repo)  # a dated log entry
    assert len(found) == 1


def test_a_row_that_quotes_the_newest_figures_is_current(git_repo):
    repo = _latency_repo(git_repo)
    repo.commit(
        {
            ".agents/latency.md": LATENCY.replace(
                "| 12.1 | 45.0 | ingest-1k-20260301 |", "| 11.8 | 39.2 | 20260310-ingest-1k |"
            )
        },
        "docs: ingest-1k numbers",
        "2026-03-11",
    )
    assert _findings(repo, "RL201") == []


def test_our_evidence_from_another_machine_does_not_supersede(git_repo):
    def ours(median: float, gpu: str | None, day: str) -> str:
        return json.dumps(
            {
                "schema": "evident.bench/1",
                "series": "throughput-nano-tiny",
                "row": "ENG-X",
                "created": f"{day}T10:00:00Z",
                "machine": {"gpu": gpu},
                "model": {"name": "tiny"},
                "workload": {"name": "nano"},
                "metrics": {"output_tok_per_s": {"median": median}},
            }
        )

    repo = git_repo()
    repo.commit(
        {
            f"{EV}/20260301-throughput-nano-tiny/result.json": ours(5000.0, "H200", "2026-03-01"),
            "agents/bench.md": "# bench\n\n| Series | output tok/s | Evidence |\n|---|---|---|\n"
            "| throughput-nano-tiny | 5000.0 | 20260301-throughput-nano-tiny |\n",
        },
        "bench",
        "2026-03-01",
    )
    repo.commit(
        {f"{EV}/20260305-throughput-nano-tiny/result.json": ours(41.5, None, "2026-03-05")},
        "bench: a cpu smoke run",
        "2026-03-05",
    )
    assert _findings(repo, "RL201") == []  # a CPU run never supersedes an H200 figure
    repo.commit(
        {f"{EV}/20260306-throughput-nano-tiny/result.json": ours(5400.0, "H200", "2026-03-06")},
        "bench: h200 again",
        "2026-03-06",
    )
    [f] = _findings(repo, "RL201")
    assert "records 5400" in f.message and "20260306-throughput-nano-tiny" in f.message


# --- a mobile team: a spec and a benchmark record, no evidence directory at all -----------------------------

SPEC = """# Cold start

| Config | Cold start (s) | Owner |
|---|---|---|
| pixel-7 release | 1.84 | dana |
| pixel-6 release | 2.10 | dana |
| pixel-7 debug | 3.95 | lee |
"""
RECORD = """# Benchmarks

| Config | Cold start (s) | Warm start (s) | Notes |
|---|---|---|---|
| pixel-7 release | 1.52 | 0.61 | baseline profile on |
| pixel-6 release | 2.10 | 0.80 | unchanged |
"""


def test_a_newer_record_row_of_the_same_config_supersedes_the_spec(git_repo):
    repo = git_repo()
    repo.commit({"agents/specs/cold-start.md": SPEC}, "spec", "2026-04-01")
    repo.commit({"agents/benchmarks.md": RECORD}, "bench: baseline profiles", "2026-04-09")
    found = _findings(repo, "RL201")
    [f] = _on(found, "agents/specs/cold-start.md", "pixel-7 release", repo)
    assert "quotes 1.84 s as current (as of 2026-04-01)" in f.message and "records 1.52 s" in f.message
    assert not _on(found, "agents/specs/cold-start.md", "pixel-6 release", repo)  # the same figure
    assert not _on(found, "agents/specs/cold-start.md", "pixel-7 debug", repo)  # no newer figure of it
    assert not _on(found, "agents/benchmarks.md", "", repo)  # the newer record itself
    assert len(found) == 1


def test_an_older_record_never_supersedes_a_newer_one(git_repo):
    repo = git_repo()
    repo.commit({"agents/benchmarks.md": RECORD}, "bench", "2026-04-01")
    repo.commit({"agents/specs/cold-start.md": SPEC}, "spec", "2026-04-09")
    [f] = _findings(repo, "RL201")
    assert f.path == "agents/benchmarks.md" and "1.52 s" in f.message and "records 1.84 s" in f.message


# --- a pipeline team's notes: one line says a figure was superseded, others still quote it --------------------

NOTES = """# Writer notes

## Status

- The Parquet writer sustains 1.84 GB/s on the 16-core box.
- Compaction keeps up at 1.84 GB/s of input, so the queue stays empty.
- The reader is at 3.27 GB/s.

## Changes

- 2026-05-03: the 1.84 GB/s figure is superseded by 2.31 GB/s after the zstd level change.
- 2026-05-03: ~~3.9 GB/s~~ was a cached-read artefact.
"""


def test_lines_still_quoting_a_figure_the_file_calls_superseded(git_repo):
    repo = git_repo()
    repo.commit({"agents/notes.md": NOTES.split("## Changes")[0]}, "notes", "2026-05-01")
    repo.commit({"agents/notes.md": NOTES}, "notes: zstd level", "2026-05-03")
    found = _findings(repo, "RL201")
    first = _on(found, "agents/notes.md", "Parquet writer sustains", repo)
    second = _on(found, "agents/notes.md", "Compaction keeps up", repo)
    assert first and second and first[0].severity == "warning"
    assert "calls 1.84 GB/s replaced" in first[0].message and "2.31 GB/s" in first[0].message
    assert {(r.path, r.line) for r in first[0].related} == {("agents/notes.md", second[0].line)}
    assert not _on(found, "agents/notes.md", "reader is at 3.27", repo)  # struck 3.9 is another figure
    assert not _on(found, "agents/notes.md", "is superseded by 2.31", repo)
    assert len(found) == 2


# --- citations that misquote or misjudge their evidence ------------------------------------------------------

SUMMARY = """# ingest-1k, 2026-03-10

rig c6i.4xlarge, 200 rps, batching on.

- p50: 11.8 ms
- p99: 39.2 ms
- error rate: 0.02 %
"""


def _cited(git_repo, line: str):
    repo = git_repo(f"r{abs(hash(line)) % 10**8}")
    repo.commit({f"{EV}/20260310-ingest-1k/summary.md": SUMMARY}, "bench", "2026-03-10")
    repo.commit({"agents/results.md": f"# Results\n\n{line}\n"}, "results", "2026-03-11")
    return _findings(repo, "RL202")


def test_a_figure_its_evidence_does_not_hold(git_repo):
    [f] = _cited(git_repo, "- ingest-1k p99 41.0 ms with batching (20260310-ingest-1k).")
    assert "41.0 ms is not in it" in f.message and f.severity == "error"
    assert _cited(git_repo, "- ingest-1k p99 39.2 ms with batching (20260310-ingest-1k).") == []


def test_a_percentage_is_checked_against_the_figure_of_its_metric(git_repo):
    [f] = _cited(git_repo, "- ingest-1k error rate 0.2 % under load (20260310-ingest-1k).")
    assert "0.2 % is not in it" in f.message and "0.02 %" in f.message
    assert _cited(git_repo, "- ingest-1k error rate 0.02 % under load (20260310-ingest-1k).") == []
    assert _cited(git_repo, "- ingest-1k: 99.5 % of requests batched (20260310-ingest-1k).") == []  # no such metric


def test_a_verdict_its_own_figures_contradict(git_repo):
    [f] = _cited(git_repo, "- ingest-1k p99 39.2 ms, SLO < 40 ms: FAIL (20260310-ingest-1k).")
    assert "says FAIL but 39.2 ms is at or under the 40 ms bar" in f.message
    assert _cited(git_repo, "- ingest-1k p99 39.2 ms, SLO < 40 ms: PASS (20260310-ingest-1k).") == []
    [g] = _cited(git_repo, "- ingest-1k p99 under its 35 ms budget: PASS (20260310-ingest-1k).")
    assert "says PASS but 39.2 ms is over the 35 ms bar" in g.message  # the measurement comes from the evidence
    assert _cited(git_repo, "- ingest-1k p99 under its 45 ms budget: PASS (20260310-ingest-1k).") == []


# --- an inference team: a spec's status table by metric, a benchmark log by series, no evidence folder --------

INT8_SPEC = """# INT8 serving

## Status (resnet50-int8-t4)

| Metric | Target | Current |
|---|---|---|
| Throughput | ≥ 2000 img/s | 1730 img/s |
| p99 latency | ≤ 15 ms | 17.2 ms |
| Top-1 accuracy | ≥ 75.5 % | 75.9 % |

## Status (efficientnet-b0-int8-t4)

| Metric | Target | Current |
|---|---|---|
| Throughput | ≥ 4000 img/s | 4410 img/s |
"""
INT8_LOG = """# Benchmarks

| Series | img/s | p99 (ms) | Top-1 % | Notes |
|---|---|---|---|---|
| resnet50-int8-t4 | 2140 | 13.9 | 75.9 | per-channel calibration |
| efficientnet-b0-int8-t4 | 4410 | 6.1 | 76.8 | unchanged |
"""


def test_a_status_table_by_metric_against_a_newer_log_by_series(git_repo):
    repo = git_repo()
    repo.commit({"agents/specs/int8-serving.md": INT8_SPEC}, "spec: int8 serving", "2026-01-10")
    repo.commit({"agents/benchmarks.md": INT8_LOG}, "bench: calibration fix", "2026-01-20")
    found = _findings(repo, "RL201")
    [tput] = _on(found, "agents/specs/int8-serving.md", "| Throughput | ≥ 2000 img/s |", repo)
    assert "The Throughput row at line 7 quotes 1730 img/s as current" in tput.message and "2140" in tput.message
    [p99] = _on(found, "agents/specs/int8-serving.md", "| p99 latency |", repo)
    assert "records 13.9 ms" in p99.message
    assert not _on(found, "agents/specs/int8-serving.md", "Top-1 accuracy", repo)  # the same 75.9 %
    assert not _on(found, "agents/specs/int8-serving.md", "4410 img/s", repo)  # the same figure
    assert len(found) == 2


# --- a game studio: captures named 2026-02-01_level_platform.json, frame times with a unit field --------------

BUDGET = """# Frame budget (PS5)

Every level must hold p99 frame time under 16.6 ms.

| Level | p50 frame (ms) | p99 frame (ms) | GPU memory | Capture |
|---|---|---|---|---|
| forest-level | 14.2 | 21.7 | 9.8 GB | 2026-02-01_forest-level_ps5 |
| desert-level | 12.0 | 18.3 | — | 2026-02-01_desert-level_ps5 |

## Notes

- The forest p99 of 21.7 ms comes from foliage overdraw.
- The desert p99 of 18.3 ms comes from streaming hitches.
- Re-capture forest-level on PS5 once the foliage impostors land.
"""


def _capture(p50: float, p99: float, mem: float | None = None) -> str:
    doc: dict[str, object] = {"frame_ms": {"p50": p50, "p99": p99}}
    if mem is not None:
        doc["gpu_mem"] = {"value": mem, "unit": "GB"}
    return json.dumps(doc)


def test_captures_in_another_naming_supersede_a_row_and_answer_its_rerun(git_repo):
    repo = git_repo()
    root = "perf/captures"
    repo.commit(
        {
            f"{root}/2026-02-01_forest-level_ps5.json": _capture(14.2, 21.7, 9.8),
            f"{root}/2026-02-01_desert-level_ps5.json": _capture(12.0, 18.3),
            "roadmap.yaml": f'records: ["design/**/*.md"]\nevidence:\n  root: {root}\n',
            "design/frame-budget.md": BUDGET,
        },
        "frame budget",
        "2026-02-03",
    )
    repo.commit({f"{root}/2026-02-11_forest-level_ps5.json": _capture(11.9, 15.8, 9.1)}, "capture", "2026-02-11")
    result = lint(repo.path, LintOptions(use_cache=False, select=("RL102", "RL201", "RL202")))
    found = result.findings
    [row] = _on(found, "design/frame-budget.md", "| forest-level |", repo)
    assert row.code == "RL201" and "14.2 ms, 21.7 ms, 9.8 GB as current" in row.message
    assert "records 11.9 ms, 15.8 ms, 9.1 GB" in row.message  # the GB from the JSON's unit field
    assert [(r.path, r.line) for r in row.related] == [("design/frame-budget.md", 12)]  # "The forest p99 of 21.7"
    [rerun] = _on(found, "design/frame-budget.md", "Re-capture forest-level", repo)
    assert rerun.code == "RL102" and "2026-02-11_forest-level_ps5.json" in rerun.message
    assert not _on(found, "design/frame-budget.md", "desert", repo)
    assert not _on(found, "design/frame-budget.md", "under 16.6 ms", repo)
    assert len(found) == 2


def test_a_table_written_after_a_newer_run_from_the_older_one_is_stale_on_arrival(git_repo):
    repo = git_repo()
    repo.commit(
        {
            f"{EV}/ingest-1k-20260301.json": json.dumps({"p50_ms": 12.1, "p99_ms": 45.0}),
            f"{EV}/20260310-ingest-1k/result.json": json.dumps({"p50_ms": 11.8, "p99_ms": 39.2}),
        },
        "bench: both runs",
        "2026-03-10",
    )
    repo.commit({".agents/latency.md": LATENCY}, "docs: latency table, from the first run", "2026-03-12")
    [f] = _findings(repo, "RL201")
    assert "as of 2026-03-12" in f.message and "before this was written on 2026-03-12" in f.message
    repo.commit(
        {
            ".agents/latency.md": LATENCY.replace(
                "| 12.1 | 45.0 | ingest-1k-20260301 |", "| 11.8 | 39.2 | 20260310-ingest-1k |"
            )
        },
        "fix",
        "2026-03-13",
    )
    assert _findings(repo, "RL201") == []  # citing the newest run: current


def test_an_upstream_figure_beside_a_citation_is_not_ours_to_back(git_repo):
    assert _cited(git_repo, "- ingest-1k p99 39.2 ms; upstream envoy reports 35.0 ms (20260310-ingest-1k).") == []
    [f] = _cited(git_repo, "- ingest-1k p99 39.2 ms; our p50 is 35.0 ms (20260310-ingest-1k).")  # ours: checked
    assert "35.0 ms is not in it" in f.message


# --- a message-queue team: prose naming two series, a release-gate table, summaries with a Metric column -------


def _summary_md(series: str, rows: dict[str, str]) -> str:
    body = "".join(f"| {k} | {v} |\n" for k, v in rows.items())
    return f"# {series}\n\n| Metric | Value |\n|---|---|\n{body}"


STATUS = """# Broker status

Publish is currently at 412 req/s with a p99 of 38.5 ms (broker-publish-20260501); consume runs at
950 req/s (broker-consume-20260501).

## Release gate

| Check | Bar | Result | Evidence |
|---|---|---|---|
| publish throughput | ≥ 400 req/s | PASS | broker-publish-20260501 |
| p99 publish latency | ≤ 35 ms | PASS | broker-publish-20260501 |
| consume throughput | ≥ 1000 req/s | FAIL | broker-consume-20260501 |
"""


def test_two_series_in_one_paragraph_and_a_gate_table_judged_by_its_evidence(git_repo):
    repo = git_repo()
    repo.commit(
        {
            f"{EV}/broker-publish-20260501.md": _summary_md(
                "broker-publish", {"publish throughput": "412 req/s", "p99 publish latency": "38.5 ms"}
            ),
            f"{EV}/broker-consume-20260501.md": _summary_md("broker-consume", {"consume throughput": "950 req/s"}),
        },
        "bench",
        "2026-05-01",
    )
    repo.commit({".agents/status.md": STATUS}, "status", "2026-05-02")
    repo.commit(
        {
            f"{EV}/broker-publish-20260507.md": _summary_md(
                "broker-publish", {"publish throughput": "1130 req/s", "p99 publish latency": "21.0 ms"}
            )
        },
        "bench: batching",
        "2026-05-07",
    )
    found = _findings(repo, "RL201", "RL202")
    [para] = _on(found, ".agents/status.md", "Publish is currently", repo)
    assert para.code == "RL201" and "quotes 412 req/s, 38.5 ms as current" in para.message
    assert "950" not in para.message  # consume's figure: another series, no newer run
    [gate] = _on(found, ".agents/status.md", "| p99 publish latency |", repo)
    assert gate.code == "RL202" and "says PASS but 38.5 ms is over the 35 ms bar" in gate.message
    assert not _on(found, ".agents/status.md", "| publish throughput |", repo)  # 412 >= 400: PASS holds
    assert not _on(found, ".agents/status.md", "| consume throughput |", repo)  # 950 < 1000: FAIL holds
    assert len(found) == 2


def test_a_verdict_needs_no_citation_to_contradict_itself(git_repo):
    repo = git_repo()
    notes = (
        "# Gates\n\n- Login p99 is 41.0 ms against the 40 ms budget: PASS.\n"
        "- Search p99 is 38.0 ms against the 40 ms budget: PASS.\n"
        "- Decode went 2.2 -> 7.6 tok/s on the small box: PASS.\n"
        "- Upload p50 is 90 ms; the p99 budget of 40 ms is a FAIL for now.\n"
    )
    repo.commit({"agents/gates.md": notes}, "gates", "2026-05-01")
    [f] = _findings(repo, "RL202")
    assert f.line == 3 and "says PASS but 41.0 ms is over the 40 ms bar" in f.message

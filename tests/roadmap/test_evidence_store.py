"""Evidence store: result.json dirs, foreign dirs and files, naming, grouping, and schema validation."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from roadmap.config import Config, EvidenceConfig
from roadmap.evidence import load_evidence, parse_name, validate_result
from roadmap.history.tree import Tree

SHA = "0123456789abcdef0123456789abcdef01234567"


def result(**over: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "schema": "evident.bench/1",
        "series": "throughput-nano-qwen3-0.6b",
        "row": "ENG-ASYNC-SCHED",
        "created": "2026-07-27T10:00:00Z",
        "commit": SHA,
        "dirty": False,
        "command": "engine bench throughput --model qwen3-0.6b",
        "machine": {
            "gpu": "H200",
            "gpu_count": 1,
            "driver": "570",
            "cuda": "12.8",
            "torch": "2.13",
            "triton": "3.6",
            "python": "3.11",
        },
        "model": {"name": "qwen3-0.6b", "load_format": "dummy", "dtype": "bfloat16", "config": {}},
        "workload": {"name": "nano", "num_requests": 256, "prompt_tokens": 142827, "output_tokens": 133966, "seed": 0},
        "engine": {"async_scheduling": True},
        "runs": [{"output_tok_per_s": 6800.0}, {"output_tok_per_s": 6831.7}],
        "metrics": {
            "output_tok_per_s": {"median": 6831.71, "min": 6800.0, "max": 6850.2},
            "ttft_ms": {"p50": 181.2, "p90": 250.0, "p99": 300.0, "mean": 190.0},
            "peak_vram_gib": 20.1,
        },
        "peers": [{"name": "transformers", "version": "5.0", "settings": {}, "metrics": {}, "ratio": 1.0283}],
    }
    obj.update(over)
    return obj


def test_valid_result_has_no_problems() -> None:
    assert validate_result(result()) == []


@pytest.mark.parametrize(
    "change,expect",
    [
        ({"schema": "evident.bench/0"}, "schema: must be 'evident.bench/1'"),
        ({"commit": "deed7c2a1"}, "commit: must be 40 lower-case hex"),
        ({"dirty": "no"}, "dirty: must be true or false, got str"),
        ({"runs": []}, "runs: empty"),
        ({"runs": "3"}, "runs: must be a list"),
        ({"created": "yesterday"}, "created: not an ISO timestamp"),
        ({"machine": None}, "machine: must be an object"),
        ({"series": ""}, "series: must be a non-empty string"),
        ({"metrics": {"output_tok_per_s": {"median": 1.0, "min": 2.0, "max": 3.0}}}, "min <= median <= max"),
        ({"metrics": {"output_tok_per_s": {"median": "fast", "min": 1, "max": 2}}}, "output_tok_per_s.median"),
        ({"metrics": {}}, "metrics.output_tok_per_s: missing"),
        ({"peers": [{"ratio": 1.0}]}, "peers[0]: must be an object with a string name"),
    ],
)
def test_schema_mistakes_name_the_field(change: dict[str, Any], expect: str) -> None:
    errors = validate_result(result(**change))
    assert any(expect in e for e in errors), errors


def test_missing_fields_each_reported() -> None:
    obj = result()
    for key in ("row", "machine", "command"):
        del obj[key]
    errors = validate_result(obj)
    assert [e.split(":")[0] for e in errors] == ["row", "command", "machine"]
    assert validate_result([1, 2]) == ["result.json must be a JSON object, got list"]


@pytest.mark.parametrize(
    "name,naming,expect",
    [
        ("20260727-throughput-4b", "any", ("2026-07-27", "throughput-4b")),
        ("throughput-4b-20260727", "any", ("2026-07-27", "throughput-4b")),
        ("throughput-4b-20260727", "date-first", None),
        ("20260727-throughput-4b", "date-last", None),
        ("2026-07-27-serve", "any", ("2026-07-27", "serve")),
        ("20260727", "any", ("2026-07-27", "")),
        ("20261399-x", "any", None),
        ("README.md", "any", None),
    ],
)
def test_parse_name(name: str, naming: str, expect: tuple[str, str] | None) -> None:
    assert parse_name(name, naming) == expect


def test_parse_name_strips_file_extensions_only_when_asked() -> None:
    assert parse_name("20260805-latency.md", strip_ext=True) == ("2026-08-05", "latency")
    assert parse_name("20260805-nano-qwen3-0.6b") == ("2026-08-05", "nano-qwen3-0.6b")


def _repo(git_repo, files: dict[str, str | bytes]):
    repo = git_repo()
    repo.commit(files, "evidence", "2026-08-08")
    return repo


def test_store_reads_ours_and_foreign_evidence(git_repo) -> None:
    root = "docs/bench-evidence"
    repo = _repo(
        git_repo,
        {
            f"{root}/20260805-throughput-nano-qwen3-0.6b/result.json": json.dumps(
                result(created="2026-08-05T01:00:00Z")
            ),
            f"{root}/20260805-throughput-nano-qwen3-0.6b/summary.md": "# nano\n",
            f"{root}/20260727-throughput-nano-qwen3-0.6b/result.json": json.dumps(result()),
            f"{root}/20260728-throughput-4b/summary.md": "Row: ROAD-V1-C2-LOCAL-BF16\n\n6831.71 tok/s\n",
            f"{root}/serve-latency-20260807.md": "- **Row**: `SERVE-ASYNC-LLM`\n",
            f"{root}/README.md": "What lives here.\n",
            f"{root}/notes/old.txt": "no date\n",
            "docs/other/20260101-x/result.json": "{}",
        },
    )
    store = load_evidence(Tree(repo.path), Config())
    assert [(e.name, e.kind, e.date) for e in store] == [
        ("20260727-throughput-nano-qwen3-0.6b", "dir", "2026-07-27"),
        ("20260728-throughput-4b", "dir", "2026-07-28"),
        ("20260805-throughput-nano-qwen3-0.6b", "dir", "2026-08-05"),
        ("serve-latency-20260807.md", "file", "2026-08-07"),
    ]
    assert sorted(store.ignored) == ["README.md", "notes"]
    ours = store.get("20260805-throughput-nano-qwen3-0.6b")
    assert ours is not None and ours.problems == [] and ours.commit == SHA and ours.dirty is False
    assert ours.metrics["output_tok_per_s"]["median"] == 6831.71 and len(ours.runs) == 2 and ours.peers
    assert ours.result_path == f"{root}/20260805-throughput-nano-qwen3-0.6b/result.json"
    foreign = store.get(f"{root}/20260728-throughput-4b/")
    assert foreign is not None and foreign.raw is None and foreign.series == "throughput-4b"
    assert foreign.row == "ROAD-V1-C2-LOCAL-BF16" and foreign.result_path is None
    assert store.get("serve-latency-20260807.md").row == "SERVE-ASYNC-LLM"
    assert [e.date for e in store.by_series["throughput-nano-qwen3-0.6b"]] == ["2026-07-27", "2026-08-05"]
    assert [e.name for e in store.by_row["ENG-ASYNC-SCHED"]] == [
        "20260727-throughput-nano-qwen3-0.6b",
        "20260805-throughput-nano-qwen3-0.6b",
    ]
    assert [e.name for e in store.after("2026-07-27", series="throughput-nano-qwen3-0.6b")] == [
        "20260805-throughput-nano-qwen3-0.6b"
    ]
    assert store.latest("throughput-4b") is foreign and "20260728-throughput-4b" in store


def test_bad_result_json_is_a_problem_not_a_crash(git_repo) -> None:
    root = "docs/bench-evidence"
    bad = copy.deepcopy(result())
    bad["commit"] = "abc"
    repo = _repo(
        git_repo,
        {
            f"{root}/20260801-broken/result.json": '{"schema": "evident.bench/1",\n  "series": }',
            f"{root}/20260802-invalid/result.json": json.dumps(bad),
            f"{root}/20260803-binary/result.json": b"\xff\xfe\x00",
            f"{root}/20260810-misdated/result.json": json.dumps(result(created="2026-08-01T00:00:00Z")),
            f"{root}/undated/result.json": json.dumps(result(created="2026-07-30T00:00:00Z")),
        },
    )
    store = load_evidence(Tree(repo.path), Config())
    by = {e.name: e for e in store}
    assert "not valid JSON (line 2 column 13" in by["20260801-broken"].problems[0]
    assert any("commit: must be 40" in p for p in by["20260802-invalid"].problems)
    assert "not UTF-8" in by["20260803-binary"].problems[0]
    assert any("the name says 2026-08-10" in p for p in by["20260810-misdated"].problems)
    assert by["undated"].date == "2026-07-30" and by["undated"].series == "throughput-nano-qwen3-0.6b"


def test_naming_and_kinds_config(git_repo) -> None:
    root = "bench"
    repo = _repo(
        git_repo,
        {f"{root}/20260801-a/summary.md": "x", f"{root}/b-20260802/summary.md": "x", f"{root}/20260803-c.md": "x"},
    )
    only_dirs_first = Config(evidence=EvidenceConfig(root=root, naming="date-first", kinds="dir"))
    assert [e.name for e in load_evidence(Tree(repo.path), only_dirs_first)] == ["20260801-a"]
    only_files = Config(evidence=EvidenceConfig(root=root, kinds="file"))
    assert [e.name for e in load_evidence(Tree(repo.path), only_files)] == ["20260803-c.md"]


def test_evidence_at_an_older_revision(git_repo) -> None:
    repo = git_repo()
    old = repo.commit({"docs/bench-evidence/20260727-a/result.json": json.dumps(result())}, "a", "2026-07-27")
    repo.commit({"docs/bench-evidence/20260805-a/result.json": json.dumps(result())}, "b", "2026-08-05")
    assert len(load_evidence(Tree(repo.path), Config())) == 2
    assert [e.name for e in load_evidence(Tree(repo.path, rev=old), Config())] == ["20260727-a"]


def _series(entries) -> set[tuple[str | None, str]]:
    return {(e.date, e.series) for e in entries}


def test_with_no_default_root_the_usual_folders_are_evidence(git_repo) -> None:
    """No docs/bench-evidence: `bench/<series>/<date>.json` and `perf/<date>/<series>.json` are read (the first
    folder holding a dated entry); a configured root is never replaced."""
    r = git_repo()
    r.commit({"bench/callvar/2026-02-10.json": '{"series": "callvar", "metrics": {"min": 41.2}}'}, "b", "2026-02-10")
    assert _series(load_evidence(Tree(r.path), Config())) == {("2026-02-10", "callvar")}

    p = git_repo("perf")
    p.commit(
        {
            "perf/2026-02-03/regalloc-suite.json": '{"series": "regalloc-suite", "metrics": {"ms": 812}}',
            "perf/2026-02-20/regalloc-suite.json": '{"series": "regalloc-suite", "metrics": {"ms": 640}}',
            "perf/2026-02-20/parse-suite.json": '{"series": "parse-suite", "metrics": {"ms": 90}}',
        },
        "p",
        "2026-02-20",
    )
    store = load_evidence(Tree(p.path), Config())
    assert _series(store) == {
        ("2026-02-03", "regalloc-suite"),
        ("2026-02-20", "regalloc-suite"),
        ("2026-02-20", "parse-suite"),
    }
    assert store.latest("regalloc-suite").path == "perf/2026-02-20/regalloc-suite.json"

    both = git_repo("both")
    both.commit(
        {
            "docs/bench-evidence/20260301-kv-get/result.json": '{"series": "kv-get"}',
            "bench/callvar/2026-02-10.json": '{"series": "callvar"}',
        },
        "b",
        "2026-03-01",
    )
    assert {e.series for e in load_evidence(Tree(both.path), Config())} == {"kv-get"}
    elsewhere = Config(evidence=EvidenceConfig(root="docs/results"))
    assert len(load_evidence(Tree(both.path), elsewhere)) == 0  # a configured root that holds nothing stays so

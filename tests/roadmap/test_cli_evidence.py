"""`roadmap evidence list|verify`: thin wiring over roadmap.evidence plus the commit/dirty checks."""

from __future__ import annotations

import json

import pytest

from roadmap.cli import main

ROOT = "docs/bench-evidence"


def result(commit: str, dirty: bool = False, median: float = 6831.71) -> str:
    return json.dumps(
        {
            "schema": "evident.bench/1",
            "series": "throughput-nano-qwen3-0.6b",
            "row": "ENG-BENCH",
            "created": "2026-07-27T10:00:00Z",
            "commit": commit,
            "dirty": dirty,
            "command": "engine bench throughput",
            "machine": {"gpu": "H200", "gpu_count": 1},
            "model": {"name": "qwen3-0.6b"},
            "workload": {"name": "nano"},
            "engine": {"block_size": 16},
            "runs": [{"output_tok_per_s": median}],
            "metrics": {"output_tok_per_s": {"median": median, "min": median - 1, "max": median + 1}},
        }
    )


@pytest.fixture
def evidence_repo(git_repo):
    repo = git_repo()
    code = repo.commit({"engine/x.py": "X = 1\n"}, "feat(engine): x", "2026-07-26")
    repo.commit(
        {
            f"{ROOT}/20260727-throughput-nano-qwen3-0.6b/result.json": result(code),
            f"{ROOT}/20260728-throughput-nano-qwen3-0.6b/result.json": result("f" * 40, median=6900.0),
            f"{ROOT}/20260729-throughput-nano-qwen3-0.6b/result.json": result(code, dirty=True),
            f"{ROOT}/20260730-broken/result.json": "{not json",
            f"{ROOT}/local-bf16-4b-20260803/summary.md": "# 4B rerun\n\nRow: ROAD-V1-C2\n",
        },
        "bench: evidence",
        "2026-07-31",
    )
    return repo


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_shows_every_entry_oldest_first(capsys, evidence_repo, monkeypatch):
    monkeypatch.chdir(evidence_repo.path)
    code, out, _ = run(capsys, "evidence", "list")
    lines = out.splitlines()
    assert code == 0 and lines[-1] == f"5 evidence entries under {ROOT}/"
    assert [l.split()[1] for l in lines[:-1]] == [
        "20260727-throughput-nano-qwen3-0.6b",
        "20260728-throughput-nano-qwen3-0.6b",
        "20260729-throughput-nano-qwen3-0.6b",
        "20260730-broken",
        "local-bf16-4b-20260803",
    ]
    assert "6831.71 tok/s" in lines[0]
    code, out, _ = run(capsys, "evidence", "list", "--series", "throughput-nano-qwen3-0.6b", "--format", "json")
    assert [e["date"] for e in json.loads(out)] == ["2026-07-27", "2026-07-28", "2026-07-29"]


def test_verify_reports_each_invalid_entry_and_exits_1(capsys, evidence_repo, monkeypatch):
    monkeypatch.chdir(evidence_repo.path)
    code, out, _ = run(capsys, "evidence", "verify")
    assert code == 1
    assert f"ok    {ROOT}/20260727-throughput-nano-qwen3-0.6b" in out
    assert f"FAIL  {ROOT}/20260728-throughput-nano-qwen3-0.6b" in out and "not on HEAD's history" in out
    assert f"FAIL  {ROOT}/20260729-throughput-nano-qwen3-0.6b" in out and "dirty" in out
    assert f"FAIL  {ROOT}/20260730-broken" in out and "not valid JSON" in out
    assert out.splitlines()[-1] == f"2 valid, 3 invalid evidence entries under {ROOT}/"
    assert run(capsys, "evidence", "verify", "20260727-throughput-nano-qwen3-0.6b")[0] == 0


def test_verify_unknown_name_is_a_usage_error(capsys, evidence_repo, monkeypatch):
    monkeypatch.chdir(evidence_repo.path)
    code, _, err = run(capsys, "evidence", "verify", "20990101-nothing")
    assert code == 2 and "no evidence entry '20990101-nothing'" in err

"""What the engine's evidence writer writes follows docs/evidence-schema.json, the contract roadmap verifies
(RL501, `roadmap evidence verify`): checked here with jsonschema against the file itself, not through roadmap."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engine.bench import evidence
from engine.bench.metrics import RequestTiming, aggregate, run_metrics
from engine.bench.result import assemble, ratio

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "evidence-schema.json"
SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _runs(n: int) -> list[dict[str, Any]]:
    timings = [RequestTiming(0.0, [0.1, 0.12, 0.15], 8), RequestTiming(0.01, [0.2, 0.25], 5)]
    return [run_metrics(timings, 0.2 + i / 10, None) for i in range(n)]


def _result(subject: dict[str, Any], peers: list[dict[str, Any]], roofline: dict[str, Any] | None) -> dict[str, Any]:
    runs = _runs(3)
    return assemble(
        series="throughput-x",
        row="ENG-BENCH",
        created="2026-01-02T03:04:05Z",
        commit=SHA,
        dirty=False,
        command="engine bench throughput --model m",
        machine={
            "gpu": None,
            "gpu_count": 0,
            "driver": None,
            "cuda": None,
            "torch": "2.13",
            "triton": None,
            "python": "3.11",
        },
        model={"name": "m", "load_format": "dummy", "dtype": "float32", "config": {}},
        workload={"name": "nano", "num_requests": 2, "prompt_tokens": 8, "output_tokens": 13, "seed": 0},
        engine={"block_size": 16},
        runs=runs,
        metrics=aggregate(runs),
        roofline=roofline,
        peers=peers,
        subject=subject,
    )


def _written(tmp_path: Path, name: str, result: dict[str, Any]) -> dict[str, Any]:
    """result.json as the writer puts it on disk, read back."""
    evidence.write(tmp_path / name, result, result_only=True)
    return json.loads((tmp_path / name / "result.json").read_text(encoding="utf-8"))


def _errors(validator: Draft202012Validator, doc: dict[str, Any]) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]


def test_ours_with_a_cited_peer_follows_the_schema(tmp_path: Path, validator: Draft202012Validator) -> None:
    peer_doc = _written(
        tmp_path,
        "peer",
        _result({"kind": "peer", "name": "transformers-cb", "version": "5.17.0", "complete": False}, [], None),
    )
    assert _errors(validator, peer_doc) == []
    entry = evidence.peer_entry_from(tmp_path / "peer")
    ours = _result(
        {"kind": "ours", "name": "engine"}, [entry], {"output_tok_per_s_bound": 100.0, "fraction": 0.15, "ceilings": {}}
    )
    entry["ratio"] = ratio(ours["metrics"]["output_tok_per_s"]["median"], entry["metrics"])
    doc = _written(tmp_path, "ours", ours)
    assert doc["peers"][0]["ratio"] is not None
    assert _errors(validator, doc) == []


def test_the_schema_rejects_what_the_writer_must_not_write(tmp_path: Path, validator: Draft202012Validator) -> None:
    doc = _written(tmp_path, "ours", _result({"kind": "ours", "name": "engine"}, [], None))
    for key, bad in (("commit", "HEAD"), ("dirty", "no"), ("runs", []), ("schema", "evident.bench/0")):
        broken = {**doc, key: bad}
        assert any(e.startswith(f"['{key}']") for e in _errors(validator, broken)), key
    missing = {k: v for k, v in doc.items() if k != "metrics"}
    assert _errors(validator, missing) == ["[]: 'metrics' is a required property"]

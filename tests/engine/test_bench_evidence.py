"""Evidence provenance, directory rules, the reproduce command, and rendering from result.json alone."""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

import pytest

from engine.bench import cli, evidence
from engine.bench.command import command_line
from engine.bench.errors import BenchError
from engine.bench.metrics import RequestTiming, aggregate, run_metrics
from engine.bench.result import assemble, check_peer_matches
from engine.errors import EngineError
from engine.provenance.commit import resolve_commit

SHA = "0123456789abcdef0123456789abcdef01234567"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "config", "user.email", "t@example.com")
    _git(tmp_path, "config", "user.name", "t")
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "x.py").write_text("x = 1\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "init")
    return tmp_path


def test_explicit_commit_is_clean_unless_told(tmp_path: Path) -> None:
    assert resolve_commit(SHA, None, tmp_path) == (SHA, False)
    assert resolve_commit(SHA.upper(), True, tmp_path) == (SHA, True)


def test_bad_or_missing_commit_asks_for_one(tmp_path: Path) -> None:
    with pytest.raises(EngineError, match="40-hex"):
        resolve_commit("HEAD~1", None, tmp_path)
    with pytest.raises(EngineError, match="--commit"):
        resolve_commit(None, None, tmp_path)  # no repository here


def test_commit_and_dirty_from_git(repo: Path) -> None:
    head = _git(repo, "rev-parse", "HEAD")
    assert resolve_commit(None, None, repo) == (head, False)
    assert resolve_commit(head[:10], None, repo) == (head, False)  # a prefix resolves where git can
    (repo / "engine" / "x.py").write_text("x = 2\n")
    assert resolve_commit(None, None, repo) == (head, True)
    assert resolve_commit(None, False, repo) == (head, False)


def test_untracked_engine_file_is_dirty_but_records_are_not(repo: Path) -> None:
    (repo / "notes.md").write_text("records only\n")
    assert resolve_commit(None, None, repo)[1] is False
    (repo / "engine" / "new.py").write_text("y = 1\n")
    assert resolve_commit(None, None, repo)[1] is True


def test_evidence_is_never_overwritten(tmp_path: Path) -> None:
    created = evidence.utc_now()
    path = evidence.evidence_dir(tmp_path, created, "throughput-nano-x")
    assert path.name == f"{created:%Y%m%d}-throughput-nano-x"
    path.mkdir()
    with pytest.raises(BenchError, match="already exists"):
        evidence.evidence_dir(tmp_path, created, "throughput-nano-x")


def test_slug() -> None:
    assert evidence.slug("Qwen/Qwen3-0.6B") == "qwen3-0.6b"
    assert evidence.slug("/models/tiny-qwen3.json") == "tiny-qwen3"


def _parser() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    top = argparse.ArgumentParser(prog="engine")
    bench = cli.add_parser(top.add_subparsers(dest="command"))
    sub = next(a for a in bench._actions if isinstance(a, argparse._SubParsersAction))
    return top, sub.choices["throughput"]


def test_reproduce_command_names_every_setting_that_matters() -> None:
    top, tp = _parser()
    args = top.parse_args(
        [
            "bench",
            "throughput",
            "--model",
            "Qwen3-4B",
            "--repeat",
            "3",
            "--peer",
            "transformers-cb",
            "--peer-timeout",
            "200",
            "--no-enforce-eager",
            "--commit",
            SHA,
            "--dirty",
            "--output-dir",
            "/tmp/somewhere",
            "--result-only",
        ]
    )
    cmd = command_line("throughput", tp, args)
    assert cmd.startswith("engine bench throughput --model Qwen3-4B --load-format dummy --dtype auto --seed 0")
    for part in (
        "--no-enforce-eager",
        "--dataset-name nano",
        "--repeat 3",
        "--peer transformers-cb",
        "--peer-timeout 200.0",
        f"--commit {SHA}",
        "--dirty",
    ):
        assert part in cmd
    assert "--output-dir" not in cmd and "--result-only" not in cmd  # where it went is not what was measured
    assert top.parse_args(["bench", *cmd.split()[2:]]).repeat == 3  # and it parses back


def _result(subject: dict, peers: list | None = None) -> dict:
    runs = [run_metrics([RequestTiming(0.0, [0.1, 0.12, 0.15], 8)], 0.2, None)]
    return assemble(
        series="throughput-x",
        row="ENG-BENCH",
        created="2026-01-02T03:04:05Z",
        commit=SHA,
        dirty=False,
        command="engine bench throughput --model m",
        machine={"gpu": None, "gpu_count": 0},
        model={"name": "m", "load_format": "dummy", "dtype": "float32", "config": {}},
        workload={"name": "nano", "num_requests": 1, "prompt_tokens": 8, "output_tokens": 3, "seed": 0},
        engine={},
        runs=runs,
        metrics=aggregate(runs),
        roofline={"output_tok_per_s_bound": 100.0, "fraction": 0.15, "ceilings": {}},
        peers=peers or [],
        subject=subject,
    )


def test_render_from_result_json_alone(tmp_path: Path) -> None:
    files = evidence.write(tmp_path / "d", _result({"kind": "ours", "name": "engine"}))
    assert sorted(f.name for f in files) == ["plot.png", "result.json", "summary.md"]
    text = (tmp_path / "d" / "summary.md").read_text()
    assert "| output tok/s | 15.0 | 15.0 | 15.0 |" in text and "engine bench throughput --model m" in text
    assert (tmp_path / "d" / "plot.png").read_bytes()[:4] == b"\x89PNG"
    (tmp_path / "d" / "summary.md").unlink()
    assert [f.name for f in evidence.render(tmp_path / "d")] == ["summary.md", "plot.png"]


def test_peer_evidence_is_cited_and_checked(tmp_path: Path) -> None:
    evidence.write(
        tmp_path / "peer",
        _result({"kind": "peer", "name": "transformers-cb", "version": "5.17.0", "complete": False}),
        result_only=True,
    )
    entry = evidence.peer_entry_from(tmp_path / "peer")
    assert (entry["name"], entry["version"], entry["complete"], entry["evidence"]) == (
        "transformers-cb",
        "5.17.0",
        False,
        "peer",
    )
    work, model = _result({})["workload"], {"name": "m", "dtype": "float32", "load_format": "dummy"}
    check_peer_matches(entry, work, model, "peer")
    check_peer_matches(entry, work, {**model, "name": "org/M"}, "peer")  # the same model through its hub path
    with pytest.raises(BenchError, match="dtype"):
        check_peer_matches(entry, work, {**model, "dtype": "bfloat16"}, "peer")
    with pytest.raises(BenchError, match="output_tokens"):
        check_peer_matches(entry, {**work, "output_tokens": 4}, model, "peer")
    evidence.write(tmp_path / "ours", _result({"kind": "ours", "name": "engine"}), result_only=True)
    with pytest.raises(BenchError, match="not a peer"):
        evidence.peer_entry_from(tmp_path / "ours")

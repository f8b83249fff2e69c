"""One evidence validator (roadmap/evidence/verify.py) behind RL501 and `roadmap evidence verify`: the same
problems in the same words, the schema read from docs/evidence-schema.json, and a git failure said once."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from roadmap.cli import main
from roadmap.evidence import schema
from roadmap.lint import LintOptions, lint

EV = "docs/bench-evidence"
ROOT = Path(__file__).resolve().parents[2]


def result(commit: str, **changes: object) -> str:
    obj = {
        "schema": "evident.bench/1",
        "series": "4b",
        "row": "PERF-4B",
        "created": "2026-08-07T10:00:00Z",
        "commit": commit,
        "dirty": False,
        "command": "engine bench throughput",
        "machine": {"gpu": "H200", "gpu_count": 1},
        "model": {"name": "qwen3-4b"},
        "workload": {"name": "nano"},
        "engine": {},
        "runs": [{"output_tok_per_s": 1.0}],
        "metrics": {"output_tok_per_s": {"median": 1.0, "min": 1.0, "max": 1.0}},
    }
    obj.update(changes)
    return json.dumps({k: v for k, v in obj.items() if v is not None})


def test_the_schema_is_the_documented_file_and_names_the_version():
    doc = json.loads((ROOT / "docs" / "evidence-schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(doc)
    assert schema.SCHEMA_FILE.resolve() == ROOT / "docs" / "evidence-schema.json"  # one copy, shipped in the package
    assert doc["properties"]["schema"]["const"] == schema.SCHEMA
    assert schema.validate_result({**json.loads(result("0" * 40)), "runs": "3"}) == [
        "runs: must be a list of every repetition, raw, got str"
    ]


def test_rl501_and_evidence_verify_say_the_same(capsys, git_repo, monkeypatch):
    repo = git_repo()
    sha = repo.commit({"src/a.py": "x = 1\n"}, "code", "2026-08-06")
    branch = repo.commit({"src/b.py": "x = 1\n"}, "wip", "2026-08-06", branch="wip")
    repo.commit(
        {
            f"{EV}/20260807-broken/result.json": '{"schema": "evident.bench/1",\n  "series": }',
            f"{EV}/20260807-nocmd/result.json": result(sha, command=None, runs=[]),
            f"{EV}/20260807-unmerged/result.json": result(branch),
            f"{EV}/20260807-dirty/result.json": result(sha, dirty=True),
            f"{EV}/20260807-ok/result.json": result(sha),
        },
        "bench",
        "2026-08-07",
    )
    findings = lint(repo.path, LintOptions(use_cache=False, select=("RL501",))).findings
    linted = {f.path.rsplit("/", 2)[1]: f.message.split(" is invalid: ", 1)[1] for f in findings}
    monkeypatch.chdir(repo.path)
    assert main(["evidence", "verify", "--format", "json"]) == 1
    verified = {e["name"]: "; ".join(e["problems"]) for e in json.loads(capsys.readouterr().out) if e["problems"]}
    assert verified == linted and set(linted) == {
        "20260807-broken",
        "20260807-nocmd",
        "20260807-unmerged",
        "20260807-dirty",
    }
    assert linted["20260807-nocmd"] == (
        "command: missing; must be the command line that reproduces it (a string); "
        "runs: empty; must be a list of every repetition, raw"
    )
    assert (
        "is not on the history of" in linted["20260807-unmerged"]
        and "not on HEAD's history" in linted["20260807-unmerged"]
    )


def test_a_git_failure_is_reported_once_not_per_entry(capsys, git_repo, monkeypatch):
    repo = git_repo()  # no commit yet: HEAD names nothing, so no history can be read
    repo.write({f"{EV}/20260807-a/result.json": result("1" * 40), f"{EV}/20260808-b/result.json": result("2" * 40)})
    monkeypatch.chdir(repo.path)
    code = main(["evidence", "verify"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "not on HEAD's history" not in out + err
    assert err.startswith("roadmap: error: cannot read the history of HEAD") and err.count("\n") == 1


def test_schema_verdicts_are_cached_by_content(git_repo, monkeypatch):
    from roadmap.config import Config
    from roadmap.evidence import cache as cache_mod
    from roadmap.evidence.store import load_evidence
    from roadmap.history.tree import Tree

    repo = git_repo()
    repo.commit(
        {f"{EV}/20260807-a/result.json": result("1" * 40, runs=[]), f"{EV}/20260808-b/result.json": result("2" * 40)},
        "bench",
        "2026-08-08",
    )
    checked: list[object] = []
    real = schema.validate_result

    def counting(obj: object) -> list[str]:
        checked.append(obj)
        return real(obj)

    monkeypatch.setattr(schema, "validate_result", counting)

    def problems() -> dict[str, list[str]]:
        return {e.name: e.problems for e in load_evidence(Tree(repo.path), Config(), cache_dir=repo.path)}

    first = problems()
    assert len(checked) == 2 and any("runs: empty" in p for p in first["20260807-a"])
    assert problems() == first and len(checked) == 2  # unchanged evidence: not checked again
    repo.write({f"{EV}/20260808-b/result.json": result("2" * 40, dirty="no")})
    assert any("dirty: must be true or false" in p for p in problems()["20260808-b"]) and len(checked) == 3
    cached = repo.path / ".roadmap_cache" / cache_mod.NAME
    cached.write_bytes(cached.read_bytes()[:-5])  # damaged: ignored, rebuilt, never trusted
    assert problems()["20260807-a"] == first["20260807-a"] and len(checked) == 5
    load_evidence(Tree(repo.path), Config())  # no cache_dir (--no-cache): always checks
    assert len(checked) == 7

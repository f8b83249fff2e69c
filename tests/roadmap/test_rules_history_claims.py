"""RL402 claim-stale and RL501 evidence-invalid on small dated repositories."""

from __future__ import annotations

import json

from roadmap.lint import LintOptions, lint

COORD = "agents/coordination.md"
EV = "docs/bench-evidence"


def _coord(active: str, checkpoints: str = "") -> str:
    return f"# Coordination log\n\n## Active claims\n\n{active}\n\n## Checkpoints\n\n{checkpoints or '- none'}\n"


def _findings(repo, code: str):
    return lint(repo.path, LintOptions(use_cache=False, select=(code,))).findings


# --- RL402 claim-stale ----------------------------------------------------------------------------------------


def test_closed_claim_still_listed_active(git_repo):
    repo = git_repo()
    repo.commit({COORD: _coord("- CLAIM-GGUF-Q4K (LOAD-GGUF) — loader, closed 2026-08-01.")}, "log", "2026-08-01")
    [f] = _findings(repo, "RL402")
    assert f.severity == "error" and "CLAIM-GGUF-Q4K is closed (it says so itself)" in f.message


def test_claim_closed_in_another_entry(git_repo):
    repo = git_repo()
    log = _coord(
        "- CLAIM-GGUF-Q4K (LOAD-GGUF) — loader, opened 2026-07-20.",
        "- 2026-08-01 CLAIM-GGUF-Q4K (LOAD-GGUF) — closed; Q4_K loads.",
    )
    repo.commit({COORD: log}, "log", "2026-08-01")
    [f] = _findings(repo, "RL402")
    assert (f.line, f.severity) == (5, "error") and [(r.path, r.line) for r in f.related] == [(COORD, 9)]


def test_idle_past_ttl_while_its_row_moved(git_repo):
    repo = git_repo()
    repo.commit({COORD: _coord("- CLAIM-GGUF-Q4K (LOAD-GGUF) — loader, opened 2026-07-12.")}, "log", "2026-07-12")
    repo.commit({"src/a.py": "x = 1\n"}, "feat: q4k blocks\n\nRow: LOAD-GGUF", "2026-07-20")
    repo.commit({"src/b.py": "x = 1\n"}, "chore: unrelated", "2026-08-09")
    [f] = _findings(repo, "RL402")
    assert f.severity == "warning" and "idle since 2026-07-12 (28 days, TTL 14)" in f.message
    assert "1 commit touched" in f.message and f.evidence[0]["subject"] == "feat: q4k blocks"


def test_idle_claim_nobody_touched_and_fresh_claims_are_fine(git_repo):
    repo = git_repo()
    repo.commit(
        {
            COORD: _coord(
                "- CLAIM-GGUF-Q4K (LOAD-GGUF) — loader, opened 2026-07-12.\n"
                "- CLAIM-NEW (LOAD-GGUF) — opened 2026-08-05."
            )
        },
        "log",
        "2026-07-12",
    )
    repo.commit({"src/b.py": "x = 1\n"}, "chore: unrelated", "2026-08-09")
    assert _findings(repo, "RL402") == []
    repo.commit({"src/a.py": "x = 1\n"}, "feat: q4k blocks\n\nRow: LOAD-GGUF", "2026-08-10")
    [f] = _findings(repo, "RL402")  # the fresh claim (5 days) is not idle; the old one is
    assert f.record_id == "CLAIM-GGUF-Q4K"


# --- RL501 evidence-invalid ---------------------------------------------------------------------------------------


def _result(commit: str, **changes) -> str:
    obj = {
        "schema": "evident.bench/1",
        "series": "4b",
        "row": "PERF-4B",
        "created": "2026-08-07T10:00:00Z",
        "commit": commit,
        "dirty": False,
        "command": "engine bench throughput",
        "machine": {
            "gpu": "H200",
            "gpu_count": 1,
            "driver": "1",
            "cuda": "12",
            "torch": "2",
            "triton": "3",
            "python": "3.11",
        },
        "model": {"name": "qwen3-4b", "load_format": "dummy", "dtype": "bfloat16", "config": "4b"},
        "workload": {"name": "nano", "num_requests": 256, "prompt_tokens": 1, "output_tokens": 1, "seed": 0},
        "engine": {},
        "runs": [{"output_tok_per_s": 1.0}],
        "metrics": {"output_tok_per_s": {"median": 1.0, "min": 1.0, "max": 1.0}},
    }
    obj.update(changes)
    return json.dumps({k: v for k, v in obj.items() if v is not None})


def test_valid_evidence_and_foreign_evidence_pass(git_repo):
    repo = git_repo()
    sha = repo.commit({"src/a.py": "x = 1\n"}, "code", "2026-08-06")
    repo.commit(
        {f"{EV}/20260807-4b/result.json": _result(sha), f"{EV}/20260808-foreign/summary.md": "# run\n"},
        "bench",
        "2026-08-07",
    )
    assert _findings(repo, "RL501") == []


def test_invalid_evidence(git_repo):
    repo = git_repo()
    sha = repo.commit({"src/a.py": "x = 1\n"}, "code", "2026-08-06")
    branch = repo.commit({"src/b.py": "x = 1\n"}, "wip", "2026-08-06", branch="wip")
    repo.commit(
        {
            f"{EV}/20260807-broken/result.json": '{"schema": "evident.bench/1",\n  "series": }',
            f"{EV}/20260807-nocmd/result.json": _result(sha, command=None),
            f"{EV}/20260807-unmerged/result.json": _result(branch),
            f"{EV}/20260807-dirty/result.json": _result(sha, dirty=True),
        },
        "bench",
        "2026-08-07",
    )
    got = {f.path: f for f in _findings(repo, "RL501")}
    broken = got[f"{EV}/20260807-broken/result.json"]
    assert broken.severity == "error" and "not valid JSON" in broken.message and broken.line == 2
    assert "command: missing" in got[f"{EV}/20260807-nocmd/result.json"].message
    assert "is not on the history" in got[f"{EV}/20260807-unmerged/result.json"].message
    dirty = got[f"{EV}/20260807-dirty/result.json"]
    assert dirty.severity == "warning" and "dirty tree" in dirty.message
    assert len(got) == 4

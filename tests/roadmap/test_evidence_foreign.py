"""Evidence other teams keep is evidence too: read for its date, series and numbers, never held to our schema.
RL501 checks what declares one of our schemas ("evident.bench/1", "evident.roadmap-lint/1") and JSON that does
not parse, whoever wrote it."""

from __future__ import annotations

import json

from roadmap.config import Config
from roadmap.evidence.store import load_evidence
from roadmap.history.tree import Tree
from roadmap.lint import LintOptions, lint

EV = "docs/bench-evidence"


def _lint_paths(repo) -> dict[str, str]:
    return {f.path: f.message for f in lint(repo.path, LintOptions(use_cache=False, select=("RL501",))).findings}


def test_foreign_json_is_read_for_its_numbers_not_validated(git_repo):
    repo = git_repo()
    repo.commit(
        {
            f"{EV}/20260402-silesia-l3/result.json": json.dumps(
                {"series": "other", "compress_mbps": 412.6, "row": "ZF-88", "date": "2026-04-09"}
            ),
            f"{EV}/hnsw-build-20260602.json": json.dumps({"wall_s": 412.6}),
            f"{EV}/20260603-notes/summary.md": "# notes\n\nRow: ZF-90\n",
        },
        "bench",
        "2026-06-03",
    )
    store = load_evidence(Tree(repo.path), Config())
    l3 = store.get("20260402-silesia-l3")
    assert l3 is not None and l3.declared is None and l3.problems == []
    assert (l3.date, l3.series, l3.row) == ("2026-04-02", "silesia-l3", "ZF-88")  # the name wins over the JSON
    assert l3.raw == {"series": "other", "compress_mbps": 412.6, "row": "ZF-88", "date": "2026-04-09"}
    hnsw = store.get("hnsw-build-20260602")  # a file, named without .json
    assert hnsw is not None and hnsw.kind == "file" and hnsw.raw == {"wall_s": 412.6}
    assert _lint_paths(repo) == {}


def test_what_declares_our_schema_or_does_not_parse_is_reported(git_repo):
    repo = git_repo()
    repo.commit(
        {
            f"{EV}/20260401-ours/result.json": json.dumps({"schema": "evident.bench/1", "series": "ours"}),
            f"{EV}/20260401-older/result.json": json.dumps({"schema": "evident.bench/0"}),
            f"{EV}/20260401-broken/result.json": '{"p99_ms": 41.0,',
            f"{EV}/20260401-nan/result.json": '{"p99_ms": NaN}',
            f"{EV}/20260401-huge.json": '{"p99_ms": 1e999}',
            f"{EV}/20260401-lint/result.json": json.dumps({"schema": "evident.roadmap-lint/1", "runs": []}),
        },
        "bench",
        "2026-04-02",
    )
    got = _lint_paths(repo)
    assert set(got) == {
        f"{EV}/20260401-ours/result.json",
        f"{EV}/20260401-older/result.json",
        f"{EV}/20260401-broken/result.json",
        f"{EV}/20260401-nan/result.json",
        f"{EV}/20260401-huge.json",
        f"{EV}/20260401-lint/result.json",
    }
    assert "row: missing" in got[f"{EV}/20260401-ours/result.json"]
    assert "schema: must be 'evident.bench/1', got 'evident.bench/0'" in got[f"{EV}/20260401-older/result.json"]
    assert "NaN is not a JSON number" in got[f"{EV}/20260401-nan/result.json"]
    assert "1e999 is not finite" in got[f"{EV}/20260401-huge.json"]
    lint_msg = got[f"{EV}/20260401-lint/result.json"]
    assert "corpus: missing" in lint_msg and "runs: empty; must be a list of every timed run" in lint_msg


def test_a_valid_roadmap_lint_result_passes(git_repo):
    repo = git_repo()
    sha = repo.commit({"src/a.py": "x = 1\n"}, "code", "2026-04-01")
    doc = {
        "schema": "evident.roadmap-lint/1",
        "series": "roadmap-lint-x",
        "row": "RM-PRECISION",
        "created": "2026-04-02T10:00:00+00:00",
        "commit": sha,
        "dirty": False,
        "command": "python tools/realworld.py x --evidence",
        "corpus": {"repo": "o/x", "commit": "d85906ae"},
        "machine": {"cpus": 2},
        "runs": [{"kind": "cold", "wall_s": 9.1}, {"kind": "cached", "wall_s": 1.2}],
        "metrics": {"findings": 12, "by_code": {"RL201": 2}, "cold_s": 9.1, "cached_s": 1.2, "rss_mib": 310.0},
        "precision": {"sample_size": 12, "seed": 0},
    }
    repo.commit({f"{EV}/20260402-roadmap-lint-x/result.json": json.dumps(doc)}, "evidence", "2026-04-02")
    assert _lint_paths(repo) == {}
    doc["runs"][0]["kind"] = "warm"
    repo.commit({f"{EV}/20260402-roadmap-lint-x/result.json": json.dumps(doc)}, "evidence", "2026-04-03")
    assert "runs[0].kind" in _lint_paths(repo)[f"{EV}/20260402-roadmap-lint-x/result.json"]

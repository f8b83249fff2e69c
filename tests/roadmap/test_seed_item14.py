"""The seed case (../shared/seed/item-14-issue.txt), found by `roadmap lint` on its own.

The seed repository (seed_repo.py) reproduces punch-list item 14: a directive repeated on four surfaces
whose work landed 2026-07-27, whose premise that commit refuted, whose opt-in mirror a 2026-08-05 merge
turned on by default, and whose rerun was done six times since; plus a cell quoting the superseded
0.9864x, a figure its evidence does not hold, and five negative controls that must stay quiet.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from roadmap.lint import LintOptions, lint
from seed_repo import BENCH, COORD, ROADMAP, SPEC, build_seed_repo

ITEM14 = (SPEC, 206)
SURFACES = {(SPEC, 39), (BENCH, 12), (COORD, 14)}
RERUNS = {
    "docs/bench-evidence/20260727-local-bf16-4b",
    "docs/bench-evidence/20260728-local-bf16-4b.md",
    "docs/bench-evidence/local-bf16-4b-20260729",
    "docs/bench-evidence/20260803-local-bf16-4b",
    "docs/bench-evidence/local-bf16-4b-20260805.md",
    "docs/bench-evidence/20260807-local-bf16-4b",
}
# Every error the linter may report on the seed at HEAD, and nothing else: (code, path, line).
EXPECTED = {("RL101", SPEC, 206), ("RL201", SPEC, 39), ("RL202", BENCH, 13)}
# Statements that must never be flagged (negative controls and current records), by (path, line).
QUIET = {
    (SPEC, 34): "GGUF-LOAD: its words appear only in an unrelated commit (no row named)",
    (SPEC, 131): "punch-list item 7, the same GGUF directive",
    (SPEC, 35): "PREFIX-EVICT: the evictor landed only on an unmerged branch",
    (SPEC, 143): "punch-list item 8, the same evictor directive",
    (SPEC, 36): "8B latency rerun: its series has no entry newer than the directive",
    (SPEC, 156): "punch-list item 9, the same 8B rerun",
    (SPEC, 37): "TOKENIZER: no news at all",
    (SPEC, 166): "punch-list item 10, the same tokenizer directive",
    (SPEC, 40): "DOCS: no news at all",
    (SPEC, 48): "a ratio explicitly marked 'superseded by 1.0283x'",
    (ROADMAP, 12): "canonical row 2a, with its old ratio struck through",
    (ROADMAP, 13): "row 2b's 8B directive",
    (BENCH, 11): "the 8B row, whose old 2310 ms is 'superseded by' the current one",
    (COORD, 8): "an active claim idle past its TTL, but nobody touched its row",
}


def _reasons(evidence: list[dict]) -> set[str]:
    return {code for e in evidence for code in e.get("reasons", ())}


def _run(root: Path, **opts) -> list:
    return lint(root, LintOptions(use_cache=False, **opts)).findings


@pytest.fixture(scope="module")
def seed(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("seed") / "repo"
    return root, build_seed_repo(root)


@pytest.fixture(scope="module")
def head_findings(seed) -> list:
    return _run(seed[0])


def _item14(findings: list):
    found = [f for f in findings if (f.path, f.line) == ITEM14]
    assert len(found) == 1, [f.to_json() for f in found]
    return found[0]


def test_exact_errors_at_head(head_findings):
    assert {(f.code, f.path, f.line) for f in head_findings if f.severity == "error"} == EXPECTED
    assert [f for f in head_findings if f.severity != "error"] == []


def test_item14_is_one_finding_with_all_four_reasons(seed, head_findings):
    _, shas = seed
    f = _item14(head_findings)
    assert f.code == "RL101" and f.severity == "error" and f.record_id == "ROAD-V1-C2-LOCAL-BF16"
    assert f.message.startswith("Punch-list item 14 (ROAD-V1-C2-LOCAL-BF16) directs work that landed 2026-07-27")
    assert "on a premise the same commit refuted" in f.message and "is wrong for this workload" in f.message
    assert "`VT_ASYNC_DEVICE_MIRROR` opt-in" in f.message and "turned it on by default" in f.message
    assert "rerun done 6 times since 2026-07-25" in f.message
    assert _reasons(f.evidence) == {"RL101", "RL102", "RL103", "RL104"}
    commits = {(e["sha"], e["date"]) for e in f.evidence if e["kind"] == "commit"}
    assert commits == {(shas["landing"], "2026-07-27"), (shas["flip"], "2026-08-05")}
    assert {e["path"] for e in f.evidence if e["kind"] == "evidence"} == RERUNS
    assert all(e["subject"] for e in f.evidence if e["kind"] == "commit")
    assert f.fix.startswith("Records-only fix on 4 surfaces") and "No code change" in f.fix


def test_item14_carries_every_surface(head_findings):
    f = _item14(head_findings)
    assert {(r.path, r.line) for r in f.related} == SURFACES
    stale = [x for x in head_findings if x.code in ("RL101", "RL102", "RL103", "RL104")]
    assert [(x.path, x.line) for x in stale] == [ITEM14], "the other surfaces are related locations, not findings"


def test_superseded_ratio(head_findings):
    f = next(x for x in head_findings if x.code == "RL201")
    assert (f.path, f.line) == (SPEC, 39)
    assert "0.9864x" in f.message and "1.0283x" in f.message and "row 2a" in f.message
    assert {(r.path, r.line) for r in f.related} == {(BENCH, 12)}


def test_unbacked_figure(head_findings):
    f = next(x for x in head_findings if x.code == "RL202")
    assert "6902.10 tok/s is not in it" in f.message and "20260807-local-bf16-4b" in f.message


@pytest.mark.parametrize("where", sorted(QUIET))
def test_negative_controls_stay_quiet(head_findings, where):
    assert not [f for f in head_findings if (f.path, f.line) == where], QUIET[where]


@pytest.mark.parametrize(
    "at, reasons",
    [
        ("spec", set()),  # the commit before the landing: nothing is stale yet
        ("landing", {"RL101", "RL103"}),  # landed, premise refuted; no rerun, still opt-in
        ("rerun_0803", {"RL101", "RL102", "RL103"}),  # four reruns so far
        ("merge", {"RL101", "RL102", "RL103", "RL104"}),  # the default flip arrives through a merged branch
    ],
)
def test_timeline(seed, at, reasons):
    root, shas = seed
    findings = _run(root, at=shas[at])
    item = [f for f in findings if (f.path, f.line) == ITEM14]
    assert _reasons([e for f in item for e in f.evidence]) == reasons
    if not reasons:
        assert [f for f in findings if f.code in ("RL101", "RL102", "RL103", "RL104", "RL201")] == []


def test_select_one_reason(seed):
    f = _item14(_run(seed[0], select=("RL104",)))
    assert f.code == "RL104" and _reasons(f.evidence) == {"RL104"}
    assert {(r.path, r.line) for r in f.related} == SURFACES


def test_since_shows_only_what_the_change_made(seed):
    root, shas = seed
    findings = _run(root, since=shas["partial_fix"])
    assert {(f.code, f.path, f.line) for f in findings} == {("RL202", BENCH, 13)}


def test_cli_json(seed):
    root, _ = seed
    proc = subprocess.run(
        [sys.executable, "-m", "roadmap", "lint", str(root), "--format", "json", "--no-cache"],
        capture_output=True,
        text=True,
        cwd=root,
    )
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    got = {(f["code"], f["path"], f["line"]) for f in doc["findings"]}
    assert got == EXPECTED and doc["summary"]["error"] == 3
    item = next(f for f in doc["findings"] if (f["path"], f["line"]) == ITEM14)
    assert {(r["path"], r["line"]) for r in item["related"]} == SURFACES
    assert _reasons(item["evidence"]) == {"RL101", "RL102", "RL103", "RL104"}

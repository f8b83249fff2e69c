"""Property-based fuzzing of roadmap (issue 10, item 6): no exception escapes, findings point at real lines, and
`--fix` then lint converges, changing only the fixed spans.

The regular suite runs a few hundred examples in all; ROADMAP_FUZZ_SCALE multiplies every count (the recorded
slow run, tools/fuzz_roadmap.py, uses 25: more than 10,000 examples). ROADMAP_FUZZ_REPORT=FILE writes the
number of examples each test ran to FILE as JSON.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import GitRepo
from fuzz_roadmap import IDS, check_record, edit_one_reference, evidence_json, finite_and_bounded, inline, record_bytes
from roadmap import safejson
from roadmap.config import Config
from roadmap.evidence.store import EvidenceEntry, _read_result
from roadmap.evidence.verify import verify_entry
from roadmap.fix import plan_fixes
from roadmap.fixpoint import MAX_PASSES, fix_to_fixed_point
from roadmap.fix import apply_edits
from roadmap.lint import LintOptions, lint
from roadmap.records import parse_record
from roadmap.render import FORMATS, render

SCALE = float(os.environ.get("ROADMAP_FUZZ_SCALE", "1"))
RAN: Counter[str] = Counter()
CFG = Config()
SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def examples(n: int) -> settings:
    return settings(
        max_examples=max(1, int(n * SCALE)), deadline=None, suppress_health_check=SLOW, derandomize=SCALE == 1
    )  # the regular suite is reproducible; the slow run explores


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    out = os.environ.get("ROADMAP_FUZZ_REPORT")
    if out:
        Path(out).write_text(json.dumps(dict(RAN), indent=2, sort_keys=True) + "\n")


# ---------------------------------------------------------------- records
@examples(150)
@given(record_bytes())
def test_fuzz_records_parse_and_place_every_reference(data):
    RAN["records"] += 1
    rf = parse_record("agents/r.md", data, CFG)
    check_record(data, rf)


@examples(100)
@given(record_bytes(), st.integers(0, 1000))
def test_fuzz_a_fix_changes_only_its_span_and_only_its_reference(data, pick):
    RAN["fix_spans"] += 1
    rf = parse_record("agents/r.md", data, CFG)
    done = edit_one_reference(data, rf, pick)
    if done is None:
        return
    before, edit, after = done
    again = parse_record("agents/r.md", after.encode("utf-8", "surrogateescape"), CFG)
    check_record(after.encode("utf-8", "surrogateescape"), again)

    def texts(r):
        return {ref.text for s in r.statements for ref in s.mentions.paths if ref.record_line == edit.line}

    # The edited reference now reads `new`; every other reference on the line is still there (equal ones are
    # one mention, so `old` may remain when it was written twice) and none appeared.
    old, new = texts(rf), texts(again)
    assert edit.new in new and old - {edit.old} <= new and new - {edit.new} <= old, (
        edit,
        before.split("\n")[edit.line - 1],
    )


# ---------------------------------------------------------------- JSON evidence
@examples(150)
@given(evidence_json())
def test_fuzz_evidence_json_is_a_finding_or_bounded_data(data):
    RAN["evidence_json"] += 1
    try:
        doc = safejson.loads(data)
    except safejson.JsonError as exc:
        assert exc.lineno >= 1 and exc.colno >= 1
    else:
        assert finite_and_bounded(doc)
        json.loads(safejson.dumps(doc), parse_constant=_refuse)

    class OneFile:
        files = frozenset({"ev/result.json"})

        def read_bytes(self, path: str) -> bytes:
            return data

        def skipped(self, path: str) -> None:
            return None

    entry = EvidenceEntry(
        path="ev", name="20260727-tp", kind="dir", date="2026-07-27", slug="tp", series="tp", files=("ev/result.json",)
    )
    _read_result(OneFile(), "ev/result.json", entry, None)  # type: ignore[arg-type]
    for problem in verify_entry(entry, lambda: _NoHistory(), "HEAD"):
        assert problem.line >= 1 and problem.message


class _NoHistory:
    head = "0" * 40

    def contains(self, sha: str) -> bool:
        return False


def _refuse(name: str) -> float:
    raise AssertionError(f"{name} is not JSON")


# ---------------------------------------------------------------- git histories, lint and --fix
SYMBOLS = ("foo", "baz", "f1")
N_LINES = 24


def source(positions: dict[str, int]) -> str:
    lines = [f"# line {n}" for n in range(1, N_LINES + 1)]
    for sym, n in positions.items():
        lines[n - 1] = f"def {sym}():"
    return "\n".join(lines) + "\n"


@st.composite
def histories(draw):
    """Commits of (symbol -> line in src/a.py, commit date); the record cites the first commit's lines."""

    def positions():
        return st.lists(st.integers(1, N_LINES), min_size=3, max_size=3, unique=True).map(
            lambda ns: dict(zip(SYMBOLS, ns))
        )

    dates = st.sampled_from(["2026-06-01", "2026-07-01", "2026-07-05", "2026-07-10", "2026-07-20"])
    commits = draw(st.lists(st.tuples(positions(), dates), min_size=1, max_size=3))
    first = commits[0][0]
    cites = draw(
        st.lists(
            st.tuples(
                st.sampled_from(SYMBOLS),
                st.sampled_from(["colon", "range", "hash", "twice"]),
                st.sampled_from(["item", "cell", "para"]),
                inline,
            ),
            min_size=1,
            max_size=5,
        )
    )
    lines = ["# Plan", ""]
    rows = []
    for sym, form, where, noise in cites:
        n = first[sym]
        ref = {
            "colon": f"`{sym}` (src/a.py:{n})",
            "range": f"`{sym}` (src/a.py:{n}-{n + 2})",
            "hash": f"`{sym}` (src/a.py#L{n})",
            "twice": f"`{sym}` (src/a.py:{n}) and `{sym}` (src/a.py:{n})",
        }[form]
        noise = noise.replace("\n", " ").replace("|", "/")
        if where == "cell":
            rows.append(f"| {IDS[len(rows) % len(IDS)]} | OPEN | {ref} {noise} |")
        else:
            lines.append(("- " if where == "item" else "") + f"{ref} {noise}")
            lines.append("")
    if rows:
        lines += ["| ID | State | Where |", "|---|---|---|", *rows, ""]
    return commits, "\n".join(lines)


def _text(repo: GitRepo) -> str:
    """The record as roadmap reads it: no universal-newline translation (a lone "\r" is no line break)."""
    return (repo.path / "agents" / "r.md").read_bytes().decode("utf-8", "surrogateescape")


@examples(8)
@given(histories(), st.booleans())
def test_fuzz_histories_lint_and_fix_to_a_fixed_point(history, use_cache):
    RAN["histories"] += 1
    commits, record = history
    with tempfile.TemporaryDirectory() as tmp:
        repo = GitRepo(Path(tmp) / "repo")
        for k, (positions, day) in enumerate(commits):
            files = {"src/a.py": source(positions)}
            if k == 0:
                files["agents/r.md"] = record
            repo.commit(files, f"commit {k}", day)
        options = LintOptions(use_cache=use_cache)
        result = lint(repo.path, options)
        lines = _text(repo).split("\n")
        for f in result.findings:
            assert f.path == "agents/r.md" and 1 <= f.line <= f.end_line <= len(lines), f
        for fmt in FORMATS:
            assert isinstance(render(result, fmt), str)
        json.loads(render(result, "json"), parse_constant=_refuse)

        before = _text(repo)
        outcome = fix_to_fixed_point(repo.path, options, result, CFG.max_file_bytes)
        assert outcome.not_converged == [] and outcome.passes < MAX_PASSES
        assert plan_fixes(repo.path, outcome.result.findings).files == []  # nothing left that applies
        replay = before
        for written in outcome.written:  # only the written spans changed
            replay, applied, skipped = apply_edits(replay, written.get("agents/r.md", []))
            assert not skipped
        assert _text(repo) == replay
        assert not [f for f in outcome.result.findings if f.code == "RL303" and f.edits]

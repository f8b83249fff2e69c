"""A line that restates the figures of one row of its record's results table (nothing else naming their series)
is about that row's series, with the metrics of the cells it repeats; a row led by its date is one run, true as
of that day. Found by a blind scenario of 2026-12-05 (a research group's BENCHMARKS.md: "Current best" restating
the newest row). Controls: the dated row itself, a line whose figures match no row, and one matching one figure
of a row without naming it."""

from __future__ import annotations

import json

from linted import codes_on

REC = "PERF.md"
TABLE = (
    "# Decoder perf\n\nOne row per run of `bench/decode.py`.\n\n"
    "| Date | Build | Throughput (tok/s) | p50 latency (ms) | Evidence |\n|---|---|---|---|---|\n"
    "| 2026-05-04 | spec-decode | 5210 | 41.5 | bench/out/2026-05-04-spec-decode.json |\n\n"
)


def _codes(repo, needle: str) -> set[str]:
    return codes_on(repo, REC, needle)


def _repo(git_repo, lines: str):
    repo = git_repo()
    old = {"date": "2026-05-04", "tok_per_s": 5210, "p50_latency_ms": 41.5}
    repo.commit(
        {
            REC: TABLE + "## Summary\n\n" + lines,
            "roadmap.yaml": 'records: ["PERF.md"]\n',
            "bench/out/2026-05-04-spec-decode.json": json.dumps(old),
        },
        "perf: spec-decode numbers",
        "2026-05-04",
    )
    new = {"date": "2026-05-19", "tok_per_s": 5877, "p50_latency_ms": 36.2}
    repo.commit({"bench/out/2026-05-19-spec-decode.json": json.dumps(new)}, "bench: spec-decode rerun", "2026-05-19")
    return repo


def test_a_line_restating_a_rows_figures_is_superseded_with_it(git_repo):
    repo = _repo(git_repo, "- Headline: 5210 tok/s at 41.5 ms p50 (speculative decoding on).\n")
    assert "RL201" in _codes(repo, "Headline: 5210 tok/s")


def test_the_dated_row_itself_is_a_run_not_a_current_claim(git_repo):
    repo = _repo(git_repo, "- Headline: 5210 tok/s at 41.5 ms p50 (speculative decoding on).\n")
    assert "RL201" not in _codes(repo, "| 2026-05-04 | spec-decode | 5210 |")


def test_figures_that_match_no_row_are_not_tied_to_one(git_repo):
    repo = _repo(git_repo, "- Headline: 4980 tok/s at 44.0 ms p50 on the old build.\n")
    assert "RL201" not in _codes(repo, "Headline: 4980 tok/s")


def test_one_matching_figure_without_the_rows_name_is_not_tied(git_repo):
    repo = _repo(git_repo, "- The CPU fallback also reached 5210 tok/s in a toy run.\n")
    assert "RL201" not in _codes(repo, "CPU fallback also reached")


def test_a_size_written_in_full_is_its_short_form():
    from roadmap.analysis.work import terms_of

    assert "32k" in terms_of("rerun at seq 32768") and "8k" in terms_of("context 8192 tokens")
    assert not any(t.endswith("k") and t[:-1].isdigit() for t in terms_of("issue 1234 in 2026"))


def _rerun_repo(git_repo, subject: str, evidence: bool, name: str = "repo"):
    repo = git_repo(name)
    text = TABLE + "## Open\n\n- Rerun spec-decode at batch 4096 once the allocator leak is fixed.\n"
    old = {"date": "2026-05-04", "tok_per_s": 5210, "p50_latency_ms": 41.5}
    repo.commit(
        {REC: text, "roadmap.yaml": 'records: ["PERF.md"]\n', "bench/out/2026-05-04-spec-decode.json": json.dumps(old)},
        "perf",
        "2026-05-04",
    )
    files = {"bench/out/2026-05-21-sd-b4k.json": json.dumps({"tok_per_s": 9100})} if evidence else {"src/a.py": "x=1\n"}
    repo.commit(files, subject, "2026-05-21")
    return repo


def test_a_commit_that_writes_evidence_for_the_directives_work_answers_its_rerun(git_repo):
    repo = _rerun_repo(git_repo, "bench: spec-decode at batch 4k on the new allocator", evidence=True)
    assert "RL102" in _codes(repo, "Rerun spec-decode at batch 4096")


def test_the_same_words_without_evidence_written_answer_nothing(git_repo):
    repo = _rerun_repo(git_repo, "bench: spec-decode at batch 4k on the new allocator", evidence=False)
    assert "RL102" not in _codes(repo, "Rerun spec-decode at batch 4096")

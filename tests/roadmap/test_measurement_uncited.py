"""RL202 on a measurement that cites nothing, in a record whose other measurements cite their runs.

A load-test log keeps "one row per run, Raw = the k6 summary it came from". A bullet that says the cold-cache
run "measured 412 ms p99" and cites no run is flagged when no results file and no commit message holds 412.
Negative controls: the same bullet when a results file (cited or not) or a commit message holds the figure;
a figure that is a target, or measured later ("to be measured"); the same bullet in notes that cite no runs.
"""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

RESULTS = {
    "loadtest/results/2026-05-04-checkout-warm.json": '{"metrics": {"p99_ms": 188.4, "rps": 951.0}}\n',
    "loadtest/results/2026-05-11-checkout-warm.json": '{"metrics": {"p99_ms": 171.9, "rps": 1012.0}}\n',
}
TABLE = """# Checkout load tests

One row per k6 run; **Raw** is the summary file the run wrote.

| Day | Scenario | p99 (ms) | req/s | Raw |
|-----|----------|----------|-------|-----|
| 2026-05-04 | warm cache | 188.4 | 951 | loadtest/results/2026-05-04-checkout-warm.json |
| 2026-05-11 | warm cache | 171.9 | 1012 | loadtest/results/2026-05-11-checkout-warm.json |

## Notes

{bullet}
- Error budget for the quarter: p99 under 250 ms at 1,000 req/s.
"""
COLD = "- The cold-cache variant measured 412 ms p99 on the same pod size."


def _lint(git_repo, files: dict[str, str], message: str = "loadtest: warm-cache runs"):
    repo = git_repo()
    repo.commit({"roadmap.yaml": 'records: ["LOADTEST.md"]\n', **files}, message, "2026-05-12T10:00:00+02:00")
    return [f for f in lint(repo.path, LintOptions(use_cache=False, select=("RL202",))).findings]


def test_an_uncited_measurement_nothing_holds_is_flagged(git_repo) -> None:
    found = _lint(git_repo, {**RESULTS, "LOADTEST.md": TABLE.replace("{bullet}", COLD)})
    assert [(f.line, f.severity) for f in found] == [(12, "warning")]
    assert "412 ms" in found[0].message and "cites no evidence" in found[0].message


def test_a_results_file_that_holds_it_backs_it(git_repo) -> None:
    cold = {"loadtest/results/2026-05-12-checkout-cold.json": '{"metrics": {"p99_ms": 412.3, "rps": 640.0}}\n'}
    assert _lint(git_repo, {**RESULTS, **cold, "LOADTEST.md": TABLE.replace("{bullet}", COLD)}) == []


def test_a_commit_message_that_quotes_it_backs_it(git_repo) -> None:
    files = {**RESULTS, "LOADTEST.md": TABLE.replace("{bullet}", COLD)}
    assert _lint(git_repo, files, "loadtest: warm runs; one cold run by hand, 412 ms p99") == []


def test_targets_and_measurements_to_come_are_not_measurements(git_repo) -> None:
    lines = "\n".join(
        [
            "- The cold-cache variant is still to be measured; we expect about 412 ms p99.",
            "- Cold cache has not been measured at 412 ms yet.",
            "- The cold-cache p99 must stay under 412 ms.",
        ]
    )
    assert _lint(git_repo, {**RESULTS, "LOADTEST.md": TABLE.replace("{bullet}", lines)}) == []


def test_notes_that_cite_no_runs_promise_nothing(git_repo) -> None:
    notes = TABLE.replace("{bullet}", COLD)
    notes = notes.replace("loadtest/results/2026-05-04-checkout-warm.json", "see Grafana")
    notes = notes.replace("loadtest/results/2026-05-11-checkout-warm.json", "see Grafana")
    assert _lint(git_repo, {"LOADTEST.md": notes}) == []

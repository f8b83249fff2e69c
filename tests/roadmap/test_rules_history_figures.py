"""RL201 figure-superseded and RL202 figure-unbacked on small dated repositories."""

from __future__ import annotations

import json

from roadmap.lint import LintOptions, lint

ROADMAP = "agents/roadmap.md"
RECORD = "agents/benchmark-record.md"
EV = "docs/bench-evidence"


def _roadmap(result: str) -> str:
    return f"# Roadmap\n\n| # | ID | State | Result |\n|---|---|---|---|\n| 2a | PERF-4B | GATING | {result} |\n"


def _record(cell: str) -> str:
    return f"# Benchmark record\n\n| Key | Row | Latest result |\n|---|---|---|\n| 4B | PERF-4B | {cell} |\n"


def _findings(repo, code: str):
    return lint(repo.path, LintOptions(use_cache=False, select=(code,))).findings


# --- RL201 figure-superseded ---------------------------------------------------------------------------------


def test_newer_canonical_figure_supersedes(git_repo):
    repo = git_repo()
    repo.commit({ROADMAP: _roadmap("0.9864x FAIL"), RECORD: _record("0.9864x of peer (2026-07-25)")}, "r", "2026-07-25")
    repo.commit({ROADMAP: _roadmap("6831.71 vs 6643.40 tok/s, 1.0283x PASS")}, "row 2a", "2026-08-07")
    [f] = _findings(repo, "RL201")
    assert (f.path, f.line, f.severity) == (RECORD, 5, "error")
    assert "quotes 0.9864x as current (as of 2026-07-25); row 2a" in f.message and "1.0283x" in f.message
    assert f.evidence[0]["kind"] == "statement" and f.evidence[0]["path"] == ROADMAP


def test_marked_old_equal_or_older_figures_are_not_superseded(git_repo):
    repo = git_repo()
    repo.commit({ROADMAP: _roadmap("1.0283x PASS")}, "row", "2026-08-07")
    repo.commit({RECORD: _record("1.0283x (previously 0.9864x)")}, "rec", "2026-08-08")
    assert _findings(repo, "RL201") == []  # equal, marked old, and newer than the row anyway
    repo.commit({ROADMAP: _roadmap("1.0300x PASS, ~~1.0283x~~")}, "row", "2026-08-09")
    [f] = _findings(repo, "RL201")  # now the row moved on; only the current quote counts
    assert "quotes 1.0283x as current" in f.message and "0.9864x" not in f.message
    assert "records 1.0300x" in f.message  # the struck-through 1.0283x is not a current figure


def test_different_metrics_are_not_compared(git_repo):
    repo = git_repo()
    repo.commit({RECORD: _record("TTFT p50 612 ms")}, "rec", "2026-07-25")
    repo.commit({ROADMAP: _roadmap("TPOT p50 21 ms")}, "row", "2026-08-07")
    assert _findings(repo, "RL201") == []


def _two_series_record(arm_cell: str) -> str:
    return (
        "# Benchmark record\n\n| Target | Row | Latest result |\n|---|---|---|\n"
        f"| bench-x86, nightly | PERF-4B | decode 44.0 ms |\n| bench-arm64, as above | PERF-4B | {arm_cell} |\n"
    )


def test_a_canonical_sentence_about_two_series_updates_each_row_with_its_own_figure(git_repo):
    """The canonical cell gives one figure per named target: each record row is compared with its own target's."""
    repo = git_repo()
    repo.commit({RECORD: _two_series_record("decode 39.0 ms")}, "rec", "2026-07-25")
    repo.commit({ROADMAP: _roadmap("decode 41.2 ms on bench-x86 and 37.9 ms on bench-arm64")}, "row", "2026-08-07")
    found = {f.line: f.message for f in _findings(repo, "RL201")}
    assert set(found) == {5, 6}, found
    assert "44.0 ms" in found[5] and "41.2 ms" in found[5] and "37.9" not in found[5]
    assert "39.0 ms" in found[6] and "37.9 ms" in found[6] and "41.2" not in found[6]


def test_a_figure_of_another_series_does_not_supersede(git_repo):
    repo = git_repo()
    repo.commit({RECORD: _two_series_record("decode 39.0 ms")}, "rec", "2026-07-25")
    repo.commit({ROADMAP: _roadmap("decode 44.0 ms on bench-x86; bench-arm64 not rerun")}, "row", "2026-08-07")
    assert _findings(repo, "RL201") == []  # x86's figure is its own row's, and it still holds


def test_shares_of_different_things_are_not_compared(git_repo):
    repo = git_repo()
    repo.commit({RECORD: _record("77.4% of the bound")}, "rec", "2026-07-25")
    repo.commit({ROADMAP: _roadmap("the host is 97% busy")}, "row", "2026-08-07")
    assert _findings(repo, "RL201") == []
    repo.commit({ROADMAP: _roadmap("80.0% of the bound")}, "row", "2026-08-09")
    [f] = _findings(repo, "RL201")
    assert "77.4%" in f.message and "80.0%" in f.message


def test_newer_evidence_supersedes(git_repo):
    repo = git_repo()
    repo.commit({RECORD: _record("0.9864x of peer")}, "rec", "2026-07-25")
    result = {
        "schema": "evident.bench/1",
        "series": "4b",
        "row": "PERF-4B",
        "metrics": {"output_tok_per_s": {"median": 6831.71, "min": 6800.0, "max": 6850.0}},
        "peers": [{"name": "peer", "metrics": {"output_tok_per_s": {"median": 6643.4}}, "ratio": 1.0283}],
    }
    repo.commit({f"{EV}/20260807-4b/result.json": json.dumps(result)}, "bench", "2026-08-07")
    [f] = _findings(repo, "RL201")
    assert "newer evidence 20260807-4b (2026-08-07) records 1.0283x" in f.message


# --- RL202 figure-unbacked -----------------------------------------------------------------------------------

SUMMARY = "# 4b\n\nRow: PERF-4B\n\n| engine | tok/s |\n|---|---|\n| ours | 6831.71 |\n| peer | 6643.40 |\n"


def test_figure_the_cited_evidence_lacks(git_repo):
    repo = git_repo()
    repo.commit({f"{EV}/20260807-4b/summary.md": SUMMARY}, "bench", "2026-08-07")
    repo.commit({RECORD: _record(f"6902.10 tok/s ({EV}/20260807-4b)")}, "rec", "2026-08-08")
    [f] = _findings(repo, "RL202")
    assert "6902.10 tok/s is not in it (nearest: 6831.71" in f.message and f.severity == "error"


def test_backed_figures_and_derived_ratios_pass(git_repo):
    repo = git_repo()
    repo.commit({f"{EV}/20260807-4b/summary.md": SUMMARY}, "bench", "2026-08-07")
    cell = f"6831.71 vs 6643.40 tok/s, 1.0283x ({EV}/20260807-4b)"  # 6831.71 / 6643.40 = 1.02835
    repo.commit({RECORD: _record(cell)}, "rec", "2026-08-08")
    assert _findings(repo, "RL202") == []


def test_result_json_numbers_back_only_figures_of_their_own_kind(git_repo):
    """A figure is backed by a field of its unit (tok/s by *_tok_per_s, x by ratios or a quotient of headline
    throughputs), never by an unrelated number that happens to round to it (a TTFT, a CDF point)."""
    repo = git_repo()
    result = {
        "schema": "evident.bench/1",
        "series": "tp-4b",
        "row": "PERF-4B",
        "created": "2026-08-07T00:00:00Z",
        "metrics": {"output_tok_per_s": {"median": 2705.14}, "ttft_ms": {"p50": 4.583, "p90": 2715.1}},
        "peers": [{"name": "peer", "metrics": {"output_tok_per_s": {"median": 604.02}}, "ratio": 4.479}],
    }
    repo.commit({f"{EV}/20260807-tp-4b/result.json": json.dumps(result)}, "bench", "2026-08-07")
    good = f"2705.1 tok/s; peer 604.0 tok/s; 4.48x ({EV}/20260807-tp-4b)"
    repo.commit({RECORD: _record(good)}, "rec", "2026-08-08")
    assert _findings(repo, "RL202") == []
    bad = f"2715.1 tok/s; peer 604.0 tok/s; 4.58x ({EV}/20260807-tp-4b)"  # each equals a TTFT field
    repo.commit({RECORD: _record(bad)}, "rec", "2026-08-09")
    [f] = _findings(repo, "RL202")
    assert "2715.1 tok/s is not in it" in f.message and "4.58x is not in it" in f.message


def test_row_evidence_column_backs_the_result_cell(git_repo):
    repo = git_repo()
    table = (
        "# Roadmap\n\n| ID | State | Result | Evidence |\n|---|---|---|---|\n"
        f"| PERF-4B | GATING | 6831.71 tok/s, 1.1000x | {EV}/20260807-4b |\n"
    )
    repo.commit({f"{EV}/20260807-4b/summary.md": SUMMARY, ROADMAP: table}, "rec", "2026-08-08")
    [f] = _findings(repo, "RL202")
    assert "1.1000x is not in it" in f.message and "6831.71" not in f.message.split("but")[1]


def test_verdict_contradicting_the_stated_bar(git_repo):
    repo = git_repo()
    repo.commit({f"{EV}/20260807-4b/summary.md": SUMMARY}, "bench", "2026-08-07")
    repo.commit({RECORD: _record(f"1.0283x PASS against parity ({EV}/20260807-4b)")}, "ok", "2026-08-08")
    assert _findings(repo, "RL202") == []
    repo.commit({RECORD: _record(f"1.0283x FAIL against parity ({EV}/20260807-4b)")}, "bad", "2026-08-09")
    [f] = _findings(repo, "RL202")
    assert "says FAIL but 1.0283x is at or above the 1x bar" in f.message


def test_sentence_scope_in_prose(git_repo):
    repo = git_repo()
    log = (
        "# Coordination log\n\n## Checkpoints\n\n- 2026-08-08 CLAIM-PERF-4B (PERF-4B): ours 6831.71 tok/s "
        f"({EV}/20260807-4b). An nsys capture shows 497 waits of 42.20 ms.\n"
    )
    repo.commit({f"{EV}/20260807-4b/summary.md": SUMMARY, "agents/coordination.md": log}, "log", "2026-08-08")
    assert _findings(repo, "RL202") == []  # the profile figures are not attributed to the entry


def _ours(series: str, median: float, kind: str = "ours") -> str:
    return json.dumps(
        {
            "schema": "evident.bench/1",
            "series": series,
            "row": "PERF-4B",
            "created": "2026-08-07T00:00:00Z",
            "machine": {"gpu": "H200"},
            "model": {"name": "4b"},
            "workload": {"name": "nano"},
            "subject": {"kind": kind},
            "metrics": {"output_tok_per_s": {"median": median}},
        }
    )


def test_a_newer_peer_run_never_supersedes_our_figure(git_repo):
    """A row cites our run and the peer's; a newer run of the peer changes the peer's figure, not ours."""
    repo = git_repo()
    repo.commit(
        {
            f"{EV}/20260807-tp-4b/result.json": _ours("tp-4b", 6831.71),
            f"{EV}/20260807-peer-4b/result.json": _ours("peer-4b", 604.02, kind="peer"),
            RECORD: _record(
                f"output 6831.71 tok/s; the peer made 604.02 tok/s ({EV}/20260807-tp-4b, {EV}/20260807-peer-4b)"
            ),
        },
        "bench",
        "2026-08-07",
    )
    repo.commit({f"{EV}/20260809-peer-4b/result.json": _ours("peer-4b", 655.10, kind="peer")}, "peer", "2026-08-09")
    [f] = _findings(repo, "RL201")
    assert "quotes 604.02 tok/s as current" in f.message and "655.1" in f.message and "6831.71" not in f.message

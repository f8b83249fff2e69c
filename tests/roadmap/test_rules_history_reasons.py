"""RL102 rerun-done, RL103 premise-refuted, RL104 default-changed on small dated repositories."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

PLAN = "agents/punch-list.md"
EV = "docs/bench-evidence"


def _plan(directive: str) -> str:
    return f"# Punch-list\n\nAs of 2026-07-25.\n\n## Punch-list\n\n1. PERF-4B: {directive}\n"


def _findings(repo, code: str):
    return lint(repo.path, LintOptions(use_cache=False, select=(code,))).findings


def _summary(row: str, series: str) -> str:
    return f"# {series}\n\nRow: {row}\n\nOutput 6100.50 tok/s.\n"


# --- RL102 rerun-done ---------------------------------------------------------------------------------------

RERUN = "Rerun the 4B throughput series with the mirror on."


def test_rerun_done_lists_every_newer_entry(git_repo):
    repo = git_repo()
    repo.commit(
        {PLAN: _plan(RERUN), f"{EV}/20260720-qwen3-4b-throughput/summary.md": _summary("PERF-4B", "x")},
        "plan",
        "2026-07-25",
    )
    repo.commit({f"{EV}/20260727-qwen3-4b-throughput/summary.md": _summary("PERF-4B", "x")}, "bench", "2026-07-27")
    repo.commit({f"{EV}/qwen3-4b-throughput-20260801.md": _summary("PERF-4B", "x")}, "bench", "2026-08-01")
    [f] = _findings(repo, "RL102")
    assert f.severity == "error" and "rerun done 2 times since 2026-07-25" in f.message
    assert [e["path"] for e in f.evidence] == [
        f"{EV}/20260727-qwen3-4b-throughput",
        f"{EV}/qwen3-4b-throughput-20260801.md",
    ]


def test_rerun_of_another_series_or_row_is_not_done(git_repo):
    repo = git_repo()
    repo.commit({PLAN: _plan(RERUN)}, "plan", "2026-07-25")
    repo.commit(
        {
            f"{EV}/20260727-qwen3-8b-throughput/summary.md": "# 8B\n\nOutput 3000.10 tok/s.\n",
            f"{EV}/20260728-qwen3-4b-throughput/summary.md": _summary("OTHER-ROW", "x"),
        },
        "bench",
        "2026-07-28",
    )
    assert _findings(repo, "RL102") == []


def test_rerun_matched_by_series_words_without_a_row(git_repo):
    repo = git_repo()
    repo.commit({PLAN: _plan(RERUN)}, "plan", "2026-07-25")
    repo.commit(
        {f"{EV}/20260727-4b-throughput-mirror/summary.md": "# run\n\nOutput 6100.50 tok/s.\n"}, "bench", "2026-07-27"
    )
    [f] = _findings(repo, "RL102")
    assert f.severity == "warning" and "20260727-4b-throughput-mirror" in f.message


# --- RL103 premise-refuted ----------------------------------------------------------------------------------

WAIT = "Remove the 42.20 ms main-stream wait the profile measured in the sampler."


def test_refutation_naming_the_checkpoint_and_row(git_repo):
    repo = git_repo()
    repo.commit({PLAN: _plan(WAIT)}, "plan", "2026-07-25")
    repo.commit(
        {"src/a.py": "x = 1\n"},
        "fix(engine): sampler sync\n\nThe 2026-07-25 attribution of the "
        "main-stream wait to the sampler is wrong for this workload.\n\nRefs: PERF-4B",
        "2026-07-27",
    )
    [f] = _findings(repo, "RL103")
    assert f.severity == "error" and "is wrong for this workload" in f.message
    assert f.evidence[0]["roles"] == ["refuted"]


def test_refutation_naming_a_quoted_figure_is_a_warning(git_repo):
    repo = git_repo()
    repo.commit({PLAN: _plan(WAIT)}, "plan", "2026-07-25")
    repo.commit(
        {"src/a.py": "x = 1\n"},
        "perf: profile again\n\nThe 42.20 ms main-stream wait in the sampler was misattributed: it is the host copy.",
        "2026-07-27",
    )
    [f] = _findings(repo, "RL103")
    assert f.severity == "warning"


def test_a_date_alone_or_an_unrelated_refutation_is_not_enough(git_repo):
    repo = git_repo()
    repo.commit({PLAN: _plan(WAIT)}, "plan", "2026-07-25")
    repo.commit(
        {"src/a.py": "x = 1\n"}, "docs: tokenizer\n\nThe 2026-07-25 note about stop ids is wrong.", "2026-07-27"
    )
    repo.commit({"src/b.py": "x = 1\n"}, "fix: loader\n\nThe sampler wait is not wrong.\n\nRow: OTHER", "2026-07-28")
    assert _findings(repo, "RL103") == []


# --- RL104 default-changed ----------------------------------------------------------------------------------

OPT_IN = "Keep the device mirror opt-in (`VT_DEVICE_MIRROR`, off by default) until the 8B series is in."


def test_flag_flipped_on_by_default(git_repo):
    repo = git_repo()
    repo.commit({PLAN: _plan(OPT_IN)}, "plan", "2026-07-25")
    sha = repo.commit(
        {"src/a.py": "x = 1\n"},
        "perf: mirror default ON\n\nVT_DEVICE_MIRROR now defaults to 1; VT_DEVICE_MIRROR=0 is the rollback.",
        "2026-08-05",
    )
    [f] = _findings(repo, "RL104")
    assert f.severity == "error" and "`VT_DEVICE_MIRROR` opt-in" in f.message and sha[:9] in f.message
    assert "rollback switch" in f.fix


def test_flip_reverted_or_negated_is_not_a_change(git_repo):
    repo = git_repo()
    repo.commit({PLAN: _plan(OPT_IN)}, "plan", "2026-07-25")
    repo.commit({"src/a.py": "x = 1\n"}, "perf: VT_DEVICE_MIRROR defaults to 1", "2026-08-05")
    repo.commit({"src/a.py": "x = 2\n"}, "revert: VT_DEVICE_MIRROR is off by default again", "2026-08-06")
    assert _findings(repo, "RL104") == []
    other = git_repo("other")
    other.commit({PLAN: _plan(OPT_IN)}, "plan", "2026-07-25")
    other.commit({"src/a.py": "x = 1\n"}, "docs: VT_DEVICE_MIRROR is not enabled by default", "2026-08-05")
    assert _findings(other, "RL104") == []


def test_one_finding_carries_every_reason(git_repo):
    repo = git_repo()
    directive = (
        "Port the sampled-token map as an opt-in mirror (`VT_DEVICE_MIRROR`, off by default), remove "
        "the 42.20 ms main-stream wait, then rerun the 4B throughput series."
    )
    repo.commit({PLAN: _plan(directive)}, "plan", "2026-07-25")
    repo.commit(
        {"src/a.py": "VT_DEVICE_MIRROR = 0\n"},
        "feat: sampled-token map mirror (opt-in)\n\nThe "
        "2026-07-25 main-stream wait attribution is wrong.\n\nRow: PERF-4B",
        "2026-07-27",
    )
    repo.commit({"src/a.py": "VT_DEVICE_MIRROR = 1\n"}, "perf: VT_DEVICE_MIRROR defaults to 1", "2026-08-01")
    repo.commit({f"{EV}/20260802-4b-throughput/summary.md": _summary("PERF-4B", "x")}, "bench", "2026-08-02")
    findings = lint(repo.path, LintOptions(use_cache=False)).findings
    [f] = [x for x in findings if x.code.startswith("RL10")]
    assert f.code == "RL101"
    assert {c for e in f.evidence for c in e["reasons"]} == {"RL101", "RL102", "RL103", "RL104"}

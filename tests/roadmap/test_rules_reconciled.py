"""A record that reconciled a landing itself: its status header says LANDED, or a later dated / result / "what
landed" section names the commit or the flip. Its earlier plan text is then history, for RL101 and RL104 alike.
Each case beside its control: the same record without the reconciling text still gets the finding."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

SPEC = ".agents/specs/sensor-fusion.md"
PLAN = """- Fuse the IMU and GPS streams with `KalmanFuser` at 200 Hz.
- Add `DriftMonitor` alarms to the telemetry pipeline.
"""


def _findings(repo, code: str):
    return [
        f
        for f in lint(repo.path, LintOptions(use_cache=False, select=(code,))).findings
        if f.severity in ("error", "warning")
    ]


def _fusion(git_repo, header: str, tail: str = "", name: str = "repo") -> object:
    """A firmware team's spec, written before the work; the commit after it builds `KalmanFuser`; then the spec
    is updated (header and/or a later section) in a records-only commit."""
    repo = git_repo(name)
    body = f"# Sensor fusion on the flight controller\n\n{{header}}\n\n## Plan\n\n{PLAN}{{tail}}"
    repo.commit({SPEC: body.format(header="Status: PLANNED", tail=""), "fc/f.c": "int x;\n"}, "spec", "2026-06-01")
    sha = repo.commit(
        {"fc/fuse.c": "struct KalmanFuser { int hz; };\n"},
        "fc: fuse IMU and GPS streams with a Kalman filter at 200 Hz",
        "2026-06-05",
    )
    repo.commit({SPEC: body.format(header=header, tail=tail.replace("SHA", sha[:9]))}, "spec: status", "2026-06-06")
    return repo


def test_a_status_header_that_says_the_work_landed_reconciles_the_plan(git_repo):
    repo = _fusion(
        git_repo, "Status: ACTIVE — fuser LANDED 2026-06-05: IMU and GPS streams fuse with a Kalman filter at 200 Hz."
    )
    assert _findings(repo, "RL101") == []


def test_a_status_header_still_planned_leaves_the_directive_stale(git_repo):
    repo = _fusion(git_repo, "Status: ACTIVE — fuser next: IMU and GPS streams fuse with a Kalman filter at 200 Hz.")
    assert [f.line for f in _findings(repo, "RL101")] == [7]


def test_a_later_what_landed_section_naming_the_commit_reconciles_it(git_repo):
    tail = "\n## What actually landed\n\nThe fuser went in as SHA; drift alarms are still to do.\n"
    repo = _fusion(git_repo, "Status: ACTIVE", tail)
    assert _findings(repo, "RL101") == []


def test_a_later_section_about_other_work_does_not(git_repo):
    tail = "\n## Notes\n\nThe fuser went in as SHA; drift alarms are still to do.\n"  # not a result section
    repo = _fusion(git_repo, "Status: ACTIVE", tail)
    assert [f.line for f in _findings(repo, "RL101")] == [7]
    tail = "\n## Results\n\nBench flights on 2026-06-06: altitude hold within 0.4 m, no brown-outs.\n"
    repo = _fusion(git_repo, "Status: ACTIVE", tail, "other")  # a result section that records other things
    assert [f.line for f in _findings(repo, "RL101")] == [7]


RUNBOOK = ".agent/mlops/feature-cache.md"
SETTINGS = "svc/settings.py"
OFF = "from dataclasses import dataclass\n\n@dataclass\nclass Settings:\n    cache_warmup: bool = False\n"


def _warmup(git_repo, later: str):
    """An ML-ops team's rollout notes call `cache_warmup` opt-in; a commit turns it on; the notes gain `later`."""
    repo = git_repo()
    notes = "# Feature cache rollout\n\n## Rollout plan\n\nThe `cache_warmup` setting is opt-in for now.\n"
    repo.commit({SETTINGS: OFF, RUNBOOK: notes}, "rollout notes", "2026-03-02")
    repo.commit({SETTINGS: OFF.replace("= False", "= True")}, "svc: warm the cache for everyone", "2026-03-09")
    repo.commit({RUNBOOK: notes + later}, "notes: after the rollout", "2026-03-10")
    return repo


def test_a_later_dated_section_that_records_the_flip_reconciles_rl104(git_repo):
    repo = _warmup(git_repo, "\n## 2026-03-09 — warm-up DEFAULT FLIPPED ON\n\n`cache_warmup` is true for all pods.\n")
    assert _findings(repo, "RL104") == []


def test_a_later_dated_section_about_something_else_does_not(git_repo):
    repo = _warmup(git_repo, "\n## 2026-03-09 — pods resized\n\n`cache_warmup` memory fits the new pods.\n")
    assert [f.line for f in _findings(repo, "RL104")] == [5]


def test_an_addendum_dated_inside_its_title_that_names_the_commit_reconciles_it(git_repo):
    tail = "\n## Addendum 2026-06-05 (bench flights)\n\nThe fuser went in as SHA; drift alarms are still to do.\n"
    repo = _fusion(git_repo, "Status: ACTIVE", tail)
    assert _findings(repo, "RL101") == []


def test_a_section_dated_inside_its_title_about_other_work_does_not(git_repo):
    tail = (
        "\n## Field trip 2026-06-05 (Dunstable)\n\nWind 9 m/s; the airframe survived two hard landings.\n"  # no commit
    )
    repo = _fusion(git_repo, "Status: ACTIVE", tail)
    assert [f.line for f in _findings(repo, "RL101")] == [7]

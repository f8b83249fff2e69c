"""Run folders wherever a repository keeps them are evidence (RL201, RL102 on a spec page that quotes them).

With no docs/bench-evidence and no usual folder holding a dated entry, a folder whose dated sub-folders hold a
result file (`runs/20260519-poisson512-128r/result.json`, `experiments/assemble-fine/2026-05-19/metrics.json`) is
the evidence root. A dated folder without a result file (meeting notes) or one under test data is none. A spec
page's "currently takes X" is then superseded by a later run of its series (RL201) and its "TODO: rerun" of that
series is done (RL102); a struck-through figure, a target and a figure of another series are not superseded, and a
rerun of another series does not do the TODO.
"""

from __future__ import annotations

import json

from linted import codes_on

from roadmap.config import Config, EvidenceConfig
from roadmap.evidence import load_evidence
from roadmap.history.tree import Tree


def _run(series: str, day: str, seconds: float) -> str:
    return json.dumps({"series": series, "date": day, "t_step_s": {"median": seconds}})


# --- evidence discovery ------------------------------------------------------------------------------------


def test_dated_run_folders_with_a_result_file_are_evidence_wherever_they_are(git_repo):
    repo = git_repo()
    repo.commit(
        {
            "bench/RECORD.md": "# Record\n\n| Date | t (s) |\n|---|---|\n| 2026-04-21 | 2.40 |\n",
            "bench/run.sh": "#!/bin/sh\n",
            "runs/20260421-poisson512-128r/result.json": _run("poisson512-128r", "2026-04-21", 2.40),
            "runs/20260519-poisson512-128r/result.json": _run("poisson512-128r", "2026-05-19", 1.31),
        },
        "bench: runs",
        "2026-05-19",
    )
    store = load_evidence(Tree(repo.path), Config())
    assert store.root == "runs"
    assert [(e.date, e.series) for e in store] == [
        ("2026-04-21", "poisson512-128r"),
        ("2026-05-19", "poisson512-128r"),
    ]


def test_run_folders_named_by_a_date_alone_belong_to_the_series_folder_above_them(git_repo):
    repo = git_repo()
    repo.commit(
        {
            "experiments/assemble-fine/2026-05-04/metrics.json": '{"t_step_s": {"median": 0.41}}',
            "experiments/assemble-fine/2026-05-19/metrics.json": '{"t_step_s": {"median": 0.30}}',
        },
        "exp",
        "2026-05-19",
    )
    store = load_evidence(Tree(repo.path), Config())
    assert {(e.date, e.series) for e in store} == {("2026-05-04", "assemble-fine"), ("2026-05-19", "assemble-fine")}


def test_dated_folders_without_a_result_file_or_under_test_data_are_no_evidence(git_repo):
    repo = git_repo()
    repo.commit(
        {
            "notes/2026-05-19-retro/agenda.md": "# Retro\n",
            "notes/2026-05-19-retro/attendees.json": "[]",
            "tests/fixtures/20260519-poisson/result.json": _run("poisson", "2026-05-19", 1.0),
            ".cache/20260519-poisson/result.json": _run("poisson", "2026-05-19", 1.0),
        },
        "notes",
        "2026-05-19",
    )
    assert len(load_evidence(Tree(repo.path), Config())) == 0
    # a configured root is never replaced by a discovered one
    repo.commit({"runs/20260519-poisson/result.json": _run("poisson", "2026-05-19", 1.0)}, "run", "2026-05-20")
    assert len(load_evidence(Tree(repo.path), Config())) == 1
    assert len(load_evidence(Tree(repo.path), Config(evidence=EvidenceConfig(root="docs/results")))) == 0


# --- a spec page against run folders (RL201, RL102) --------------------------------------------------------

SPEC = "docs/design/assembly.md"
SPEC_TEXT = """# Design: finite-element assembly

_Status as of 2026-05-06._

## Performance

The fine-mesh assembly currently takes 412 ms per step (experiments/20260504-assemble-fine).

The coarse-mesh assembly currently takes 95 ms per step (experiments/20260504-assemble-coarse).

Before the colouring change the fine mesh took ~~612 ms~~ per step.

Goal for the coupled solver: fine-mesh assembly ≤ 300 ms per step.

## Open items

- TODO: rerun the fine-mesh assembly series once the SIMD kernels land.
- TODO: rerun the coarse-mesh assembly series on the new node.
"""


def _assembly_repo(git_repo):
    repo = git_repo()
    repo.commit(
        {
            "experiments/20260504-assemble-fine/metrics.json": _run("assemble-fine", "2026-05-04", 0.412),
            "experiments/20260504-assemble-coarse/metrics.json": _run("assemble-coarse", "2026-05-04", 0.095),
            "src/assemble.c": "void assemble(void) {}\n",
        },
        "fem: colouring; fine 612 -> 412 ms",
        "2026-05-04",
    )
    repo.commit({SPEC: SPEC_TEXT}, "docs: assembly design page", "2026-05-06")
    repo.commit(
        {"experiments/20260519-assemble-fine/metrics.json": _run("assemble-fine", "2026-05-19", 0.301)},
        "bench: rerun the fine-mesh assembly series with SIMD kernels\n\n412 -> 301 ms per step.",
        "2026-05-19",
    )
    return repo


def test_a_specs_current_figure_is_superseded_by_a_later_run_of_its_series(git_repo):
    repo = _assembly_repo(git_repo)
    assert "RL201" in codes_on(repo, SPEC, "fine-mesh assembly currently takes 412 ms")
    # the coarse series has no later run; a struck-through figure and a goal are no current figures
    assert "RL201" not in codes_on(repo, SPEC, "coarse-mesh assembly currently takes 95 ms")
    assert "RL201" not in codes_on(repo, SPEC, "~~612 ms~~")
    assert "RL201" not in codes_on(repo, SPEC, "≤ 300 ms")


def test_a_specs_todo_rerun_is_done_by_a_later_run_of_its_series_only(git_repo):
    repo = _assembly_repo(git_repo)
    assert "RL102" in codes_on(repo, SPEC, "TODO: rerun the fine-mesh assembly series")
    assert "RL102" not in codes_on(repo, SPEC, "TODO: rerun the coarse-mesh assembly series")

"""RL103 when the refuting sentence names its subject only by pointing back ("That assumption was wrong") or denies
a cause ("isn't due to", "is not where ... comes from"). Voice: a mobile team's performance notes; negative
control: a commit that calls a different assumption wrong in the same words."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

NOTES = """# Cold start notes

- Because font loading blocks the first frame, we preload the two UI fonts in the splash activity.
- Startup jank on low-end phones comes from the analytics SDK init on the main thread.
"""


def _findings(repo):
    return lint(repo.path, LintOptions(use_cache=False, select=("RL103",))).findings


def _repo(git_repo):
    repo = git_repo()
    repo.commit({"app/Splash.kt": "class Splash\n"}, "splash", "2026-04-01")
    repo.commit({"agents/perf/cold-start.md": NOTES}, "cold start notes", "2026-04-02")
    return repo


def test_a_sentence_that_points_back_refutes_what_its_paragraph_names(git_repo):
    repo = _repo(git_repo)
    repo.commit(
        {"app/Splash.kt": "class Splash // no font preload\n"},
        "splash: drop the font preload\n\nWe preloaded the UI fonts because font loading was thought to block the\n"
        "first frame. Systrace on three phones says the first frame waits on layout inflation. That assumption\n"
        "was wrong; the preload only added 40 ms.\n",
        "2026-04-09",
    )
    lines = (repo.path / "agents/perf/cold-start.md").read_text().split("\n")
    assert {lines[f.line - 1][:30] for f in _findings(repo)} == {"- Because font loading blocks "}


def test_a_denied_cause_refutes_it(git_repo):
    repo = _repo(git_repo)
    repo.commit(
        {"app/Splash.kt": "class Splash // async analytics\n"},
        "move analytics SDK init off the main thread\n\nThe jank on low-end phones is not where the analytics "
        "SDK init comes from... rather: startup jank isn't due to the analytics SDK init at all; it is GC.\n",
        "2026-04-09",
    )
    lines = (repo.path / "agents/perf/cold-start.md").read_text().split("\n")
    assert {lines[f.line - 1][:30] for f in _findings(repo)} == {"- Startup jank on low-end phon"}


def test_pointing_back_at_another_assumption_refutes_nothing_here(git_repo):
    repo = _repo(git_repo)
    repo.commit(
        {"app/Splash.kt": "class Splash // retries\n"},
        "network: retry the config fetch\n\nWe assumed the CDN never drops config requests. That assumption was wrong.\n",
        "2026-04-09",
    )
    assert _findings(repo) == []

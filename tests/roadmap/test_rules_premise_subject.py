"""RL103 needs a commit that contradicts what the line asserts, on the line's subject: the refuting sentence itself
must be about it (not another sentence of a paragraph that names the row), and a line that already gives its
subject up is agreed with, not refuted, by a commit calling that subject wrong.

Voices: a database team's design notes, an SRE team's runbook plan. Each positive has its negative control."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

NOTES = "agents/storage-notes.md"


def _findings(repo):
    return lint(repo.path, LintOptions(use_cache=False, select=("RL103",))).findings


def _notes(line: str) -> str:
    return f"# Read path notes (STOR-31)\n\nWritten from the 2026-03-10 profile.\n\n## Plan\n\n1. {line}\n"


REWRITE = "Rewrite the bloom filter probe: the profile blames it for 38% of point-read latency."
GIVE_UP = "Stop tuning the bloom filter probe; its 38% share of point-read latency is a profiling artifact."


def test_a_commit_contradicting_the_premise_on_its_subject_refutes_it(git_repo):
    repo = git_repo()
    repo.commit({NOTES: _notes(REWRITE)}, "notes", "2026-03-11")
    sha = repo.commit(
        {"src/read.c": "int x;\n"},
        "read: page-cache hints (STOR-31)\n\nThe bloom filter probe was misattributed: the 38% is page-cache "
        "misses under the probe, not the probe itself.",
        "2026-03-20",
    )
    [f] = _findings(repo)
    assert f.line == 7 and sha[:9] in f.message


def test_a_commit_agreeing_with_a_line_that_gives_the_subject_up_refutes_nothing(git_repo):
    repo = git_repo()
    repo.commit({NOTES: _notes(GIVE_UP)}, "notes", "2026-03-11")
    repo.commit(
        {"src/read.c": "int x;\n"},
        "read: reconcile the bloom probe lever (STOR-31)\n\nThe bloom filter probe rewrite premise is refuted: "
        "the probe is already branch-free and tuning it will not help point-read latency.",
        "2026-03-20",
    )
    assert _findings(repo) == []


def test_a_refutation_of_another_premise_in_a_paragraph_naming_the_row_is_not_about_the_line(git_repo):
    repo = git_repo()
    budget = (
        "Budget: the nightly restore drill keeps to 2 replicas per shard (restore takes 410 s; the dashboard "
        "shows 520 s due to the snapshot overhead)."
    )
    repo.commit(
        {"agents/runbook-plan.md": f"# Restore drill (SRE-RESTORE-DRILL)\n\nAs of 2026-05-02.\n\n- {budget}\n"},
        "plan",
        "2026-05-02",
    )
    repo.commit(
        {"ops/drill.sh": "echo drill\n"},
        "drill: measure the restore window\n\nVerdict for the restore window (SRE-RESTORE-DRILL):\n"
        "- shard copy is network-bound at 9.1 Gbit/s on every replica\n"
        '- the 05-01 "restore is disk-bound" attribution is refuted at 2 replicas and reshaped at 4',
        "2026-05-09",
    )
    assert _findings(repo) == []

"""Premises a commit quotes however it quotes them, refuted in the usual phrasings (RL103).

A commit body wraps a quoted premise over lines, quotes it in single quotes or as a "> " block: each is a quote of
the premise, and a refuting sentence beside it (or pointing back at it) refutes the premise ("That isn't true",
"wasn't the bottleneck", "a red herring", "pg_locks says otherwise"), in an ADR's Context, Background or Problem
section. The finding points at the lines of the quoted premise, not at the rest of its paragraph. A commit that
quotes the premise without refuting it, or confirms it, refutes nothing.
"""

from __future__ import annotations

import pytest

from roadmap.analysis.quoted_words import quoted_lines, quoted_phrases, quotes
from roadmap.analysis.work import own_lines
from roadmap.checks.premise_refuted import _names_figure, _reports_refutation, refutes
from roadmap.history.commit import Commit
from roadmap.lint import LintOptions, lint

# --- quotes of a premise in a commit body ------------------------------------------------------------------

PREMISE = "Row-lock contention between tenants on the shared `jobs` table is what makes enqueue slow."


def test_a_quote_wrapped_over_lines_in_single_quotes_or_as_a_block_is_a_quote():
    wrapped = 'ADR 12 rests on "Row-lock contention between tenants on the shared `jobs` table is\nwhat makes it slow."'
    single = "ADR 12 rests on 'Row-lock contention between tenants on the shared `jobs` table is what makes it slow'."
    block = (
        "ADR 12 says:\n\n> Row-lock contention between tenants on the shared `jobs`\n> table is what makes it slow.\n"
    )
    text = PREMISE.replace("enqueue", "it")
    for message in (wrapped, single, block):
        assert quotes(message, text), message
    # a blank line ends a quote; apostrophes are no quotes
    assert not quoted_phrases('a "Row-lock contention between tenants\n\non the shared jobs table" b')
    assert not quoted_phrases("don't rely on the cache being warm, it's cold and we can't")
    # the lines of a paragraph holding the quoted words
    raw = "At peak p99 is 480 ms.\nRow-lock contention between tenants on the\nshared `jobs` table is slow.\nWe run PG 15."
    phrase = "row-lock contention between tenants on the shared jobs table is slow"
    assert quoted_lines(phrase, raw) == (1, 2)
    assert quoted_lines("we run pg 15 on rds", raw) is None


def test_the_words_after_a_quoted_block_are_the_committers_own():
    c = Commit(
        sha="a" * 40,
        parents=(),
        author_date="2026-07-08T00:00:00+00:00",
        author_time=0,
        commit_date="2026-07-08T00:00:00+00:00",
        commit_time=0,
        subject="queue: one NOTIFY per tx",
        body="ADR 12 says:\n\n> the jobs table is hot\n\nThat premise was wrong.\n",
    )
    _, body = own_lines(c)
    assert "the jobs table is hot" not in body and "That premise was wrong." in body


def test_the_usual_phrasings_refute_and_a_confirmation_does_not():
    for said in (
        "That isn't true: pg_locks shows almost no waits.",
        "Lock contention wasn't the bottleneck.",
        "It was a red herring.",
        "pg_locks sampled through the peak says otherwise.",
        "The premise turned out not to hold.",
        "This was never the problem.",
        "The profile disproves it.",
    ):
        assert refutes(said), said
    for said in (
        "That premise holds: pg_locks shows 80% of enqueue time waiting on the jobs table.",
        "Confirmed: contention is the cause.",
        "If this is true we can drop the lock.",
    ):
        assert not refutes(said), said


ADR = "docs/adr/0012-partition-jobs-by-tenant.md"
ADR_TEXT = """# 12. Partition the `jobs` table by tenant

Date: 2026-06-03
Status: Accepted

## Background

At peak (about 2,400 enqueues/s) p99 enqueue latency is 480 ms against a 100 ms SLO.
Row-lock contention between tenants on the shared `jobs` table is what makes enqueue slow.
We run PostgreSQL 15.4 on RDS.

## Decision

Partition `jobs` by `tenant_id` (hash, 32 partitions).
"""


def _adr_repo(git_repo, body: str, section: str = "Background"):
    repo = git_repo()
    text = ADR_TEXT.replace("## Background", f"## {section}")
    repo.commit({ADR: text, "queue/enqueue.go": "package queue\n"}, "docs: ADR 12", "2026-06-03")
    repo.commit(
        {"queue/enqueue.go": "package queue\n\n// one NOTIFY\n"}, f"queue: one NOTIFY per tx\n\n{body}", "2026-07-08"
    )
    return repo


def _rl103(repo):
    return [f for f in lint(repo.path, LintOptions(use_cache=False, select=("RL103",))).findings if f.path == ADR]


@pytest.mark.parametrize("section", ["Context", "Background", "Problem", "Context and problem"])
def test_a_premise_quoted_over_two_lines_and_refuted_is_flagged_on_its_own_line(git_repo, section):
    repo = _adr_repo(
        git_repo,
        'ADR 12 rests on "Row-lock contention between tenants on the shared `jobs` table is\n'
        "what makes enqueue slow.\" That isn't true: pg_locks sampled every 100 ms shows almost\n"
        "no waits. The time goes to pg_notify.\n",
        section,
    )
    [f] = _rl103(repo)
    lines = ADR_TEXT.split("\n")
    assert f.severity == "error" and (f.line, f.end_line) == (9, 9) and "Row-lock contention" in lines[8]
    assert f.message.startswith("Line 9 of the paragraph at line 8")


def test_a_premise_quoted_as_a_block_and_refuted_after_it_is_flagged(git_repo):
    repo = _adr_repo(
        git_repo,
        "ADR 12 says:\n\n> Row-lock contention between tenants on the shared `jobs` table is what\n"
        "> makes enqueue slow.\n\nThat premise was a red herring: pg_locks shows almost no waits.\n",
    )
    assert [(f.line, f.end_line) for f in _rl103(repo)] == [(9, 9)]


def test_a_premise_restated_or_confirmed_is_not_refuted(git_repo):
    restated = _adr_repo(
        git_repo,
        'ADR 12 rests on "Row-lock contention between tenants on the shared `jobs` table is\n'
        'what makes enqueue slow." Partitioning went live today; p99 enqueue is 140 ms.\n',
    )
    assert _rl103(restated) == []


def test_a_commit_confirming_a_quoted_premise_refutes_nothing(git_repo):
    confirmed = _adr_repo(
        git_repo,
        'ADR 12 rests on "Row-lock contention between tenants on the shared `jobs` table is\n'
        'what makes enqueue slow." pg_locks confirms it: 80% of enqueue time is lock waits on jobs.\n',
    )
    assert _rl103(confirmed) == []


def test_a_record_that_already_says_the_quoted_premise_was_disproved_is_not_refuted(git_repo):
    text = ADR_TEXT.replace(
        "Row-lock contention between tenants on the shared `jobs` table is what makes enqueue slow.",
        'A clean A/B disproved the "Row-lock contention between tenants on the shared `jobs` table" premise.',
    )
    repo = git_repo()
    repo.commit({ADR: text}, "docs: ADR 12", "2026-06-03")
    repo.commit(
        {"queue/enqueue.go": "package queue\n"},
        'queue: one NOTIFY per tx\n\nA clean A/B disproved the "Row-lock contention between tenants on the\n'
        'shared `jobs` table" premise.\n',
        "2026-07-08",
    )
    assert _rl103(repo) == []
    assert _reports_refutation('A clean A/B DISPROVED the "~44% GPU-idle from cudaMalloc" premise.', QUOTE_44)
    assert not _reports_refutation("About ~44% GPU-idle from cudaMalloc is what slows prefill.", QUOTE_44)


QUOTE_44 = "44% gpu-idle from cudamalloc"


def test_the_same_number_in_another_unit_is_another_figure():
    said = 'A clean same-binary A/B DISPROVED the "~44% GPU-idle from cudaMalloc/cudaFree" premise.'
    assert not _names_figure(said, {"44"}, {"44": {"ms"}})  # "the ~44 ms residual"
    assert _names_figure(said, {"44"}, {"44": {"%"}})
    assert _names_figure(said, {"44"}, {})  # a bare 44 in the record: the number ties


def test_a_pronoun_refuted_is_what_the_sentence_before_says_not_the_instrument():
    """ "The plan called for fusion recipes. nsys on both sides refuted that before ...": what was wrong is the
    plan (the sentence before), not the profiler that showed it; a record that only shares the profiler's words is
    not what the commit refutes, and one that states the plan is."""
    from roadmap.checks.premise_refuted import _about

    sents = [
        "The W9 plan cell called for MLA fusion recipes.",
        "nsys --cuda-graph-trace=node on both sides refuted that before a line was written.",
    ]
    assert _about(sents, 1) == sents[0]
    plain = ["The attention kernel is refuted by the trace."]
    assert _about(plain, 0) == plain[0]
    assert _about(["First.", "This refutes the idea that locks matter."], 1).startswith("This refutes")

"""RL101 reads a section's role and a sentence's mood before it reads a directive: gates, acceptance criteria,
scope and dependency lists, results, background and design text define, scope, report or explain; only a line
written as a request asks for work there. Records in other teams' voices (a data platform, a firmware team, an
ML-ops runbook, a writer whose English is a second language); every positive has its negative control beside it,
in the same file, landed by the same commit."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint


def _flagged(repo) -> set[int]:
    """The lines of every RL101 error or warning, with the surfaces each one lists as repeating it."""
    found = [
        f
        for f in lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings
        if f.severity in ("error", "warning")
    ]
    return {f.line for f in found} | {r.line for f in found for r in f.related}


def _landed(git_repo, record: str, body: str, code: dict[str, str], subject: str):
    """`body` committed on 2026-04-01 before the code, then one commit that introduces the code."""
    repo = git_repo()
    repo.commit({record: body, "README.md": "# service\n"}, "docs: plan", "2026-04-01")
    repo.commit(code, subject, "2026-04-09")
    return repo


def _line(body: str, needle: str) -> int:
    return next(n for n, text in enumerate(body.splitlines(), 1) if needle in text)


DATA_PLATFORM = """# Nightly backfill speed-up

Owner: data-platform. As of 2026-04-01.

## Acceptance criteria

- Backfill of 90 days finishes under 2 h with `PartitionPruner` on.
- Add `PartitionPruner` stats to the run summary; nothing else changes.

## Dependencies

- Reuse the warehouse's `SnapshotReader` unchanged.

## Open work

- [ ] Wire `SnapshotReader` into the backfill job.
- [ ] Add `PartitionPruner` to the planner.
"""


def test_acceptance_and_dependency_lists_do_not_ask_but_open_boxes_do(git_repo):
    repo = _landed(
        git_repo,
        ".agents/plans/backfill.md",
        DATA_PLATFORM,
        {
            "etl/prune.py": "class PartitionPruner:\n    pass\n",
            "etl/read.py": "class SnapshotReader:\n    pass\n",
        },
        "etl: partition pruner and snapshot reader for the backfill",
    )
    flagged = _flagged(repo)
    assert _line(DATA_PLATFORM, "- [ ] Add `PartitionPruner`") in flagged
    assert _line(DATA_PLATFORM, "- [ ] Wire `SnapshotReader`") in flagged
    assert _line(DATA_PLATFORM, "Backfill of 90 days") not in flagged  # a criterion
    assert _line(DATA_PLATFORM, "Add `PartitionPruner` stats") not in flagged  # a criterion, imperative or not
    assert _line(DATA_PLATFORM, "Reuse the warehouse") not in flagged  # a dependency


FIRMWARE = """# OTA verifier bring-up

## 3. Bring-up results

**Run + boot:** flashed the image on rev-B boards, ran `selftest_dma` 50 times: PASS.

## 4. Gates

1. Check that `verify_image_crc` rejects a flipped byte in every sector.
2. **Boot gate:** build clean with `verify_image_crc` linked in, no warnings.
3. TODO: port `verify_image_crc` to the rev-C flash map.

## 5. Next steps

- Run `selftest_dma` on rev-C boards.
- Port `verify_image_crc` to the bootloader.
"""


def test_results_and_gates_report_and_define_while_next_steps_and_todos_ask(git_repo):
    repo = _landed(
        git_repo,
        "agents/fw/ota.md",
        FIRMWARE,
        {
            "fw/selftest.c": "int selftest_dma(void) { return 0; }\n",
            "fw/verify.c": "int verify_image_crc(const char *p) { return 0; }\n",
        },
        "fw: dma self-test and image crc verifier",
    )
    flagged = _flagged(repo)
    assert _line(FIRMWARE, "- Port `verify_image_crc` to the bootloader") in flagged
    assert _line(FIRMWARE, "TODO: port") in flagged  # a request inside the gates
    assert _line(FIRMWARE, "**Run + boot:**") not in flagged  # a past-tense report under a verb label
    assert _line(FIRMWARE, "1. Check that") not in flagged  # a gate's definition, imperative or not
    assert _line(FIRMWARE, "**Boot gate:**") not in flagged


RUNBOOK = """# Model rollout runbook notes

## Canary status

Clean build of `3f9a2c17e` passes the smoke suite with `CanaryRouter`, 0 errors.

## Stage 1 landed

Enable `CanaryRouter` on 5% of pods: the error budget held for a week.

## Stage 2

Gate. Enable `CanaryRouter` on half of the pods with no page for 48 h.

## Follow-ups

- Add `CanaryRouter` metrics to the rollout dashboard.
"""


def test_a_check_recorded_at_a_commit_is_a_fact_and_a_follow_up_is_work(git_repo):
    repo = _landed(
        git_repo,
        ".agent/ops/rollout.md",
        RUNBOOK,
        {"serving/canary.py": "class CanaryRouter:\n    pass\n"},
        "serving: canary router",
    )
    flagged = _flagged(repo)
    assert _line(RUNBOOK, "- Add `CanaryRouter` metrics") in flagged
    assert _line(RUNBOOK, "Clean build of") not in flagged
    assert _line(RUNBOOK, "Enable `CanaryRouter` on 5%") not in flagged  # under a section reporting it landed
    assert _line(RUNBOOK, "Gate. Enable") not in flagged  # a line labelled as a gate


SECOND_LANGUAGE = """# Retry for the payment client

## Background

Make the `RetryBudget` is how the gateway team keep the retries in limit, every client share it.

## Proposed design

Make the `RetryBudget` class for keep the retries in limit, it is shared by all the clients.

## Plan

- Make the `RetryBudget` class for keep the retries in limit.
"""


def test_background_and_design_explain_while_the_plan_asks(git_repo):
    repo = _landed(
        git_repo,
        "agents/payments/retry.md",
        SECOND_LANGUAGE,
        {"pay/retry.go": "package pay\n\ntype RetryBudget struct{}\n"},
        "pay: retry budget for the client",
    )
    flagged = _flagged(repo)
    assert _line(SECOND_LANGUAGE, "- Make the `RetryBudget`") in flagged
    lines = [n for n, t in enumerate(SECOND_LANGUAGE.splitlines(), 1) if t.startswith("Make the `RetryBudget`")]
    assert lines and not set(lines) & flagged


# --- step labels: W0, W2-B, H-A name a step only together with the workstream they belong to ------------------

BILLING = """# Billing export sync — nightly export hardening

## Tasks

- W2-B: retry the nightly export on timeout, with jitter between attempts.
- W2-C: page the on-call when the export fails twice.
"""


def _billing(git_repo, subject: str):
    repo = git_repo()
    repo.commit({".agents/specs/billing-export.md": BILLING, "sync/export.py": "x = 1\n"}, "docs: plan", "2026-05-01")
    repo.commit({"sync/export.py": "x = 2\n"}, subject, "2026-05-06")
    return repo


def test_a_step_label_named_with_the_workstream_lands_it(git_repo):
    repo = _billing(git_repo, "feat(billing-sync): W2-B - retry the nightly export on timeout with jitter")
    assert _line(BILLING, "W2-B: retry") in _flagged(repo)


def test_the_same_step_label_of_another_workstream_does_not(git_repo):
    repo = _billing(git_repo, "feat(invoice-mailer): W2-B - retry the nightly export on timeout with jitter")
    assert _flagged(repo) == set()


def test_labels_numbered_in_series_are_not_work_terms():
    from roadmap.analysis.steps import step_terms

    assert step_terms("claim W0 trace; then W1 cache policy and W2 bank-only loader") == {"w0", "w1", "w2"}
    assert step_terms("retry uploads when S3 answers 503") == frozenset()  # one label alone is a name: S3

"""What is current and what is history, decided by a record's structure (roadmap/records/structure.py).

Each case is a small record in its own voice, with a negative control beside it: the same words in a shape
that keeps them current.
"""

from __future__ import annotations

from roadmap.config import Config
from roadmap.records import parse_record
from roadmap.records.model import RecordFile, Statement


def parse(md: str, path: str = "agents/notes.md", config: Config | None = None) -> RecordFile:
    return parse_record(path, md.encode(), config or Config())


def at(rf: RecordFile, needle: str) -> Statement:
    found = [st for st in rf.statements if needle in st.text]
    assert found, f"{needle!r} not in {[st.text for st in rf.statements]}"
    return found[0]


# --- file kinds ------------------------------------------------------------------------------------------------


def test_a_log_by_its_title_is_history_but_its_live_claims_section() -> None:
    rf = parse(
        "# Ops journal\n\nWe write here after each shift.\n\n## Open claims\n\n"
        "- CLAIM-DNS-TTL (mara): lowering the resolver TTL.\n\n## Shifts\n\n"
        "- Rotated the on-call pager; nobody paged.\n"
    )
    assert at(rf, "Rotated the on-call pager").historical
    assert "title" in at(rf, "Rotated the on-call pager").history
    assert not at(rf, "lowering the resolver TTL").historical


def test_an_append_only_preamble_makes_a_log_a_board_that_mentions_the_log_does_not() -> None:
    log = parse("# Hand-offs\n\nAppend only; newest entry at the bottom.\n\n- Switch the cron to UTC.\n")
    assert at(log, "Switch the cron to UTC").historical
    plan = parse("# Plan\n\nDetails live in the append-only state log.\n\n- Switch the cron to UTC.\n")
    assert not at(plan, "Switch the cron to UTC").historical
    board = parse(
        "# Claims board\n\nClosed claims move to the log and come off this table.\n\n- Switch the cron to UTC.\n"
    )
    assert not at(board, "Switch the cron to UTC").historical and at(board, "Switch the cron").directive


def test_log_names_and_dated_files_in_a_logs_folder() -> None:
    assert parse("# Notes\n\n- Bump the base image.\n", "docs/agents/ledger.md").statements[1].historical
    dated = parse("# Checkpoint\n\n## Next steps\n\n- Bump the base image.\n", ".agents/logs/202601062110-release.md")
    assert at(dated, "Bump the base image").historical
    how_to = parse("# How we log\n\n- Name each file YYYYMMDDHHMM-slug.md.\n", ".agents/logs/AGENTS.md")
    assert not at(how_to, "Name each file").historical


def test_closed_specs_by_folder_status_line_and_front_matter() -> None:
    assert at(parse("# Plan\n\n- Port the cache.\n", ".agents/completed/plan-v0.md"), "Port the cache").historical
    closed = parse("# Backups v1\n\nStatus: Closed 2026-06-20, replaced by v2.\n\n- Port the cache.\n")
    assert at(closed, "Port the cache").historical
    assert not at(closed, "Status: Closed").historical  # the status line itself is current: it says closed
    front = parse("---\nstatus: abandoned\n---\n# Quiet flags\n\n- Add --quiet everywhere.\n")
    assert at(front, "Add --quiet").historical
    draft = parse("# Backups v2\n\nStatus: draft.\n\n- Port the cache.\n")
    assert not at(draft, "Port the cache").historical and at(draft, "Port the cache").directive


def test_a_template_is_an_example_not_work() -> None:
    rf = parse("# Feature log template\n\n- [ ] Add --dry-run flag\n", ".agents/logs/templates/FEATURE.md")
    assert at(rf, "Add --dry-run").historical and not at(rf, "Add --dry-run").directive


def test_config_kinds_override_the_structure() -> None:
    cfg = Config(kinds=(("agents/state.md", "log"), ("agents/journal.md", "current")))
    assert at(parse("# State\n\n- Port the cache.\n", "agents/state.md", cfg), "Port the cache").historical
    assert not at(parse("# Team journal\n\n- Port the cache.\n", "agents/journal.md", cfg), "Port").historical
    assert at(parse("# Team journal\n\n- Port the cache.\n", "agents/journal.md"), "Port").historical


# --- sections and quotes -------------------------------------------------------------------------------------


def test_history_and_upstream_sections_but_not_results() -> None:
    rf = parse(
        "# Compressor\n\n## Our baseline\n\n- `src/match.c:12` is a plain hash chain.\n\n## Results\n\n- Level 3 reaches 412 MB/s (20260402-l3).\n\n## Superseded plans\n\n"
        "- Use a hash chain at level 3.\n\n## Upstream chain\n\n- `zstd/lib/compress/zstd_lazy.c:120` walks "
        "the chain.\n\n## Port map (ours vs upstream)\n\n- `src/match.c:40` mirrors it.\n"
    )
    assert not at(rf, "Level 3 reaches").historical
    assert at(rf, "plain hash chain").historical  # what existed when the record was written
    assert at(rf, "Use a hash chain").historical
    assert "another project" in at(rf, "walks the chain").history
    assert not at(rf, "mirrors it").historical


def test_quoted_upstream_text_is_history_a_callout_is_not() -> None:
    rf = parse(
        "# Notes\n\nUpstream's docstring says:\n\n> Fix the stride before calling `launch()`.\n\n"
        "> **Note:** Fix the stride in `src/k.cu` before the release.\n"
    )
    assert at(rf, "before calling").historical
    assert not at(rf, "before the release").historical


# --- dated entries ------------------------------------------------------------------------------------------------


def test_older_dated_entries_are_history_the_newest_is_read_by_its_words() -> None:
    rf = parse(
        "# Weekly\n\n## Status\n\n- 2026-04-01: Rewrite the tokenizer loop in Rust.\n"
        "- 2026-04-08: Port the detokenizer too.\n"
    )
    older, newest = at(rf, "tokenizer loop"), at(rf, "detokenizer")
    assert older.historical and "older dated entry" in older.history
    assert not newest.historical and newest.directive


def test_one_dated_bullet_is_not_a_sequence() -> None:
    rf = parse("# Notes\n\n- 2026-04-01: Rewrite the tokenizer loop in Rust.\n- Keep the C fallback.\n")
    assert not at(rf, "tokenizer loop").historical


def test_a_handoff_stays_open_until_a_later_entry_is_about_the_same_claim() -> None:
    rf = parse(
        "# Rota log\n\nNewest last.\n\n"
        "- 2026-05-02 (sol) CLAIM-GC-PAUSE: measured 40 ms pauses. Next owner must switch to the "
        "concurrent collector.\n"
        "- 2026-05-03 (ayo) CLAIM-LRU: profiled eviction. Next owner must shard the LRU lock.\n"
        "- 2026-05-04 (ayo) CLAIM-LRU: sharded the lock, claim released.\n"
        "- 2026-05-05 (sol) CLAIM-SPILL: claimed.\n"
    )
    gc = at(rf, "concurrent collector")
    assert not gc.historical and gc.directive  # nobody wrote about CLAIM-GC-PAUSE since
    assert at(rf, "shard the LRU lock").historical  # a later CLAIM-LRU entry took it over
    assert at(rf, "CLAIM-SPILL: claimed").historical  # the newest entry of a log records, asks nothing


def test_dated_sections_of_a_log_and_a_handoff_without_a_subject() -> None:
    rf = parse(
        "# Hand-off log\n\n### 2026-06-28 — night shift\n\nNext owner must requeue on 429.\n\n"
        "### 2026-07-01 — day shift\n\nRequeue on 429 done in #207.\n\nNext owner must add a finalizer.\n"
    )
    assert at(rf, "requeue on 429").historical  # no subject: only the newest entry's hand-off is open
    assert not at(rf, "add a finalizer").historical and at(rf, "add a finalizer").directive
    assert at(rf, "done in #207").historical


def test_a_log_s_newest_follow_ups_stay_open_until_a_later_entry_hands_off_in_turn() -> None:
    head = (
        "# Experiment log\n\nOldest first.\n\n## 2026-09-29\n\n- Next: target-encode plan_type (out-of-fold).\n"
        "- Next: rerun churn-gbm on the time split.\n\n"
    )
    # the later entry only reports a result that uses the work: the log's to-do list is still the older one
    reported = parse(head + "## 2026-10-14\n\n- churn-gbm with the encoded plan_type: AUC 0.874.\n")
    st = at(reported, "target-encode plan_type")
    assert not st.historical and st.directive
    assert at(reported, "rerun churn-gbm").historical  # a measurement asked for is answered by its result
    # negative control: the later entry repeats the name and writes its own follow-ups; the older list is answered
    moved_on = parse(
        head + "## 2026-10-14\n\n- GBM with the encoded plan_type: AUC 0.874.\n- Next: tune the learning rate.\n"
    )
    assert at(moved_on, "target-encode plan_type").historical
    assert not at(moved_on, "tune the learning rate").historical


def test_items_under_a_finished_item_are_history_an_open_box_is_not() -> None:
    rf = parse(
        "# Release\n\n## Checklist\n\n- [x] Signed webhooks ✅\n  - Acceptance: a flipped byte returns 401.\n"
        "  - [ ] Rotate the signing key after the release.\n- [ ] Stream the export.\n"
        "  - Acceptance: memory stays flat.\n"
    )
    assert at(rf, "a flipped byte returns 401").historical
    assert not at(rf, "Rotate the signing key").historical
    assert not at(rf, "memory stays flat").historical


def test_a_how_to_gives_instructions_not_work_and_its_references_stay_current() -> None:
    skill = parse(
        "# Debugging\n\n## Steps\n\n1. Run `scripts/repro.sh` until it fails twice.\n",
        ".agents/skills/debugging/SKILL.md",
    )
    step = at(skill, "until it fails twice")
    assert not step.directive and not step.historical and step.mentions.paths
    plan = parse(
        "# Debugging plan\n\n## Steps\n\n1. Run `scripts/repro.sh` until it fails twice.\n",
        ".agents/plans/debugging.md",
    )
    assert at(plan, "until it fails twice").directive


def test_a_dated_file_in_a_logs_folder_is_a_log_its_readme_is_not() -> None:
    text = (
        "# v2 release checklist\n\n**Date**: 2025-10-03\n**Status**: Ready\n\n## Tasks\n\n- [ ] Update the changelog\n"
    )
    assert at(parse(text, ".agents/logs/v2-release-checklist.md"), "Update the changelog").historical
    undated = "# v2 release checklist\n\n## Tasks\n\n- [ ] Update the changelog\n"
    assert not at(parse(undated, ".agents/logs/v2-release-checklist.md"), "Update the changelog").historical
    assert not at(parse(text, ".agents/logs/README.md"), "Update the changelog").historical


def test_problem_write_up_sections_and_done_marks_are_not_directives() -> None:
    rf = parse(
        "# Deploy failure\n\n## Constraints\n\n- Keep the pnpm workspace layout.\n\n## Expected Solution\n\n"
        "1. Install the db package before generating the client.\n\n## Verification Steps\n\n"
        "1. Check the preview URL appears on the PR.\n\n## Next\n\n- Add error alerts ✅ COMPLETE\n"
        "- Add a retry budget to the runner.\n"
    )
    for needle in ("Keep the pnpm", "Install the db", "Check the preview", "Add error alerts"):
        assert not at(rf, needle).directive, needle
    assert at(rf, "retry budget").directive


def test_a_label_line_names_a_place_it_asks_for_nothing() -> None:
    rf = parse("# Prompt\n\n**File**: `web/src/app/dash.component.ts`\n\nFile a bug for the flaky login test.\n")
    assert not at(rf, "dash.component").directive
    assert at(rf, "flaky login").directive


def test_a_dated_report_is_a_snapshot_a_prompt_is_an_instruction_a_plan_is_neither() -> None:
    text = "# Status\n\n## Next steps\n\n- Add a retry budget to the runner.\n"
    assert at(parse(text, ".agent/reports/status_20260121.md"), "retry budget").historical
    assert not at(parse(text, ".agent/reports/status.md"), "retry budget").historical  # undated: kept current
    assert not at(parse(text, ".agent/tasks/batch/prompts/RUN-02.md"), "retry budget").directive
    assert not at(parse(text, ".agent/260129_STAGE1_PROMPTS.md"), "retry budget").directive
    assert at(parse(text, ".agent/plans/runner.md"), "retry budget").directive


def test_a_handoff_folder_named_with_its_date_is_a_snapshot_a_troubleshooting_step_is_an_instruction() -> None:
    text = "# Audit remediation\n\n## Next\n\n- Create prompts for the remaining audits.\n"
    assert at(parse(text, ".agent/tasks/handoff_20260125_audit/README.md"), "remaining audits").historical
    assert not at(parse(text, ".agent/tasks/audit/README.md"), "remaining audits").historical
    runbook = parse(
        "# Previews\n\n## Troubleshooting\n\n### Previews not appearing\n\n1. Enable preview deployments.\n"
    )
    assert not at(runbook, "Enable preview").directive
    review = parse("# Review\n\n**File Under Review:** `e2e/specs/boot.spec.ts`\n")
    assert not at(review, "File Under Review").directive


def test_a_task_that_records_its_resolution_is_history_a_bare_resolution_heading_is_not() -> None:
    task = (
        "# Task: builds fail resolving the ORM client on the preview deploys\n\n## Acceptance criteria\n\n"
        "- [ ] The ORM client generates without errors on preview deploys\n\n"
    )
    done = parse(task + "## ✅ Resolution (March)\n\n- Pinned the generator and hoisted the workspace install.\n")
    assert at(done, "generates without errors").historical
    assert not at(parse(task + "## Resolution\n\n## Notes\n\nNothing yet.\n"), "generates without errors").historical
    assert not at(
        parse(task + "## Resolution options\n\n- Pin the generator.\n"), "generates without errors"
    ).historical

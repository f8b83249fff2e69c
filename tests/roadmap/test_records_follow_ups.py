"""A postmortem or retrospective is finished as a story, but its action items are work it hands on: a table of
them with no state column is open row by row unless a row says it is done. Voice: a data team's incident review;
negative controls: a struck row, a row marked done in another cell, the timeline, and a table under "Tasks" of a
plan (no follow-up section) without a state column."""

from __future__ import annotations

from roadmap.config import Config
from roadmap.records.parser import parse_record

REVIEW = """# Incident review: stale dashboards after the warehouse migration

## Timeline

- 2026-03-02 08:10 — dashboards show Friday's numbers.
- 2026-03-02 09:30 — backfill the orders mart by hand.

## Follow-ups

| # | What | Who | Ticket |
|---|---|---|---|
| 1 | Alert when a mart's freshness lags its source by more than 2 hours | @dee | BI-88 |
| 2 | ~~Move the scheduler to the new cluster~~ not needed, it already runs there | @eli | BI-89 |
| 3 | Document the backfill runbook | @fay | BI-90 ✅ |
"""

PLAN = """# Migration plan

## Tasks

| # | What | Who |
|---|---|---|
| 1 | Copy the orders mart to the new warehouse | @dee |
"""


def _directives(path: str, text: str) -> set[str]:
    rf = parse_record(path, text.encode(), Config())
    return {st.text for st in rf.statements if st.directive}


def test_an_open_action_item_of_a_review_asks_for_its_work():
    assert _directives("agents/reviews/2026-03-02-stale-dashboards.md", REVIEW) == {
        "Alert when a mart's freshness lags its source by more than 2 hours"
    }


def test_a_table_under_tasks_without_a_state_column_asks_for_nothing():
    assert _directives("agents/plan.md", PLAN) == set()

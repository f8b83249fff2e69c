"""A log whose entries are titled name first and date last ("## Sprint 14 — 2026-05-02"), newest on top: the newest
entry's request to the next round ("Next sprint should ...") is open, an older entry's is history. A file that is
no log keeps sections with dates in their titles current (target dates, not entries). Voice: a game studio's
sprint journal."""

from __future__ import annotations

from roadmap.config import Config
from roadmap.records.parser import parse_record

JOURNAL = """# Sprint journal

Newest first; append a section on top after each review.

## Sprint 14 — 2026-05-02

- Frame pacing fixed on the handheld build.
- Next sprint should bake the lightmaps for the harbour level on the build farm.

## Sprint 13 — 2026-04-18

- Next sprint should fix frame pacing on the handheld build.
"""

MILESTONES = """# Milestones

## Alpha — 2026-05-01

- Ship the harbour level greybox.

## Beta — 2026-07-01

- Ship the harbour level art pass.
"""


def _statements(path: str, text: str):
    return parse_record(path, text.encode(), Config()).statements


def test_the_newest_entry_asks_and_the_older_one_is_history():
    sts = {st.text: st for st in _statements("agents/sprint-journal.md", JOURNAL)}
    newest = sts["Next sprint should bake the lightmaps for the harbour level on the build farm."]
    older = sts["Next sprint should fix frame pacing on the handheld build."]
    assert newest.directive and not newest.historical
    assert newest.directive_text and newest.directive_text.startswith("Next sprint should bake")
    assert older.historical and not older.directive


def test_dated_section_titles_outside_a_log_stay_current():
    sts = [st for st in _statements("agents/milestones.md", MILESTONES) if st.kind == "item"]
    assert [st.historical for st in sts] == [False, False]

"""A table whose Status is a mark (🔴, 🟡, ✅) says what each mark means in its own legend; an open row is one whose
mark the legend calls not started. A work column can be named for goals ("Key result", "Objective", "Initiative").
Voice: a support team's quarterly goals page; negative controls: the same mark without a legend, a mark the legend
calls at risk, a done mark."""

from __future__ import annotations

from roadmap.config import Config
from roadmap.records.parser import parse_record
from roadmap.records.state_words import legend

PAGE = """# Support goals — Q3

Marks: ⚪ not started · 🔵 in flight · 🟠 at risk · ✔️ done

| # | Objective | Owner | Status |
|---|---|---|---|
| G1 | Route refund tickets to the payments queue automatically | @ana | ⚪ |
| G2 | Answer chat within 2 minutes at peak | @bo | 🟠 |
| G3 | Retire the legacy macro editor | @cy | ✔️ |
"""

NO_LEGEND = """# Support goals — Q3

| # | Objective | Owner | Status |
|---|---|---|---|
| G1 | Route refund tickets to the payments queue automatically | @ana | ⚪ |
"""


def _directives(text: str) -> set[str]:
    rf = parse_record("goals/q3.md", text.encode(), Config())
    return {st.text for st in rf.statements if st.directive}


def test_the_legend_maps_each_mark_to_its_words():
    found = legend(["Marks: ⚪ not started · 🔵 in flight · 🟠 at risk · ✔️ done", "| G1 | x | ⚪ |"])
    assert found == {"⚪": "not started", "🔵": "in flight", "🟠": "at risk", "✔": "done"}


def test_a_single_mark_in_prose_is_no_legend():
    assert legend(["Shipped ✅ on Monday, thanks all"]) == {}


def test_a_row_the_legend_calls_not_started_asks_for_its_objective():
    assert _directives(PAGE) == {"Route refund tickets to the payments queue automatically"}


def test_without_a_legend_a_mark_is_no_state():
    assert _directives(NO_LEGEND) == set()

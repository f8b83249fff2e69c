"""The history index counts what the selected rules ask about, nothing more: RL101 asks for the distinctive symbols
its directives name; a rule that is not selected, a statement that is not a directive and struck-through text ask
for nothing."""

from __future__ import annotations

from roadmap.analysis.context import history_symbols
from roadmap.lint import LintOptions, lint

PLAN = """# Punch-list

As of 2026-07-25.

## Punch-list

1. Wire `DeviceTokenMirror` and `VT_TOKEN_MIRROR` into the runner.
2. ~~Port `OldHostMirror` to the runner.~~

## Notes

The runner keeps `SharedNotesThing` and `x` around.
"""


def test_only_the_symbols_a_selected_detector_asks_about(git_repo):
    repo = git_repo()
    repo.commit({"agents/punch-list.md": PLAN, "src/a.py": "x = 1\n"}, "docs: plan", "2026-07-25")
    repo.commit({"src/a.py": "class DeviceTokenMirror: ...\n"}, "feat: mirror", "2026-07-27")
    result = lint(repo.path, LintOptions(use_cache=False))
    assert result.context is not None
    assert history_symbols(result.context) == {"DeviceTokenMirror", "VT_TOKEN_MIRROR"}
    assert result.context.get_history().symbols == {"DeviceTokenMirror", "VT_TOKEN_MIRROR"}
    assert [f.code for f in result.findings] == ["RL101"]

    others = lint(repo.path, LintOptions(use_cache=False, select=("RL102", "RL103", "RL104")))
    assert others.context is not None and history_symbols(others.context) == set()

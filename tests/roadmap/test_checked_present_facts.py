"""A ticked box records work done, but a clause of it in the present tense is still a claim about the code now.

"[x] Virtualized grid shipped behind `ENABLE_VIRTUAL_LIST`: opt-in, off by default" says what the flag's default
is today, and "[x] Price rounding lives in `src/cart.ts:5-13`" where the function is: a later flip or a slide of
the lines makes them stale (RL104, RL303). "[x] Defaulted the grid to off in 4.1" is the history of 4.1. Also: a
JavaScript flag read on the line after its name (`export const X =` then `process.env.Y !== "0"`) is that flag's.
"""

from __future__ import annotations

from roadmap.config import Config
from roadmap.lint import LintOptions, lint
from roadmap.records import parse_record

LIST = "docs/release-checklist.md"
FLAGS = 'export const ENABLE_VIRTUAL_LIST =\n  process.env.NEXT_PUBLIC_VIRTUAL_LIST {} "{}";\n'


def _at(md: str, needle: str):
    rf = parse_record(LIST, md.encode(), Config())
    return next(st for st in rf.statements if needle in st.text)


def test_a_ticked_box_in_the_present_tense_is_a_current_claim_not_a_request():
    md = (
        "# Release 4.2\n\n## Performance\n"
        "- [x] Virtual grid shipped behind `ENABLE_VIRTUAL_LIST`: opt-in, off by default\n"
        "  - QA compared both grids.\n"
        "- [x] Price rounding lives in `src/cart.ts:5-13` (`roundCents`)\n"
        "- [x] Defaulted the grid to off in 4.1\n"
        "- [x] Added the `ENABLE_VIRTUAL_LIST` flag\n"
    )
    for needle in ("off by default", "lives in"):
        st = _at(md, needle)
        assert not st.historical and not st.directive, needle
    assert _at(md, "QA compared").historical  # under a ticked box: its history
    assert _at(md, "Defaulted the grid").historical  # what was done in 4.1
    assert _at(md, "Added the").historical


def _repo(git_repo, item: str):
    repo = git_repo()
    repo.commit({"src/flags.ts": FLAGS.format("===", "1")}, "flags", "2026-01-08")
    repo.commit({LIST: f"# Release 4.2 checklist\n\n## Performance\n{item}\n"}, "checklist", "2026-01-20")
    repo.commit({"src/flags.ts": FLAGS.format("!==", "0")}, "feat(grid): virtual grid for everyone", "2026-02-16")
    return repo


def _codes(repo) -> set[str]:
    return {f.code for f in lint(repo.path, LintOptions(use_cache=False, select=("RL104",))).findings}


def test_a_ticked_box_that_calls_a_flag_opt_in_is_stale_once_its_default_flips(git_repo):
    repo = _repo(git_repo, "- [x] Virtual grid shipped behind `ENABLE_VIRTUAL_LIST`: opt-in, off by default")
    assert _codes(repo) == {"RL104"}


def test_a_ticked_box_that_records_what_was_done_then_is_not(git_repo):
    repo = _repo(git_repo, "- [x] Shipped the virtual grid behind `ENABLE_VIRTUAL_LIST` in 4.1")
    assert _codes(repo) == set()

"""RL403 state-unknown."""

from __future__ import annotations

from typing import Iterator

from roadmap.analysis.context import LintContext
from roadmap.analysis.states import states
from roadmap.findings import Hit, Related

MAX_RELATED = 5


def state_unknown(ctx: LintContext) -> Iterator[Hit]:
    """What it does:
    Reports a word in a state position (a `State`/`Status`/`Lifecycle` cell of a row, or a `State:`/`Status:`
    line of a row's notes) that is not a state word roadmap knows: once per distinct word, at its first
    use, with how many times it is used. Known words are the `states` config (by default the common ones:
    PLANNED, TODO, READY, WIP, IN-PROGRESS, GATING, BLOCKED, PARKED, DONE, CLOSED, ...) and any word a
    record defines in a lifecycle table (a `State` column beside a `Meaning` column) or in a legend (a list
    `**word** — meaning` after a lead-in such as "Legend:", "Status key" or "Status words:"); a legend word
    whose meaning names a closed state ("merged and live") is closed.

    Why:
    A row in a state nobody told the linter about is never compared with its canonical state, so a
    contradiction there goes unreported. Saying so once is better than ignoring it silently.

    Example:
    ```markdown
    | ENG-SPEC-DECODE | Speculative decoding | INVENTORIED | ... |
    ```
    `INVENTORIED is not a state word roadmap knows (3 rows use it)`.

    Fix:
    Add the word to `states` in `[tool.roadmap]` (and to `closed_states` when it means the work is
    finished), or define it in the records: a lifecycle table (`| State | Meaning |`) or a legend list.
    """
    found = states(ctx)
    first: dict[str, list[tuple[str, int]]] = {}
    for u in sorted(found.unknown, key=lambda u: (u.st.path, u.line)):
        first.setdefault(u.word, []).append((u.st.path, u.line))
    for word, uses in sorted(first.items(), key=lambda kv: kv[1][0]):
        path, line = uses[0]
        more = len(uses) - 1
        counted = f" ({len(uses)} rows use it)" if more else ""
        yield Hit(
            severity="info",
            message=f"{word} is not a state word roadmap knows{counted}; rows in this state are not checked",
            path=path,
            line=line,
            end_line=line,
            related=[Related(p, n, f"also {word}") for p, n in uses[1 : 1 + MAX_RELATED]],
            fix=f'add "{word}" to `states` in [tool.roadmap] (and to `closed_states` if it means finished), '
            "or define it in a lifecycle table (`| State | Meaning |`)",
            key=f"unknown-state:{word}",
        )

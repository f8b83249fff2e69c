"""RL901 unused-suppression (runs after suppressions were applied)."""

from __future__ import annotations

from typing import Iterator

from roadmap.analysis.context import LintContext
from roadmap.findings import Hit, matches


def unused_suppression(ctx: LintContext) -> Iterator[Hit]:
    """What it does:
    Flags a `<!-- roadmap: disable... -->` comment that suppressed no finding in this run, and one that names
    a code no rule has. A comment is only judged when every rule it names ran (so `--select` never makes a
    suppression look unused).

    Why:
    Suppressions outlive the problem they hid. A stale one hides the next real finding on that line.

    Example:
    ```markdown
    <!-- roadmap: disable-next-line RL302 -- file is being split -->
    See `engine/core/scheduler.py:10-20`.
    ```
    after the reference was corrected: the comment no longer suppresses anything.

    Fix:
    Delete the comment (or correct the code it names).
    """
    used = ctx.facts.suppressions_used
    ran = ctx.selected
    known = sorted(ctx.known_codes)
    for rf in ctx.records:
        for sup in rf.suppressions:
            if sup.action == "enable" or sup in used:
                continue
            codes = [c.upper() for c in sup.codes]
            named = [c for c in known if not codes or matches(c, codes)]
            unknown = [c for c in codes if not any(r.startswith(c) for r in known)]
            what = f"`{sup.action}{' ' + ' '.join(sup.codes) if sup.codes else ''}`"
            if unknown:
                msg = f"suppression {what} names no known rule ({', '.join(unknown)})"
            elif named and all(c in ran for c in named if c != "RL901"):
                msg = f"suppression {what} suppresses nothing"
            else:
                continue  # some rule it names did not run: cannot tell
            yield Hit(
                message=msg,
                path=rf.path,
                line=sup.line,
                end_line=sup.line,
                fix="delete the comment",
                key=f"{sup.action}:{','.join(codes)}",
            )

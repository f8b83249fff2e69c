"""RL302 line-out-of-range."""

from __future__ import annotations

from typing import Iterator

from roadmap.analysis.anchors import relocate
from roadmap.analysis.context import LintContext
from roadmap.analysis.ids import row_tag
from roadmap.analysis.refs import further_ranges, is_foreign, quote, readable_refs
from roadmap.findings import Hit


def line_out_of_range(ctx: LintContext) -> Iterator[Hit]:
    """What it does:
    Flags a `path:line`, `path:line-line`, `path#L10-L20` or `[text](path#L10)` reference whose lines run
    past the end of the file in the linted tree.

    Why:
    The file shrank or was rewritten since the record was written, so the reference points at nothing and
    whatever the record says about those lines can no longer be checked.

    Example:
    ```markdown
    The fallback synchronize is at `engine/worker/runner.py:2687-2695`.
    ```
    when `engine/worker/runner.py` now has 2,100 lines.

    Fix:
    Re-point the reference at the lines that hold what the record means. When the reference also names a
    symbol that is still in the file, RL303 reports it instead, with a safe fix.
    """
    relocating = "RL303" in ctx.selected
    for site, path, lines in readable_refs(ctx, lambda ref: ref.line is not None):
        ref = site.ref
        if ref.line is None:
            continue
        last = max(ref.line, ref.end_line or ref.line)
        if last <= len(lines) or is_foreign(ctx, site):
            continue
        if relocating and ref.symbol and relocate(lines, ref, further_ranges(site)) is not None:
            continue  # RL303 re-anchors it: one finding per stale reference
        span = f"line {last}" if ref.end_line in (None, ref.line) else f"lines {ref.line}-{ref.end_line}"
        yield Hit(
            message=f"{quote(ref)} points past the end of {path}: it has {len(lines)} lines, the reference "
            f"needs {span}",
            path=site.rf.path,
            line=site.line,
            end_line=site.line,
            record_id=row_tag(ctx, site.st),
            fix=f"re-point the reference at the lines of {path} that hold what the record means",
            key=f"{ref.path}:{ref.line}-{ref.end_line}",
        )

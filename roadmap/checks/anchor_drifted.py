"""RL303 anchor-drifted."""
from __future__ import annotations

from typing import Iterator

from roadmap.analysis.anchors import locate, repoint, symbol_parts
from roadmap.analysis.context import LintContext
from roadmap.analysis.refs import quote, readable_refs
from roadmap.findings import Edit, Hit


def _span(start: int, end: int | None) -> str:
    return f"{start}" if end in (None, start) else f"{start}-{end}"


def anchor_drifted(ctx: LintContext) -> Iterator[Hit]:
    """What it does:
    Checks that the symbol a reference names is still on the lines it points at: the symbol of a
    `path::Symbol` reference, or a backticked symbol written right beside a `path:line` reference
    (`` `GPUModelRunner::async_device_mirror()` (src/gpu/runner.cpp:2430-2455) ``). When the symbol moved, the
    message says where it is now; when it is gone from the file, it says that.

    Why:
    Line numbers rot with every edit above them. A reference that still resolves but points at other code
    is worse than a broken one: it looks right and misleads.

    Example:
    ```markdown
    `async_device_mirror()` (src/gpu/runner.cpp:2430-2455) engages on any CUDA GPU.
    ```
    after 40 lines were added above the function:
    `` `async_device_mirror` is no longer on src/gpu/runner.cpp:2430-2455; it is at src/gpu/runner.cpp:2470-2495 now ``.

    Fix:
    Safe fix (`roadmap lint --fix`): when the symbol's definition is found on exactly one line, the reference
    is re-pointed there, keeping the length of the range (`:2430-2455` -> `:2470-2495`). When several lines
    match equally, or the symbol is gone, there is no automatic fix: re-read the file and correct the record.
    """
    for site, path, lines in readable_refs(ctx, lambda ref: bool(ref.symbol)):
        ref = site.ref
        loc = locate(lines, ref)
        if loc.status == "on-lines" or not ref.symbol:
            continue
        name, _ = symbol_parts(ref.symbol)
        where = f"{path}:{_span(ref.line, ref.end_line)}" if ref.line else path
        edits: list[Edit] = []
        fix = None
        if loc.status == "absent":
            msg = f"`{name}` ({quote(ref)}) is no longer in {path}"
            fix = "find where the symbol went (or what replaced it) and correct the record"
        elif loc.status == "ambiguous":
            shown = ", ".join(str(n) for n in loc.candidates[:5])
            msg = (f"`{name}` is no longer on {where}; it appears on several lines now ({shown}"
                   f"{', ...' if len(loc.candidates) > 5 else ''})")
            fix = "re-point the reference at the right one of those lines"
        else:
            assert loc.line is not None
            new_end = None if ref.end_line is None or ref.line is None or ref.end_line == ref.line \
                else loc.line + (ref.end_line - ref.line)
            msg = f"`{name}` is no longer on {where}; it is at {path}:{_span(loc.line, new_end)} now"
            new_text = repoint(ref.text, ref, loc.line) if ref.text else None
            if new_text and ref.record_line is not None and ref.start_col is not None:
                # the exact span the parser found the reference at (records/spans.py), never a text search
                edits.append(Edit(path=site.rf.path, line=ref.record_line, col=ref.start_col, old=ref.text,
                                  new=new_text))
                fix = f"re-point `{ref.text}` to `{new_text}`"
            else:
                fix = f"re-point the reference at line {loc.line}"
        yield Hit(
            message=msg, path=site.rf.path, line=site.line, end_line=site.line, record_id=site.st.row_id,
            fix=fix, edits=edits, key=f"{ref.path}::{name}")

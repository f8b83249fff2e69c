"""RL303 anchor-drifted."""

from __future__ import annotations

from typing import Iterator

from roadmap.analysis.anchors import defines, locate, repoint, symbol_parts
from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import RefSite
from roadmap.analysis.ids import row_tag
from roadmap.analysis.refs import further_ranges, is_foreign, quote, readable_refs, record_lines
from roadmap.findings import Edit, Hit
from roadmap.history.git import GitError, run_git

MAX_GREP_LINES = 200  # lines naming a symbol that are read for its definition in other files


def _edit_span(ctx: LintContext, site: RefSite) -> tuple[str, tuple[int, int] | None]:
    """What a fix rewrites and where: the reference as placed by the parser; for a link, its target only (the
    link text as written may carry markup, `[`sym`](a.rs#L3)`), found once on the statement's lines."""
    ref = site.ref
    if ref.form != "link":
        at = (ref.record_line, ref.start_col) if ref.record_line is not None and ref.start_col is not None else None
        return ref.text, at
    href = ref.text[ref.text.rfind("](") + 2 : -1]
    lines = record_lines(ctx, site.rf)
    hits = [
        (n, col + 2)
        for n in range(site.st.line, min(site.st.end_line, len(lines)) + 1)
        for col in _all(lines[n - 1], f"]({href})")
    ]
    return href, hits[0] if len(hits) == 1 else None


def _all(line: str, needle: str) -> list[int]:
    out, i = [], line.find(needle)
    while i >= 0:
        out.append(i)
        i = line.find(needle, i + 1)
    return out


def _span(start: int, end: int | None) -> str:
    return f"{start}" if end in (None, start) else f"{start}-{end}"


def anchor_drifted(ctx: LintContext) -> Iterator[Hit]:
    """What it does:
    Checks that the symbol a reference names is still on the lines it points at: the symbol of a
    `path::Symbol` reference, or a backticked symbol written right beside a `path:line` reference
    (`` `GPUModelRunner::async_device_mirror()` (src/gpu/runner.cpp:2430-2455) ``). When the symbol moved, the
    message says where it is now; when it is gone from the file, it says that. A line that defines the name
    (`def`, `class`, a C-like function header, a block labelled with it in quotes as HCL's
    `resource "aws_launch_template" "nodes" {`) is where it is, before a line that only uses it.

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
    is re-pointed there, keeping the length of the range (`:2430-2455` -> `:2470-2495`). When the cited file
    only uses the name now (a call), the message names the one other code file that defines it, if there is
    one, and no edit is offered. When several lines
    define it equally, or the symbol is gone, there is no automatic fix: re-read the file and correct the record.
    Only references proven ours are checked, so a fix never rewrites another project's line numbers: a path
    as written from the repository root (or a markdown link) that exists here, not in an Upstream column nor
    after "upstream"/another project's name, and not a bare file name (`ops.cpp:4624` may be anyone's). A
    symbol of one or two characters, or one mentioned on several lines and defined on none, is not looked for.
    """
    for site, path, lines in readable_refs(ctx, lambda ref: bool(ref.symbol)):
        ref = site.ref
        loc = locate(lines, ref, further_ranges(site))
        if loc.status == "on-lines" or not ref.symbol or is_foreign(ctx, site):
            continue
        name, _ = symbol_parts(ref.symbol)
        where = f"{path}:{_span(ref.line, ref.end_line)}" if ref.line else path
        edits: list[Edit] = []
        fix = None
        if loc.status == "absent":
            if ref.line is not None and max(ref.line, ref.end_line or ref.line) > len(lines):
                continue  # past the end of the file and gone from it: RL302 reports the reference
            msg = f"`{name}` ({quote(ref)}) is no longer in {path}"
            fix = "find where the symbol went (or what replaced it) and correct the record"
        elif loc.status == "ambiguous":
            shown = ", ".join(str(n) for n in loc.candidates[:5])
            msg = (
                f"`{name}` is no longer on {where}; it appears on several lines now ({shown}"
                f"{', ...' if len(loc.candidates) > 5 else ''})"
            )
            fix = "re-point the reference at the right one of those lines"
        elif loc.score == 1 and (elsewhere := defined_elsewhere(ctx, ref.symbol, path)) is not None:
            # the file only uses it now (a call): the definition went to another file, which is where it is
            there = f"{elsewhere[0]}:{elsewhere[1]}"
            msg = (
                f"`{name}` is no longer on {where}; {path} only uses it now (line {loc.line}), it is defined at {there}"
            )
            fix = f"re-point the reference at {there}"
        else:
            assert loc.line is not None
            new_end = (
                None
                if ref.end_line is None or ref.line is None or ref.end_line == ref.line
                else loc.line + (ref.end_line - ref.line)
            )
            past = ref.line is not None and max(ref.line, ref.end_line or ref.line) > len(lines)
            shrunk = f" (past the end: the file has {len(lines)} lines)" if past else ""
            msg = f"`{name}` is no longer on {where}{shrunk}; it is at {path}:{_span(loc.line, new_end)} now"
            old_text, at = _edit_span(ctx, site)
            new_text = repoint(old_text, ref, loc.line) if old_text else None
            if loc.score == 1:  # only used there (a call): no definition found to re-point at with certainty
                msg = f"`{name}` is no longer on {where}{shrunk}; {path} only uses it now (line {loc.line})"
                fix = "find where the symbol is defined now and correct the record"
            elif new_text and at is not None:
                # the exact span the reference is written at (records/spans.py), never a text search
                edits.append(Edit(path=site.rf.path, line=at[0], col=at[1], old=old_text, new=new_text))
                fix = f"re-point `{old_text}` to `{new_text}`"
            else:
                fix = f"re-point the reference at line {loc.line}"
        beyond = ref.line is not None and max(ref.line, ref.end_line or ref.line) > len(lines)
        yield Hit(
            message=msg,
            path=site.rf.path,
            line=site.line,
            end_line=site.line,
            record_id=row_tag(ctx, site.st),
            fix=fix,
            edits=edits,
            key=f"{ref.path}::{name}",
            # the range is also past the end of the file (RL302's case): one finding, which says where it went
            evidence=[{"kind": "file", "path": path, "lines": len(lines), "reasons": ["RL302"]}] if beyond else [],
        )


def defined_elsewhere(ctx: LintContext, symbol: str, path: str) -> tuple[str, int] | None:
    """The one line of another code file at the linted revision that defines `symbol` (`git grep -w`), or None
    (none, several, or git cannot tell): where a definition went when the file a record cites only calls it now."""
    name, _ = symbol_parts(symbol)
    if not name:
        return None
    rev = ctx.tree.rev or None
    try:
        out = run_git(
            ctx.root, "grep", "-n", "-w", "-I", "-F", "--no-color", "-e", name, *([rev] if rev else []), "--", ".",
            check=False,
        )  # fmt: skip
    except GitError:
        return None
    prefix = f"{rev}:" if rev else ""
    found: list[tuple[str, int]] = []
    for raw in out.decode("utf-8", "surrogateescape").splitlines()[:MAX_GREP_LINES]:
        entry = raw[len(prefix) :] if prefix and raw.startswith(prefix) else raw
        file, _, rest = entry.partition(":")
        number, _, text = rest.partition(":")
        if file == path or not number.isdigit() or file.endswith((".md", ".markdown", ".rst", ".txt")):
            continue
        if defines(text, symbol):
            found.append((file, int(number)))
    return found[0] if len(found) == 1 else None

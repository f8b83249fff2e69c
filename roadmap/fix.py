"""Safe fixes: apply the `Edit`s findings carry to record files, or show them as a unified diff.

An Edit is an exact span: the characters `old` at column `col` of line `line` (lines split on "\\n" only, as
the parser splits them; see roadmap/records/source.py). It applies only when exactly those characters are
still there, and nothing else on the line or in the file changes (line endings, undecodable bytes and a
byte-order mark included). A file is written atomically and never through a symlink.

The caller re-lints after writing (roadmap/cli.py): fixes run to a fixed point, and a fix whose finding is
still reported afterwards is named as not converged, as ruff does.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path

from roadmap.findings import Edit, Finding
from roadmap.safefs import DEFAULT_MAX_BYTES, Declined, no_symlink_between, read_contained, write_atomic

_BOM = "\ufeff"


@dataclass
class FilePlan:
    path: str
    before: str
    after: str
    applied: list[Edit] = field(default_factory=list)


@dataclass
class FixPlan:
    files: list[FilePlan]
    fixed: list[Finding]  # findings all of whose edits apply
    skipped: list[Edit]  # edits whose text was no longer at their span, or that overlap another edit
    refused: dict[str, str] = field(default_factory=dict)  # path -> why no fix is written to it (a symlink, ...)

    def diff(self) -> str:
        chunks: list[str] = []
        for fp in self.files:
            chunks.extend(
                difflib.unified_diff(keep_ends(fp.before), keep_ends(fp.after), f"a/{fp.path}", f"b/{fp.path}")
            )
        return "".join(c if c.endswith("\n") else c + "\n\\ No newline at end of file\n" for c in chunks)


def keep_ends(text: str) -> list[str]:
    """`text` as lines split on "\\n" only, each keeping its "\\n" (str.splitlines would split on U+2028 too)."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def plan_fixes(root: Path, findings: list[Finding], max_bytes: int = DEFAULT_MAX_BYTES) -> FixPlan:
    """What `--fix` would change in the working tree under `root`."""
    edits_by_path: dict[str, list[Edit]] = {}
    for f in findings:
        for e in f.edits:
            edits_by_path.setdefault(e.path, []).append(e)
    plans: list[FilePlan] = []
    applied_all: set[Edit] = set()
    skipped: list[Edit] = []
    refused: dict[str, str] = {}
    for path in sorted(edits_by_path):
        wanted = sorted(set(edits_by_path[path]), key=lambda e: (e.line, e.col, e.old, e.new))
        why = _unwritable(root, path)
        before = None
        if why is None:
            try:
                # surrogateescape keeps undecodable bytes, so untouched lines are written back byte for byte
                before = read_contained(root, path, max_bytes).decode("utf-8", "surrogateescape")
            except Declined as exc:
                why = str(exc)
            except OSError as exc:
                why = f"cannot be read ({exc.strerror or exc})"
        if before is None:
            refused[path] = why or "cannot be read"
            skipped.extend(wanted)
            continue
        after, applied, missed = apply_edits(before, wanted)
        skipped.extend(missed)
        if after != before:
            plans.append(FilePlan(path, before, after, applied))
            applied_all.update(applied)
    fixed = [f for f in findings if f.edits and all(e in applied_all for e in f.edits)]
    return FixPlan(plans, fixed, skipped, refused)


def apply_edits(text: str, edits: list[Edit]) -> tuple[str, list[Edit], list[Edit]]:
    """(new text, edits applied, edits skipped): each edit replaces exactly its span when the span still
    holds its `old` text; an edit overlapping one already taken is skipped, never merged."""
    bom = 1 if text.startswith(_BOM) else 0  # the parser drops a BOM, so line 1's columns start after it
    lines = text.split("\n")
    by_line: dict[int, list[tuple[int, int, Edit]]] = {}
    applied: list[Edit] = []
    skipped: list[Edit] = []
    for e in edits:
        start = e.col + (bom if e.line == 1 else 0)
        stop = start + len(e.old)
        taken = by_line.setdefault(e.line, [])
        ok = (
            1 <= e.line <= len(lines)
            and e.col >= 0
            and e.old
            and "\n" not in e.old
            and "\n" not in e.new
            and lines[e.line - 1][start:stop] == e.old
            and not any(s < stop and start < t for s, t, _ in taken)
        )
        if ok:
            taken.append((start, stop, e))
            applied.append(e)
        else:
            skipped.append(e)
    for n, spans in by_line.items():
        line = lines[n - 1] if 1 <= n <= len(lines) else ""
        for start, stop, e in sorted(spans, key=lambda s: s[0], reverse=True):  # right to left: columns hold
            line = line[:start] + e.new + line[stop:]
        if spans:
            lines[n - 1] = line
    return "\n".join(lines), applied, skipped


def write_fixes(root: Path, plan: FixPlan) -> list[str]:
    """Write each planned file atomically (keeping its permission bits); the paths not written (changed
    since it was planned, or a symlink by now) are returned, and left as they are."""
    not_written: list[str] = []
    for fp in plan.files:
        target = root / fp.path
        try:
            if _unwritable(root, fp.path) is not None:
                raise Declined("a symlink")
            current = read_contained(root, fp.path, max(len(fp.before.encode("utf-8", "surrogateescape")), 1))
            if current.decode("utf-8", "surrogateescape") != fp.before:
                raise Declined("changed since the fix was planned")
            write_atomic(target, fp.after.encode("utf-8", "surrogateescape"), target.stat().st_mode & 0o7777)
        except (Declined, OSError):
            not_written.append(fp.path)
    return not_written


def _unwritable(root: Path, path: str) -> str | None:
    if not no_symlink_between(root, path):
        return "a symlink (or inside a symlinked directory); roadmap never writes through one"
    if not os.path.isfile(root / path):
        return "not a regular file"
    return None

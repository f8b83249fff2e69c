"""Safe fixes: apply the `Edit`s findings carry to record files, or show them as a unified diff.

Only the lines an Edit names are touched; every other byte of the file (line endings included) is kept.
An Edit whose `old` text is no longer on its line is skipped, never guessed.
"""
from __future__ import annotations

import difflib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from roadmap.findings import Edit, Finding


@dataclass
class FilePlan:
    path: str
    before: str
    after: str
    applied: list[Edit] = field(default_factory=list)


@dataclass
class FixPlan:
    files: list[FilePlan]
    fixed: list[Finding]       # findings all of whose edits apply
    skipped: list[Edit]        # edits whose text was no longer on the line

    def diff(self) -> str:
        chunks: list[str] = []
        for fp in self.files:
            chunks.extend(difflib.unified_diff(fp.before.splitlines(keepends=True), fp.after.splitlines(keepends=True),
                                               f"a/{fp.path}", f"b/{fp.path}"))
        return "".join(c if c.endswith("\n") else c + "\n\\ No newline at end of file\n" for c in chunks)


def plan_fixes(root: Path, findings: list[Finding]) -> FixPlan:
    """What `--fix` would change in the working tree under `root`."""
    edits_by_path: dict[str, list[Edit]] = {}
    for f in findings:
        for e in f.edits:
            edits_by_path.setdefault(e.path, []).append(e)
    plans: list[FilePlan] = []
    applied_all: set[Edit] = set()
    skipped: list[Edit] = []
    for path in sorted(edits_by_path):
        try:
            # surrogateescape keeps undecodable bytes, so untouched lines are written back byte for byte
            before = (root / path).read_bytes().decode("utf-8", "surrogateescape")
        except OSError:
            skipped.extend(edits_by_path[path])
            continue
        lines = before.splitlines(keepends=True)
        applied: list[Edit] = []
        for e in sorted(set(edits_by_path[path]), key=lambda e: (e.line, e.old, e.new)):
            if 1 <= e.line <= len(lines) and e.old and e.old in lines[e.line - 1]:
                lines[e.line - 1] = lines[e.line - 1].replace(e.old, e.new)
                applied.append(e)
            else:
                skipped.append(e)
        after = "".join(lines)
        if after != before:
            plans.append(FilePlan(path, before, after, applied))
            applied_all.update(applied)
    fixed = [f for f in findings if f.edits and all(e in applied_all for e in f.edits)]
    return FixPlan(plans, fixed, skipped)


def write_fixes(root: Path, plan: FixPlan) -> None:
    for fp in plan.files:
        target = root / fp.path
        fd, tmp = tempfile.mkstemp(prefix=".roadmap-fix-", dir=target.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(fp.after.encode("utf-8", "surrogateescape"))
        os.chmod(tmp, target.stat().st_mode & 0o7777)
        os.replace(tmp, target)

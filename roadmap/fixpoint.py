"""`roadmap lint --fix`: apply the safe fixes, lint again, and repeat until nothing more applies, as ruff does.

Each pass writes only exact spans (roadmap/fix.py) and then lints the fixed files again, so what is reported
afterwards is what the records say now. A fix whose finding is still reported on the same line after it was
applied did not converge: it is named, never counted as fixed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from roadmap.config import Config
from roadmap.findings import Edit, Finding
from roadmap.fix import plan_fixes, write_fixes
from roadmap.lint import LintOptions, LintResult, lint

MAX_PASSES = 10


@dataclass
class FixOutcome:
    result: LintResult  # the lint of the records as they are after the last pass
    fixed: int = 0  # findings fixed and no longer reported
    files: set[str] = field(default_factory=set)
    passes: int = 0
    skipped: list[Edit] = field(default_factory=list)  # edits whose text was no longer at their span
    refused: dict[str, str] = field(default_factory=dict)  # files no fix was written to, and why
    not_converged: list[Finding] = field(default_factory=list)
    written: list[dict[str, list[Edit]]] = field(default_factory=list)  # per pass: path -> the edits written

    def summary(self) -> list[str]:
        """The lines `roadmap lint --fix` prints on stderr."""
        out = [
            f"roadmap: fixed {self.fixed} finding(s) in {len(self.files)} file(s)"
            + (f"; {len(self.skipped)} fix(es) skipped (the text at their span changed)" if self.skipped else "")
        ]
        out += [f"roadmap: no fix written to {path}: {why}" for path, why in sorted(self.refused.items())]
        out += [
            f"roadmap: warning: the fix for {f.code} at {f.path}:{f.line} did not converge (still reported after "
            f"{self.passes} pass(es)); please report this as a bug in roadmap"
            for f in self.not_converged
        ]
        return out


def _key(f: Finding) -> tuple[str, str, int, str]:
    return (f.code, f.path, f.line, f.fingerprint)


def fix_to_fixed_point(
    root: Path, options: LintOptions, result: LintResult, max_bytes: int, config: Config | None = None
) -> FixOutcome:
    """Fix, re-lint, repeat (at most MAX_PASSES times) starting from `result`, the lint of the current files.
    `config`: the one `result` was linted with (the CLI's adds the files it names); None: the repository's."""
    outcome = FixOutcome(result)
    applied: dict[tuple[str, str, int, str], Finding] = {}
    while outcome.passes < MAX_PASSES:
        plan = plan_fixes(root, outcome.result.findings, max_bytes)
        outcome.refused.update(plan.refused)
        if not plan.files:
            outcome.skipped = plan.skipped
            break
        failed = set(write_fixes(root, plan))
        for path in failed:
            outcome.refused[path] = "changed on disk while it was being fixed"
        written = {fp.path for fp in plan.files} - failed
        if not written:
            break
        outcome.files |= written
        outcome.written.append({fp.path: fp.applied for fp in plan.files if fp.path in written})
        applied.update((_key(f), f) for f in plan.fixed if f.path in written)
        outcome.passes += 1
        outcome.result = lint(root, options, config)
    still = {_key(f) for f in outcome.result.findings}
    outcome.not_converged = [f for k, f in applied.items() if k in still]
    outcome.fixed = len(applied) - len(outcome.not_converged)
    return outcome

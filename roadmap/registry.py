"""The rule registry: one table from stable codes to rules, the way ruff's codes.rs maps codes to rules.

A rule is a function in its own module under roadmap/checks/ that takes the LintContext and returns Hits; it
never imports this module. The runner stamps each Hit with the rule's code, name and default severity. The
function's docstring has the sections *What it does*, *Why*, *Example*, *Fix*, which `roadmap rule CODE`
prints and docs/rules.md is generated from (tools/gen_rules_doc.py).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Callable, Iterable

from roadmap.analysis.context import Detector, LintContext
from roadmap.checks import (
    anchor_drifted,
    claim_stale,
    default_changed,
    directive_landed,
    evidence_invalid,
    figure_superseded,
    figure_unbacked,
    line_out_of_range,
    path_missing,
    premise_refuted,
    record_unreadable,
    rerun_done,
    state_contradiction,
    state_unknown,
    unknown_reference,
    unused_suppression,
)
from roadmap.findings import SEVERITIES, Hit

RuleFunc = Callable[[LintContext], Iterable[Hit]]
PHASES = ("check", "post")  # "check": runs on records+facts; "post": runs after suppressions (RL901)


@dataclass(frozen=True)
class Rule:
    code: str  # "RL301"
    name: str  # "path-missing"
    severity: str  # default severity
    doc: str  # What it does / Why / Example / Fix
    func: RuleFunc
    phase: str = "check"

    @property
    def summary(self) -> str:
        """The first sentence of *What it does*, for listings and SARIF shortDescription."""
        body = doc_sections(self.doc).get("What it does", self.doc).strip()
        first = " ".join(body.split("\n\n")[0].split())
        return re.split(r"(?<!\.)\.\s+(?=[A-Z`(])", first)[0].rstrip(".") + "." if first else self.name


# code     name                    default    phase    function
TABLE: tuple[tuple[str, str, str, str, RuleFunc], ...] = (
    ("RL001", "record-unreadable", "warning", "check", record_unreadable.record_unreadable),
    ("RL101", "directive-landed", "error", "check", directive_landed.directive_landed),
    ("RL102", "rerun-done", "error", "check", rerun_done.rerun_done),
    ("RL103", "premise-refuted", "error", "check", premise_refuted.premise_refuted),
    ("RL104", "default-changed", "error", "check", default_changed.default_changed),
    ("RL201", "figure-superseded", "error", "check", figure_superseded.figure_superseded),
    ("RL202", "figure-unbacked", "error", "check", figure_unbacked.figure_unbacked),
    ("RL301", "path-missing", "error", "check", path_missing.path_missing),
    ("RL302", "line-out-of-range", "error", "check", line_out_of_range.line_out_of_range),
    ("RL303", "anchor-drifted", "warning", "check", anchor_drifted.anchor_drifted),
    ("RL304", "unknown-reference", "error", "check", unknown_reference.unknown_reference),
    ("RL401", "state-contradiction", "error", "check", state_contradiction.state_contradiction),
    ("RL402", "claim-stale", "warning", "check", claim_stale.claim_stale),
    ("RL403", "state-unknown", "info", "check", state_unknown.state_unknown),
    ("RL501", "evidence-invalid", "error", "check", evidence_invalid.evidence_invalid),
    ("RL901", "unused-suppression", "warning", "post", unused_suppression.unused_suppression),
)

# The stale-directive rules' detectors: analysis/stale.py runs the selected ones together, so a directive stale
# for several reasons is one finding (ctx.detectors).
DETECTORS: dict[str, Detector] = {
    "RL101": Detector(
        "RL101",
        directive_landed.applies,
        directive_landed.detect,
        directive_landed.symbols,
        directive_landed.prepare,
        blames_files=True,
    ),
    "RL102": Detector("RL102", rerun_done.applies, rerun_done.detect),
    "RL103": Detector(
        "RL103",
        premise_refuted.applies,
        premise_refuted.detect,
        prepare=premise_refuted.prepare,
        commit_tests=premise_refuted.COMMIT_TESTS,
    ),
    "RL104": Detector(
        "RL104",
        default_changed.applies,
        default_changed.detect,
        prepare=default_changed.prepare,
        commit_tests=default_changed.COMMIT_TESTS,
        prelude=default_changed.prelude,
    ),
    "RL401": Detector("RL401", state_contradiction.applies, state_contradiction.detect),
}


def _rules() -> dict[str, Rule]:
    out: dict[str, Rule] = {}
    for code, name, severity, phase, func in TABLE:
        assert severity in SEVERITIES and phase in PHASES and code not in out, code
        out[code] = Rule(code, name, severity, inspect.getdoc(func) or "", func, phase)
    return out


RULES: dict[str, Rule] = _rules()

SECTIONS = ("What it does", "Why", "Example", "Fix")


def doc_sections(doc: str) -> dict[str, str]:
    """Split a rule docstring on its `What it does:` / `Why:` / `Example:` / `Fix:` headings."""
    out: dict[str, str] = {}
    current: str | None = None
    lines: list[str] = []
    for line in doc.splitlines():
        head = line.strip().rstrip(":")
        if line.strip().endswith(":") and head in SECTIONS:
            if current is not None:
                out[current] = "\n".join(lines).strip("\n")
            current, lines = head, []
        elif current is not None:
            lines.append(line)
    if current is not None:
        out[current] = "\n".join(lines).strip("\n")
    return out


def all_rules() -> list[Rule]:
    return [RULES[c] for c in sorted(RULES)]

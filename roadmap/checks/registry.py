"""The rule registry: stable codes -> rules. A rule is one module under roadmap/checks/ that registers itself.

Each rule function takes the LintContext and yields Findings; its docstring has the sections
*What it does*, *Why*, *Example*, *Fix*, which `roadmap rule CODE` prints and docs/rules.md is generated from.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from roadmap.findings import SEVERITIES, Finding

if TYPE_CHECKING:
    from roadmap.checks.context import LintContext


@dataclass(frozen=True)
class Rule:
    code: str                  # "RL301"
    name: str                  # "path-missing"
    severity: str              # default severity
    doc: str                   # What it does / Why / Example / Fix
    func: Callable[["LintContext"], Iterable[Finding]]

    def finding(self, **kwargs) -> Finding:
        """A Finding with this rule's code, name and default severity filled in."""
        kwargs.setdefault("severity", self.severity)
        return Finding(code=self.code, name=self.name, **kwargs)


RULES: dict[str, Rule] = {}


def rule(code: str, name: str, severity: str = "error"):
    assert severity in SEVERITIES, severity

    def register(func):
        if code in RULES:
            raise ValueError(f"rule code {code} registered twice")
        doc = inspect.getdoc(func) or ""
        RULES[code] = Rule(code=code, name=name, severity=severity, doc=doc, func=func)
        func.rule = RULES[code]
        return func

    return register


def all_rules() -> list[Rule]:
    import roadmap.checks.catalogue  # noqa: F401  (imports every rule module so they register)

    return [RULES[c] for c in sorted(RULES)]

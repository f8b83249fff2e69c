"""The rule registry: stable codes -> rules. A rule is one module under roadmap/checks/ that registers itself.

Each rule function takes the LintContext and yields Findings; its docstring has the sections
*What it does*, *Why*, *Example*, *Fix*, which `roadmap rule CODE` prints and docs/rules.md is generated from.
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from roadmap.findings import SEVERITIES, Finding

if TYPE_CHECKING:
    from roadmap.analysis.context import LintContext


@dataclass(frozen=True)
class Rule:
    code: str                  # "RL301"
    name: str                  # "path-missing"
    severity: str              # default severity
    doc: str                   # What it does / Why / Example / Fix
    func: Callable[["LintContext"], Iterable[Finding]]
    phase: str = "check"       # "check": runs on records+facts; "post": runs after suppressions (RL901)

    @property
    def summary(self) -> str:
        """The first sentence of *What it does*, for listings and SARIF shortDescription."""
        body = doc_sections(self.doc).get("What it does", self.doc).strip()
        first = " ".join(body.split("\n\n")[0].split())
        return re.split(r"(?<!\.)\.\s+(?=[A-Z`(])", first)[0].rstrip(".") + "." if first else self.name

    def finding(self, **kwargs) -> Finding:
        """A Finding with this rule's code, name and default severity filled in."""
        kwargs.setdefault("severity", self.severity)
        return Finding(code=self.code, name=self.name, **kwargs)


RULES: dict[str, Rule] = {}


def rule(code: str, name: str, severity: str = "error", phase: str = "check"):
    assert severity in SEVERITIES, severity
    assert phase in ("check", "post"), phase

    def register(func):
        if code in RULES:
            raise ValueError(f"rule code {code} registered twice")
        doc = inspect.getdoc(func) or ""
        RULES[code] = Rule(code=code, name=name, severity=severity, doc=doc, func=func, phase=phase)
        func.rule = RULES[code]
        return func

    return register


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


def matches(code: str, prefixes: Iterable[str]) -> bool:
    """Does `code` start with any of the (upper-cased) prefixes? `ALL` matches every code."""
    return any(p == "ALL" or code.startswith(p) for p in prefixes)


def all_rules() -> list[Rule]:
    import roadmap.checks.catalogue  # noqa: F401  (imports every rule module so they register)

    return [RULES[c] for c in sorted(RULES)]

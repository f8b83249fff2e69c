"""Findings: what the lint runner reports. A rule returns `Hit`s; the runner stamps each with the rule's code,
name and default severity (roadmap/registry.py), so a rule module never imports the registry. Renderers and
the CLI consume Findings; rules never print."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Iterable

SEVERITIES = ("error", "warning", "info")


def matches(code: str, prefixes: Iterable[str]) -> bool:
    """Does `code` start with any of the (upper-cased) prefixes? `ALL` matches every code."""
    return any(p == "ALL" or code.startswith(p) for p in prefixes)


@dataclass(frozen=True)
class Related:
    path: str
    line: int
    message: str


@dataclass(frozen=True)
class Edit:
    """A safe fix: the characters `old`, written at column `col` of `line` (1-based; lines split on "\n" only,
    columns count characters), become `new`. roadmap/fix.py applies it only when `old` is still exactly there."""

    path: str
    line: int
    col: int
    old: str
    new: str


@dataclass
class Finding:
    code: str
    name: str
    severity: str
    message: str
    path: str
    line: int
    end_line: int
    record_id: str | None = None
    related: list[Related] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(
        default_factory=list
    )  # {"kind": "commit"|"evidence"|"statement"|"file", ...}
    fix: str | None = None
    edits: list[Edit] = field(default_factory=list)
    key: str = ""  # stable content the fingerprint is computed from (text, not line numbers)

    @property
    def fingerprint(self) -> str:
        basis = "\x1f".join([self.code, self.path, self.record_id or "", self.key or self.message])
        return hashlib.sha256(basis.encode()).hexdigest()[:16]

    def sort_key(self) -> tuple[str, int, str, str]:
        return (self.path, self.line, self.code, self.message)

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "end_line": self.end_line,
            "record_id": self.record_id,
            "related": [{"path": r.path, "line": r.line, "message": r.message} for r in self.related],
            "evidence": self.evidence,
            "fix": self.fix,
            "fingerprint": self.fingerprint,
        }


@dataclass
class Hit:
    """What a rule found: a Finding but for the rule's code and name (and its severity, when the default)."""

    message: str
    path: str
    line: int
    end_line: int
    severity: str | None = None  # None: the rule's default severity
    record_id: str | None = None
    related: list[Related] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    fix: str | None = None
    edits: list[Edit] = field(default_factory=list)
    key: str = ""

    def stamp(self, code: str, name: str, default_severity: str) -> Finding:
        return Finding(
            code=code,
            name=name,
            severity=self.severity or default_severity,
            message=self.message,
            path=self.path,
            line=self.line,
            end_line=self.end_line,
            record_id=self.record_id,
            related=self.related,
            evidence=self.evidence,
            fix=self.fix,
            edits=self.edits,
            key=self.key,
        )

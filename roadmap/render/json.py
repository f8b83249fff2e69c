"""`--format json`: the machine-readable contract (schema_version 1: findings with code, location, related
locations, evidence, fix and fingerprint, and a summary per severity), sorted, no timestamps, byte-stable."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import roadmap
from roadmap import safejson

if TYPE_CHECKING:
    from roadmap.lint import LintResult

SCHEMA_VERSION = 1


def document(result: "LintResult") -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "roadmap", "version": roadmap.__version__},
        "head": result.head,
        "findings": [f.to_json() for f in sorted(result.findings, key=lambda f: f.sort_key())],
        "summary": result.summary(),
    }


def render(result: "LintResult", color: bool = False) -> str:
    return safejson.dumps(document(result), indent=2, ensure_ascii=False) + "\n"

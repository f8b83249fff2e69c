"""`--format sarif`: SARIF 2.1.0 for GitHub code scanning (`github/codeql-action/upload-sarif`).

Repo-relative `artifactLocation.uri` with `uriBaseId: %SRCROOT%`, `region.startLine/endLine`, rules with help
text from the rule docstrings, `partialFingerprints` (content-based, stable across line moves) and
`relatedLocations` for the other surfaces of the same finding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import roadmap
from roadmap import safejson
from roadmap.registry import Rule, all_rules, doc_sections

if TYPE_CHECKING:
    from roadmap.findings import Finding
    from roadmap.lint import LintResult

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
FINGERPRINT_KEY = "roadmapFingerprint/v1"


def _uri(path: str) -> str:
    return quote(path, safe="/")


def _location(path: str, line: int, end_line: int | None = None) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": max(1, line)}
    if end_line is not None:
        region["endLine"] = max(region["startLine"], end_line)
    return {"physicalLocation": {"artifactLocation": {"uri": _uri(path), "uriBaseId": "%SRCROOT%"}, "region": region}}


def rule_descriptor(r: Rule) -> dict[str, Any]:
    sections = doc_sections(r.doc)
    what = " ".join(sections.get("What it does", r.summary).split())
    markdown = "\n\n".join(f"**{name}**\n\n{body}" for name, body in sections.items()) or r.doc
    return {
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": what},
        "help": {"text": r.doc, "markdown": markdown},
        "defaultConfiguration": {"level": LEVELS[r.severity]},
        "properties": {"tags": ["roadmap", "records"], "precision": "high"},
    }


def result_entry(f: "Finding", index: dict[str, int]) -> dict[str, Any]:
    text = f.message + (f" Fix: {f.fix}" if f.fix else "")
    entry: dict[str, Any] = {
        "ruleId": f.code,
        "level": LEVELS[f.severity],
        "message": {"text": text},
        "locations": [_location(f.path, f.line, f.end_line)],
        "partialFingerprints": {FINGERPRINT_KEY: f.fingerprint},
    }
    if f.code in index:
        entry["ruleIndex"] = index[f.code]
    if f.related:
        entry["relatedLocations"] = [
            dict(_location(r.path, r.line), id=i, message={"text": r.message}) for i, r in enumerate(f.related, 1)
        ]
    if f.record_id:
        entry["properties"] = {"recordId": f.record_id}
    return entry


def document(result: "LintResult") -> dict[str, Any]:
    rules = all_rules()
    index = {r.code: i for i, r in enumerate(rules)}
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "roadmap",
                "version": roadmap.__version__,
                "semanticVersion": roadmap.__version__,
                "rules": [rule_descriptor(r) for r in rules],
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": [result_entry(f, index) for f in result.findings],
    }
    if result.head:
        run["properties"] = {"head": result.head}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def render(result: "LintResult", color: bool = False) -> str:
    return safejson.dumps(document(result), indent=2, ensure_ascii=False) + "\n"

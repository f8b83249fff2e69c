"""Renderers: the JSON contract (DESIGN §3.3), SARIF for GitHub code scanning, workflow commands, markdown, text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import roadmap
from roadmap.registry import all_rules
from roadmap.findings import Edit, Finding, Related
from roadmap.lint import LintResult
from roadmap.render import FORMATS, render

HEAD = "0123456789abcdef0123456789abcdef01234567"


def findings() -> list[Finding]:
    return [
        Finding(
            code="RL301",
            name="path-missing",
            severity="error",
            message="`src/old.py:10` does not exist: renamed to src/new.py in abc1234 (2026-07-27, 'mv')",
            path="agents/roadmap.md",
            line=39,
            end_line=39,
            record_id="ROAD-V1-C2",
            related=[Related("agents/log.md", 12, "same reference, a|b")],
            evidence=[{"kind": "commit", "sha": "abc1234" + "0" * 33, "date": "2026-07-27", "subject": "mv"}],
            fix="point the reference at src/new.py",
            key="src/old.py",
        ),
        Finding(
            code="RL303",
            name="anchor-drifted",
            severity="warning",
            message="`run` is no longer on src/a.py:1-3; it is at src/a.py:8-10 now, 50% sure: a,b",
            path="agents/a b.md",
            line=4,
            end_line=4,
            fix="re-point",
            edits=[Edit("agents/a b.md", 4, 0, "src/a.py:1-3", "src/a.py:8-10")],
            key="src/a.py::run",
        ),
        Finding(
            code="RL001",
            name="record-unreadable",
            severity="info",
            message="not UTF-8\nsecond line",
            path="agents/roadmap.md",
            line=2,
            end_line=3,
        ),
    ]


def result(fs: list[Finding] | None = None) -> LintResult:
    fs = findings() if fs is None else fs
    return LintResult(
        root=Path("/repo"), head=HEAD, findings=sorted(fs, key=Finding.sort_key), rules=all_rules(), records=3
    )


def test_json_contract_keys_are_exact_and_output_is_stable():
    doc = json.loads(render(result(), "json"))
    assert list(doc) == ["schema_version", "tool", "head", "findings", "summary"]
    assert doc["schema_version"] == 1
    assert doc["tool"] == {"name": "roadmap", "version": roadmap.__version__}
    assert doc["head"] == HEAD
    assert doc["summary"] == {"error": 1, "warning": 1, "info": 1}
    for f in doc["findings"]:
        assert list(f) == [
            "code",
            "name",
            "severity",
            "message",
            "path",
            "line",
            "end_line",
            "record_id",
            "related",
            "evidence",
            "fix",
            "fingerprint",
        ]
        assert re.fullmatch(r"[0-9a-f]{16}", f["fingerprint"])
    assert [(f["path"], f["line"]) for f in doc["findings"]] == [
        ("agents/a b.md", 4),
        ("agents/roadmap.md", 2),
        ("agents/roadmap.md", 39),
    ]
    assert doc["findings"][2]["related"] == [{"path": "agents/log.md", "line": 12, "message": "same reference, a|b"}]
    # same findings in any order -> the same bytes; nothing time-dependent
    assert render(result(list(reversed(findings()))), "json") == render(result(), "json")
    assert not re.search(r"\d\d:\d\d:\d\d", render(result(), "json"))


def test_fingerprint_ignores_line_numbers():
    a, b = findings()[0], findings()[0]
    b.line = b.end_line = 200
    assert a.fingerprint == b.fingerprint


def test_sarif_has_what_github_code_scanning_needs():
    doc = json.loads(render(result(), "sarif"))
    assert doc["version"] == "2.1.0" and "sarif-schema-2.1.0" in doc["$schema"]
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "roadmap" and driver["version"] == roadmap.__version__
    ids = [r["id"] for r in driver["rules"]]
    assert ids == sorted(ids) and {"RL301", "RL302", "RL303", "RL304", "RL901"} <= set(ids)
    for r in driver["rules"]:
        assert r["shortDescription"]["text"] and r["fullDescription"]["text"]
        assert "Why" in r["help"]["text"] and "**Fix**" in r["help"]["markdown"]
        assert r["defaultConfiguration"]["level"] in ("error", "warning", "note")
    assert len(run["results"]) == 3
    for res in run["results"]:
        assert driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note") and res["message"]["text"]
        loc = res["locations"][0]["physicalLocation"]
        uri = loc["artifactLocation"]["uri"]
        assert not uri.startswith(("/", "file:")) and loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert 1 <= loc["region"]["startLine"] <= loc["region"]["endLine"]
        assert re.fullmatch(r"[0-9a-f]{16}", res["partialFingerprints"]["roadmapFingerprint/v1"])
    by_rule = {r["ruleId"]: r for r in run["results"]}
    assert by_rule["RL001"]["level"] == "note"
    assert by_rule["RL303"]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "agents/a%20b.md"
    rel = by_rule["RL301"]["relatedLocations"]
    assert rel[0]["id"] == 1 and rel[0]["message"]["text"] == "same reference, a|b"
    assert rel[0]["physicalLocation"]["region"]["startLine"] == 12
    assert "Fix: point the reference" in by_rule["RL301"]["message"]["text"]


def test_github_workflow_commands_escape_properties_and_data():
    out = render(result(), "github").splitlines()
    assert out[0].startswith("::warning file=agents/a b.md,line=4,endLine=4,title=RL303 anchor-drifted::")
    assert "50% sure" not in out[0] and "50%25 sure" in out[0]
    assert (
        out[1]
        == "::notice file=agents/roadmap.md,line=2,endLine=3,title=RL001 record-unreadable::not UTF-8%0Asecond line"
    )
    assert out[2].startswith(
        "::error file=agents/roadmap.md,line=39,endLine=39,title=RL301 path-missing::`src/old.py:10`"
    )


def test_markdown_table_escapes_pipes_and_lists_related():
    out = render(result(), "markdown")
    assert "| Severity | Code | Location | Message | Fix |" in out
    row = next(line for line in out.splitlines() if "RL301" in line)
    assert row.startswith("| error | RL301 path-missing | `agents/roadmap.md:39` |")
    assert "also: `agents/log.md:12`" in row
    assert "**1** errors, **1** warnings, **1** info" in out
    assert "No findings" in render(result([]), "markdown")


def test_text_groups_by_file_and_has_no_colour_unless_asked():
    plain = render(result(), "text")
    assert "\x1b[" not in plain
    lines = plain.splitlines()
    assert lines[0] == "agents/a b.md"
    assert lines.index("agents/roadmap.md") > 0
    assert any("RL301" in l and "error" in l and "39" in l for l in lines)
    assert "also: agents/log.md:12" in plain and "fix: point the reference at src/new.py" in plain
    assert "Found 3 findings: 1 error, 1 warning, 1 info (1 fixable with --fix)" in plain
    assert "\x1b[" in render(result(), "text", color=True)
    assert "No findings in 3 record files." in render(result([]), "text")


def test_markup_in_messages_is_printed_literally():
    f = findings()[0]
    f.message = "[bold]not markup[/bold] and [link]"
    assert "[bold]not markup[/bold] and [link]" in render(result([f]), "text")


def test_every_format_renders_an_empty_result():
    for fmt in FORMATS:
        assert isinstance(render(result([]), fmt), str)

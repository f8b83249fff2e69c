"""Scenarios: whole repositories, written as data by people who did not write the rules, linted end to end.

Each `tests/roadmap/scenarios/<name>/scenario.yaml` describes a git history (dated commits, branches, merges)
and what `roadmap lint` must and must not report on it. The test builds the repository, runs the real CLI
(`python -m roadmap lint REPO --format json`), and compares through the JSON contract only, so a scenario
stays valid whatever the rules look like inside. The format:

    title: one line
    voice: who wrote these records and how they write
    commits:                                  # replayed in order
      - date: "2026-03-02T09:15:00+01:00"     # author and committer date (UTC when no offset)
        message: |                            # the whole commit message (subject, body, trailers)
          feat(cache): ...
        branch: topic                         # optional: commit on this branch (made from HEAD), then back
        merge: topic                          # optional: merge this branch (--no-ff); `message` is its message
        rename: {old/path: new/path}          # optional, applied before `files`
        files:                                # path: full new content, or null to delete
          docs/plan.md: |
            ...
    lint_args: ["--config", "roadmap.yaml"]   # optional extra CLI arguments
    expect:                                   # each must be found
      - path: docs/plan.md
        line: "a substring of a line inside the finding's span"
        codes: [RL101, RL103]                 # each must be the finding's code or one of its reasons
        related:                              # optional: surfaces the finding must list as related
          - {path: notes/log.md, line: "Next owner must"}
    absent:                                   # negative controls: none of these may be reported
      - path: docs/plan.md
        line: "a substring"
        codes: [RL101]                        # optional: only these codes (as code or reason) are forbidden

While the rules catch up, a scenario listed in `scenarios/PENDING` (one name per line, `#` comments) is expected to
fail: it runs, and reports XPASS once it holds, so it can leave the list. The list is empty when the work is done.
`ROADMAP_SCENARIO_CODES=RL401,RL402` narrows every scenario to those codes (expectations and negative controls
about other codes are skipped), so whoever works on some rules sees what is left for them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

SCENARIOS = Path(__file__).parent / "scenarios"
NAMES = sorted(p.name for p in SCENARIOS.iterdir() if (p / "scenario.yaml").is_file()) if SCENARIOS.is_dir() else []
_PENDING_FILE = SCENARIOS / "PENDING"
PENDING = (
    {ln.split("#")[0].strip() for ln in _PENDING_FILE.read_text().splitlines()} - {""}
    if _PENDING_FILE.is_file()
    else set()
)
ONLY = {c.strip().upper() for c in os.environ.get("ROADMAP_SCENARIO_CODES", "").split(",") if c.strip()}


def build(repo, spec: dict[str, Any]) -> None:
    """Replay the scenario's commits into `repo` (a conftest.GitRepo)."""
    for n, c in enumerate(spec["commits"], 1):
        date, message = str(c["date"]), c.get("message") or f"commit {n}"
        if c.get("merge"):
            repo.merge(c["merge"], message, date)
            continue
        branch = c.get("branch")
        if c.get("rename"):
            if branch:
                exists = bool(repo.git("branch", "--list", branch))
                previous = repo.branch
                repo.git("checkout", "-q", *([] if exists else ["-b"]), branch)
            for old, new in c["rename"].items():
                (repo.path / new).parent.mkdir(parents=True, exist_ok=True)
                repo.git("mv", "--", old, new)
            repo.commit(c.get("files") or {}, message, date)
            if branch:
                repo.git("checkout", "-q", previous)
            continue
        repo.commit(c.get("files") or {}, message, date, branch=branch)


def lint_json(root: Path, extra: list[str]) -> dict[str, Any]:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "roadmap",
            "lint",
            str(root),
            "--format",
            "json",
            "--fail-on",
            "never",
            "--no-cache",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
    )
    assert proc.returncode == 0, f"roadmap lint exited {proc.returncode}:\n{proc.stderr}\n{proc.stdout[:2000]}"
    return json.loads(proc.stdout)


def _line(root: Path, path: str, n: int) -> str:
    try:
        return (root / path).read_text(encoding="utf-8").split("\n")[n - 1]
    except (OSError, IndexError):
        return ""


def _covers(root: Path, path: str, first: int, last: int, needle: str) -> bool:
    return any(needle in _line(root, path, n) for n in range(first, max(first, last) + 1))


def _reasons(f: dict[str, Any]) -> set[str]:
    return {f["code"], *(r for e in f.get("evidence", ()) for r in e.get("reasons", ()))}


def _show(root: Path, findings: list[dict[str, Any]]) -> str:
    return (
        "\n".join(
            f"  {f['code']} {f['path']}:{f['line']} [{','.join(sorted(_reasons(f)))}] "
            f"{_line(root, f['path'], f['line']).strip()[:90]!r}\n      {f['message'][:200]}"
            for f in findings
        )
        or "  (no findings)"
    )


def check(root: Path, spec: dict[str, Any], findings: list[dict[str, Any]], only: set[str] = frozenset()) -> list[str]:
    """What the scenario expects and did not get, and what it forbids and got (empty: the scenario holds).
    With `only`, expectations and controls about other codes are skipped."""
    problems = []
    if only:
        findings = [f for f in findings if _reasons(f) & only]
    for e in spec.get("expect") or ():
        if only and not set(e.get("codes") or ()) & only:
            continue
        hits = [
            f
            for f in findings
            if f["path"] == e["path"]
            and _covers(root, f["path"], f["line"], f.get("end_line") or f["line"], e["line"])
            and set(e.get("codes") or ()) <= _reasons(f)
        ]
        if not hits:
            problems.append(f"missed: {e.get('codes')} on {e['path']} line with {e['line']!r}")
            continue
        for r in e.get("related") or ():
            if not any(
                rel["path"] == r["path"] and r["line"] in _line(root, rel["path"], rel["line"])
                for f in hits
                for rel in f.get("related", ())
            ):
                problems.append(f"missed surface: {r['path']} line with {r['line']!r} (for {e['line']!r})")
    for a in spec.get("absent") or ():
        codes = set(a.get("codes") or ())
        if only and codes and not codes & only:
            continue
        for f in findings:
            if (
                f["path"] == a["path"]
                and _covers(root, f["path"], f["line"], f.get("end_line") or f["line"], a["line"])
                and (not codes or codes & _reasons(f))
            ):
                problems.append(
                    f"false finding: {f['code']} on {a['path']} line with {a['line']!r}: {f['message'][:160]}"
                )
    return problems


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(reason="listed in scenarios/PENDING")) if n in PENDING else n
        for n in NAMES
    ],
)
def test_scenario(name: str, git_repo) -> None:
    spec = yaml.safe_load((SCENARIOS / name / "scenario.yaml").read_text(encoding="utf-8"))
    repo = git_repo(name)
    build(repo, spec)
    doc = lint_json(repo.path, list(spec.get("lint_args") or ()))
    problems = check(repo.path, spec, doc["findings"], ONLY)
    assert not problems, (
        f"{name}: {spec.get('title', '')}\n"
        + "\n".join(problems)
        + "\nall findings:\n"
        + _show(repo.path, doc["findings"])
    )

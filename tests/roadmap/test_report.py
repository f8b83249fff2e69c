"""`roadmap report` (DESIGN §3.4): the coordination report built from the facts and findings of `roadmap lint`.

On the seed repository it files item 14 as one reconciliation with its four surfaces and the evidence behind
it; on a small repository with two evidence dirs of one series it shows the trend, in Markdown and as an
inline SVG plot in one self-contained HTML file.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from roadmap.cli import main
from roadmap.lint import LintOptions, lint
from roadmap.report import build_report, render_report
from seed_repo import BENCH, COORD, ROADMAP, ROW, SPEC, build_seed_repo

ITEM14_SURFACES = {(SPEC, 206), (BENCH, 12), (SPEC, 39), (COORD, 14)}
RERUNS = {
    "docs/bench-evidence/20260727-local-bf16-4b",
    "docs/bench-evidence/20260728-local-bf16-4b.md",
    "docs/bench-evidence/local-bf16-4b-20260729",
    "docs/bench-evidence/20260803-local-bf16-4b",
    "docs/bench-evidence/local-bf16-4b-20260805.md",
    "docs/bench-evidence/20260807-local-bf16-4b",
}
VOID = {"meta", "br", "rect", "line", "polyline", "circle", "img", "hr", "link", "input"}


@pytest.fixture(scope="module")
def seed_report(tmp_path_factory):
    root = tmp_path_factory.mktemp("seed") / "repo"
    build_seed_repo(root)
    return root, build_report(lint(root, LintOptions(use_cache=False)))


def _item14(report):
    found = [r for r in report.reconciliations if r.code == "RL101" and r.record_id == ROW]
    assert len(found) == 1
    return found[0]


def test_seed_item14_is_one_reconciliation_with_four_surfaces_and_its_evidence(seed_report):
    _, report = seed_report
    r = _item14(report)
    assert {(s.path, s.line) for s in r.surfaces} == ITEM14_SURFACES
    assert (r.surfaces[0].path, r.surfaces[0].line) == (SPEC, 206)
    assert {path for path, _ in r.evidence} == RERUNS
    assert {day for _, day, _ in r.commits} == {"2026-07-27", "2026-08-05"}
    assert r.fix.startswith("Records-only fix on 4 surfaces")


def test_seed_markdown_lists_item14_reconciliation(seed_report):
    _, report = seed_report
    md = render_report(report, "markdown")
    section = md[md.index(f"RL101 directive-landed ({ROW})") :]
    section = section[: section.find("\n### ")] if "\n### " in section else section
    assert "Punch-list item 14 (ROAD-V1-C2-LOCAL-BF16) directs work that landed 2026-07-27" in section
    assert "**Surfaces (4):**" in section
    for path, line in ITEM14_SURFACES:
        assert f"- `{path}:{line}`" in section
    for path in RERUNS:
        assert f"- `{path}`" in section
    assert "**Fix:** Records-only fix on 4 surfaces" in section


def test_seed_directives_rows_and_claims(seed_report):
    _, report = seed_report
    assert report.head_date == "2026-08-09"
    by_loc = {(d.path, d.line): d for d in report.directives}
    for loc in ITEM14_SURFACES:
        d = by_loc[loc]
        assert d.verdict == "stale" and d.codes == ("RL101", "RL102", "RL103", "RL104")
        assert (d.as_of, d.age_days) == ("2026-07-25", 15)
    eight_b = by_loc[(ROADMAP, 13)]  # negative control: the 8B rerun has no newer evidence
    assert eight_b.verdict == "current" and eight_b.row_id == "ROAD-V1-C4-8B-LATENCY"
    row = next(r for r in report.rows if r.row_id == ROW)
    assert (row.state, row.path, row.line, row.canonical) == ("GATING", ROADMAP, 12, True)
    assert row.series[0] == "local-bf16-4b"
    newest = report.series_by_name()["local-bf16-4b"].plotted()[-1]
    assert (newest.name, newest.tok_s, newest.peer_ratio) == ("20260807-local-bf16-4b", 6831.71, 1.0283)
    claim = next(c for c in report.claims if c.claim_id == "CLAIM-GGUF-Q4K")
    assert (claim.status, claim.since, claim.idle_days) == ("active", "2026-07-12", 28)
    md = render_report(report, "markdown")
    assert f"| {ROW} | GATING (`{ROADMAP}:12`) | local-bf16-4b (2026-08-07): 6831.71 tok/s, 1.0283x vs peer |" in md
    assert "| CLAIM-GGUF-Q4K | active | 28 days since 2026-07-12 |" in md
    assert "6831.71 (2026-08-07) (1 of 7 entries state a tok/s figure)" in md  # the reruns are foreign evidence


def _result(series: str, row: str, created: str, tok_s: float, ratio: float) -> str:
    return json.dumps(
        {
            "schema": "evident.bench/1",
            "series": series,
            "row": row,
            "created": created,
            "metrics": {"output_tok_per_s": {"median": tok_s, "min": tok_s, "max": tok_s}},
            "peers": [{"name": "peer", "ratio": ratio, "complete": True}],
        },
        indent=2,
    )


@pytest.fixture(scope="module")
def trend_repo(tmp_path_factory) -> Path:
    from conftest import GitRepo

    repo = GitRepo(tmp_path_factory.mktemp("trend") / "repo")
    roadmap = (
        "# Roadmap\n\n| ID | Capability | State | Remaining |\n|---|---|---|---|\n"
        "| ENG-DEMO | A demo engine | ACTIVE | Measure the demo again on the nano workload. |\n"
    )
    repo.commit(
        {
            "agents/roadmap.md": roadmap,
            "docs/bench-evidence/20260801-tp-demo/result.json": _result(
                "tp-demo", "ENG-DEMO", "2026-08-01T10:00:00Z", 1000.5, 1.25
            ),
        },
        "feat: demo",
        "2026-08-01",
    )
    repo.commit(
        {
            "docs/bench-evidence/20260805-tp-demo/result.json": _result(
                "tp-demo", "ENG-DEMO", "2026-08-05T10:00:00Z", 1100.25, 1.375
            ),
            "docs/bench-evidence/20260805-lat-demo/result.json": _result(
                "lat-demo", "ENG-DEMO", "2026-08-05T11:00:00Z", 50.0, 0.5
            ),
        },
        "bench: rerun",
        "2026-08-05",
    )
    return repo.path


def test_trend_shows_both_figures(trend_repo):
    report = build_report(lint(trend_repo, LintOptions(use_cache=False)))
    s = report.series_by_name()["tp-demo"]
    assert [(p.date, p.tok_s, p.peer_ratio) for p in s.points] == [
        ("2026-08-01", 1000.5, 1.25),
        ("2026-08-05", 1100.25, 1.375),
    ]
    md = render_report(report, "markdown")
    trend = "1000.50 (2026-08-01) → 1100.25 (2026-08-05), +10.0% over 2 entries"
    assert f"| tp-demo | ENG-DEMO | 2 | `20260805-tp-demo` | 1100.25 tok/s | 1.375x | {trend} |" in md
    assert f"tp-demo (2026-08-05): 1100.25 tok/s, 1.375x vs peer; trend {trend}" in md
    # "Measure the demo again" was written 2026-08-01; the 2026-08-05 entries are the rerun it asks for
    directive = next(d for d in report.directives if d.row_id == "ENG-DEMO")
    assert (directive.as_of, directive.age_days, directive.verdict) == ("2026-08-01", 4, "stale")
    assert "RL102" in directive.codes
    recon = next(r for r in report.reconciliations if r.record_id == "ENG-DEMO")
    assert {path for path, _ in recon.evidence} >= {"docs/bench-evidence/20260805-tp-demo"}


class _Tags(HTMLParser):
    """Collects start tags and checks every non-void element is closed in order."""

    def __init__(self) -> None:
        super().__init__()
        self.starts: list[str] = []
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.starts.append(tag)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.starts.append(tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def test_html_is_one_self_contained_file_with_an_svg_per_trend(trend_repo):
    html = render_report(build_report(lint(trend_repo, LintOptions(use_cache=False))), "html")
    parser = _Tags()
    parser.feed(html)
    parser.close()
    assert parser.errors == [] and parser.stack == []
    assert parser.starts.count("svg") == 1, "tp-demo has two points; lat-demo's single point gets no plot"
    assert parser.starts.count("circle") == 2 and "style" in parser.starts
    assert not {"script", "link", "img"} & set(parser.starts), "self-contained: no scripts or external files"
    text = "".join(parser.text)
    assert (
        "20260801-tp-demo (2026-08-01): 1000.50 tok/s" in text
        and "20260805-tp-demo (2026-08-05): 1100.25 tok/s" in text
    )
    assert "evidence date" in text and "output tok/s (median)" in text
    assert html == render_report(build_report(lint(trend_repo, LintOptions(use_cache=False))), "html")


def test_seed_html_parses_and_files_item14(seed_report):
    _, report = seed_report
    parser = _Tags()
    parser.feed(render_report(report, "html"))
    parser.close()
    assert parser.errors == [] and parser.stack == []
    text = "".join(parser.text)
    assert f"RL101 directive-landed ({ROW})" in text and "Surfaces (4):" in text
    assert all(f"{path}:{line}" in text for path, line in ITEM14_SURFACES)
    assert parser.starts.count("svg") == 0, "no seed series has two tok/s figures (its reruns are foreign evidence)"


def test_cli_report_writes_markdown_and_html(trend_repo, tmp_path, capsys):
    assert main(["report", str(trend_repo), "--no-cache"]) == 0
    assert capsys.readouterr().out.startswith("# Coordination report at ")
    md, page = tmp_path / "r.md", tmp_path / "r.html"
    assert main(["report", str(trend_repo), "--no-cache", "-o", str(md)]) == 0
    assert md.read_text().startswith("# Coordination report at ") and "## Reconciliations" in md.read_text()
    assert main(["report", str(trend_repo), "--no-cache", "-o", str(page)]) == 0
    assert page.read_text().startswith("<!DOCTYPE html>") and "<svg" in page.read_text()
    assert main(["report", str(trend_repo), "--no-cache", "--at", "HEAD~1", "--format", "markdown"]) == 0
    assert "| tp-demo | ENG-DEMO | 1 |" in capsys.readouterr().out


def test_cli_report_outside_a_repository_is_one_line(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("roadmap: error: ") and "not inside a git repository" in err

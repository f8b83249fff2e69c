"""The report's top: what to act on by row, states coloured, every path, commit and evidence a link, trend plots
placed by date with labelled axes."""

from __future__ import annotations

import dataclasses
import json
import re
from html.parser import HTMLParser

import pytest

from roadmap.cli import main
from roadmap.lint import LintOptions, lint
from roadmap.report import Links, build_report, render_report
from roadmap.report.actions import act_on
from roadmap.report.model import Point, Reconciliation, Series, Surface
from roadmap.report.svg import trend_plot

ROADMAP = (
    "# Roadmap\n\n| ID | State | Remaining |\n|---|---|---|\n"
    "| ENG-DEMO | ACTIVE | Measure the demo again on the nano workload. |\n"
    "| ENG-REF | BLOCKED | See `src/a.py:99` and `src/a.py:98`. |\n"
    "| ENG-OLD | DONE | — |\n"
)


def _result(day: str, tok_s: float) -> str:
    return json.dumps(
        {
            "schema": "evident.bench/1",
            "series": "tp-demo",
            "row": "ENG-DEMO",
            "created": f"{day}T10:00:00Z",
            "metrics": {"output_tok_per_s": {"median": tok_s, "min": tok_s, "max": tok_s}},
        }
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    from conftest import GitRepo

    r = GitRepo(tmp_path_factory.mktemp("summary") / "repo")
    r.commit(
        {
            "agents/roadmap.md": ROADMAP,
            "src/a.py": "a = 1\n",
            "docs/bench-evidence/20260801-tp-demo/result.json": _result("2026-08-01", 1000.0),
        },
        "feat",
        "2026-08-01",
    )
    r.commit({"docs/bench-evidence/20260802-tp-demo/result.json": _result("2026-08-02", 1010.0)}, "bench", "2026-08-02")
    r.commit({"docs/bench-evidence/20260831-tp-demo/result.json": _result("2026-08-31", 1100.0)}, "bench", "2026-08-31")
    return r


@pytest.fixture(scope="module")
def report(repo):
    return build_report(lint(repo.path, LintOptions(use_cache=False)))


class _Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.badges: dict[str, str] = {}  # badge text -> its classes
        self._badge: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a":
            self.hrefs.append(a["href"])
        if tag == "span" and "badge" in (a.get("class") or ""):
            self._badge = a["class"]

    def handle_data(self, data):
        if self._badge is not None:
            self.badges[data] = self._badge
            self._badge = None


def test_act_on_groups_errors_and_warnings_by_row_most_errors_first(report):
    groups = act_on(report)
    # ENG-DEMO: the rerun it asks for is done (RL102) and its three evidence entries lack fields (RL501)
    assert [(g.key, g.kind, g.state, g.errors) for g in groups] == [
        ("ENG-DEMO", "row", "ACTIVE", 4),
        ("ENG-REF", "row", "BLOCKED", 2),
    ]
    assert sorted(r.code for _, r in groups[0].items) == ["RL102", "RL501", "RL501", "RL501"]
    assert [r.code for _, r in groups[1].items] == ["RL302", "RL302"]
    assert all(report.reconciliations[n - 1] is r for g in groups for n, r in g.items)


def test_html_summary_comes_first_with_coloured_states_and_links(report):
    sha = "0123456789abcdef0123456789abcdef01234567"
    landed = Reconciliation(
        "RL101",
        "directive-landed",
        "warning",
        "landed",
        "ENG-OLD",
        (Surface("agents/roadmap.md", 7, "here"),),
        ((sha, "2026-08-02", "feat: it"),),
        (),
        "",
        "f" * 16,
    )
    report = dataclasses.replace(report, reconciliations=[*report.reconciliations, landed])
    html = render_report(report, "html", Links("../", "https://example.com/r/commit/{sha}", True))
    assert html.index('id="act-on"') < html.index('id="rows"') < html.index('id="reconciliations"')
    parser = _Anchors()
    parser.feed(html)
    assert "state-blocked" in parser.badges["BLOCKED"] and "state-active" in parser.badges["ACTIVE"]
    assert "state-closed" in parser.badges["DONE"]
    assert "../agents/roadmap.md#L6" in parser.hrefs  # ENG-REF's state cell and finding
    assert "../docs/bench-evidence/20260831-tp-demo" in parser.hrefs  # the newest entry of the series
    assert any(re.fullmatch(r"#recon-\d+", h) for h in parser.hrefs)  # the summary points at the full entry
    assert f"https://example.com/r/commit/{sha}" in parser.hrefs
    assert "warning" in parser.badges and "ENG-OLD" in html[: html.index('id="rows"')]  # a warning is acted on too


def test_markdown_links_paths_only_inside_the_tree_and_commits_only_with_a_url(report):
    plain = render_report(report, "markdown")
    assert "## Act on" in plain and plain.index("## Act on") < plain.index("## Rows")
    assert "](" not in plain
    linked = render_report(report, "markdown", Links("../", "https://example.com/r/commit/{sha}", True))
    assert "[`agents/roadmap.md:6`](<../agents/roadmap.md#L6>)" in linked


def test_cli_links_are_relative_to_the_report_and_commit_url_comes_from_config(repo, tmp_path):
    page = repo.path / "site" / "deep" / "report.html"
    assert main(["report", str(repo.path), "--no-cache", "-o", str(page)]) == 0
    parser = _Anchors()
    parser.feed(page.read_text())
    assert "../../agents/roadmap.md#L6" in parser.hrefs
    assert not [h for h in parser.hrefs if h.startswith("http")], "no commit_url configured: commits are not links"


def test_commit_url_must_be_an_http_url_with_sha(git_repo, capsys):
    r = git_repo()
    r.commit(
        {"agents/plan.md": "# Plan\n", "pyproject.toml": "[tool.roadmap]\ncommit_url = 'javascript:x({sha})'\n"},
        "init",
        "2026-07-01",
    )
    assert main(["report", str(r.path), "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert (
        "commit_url` must be an http(s) URL with {sha}" in err and "https://github.com/OWNER/REPO/commit/{sha}" in err
    )


def test_trend_plot_is_spaced_by_date_with_both_axes_titled():
    pts = tuple(
        Point(date=d, name=f"e{i}", path=f"ev/e{i}", tok_s=v)
        for i, (d, v) in enumerate([("2026-08-01", 1.0), ("2026-08-02", 2.0), ("2026-08-31", 3.0)])
    )
    plot = trend_plot(Series("s", pts))
    assert plot is not None
    x = [d.x for d in plot.dots]
    assert (x[2] - x[1]) / (x[1] - x[0]) == pytest.approx(29, rel=0.01)  # 1 day apart, then 29 days
    assert plot.x_title == "evidence date" and plot.y_title == "output tok/s (median)"
    assert [t.label for t in plot.x_ticks] == ["2026-08-01", "2026-08-31"]
    assert all(0 < d.x < plot.width and plot.top <= d.y <= plot.top + plot.plot_h for d in plot.dots)
    undated = trend_plot(Series("s", (pts[0], Point(date=None, name="u", path="ev/u", tok_s=2.0))))
    assert undated is not None and undated.x_title == "evidence entry (not all entries are dated)"

"""The Markdown outputs escape record text: hostile records rendered to Markdown and HTML stay text (issue 10).

The Markdown is read back with markdown-it (CommonMark + GFM tables, the dialect of a CI job summary): no HTML
token, no heading or table cell that a record wrote."""

from __future__ import annotations

import json

from markdown_it import MarkdownIt

from roadmap.cli import main
from roadmap.lint import LintOptions, lint
from roadmap.report import build_report, render_report

HOSTILE_SERIES = "tp|evil\n# Pwned heading"
RECORD = """# Plan

| ID | State | Remaining |
|---|---|---|
| ENG-TP | OPEN | Rerun the bench &lt;img src=x onerror=alert(1)&gt; and `code|pipe` <script>alert(2)</script> |

## Punch-list

1. Rerun the bench for ENG-TP: &lt;img src=y onerror=alert(3)&gt; ~~old~~ [x](javascript:alert(4))
"""


def _result(series: str, day: str) -> str:
    return json.dumps(
        {
            "schema": "evident.bench/1",
            "series": series,
            "row": "ENG-TP",
            "created": f"{day}T10:00:00Z",
            "commit": "0" * 40,
            "dirty": False,
            "command": "engine bench <img src=z onerror=alert(5)>",
            "machine": {"gpu": "H200", "gpu_count": 1},
            "model": {"name": "m"},
            "workload": {"name": "nano"},
            "engine": {"block_size": 16},
            "runs": [{"output_tok_per_s": 1.0}],
            "metrics": {"output_tok_per_s": {"median": 1.5, "min": 1.0, "max": 2.0}},
        }
    )


def hostile_repo(git_repo):
    repo = git_repo()
    repo.commit({"agents/roadmap.md": RECORD}, "docs: plan <img src=c onerror=alert(6)>", "2026-07-01")
    repo.commit(
        {"docs/bench-evidence/20260705-tp/result.json": _result(HOSTILE_SERIES, "2026-07-05")},
        "bench: rerun |x|\n\n# Pwned in a subject",
        "2026-07-05",
    )
    return repo


def _tokens(md: str):
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).parse(md)


def assert_inert(md: str) -> None:
    tokens = _tokens(md)
    html = [t.content for t in tokens if t.type == "html_block"]
    html += [c.content for t in tokens if t.children for c in t.children if c.type == "html_inline"]
    assert all(h.strip() in ("<br>", "<sub>", "</sub>") for h in html), html  # only the report's own markup
    links = [c.attrs.get("href") for t in tokens if t.children for c in t.children if c.type == "link_open"]
    assert not links, links
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert not [h for h in headings if "Pwned" in h], headings
    rows: list[int] = []
    cells = 0
    for t in tokens:
        if t.type == "tr_open":
            cells = 0
        elif t.type in ("th_open", "td_open"):
            cells += 1
        elif t.type == "tr_close":
            rows.append(cells)
        elif t.type == "table_close":
            assert len(set(rows)) == 1, rows  # a record's `|` never adds a cell
            rows = []


def test_markdown_report_escapes_hostile_records(git_repo):
    repo = hostile_repo(git_repo)
    report = build_report(lint(repo.path, LintOptions(use_cache=False)))
    md = render_report(report, "markdown")
    assert "onerror=alert(1)" in md and "<img" not in md.replace("\\<img", "")
    assert "tp\\|evil # Pwned heading" in md  # the series name, on one line, as text
    assert_inert(md)
    html = render_report(report, "html")
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html and "<script" not in html


def test_lint_markdown_format_escapes_hostile_messages(capsys, git_repo):
    repo = hostile_repo(git_repo)
    (repo.path / "agents" / "roadmap.md").write_text(
        RECORD + "\n- see <img src=q onerror=alert(7)> (src/gone|x.py:3) and `docs/a|b\n\n# Pwned.md`\n"
    )
    code = main(["lint", str(repo.path), "--format", "markdown"])
    md = capsys.readouterr().out
    assert code in (0, 1) and "### roadmap lint" in md
    assert_inert(md)

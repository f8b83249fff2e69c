"""Findings never depend on committer-date order: history order is the commit graph's (issue 10, item 7)."""

from __future__ import annotations

import json

import pytest

from roadmap.cli import main
from roadmap.history.index import HistoryIndex

PLAN = "# Plan\n\nAs of 2026-07-05.\n\n## Punch-list\n\n1. Add `FooBarMirror` to the runner for ROW-A-1.\n"


def rl101(capsys, repo) -> list[dict]:
    code = main(["lint", str(repo.path), "--format", "json", "--no-cache"])
    found = json.loads(capsys.readouterr().out)["findings"]
    assert code in (0, 1)
    return [f for f in found if f["code"] == "RL101"]


@pytest.mark.parametrize("head_date", ["2026-07-11", "2026-06-01"])
def test_head_commit_with_an_older_committer_date_keeps_a_true_rl101(capsys, git_repo, head_date):
    """The work landed 2026-07-10, after the plan's as-of date; HEAD, on top of it, has a skewed clock."""
    repo = git_repo()
    repo.commit({"agents/plan.md": PLAN, "src/run.py": "x = 1\n"}, "docs: plan", "2026-07-01")
    landed = repo.commit({"src/run.py": "x = 1\nclass FooBarMirror: pass\n"}, "feat: mirror", "2026-07-10")
    repo.commit({"src/run.py": "x = 1\nclass FooBarMirror: pass\ny = 2\n"}, "chore: other", head_date)
    [f] = rl101(capsys, repo)
    assert landed[:9] in f["message"]


def test_date_news_include_every_descendant_of_a_news_commit(git_repo, tmp_path):
    repo = git_repo()
    repo.commit({"a": "1\n"}, "root", "2026-07-01")
    after = repo.commit({"a": "2\n"}, "after the as-of date", "2026-07-10")
    skewed = repo.commit({"a": "3\n"}, "on top of it, clock behind", "2026-06-01")
    idx = HistoryIndex.build(repo.path, "HEAD", [], cache_dir=tmp_path)
    assert [c.sha for c in idx.commits_after("2026-07-05")] == [skewed, after]
    assert [c.sha for c in idx.commits] == [skewed, after, repo.rev("HEAD~2")]  # children before parents
    assert idx.rank(idx.by_sha(skewed)) > idx.rank(idx.by_sha(after))


def test_newest_blame_commit_is_the_graph_newest(git_repo):
    """A statement over two lines: the line edited last, in a commit dated before the other, sets its as-of."""
    from roadmap.analysis.asof import newest_blame
    from roadmap.lint import LintOptions, lint

    repo = git_repo()
    repo.commit({"agents/r.md": "- Port the runner\n  for ROW-A-1.\n"}, "docs: item", "2026-07-10")
    skewed = repo.commit({"agents/r.md": "- Port the runner\n  for ROW-A-1 now.\n"}, "docs: edit", "2026-06-01")
    ctx = lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).context
    assert ctx is not None and newest_blame(ctx, "agents/r.md", 1, 2) == skewed

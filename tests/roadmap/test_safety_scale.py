"""No quadratic path: a 50,000-row table, its directive cells walked back past state flips (analysis/cell_asof.py),
lints in time linear in its rows (issue 10: the cell walk scanned every statement per directive cell, so 4k
rows took 4.4 s, 8k 30 s and 50k more than 600 s)."""

from __future__ import annotations

import time

from roadmap.lint import LintOptions, lint

VERBS = ("Port", "Rerun", "Measure", "Wire", "Document", "Split")


def table_repo(git_repo, rows: int, name: str):
    """A roadmap table of `rows` directive rows; one row in fifty flips its state in a later commit, so the as-of
    walk of those cells reads the file at an older revision."""
    repo = git_repo(name)
    lines = ["# Roadmap", "", "| ID | State | Remaining |", "|---|---|---|"]
    lines += [
        f"| ROW-A{i} | OPEN | {VERBS[i % 6]} the stage {i} runner path and record its throughput |" for i in range(rows)
    ]
    text = "\n".join(lines) + "\n"
    repo.commit({"agents/roadmap.md": text, "src/a.py": "x = 1\n"}, "docs: the table", "2026-07-01")
    for i in range(0, rows, 50):
        text = text.replace(f"| ROW-A{i} | OPEN |", f"| ROW-A{i} | ACTIVE |")
    repo.commit({"agents/roadmap.md": text}, "docs: start a row in fifty", "2026-07-02")
    repo.commit({"src/a.py": "x = 2\n"}, "feat: stage runner", "2026-07-03")
    return repo


def timed_lint(repo) -> tuple[float, float, int]:
    cpu, wall = time.process_time(), time.perf_counter()
    result = lint(repo.path, LintOptions(use_cache=False))
    return time.process_time() - cpu, time.perf_counter() - wall, result.statements


def test_cell_asof_50k_rows_lint_in_linear_time(git_repo):
    small_cpu, _, small_statements = timed_lint(table_repo(git_repo, 5_000, "small"))
    cpu, wall, statements = timed_lint(table_repo(git_repo, 50_000, "large"))
    assert statements == 150_001 and small_statements == 15_001
    print(f"\n50,000 rows: {cpu:.1f} s CPU, {wall:.1f} s wall; 5,000 rows: {small_cpu:.1f} s CPU")
    # Measured 2026-12-04 with tools/bench_table.py (this test's repository and call, each run alternated with one
    # of b107543, the commit before; docs/bench-evidence/20261204-roadmap-50k-table/) on the shared 2-core dev box
    # under a load of 3.8-4.7: 50,000 rows 7.55 s CPU median (6.5-10.0; b107543: 10.71 s, 8.6-11.4), 11.3 s wall,
    # 12.1 s CPU with the forked children (b107543: 17.2 s). Alternated earlier at a load of 2.5-2.9, a tree with
    # most of the change: 6.0-6.8 s CPU (b107543: 7.8-8.0 s). The parse is ~40% of this process's CPU, the stale
    # analysis of the 50,000 directive cells most of the rest. The issue asks for <= 10 s: met, but a loaded box
    # moves it by +-30%. The ratio bound catches a quadratic path, which gives a ratio near 100 for 10x the rows (it
    # took more than 600 s); linear work gives about 10.
    assert cpu / max(small_cpu, 0.1) < 20, f"{cpu:.1f}s vs {small_cpu:.1f}s CPU for 10x the rows"
    assert cpu < 30 and wall < 600, f"{cpu:.1f}s CPU, {wall:.1f}s wall"


def test_rows_at_a_revision_match_a_full_parse(git_repo):
    """The as-of walk parses only the lines naming a row's id (analysis/rows_at.py); the rows it finds are the
    ones a parse of the whole file finds, including rows that take their id from a heading."""
    from roadmap.analysis.context import LintContext
    from roadmap.analysis.rows_at import _parsed, rows_with_id
    from roadmap.config import Config
    from roadmap.history.tree import Tree

    doc = (
        "# Plan\n\n| ID | State | Next |\n|---|---|---|\n| ROW-A1 | OPEN | Port it, see ROW-A2 |\n"
        "| ROW-A2 | DONE | ~~Rerun~~ `x|y` |\n\nProse naming ROW-A1 | with a pipe.\n\n"
        "## ROW-B1 details\n\n| State | Next |\n|---|---|\n| OPEN | Wire it |\n| GATING | Split it |\n\n"
        "> | ID | Next |\n> |---|---|\n> | ROW-C1 | Quoted |\n\n"
        "- | ID | Next |\n  |---|---|\n  | ROW-D1 | In a list |\n"
    )
    repo = git_repo()
    sha = repo.commit({"agents/plan.md": doc}, "docs: plan", "2026-07-01")
    ctx = LintContext(root=repo.path, config=Config(), records=[], tree=Tree(repo.path), head=sha)
    for row_id in ("ROW-A1", "ROW-A2", "ROW-B1", "ROW-C1", "ROW-D1", "ROW-Z9"):
        assert rows_with_id(ctx, "agents/plan.md", sha, row_id) == _parsed(ctx, "agents/plan.md", sha).get(row_id, [])
    assert [n for n, _ in rows_with_id(ctx, "agents/plan.md", sha, "ROW-A1")] == [5]
    assert len(rows_with_id(ctx, "agents/plan.md", sha, "ROW-B1")) == 2

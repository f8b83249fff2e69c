"""RL101 directive-landed on small dated repositories: what counts as the work landing, and what never does."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

PLAN = "agents/punch-list.md"
ROADMAP = "agents/roadmap.md"


def _plan(directive: str, preamble: str = "As of 2026-07-25.") -> str:
    return f"# Punch-list\n\n{preamble}\n\n## Punch-list\n\n1. ENG-MIRROR: {directive}\n"


def _findings(repo, code: str = "RL101", **opts):
    return [f for f in lint(repo.path, LintOptions(use_cache=False, select=(code,), **opts)).findings]


DIRECTIVE = "Port the device-resident sampled-token map to discrete CUDA behind `DeviceTokenMirror`."


def test_trailer_and_terms_make_a_strong_match(git_repo):
    repo = git_repo()
    repo.commit({PLAN: _plan(DIRECTIVE)}, "docs: plan", "2026-07-25")
    sha = repo.commit(
        {"src/runner.py": "x = 1\n"},
        "feat(engine): device-resident sampled-token map on discrete CUDA\n\nRow: ENG-MIRROR",
        "2026-07-27",
    )
    [f] = _findings(repo)
    assert f.severity == "error" and (f.path, f.line) == (PLAN, 7)
    assert f"landed 2026-07-27 in {sha[:9]}" in f.message and "a trailer names ENG-MIRROR" in f.message
    assert "work terms" in f.message and f.evidence[0]["sha"] == sha


def test_symbol_introduced_in_code_without_the_row_is_a_warning(git_repo):
    repo = git_repo()
    repo.commit({PLAN: _plan(DIRECTIVE), "src/runner.py": "x = 1\n"}, "docs: plan", "2026-07-25")
    repo.commit({"src/runner.py": "class DeviceTokenMirror:\n    pass\n"}, "refactor: tidy runner", "2026-07-28")
    [f] = _findings(repo)
    assert f.severity == "warning" and "introduces `DeviceTokenMirror` in code" in f.message


def test_symbol_named_only_in_docs_or_already_in_code_is_no_landing(git_repo):
    repo = git_repo()
    repo.commit({PLAN: _plan(DIRECTIVE), "src/runner.py": "x = 1\n"}, "docs: plan", "2026-07-25")
    repo.commit({"docs/notes.md": "We will add `DeviceTokenMirror` later.\n"}, "docs: notes", "2026-07-26")
    assert _findings(repo) == []
    other = git_repo("other")
    other.commit({PLAN: _plan(DIRECTIVE), "src/runner.py": "class DeviceTokenMirror: ...\n"}, "plan", "2026-07-25")
    other.commit({"src/use.py": "DeviceTokenMirror()\n"}, "refactor: use it", "2026-07-28")
    assert _findings(other) == []


def test_words_without_the_row_or_a_symbol_are_not_a_landing(git_repo):
    repo = git_repo()
    repo.commit({PLAN: _plan("Port the device-resident sampled-token map to discrete CUDA.")}, "plan", "2026-07-25")
    repo.commit(
        {"src/a.py": "y = 2\n"},
        "feat: device-resident sampled-token map on discrete CUDA\n\nRow: OTHER-ROW",
        "2026-07-27",
    )
    assert _findings(repo) == []


def test_only_heads_ancestry_counts(git_repo):
    repo = git_repo()
    repo.commit({PLAN: _plan(DIRECTIVE)}, "plan", "2026-07-25")
    msg = "feat(engine): device-resident sampled-token map on discrete CUDA\n\nRow: ENG-MIRROR"
    repo.commit({"src/runner.py": "class DeviceTokenMirror: ...\n"}, msg, "2026-07-27", branch="wip")
    assert _findings(repo) == []  # an unmerged branch is not history
    repo.merge("wip", "Merge branch 'wip'", "2026-07-29")
    [f] = _findings(repo)  # a merged one is
    assert f.severity == "error" and "2026-07-27" in f.message


def test_as_of_base_sha_and_blame(git_repo):
    repo = git_repo()
    msg = "feat(engine): device-resident sampled-token map on discrete CUDA\n\nRow: ENG-MIRROR"
    early = repo.commit({"src/runner.py": "x = 1\n"}, msg, "2026-07-20")
    repo.commit({PLAN: _plan(DIRECTIVE, f"As of `{early[:10]}`.")}, "plan", "2026-07-30")
    assert _findings(repo) == []  # the work is the base itself, not news
    blamed = git_repo("blamed")
    blamed.commit({"src/runner.py": "x = 1\n"}, msg, "2026-07-20")
    blamed.commit({PLAN: _plan(DIRECTIVE, "Written by hand.")}, "plan", "2026-07-30")
    assert _findings(blamed) == []  # blame: the line was written after the commit
    blamed.commit({"src/runner.py": "x = 2\n"}, msg.replace("map on", "map finished on"), "2026-08-02")
    [f] = _findings(blamed)
    assert "landed 2026-08-02" in f.message


def test_uncommitted_directive_has_no_news(git_repo):
    repo = git_repo()
    repo.commit(
        {"src/runner.py": "x = 1\n"},
        "feat(engine): device-resident sampled-token map on discrete CUDA\n\nRow: ENG-MIRROR",
        "2026-07-20",
    )
    repo.write({PLAN: _plan(DIRECTIVE, "Written by hand.")})
    assert _findings(repo) == []


def test_repeats_in_other_files_are_one_finding(git_repo):
    repo = git_repo()
    table = f"# Roadmap\n\n| ID | State | Next actions |\n|---|---|---|\n| ENG-MIRROR | ACTIVE | {DIRECTIVE} |\n"
    repo.commit({PLAN: _plan(DIRECTIVE), ROADMAP: table}, "plan", "2026-07-25")
    repo.commit(
        {"src/runner.py": "class DeviceTokenMirror: ...\n"},
        "feat(engine): device-resident sampled-token map on discrete CUDA\n\nRow: ENG-MIRROR",
        "2026-07-27",
    )
    [f] = _findings(repo)
    assert (f.path, f.line) == (PLAN, 7) and [(r.path, r.line) for r in f.related] == [(ROADMAP, 5)]
    assert "repeated on 1 other surface" in f.message and f"{ROADMAP}:5" in f.fix


SERIES = "Build the HTTP server and its streaming load client."


def test_work_landed_as_a_series_of_commits_naming_the_row(git_repo):
    repo = git_repo()
    repo.commit({PLAN: _plan(SERIES)}, "docs: plan", "2026-07-25")
    first = repo.commit(
        {"src/server.py": "x = 1\n"},
        "feat(engine): an HTTP server over the engine thread\n\nRow: ENG-MIRROR",
        "2026-07-26",
    )
    assert _findings(repo) == []  # half the work: the load client is still to do
    repo.commit(
        {"src/other.py": "y = 1\n"}, "feat: streaming load client for another thing\n\nRow: OTHER-ROW", "2026-07-27"
    )
    assert _findings(repo) == []  # another row's commit never completes this one
    last = repo.commit(
        {"src/client.py": "z = 1\n"}, "feat(engine): a streaming load client\n\nRow: ENG-MIRROR", "2026-07-28"
    )
    [f] = _findings(repo)
    assert f.severity == "warning" and (f.path, f.line) == (PLAN, 7)
    assert "landed in 2 commits whose trailer names ENG-MIRROR" in f.message
    assert [e["sha"] for e in f.evidence[:2]] == [first, last]
    assert _findings(repo, at=first) == []  # as of the first commit, nothing had landed


def test_a_series_is_built_by_code_not_by_the_rows_write_ups(git_repo):
    """Two commits of the row that only wrote documentation (a measurement's README, a record) share the
    directive's words without building anything: they complete no series, where the same messages on commits
    that change code do."""
    repo = git_repo()
    repo.commit({PLAN: _plan(SERIES)}, "docs: plan", "2026-07-25")
    repo.commit(
        {"docs/checks/server.md": "# server check\n"},
        "docs(checks): the HTTP server over the engine thread, measured\n\nRow: ENG-MIRROR",
        "2026-07-26",
    )
    repo.commit(
        {"docs/checks/client.md": "# client check\n"},
        "docs(checks): a streaming load client, measured\n\nRow: ENG-MIRROR",
        "2026-07-28",
    )
    assert _findings(repo) == []


def test_a_series_needs_more_terms_than_its_best_commit(git_repo):
    repo = git_repo()
    repo.commit({PLAN: _plan(SERIES)}, "docs: plan", "2026-07-25")
    repo.commit({"src/a.py": "x = 1\n"}, "feat(engine): HTTP server\n\nRow: ENG-MIRROR", "2026-07-26")
    repo.commit({"src/b.py": "x = 2\n"}, "fix(engine): HTTP server shutdown\n\nRow: ENG-MIRROR", "2026-07-27")
    assert _findings(repo) == []  # two commits about the same half are not the whole


def _row(state: str, remaining: str) -> str:
    return (
        "# Roadmap\n\n| ID | Capability | State | Remaining |\n|---|---|---|---|\n"
        f"| ENG-MIRROR | the token map | {state} | {remaining} |\n"
    )


LANDING = "feat(engine): device-resident sampled-token map on discrete CUDA\n\nRow: ENG-MIRROR"


def test_editing_another_cell_of_the_row_does_not_redate_the_directive(git_repo):
    repo = git_repo()
    repo.commit({ROADMAP: _row("PLANNED", DIRECTIVE)}, "docs: plan", "2026-07-25")
    repo.commit({"src/runner.py": "x = 1\n"}, LANDING, "2026-07-27")
    repo.commit({ROADMAP: _row("ACTIVE", DIRECTIVE)}, "docs: the row is active", "2026-07-28")
    [f] = _findings(repo)  # blame dates the line 07-28; the cell was written 07-25
    assert (f.path, f.line) == (ROADMAP, 5) and "landed 2026-07-27" in f.message
    repo.write({ROADMAP: _row("REVIEW", DIRECTIVE)})
    [f] = _findings(repo)  # an uncommitted edit of the State cell: the same
    assert "landed 2026-07-27" in f.message


def test_rewriting_the_directive_cell_itself_redates_it(git_repo):
    repo = git_repo()
    repo.commit({ROADMAP: _row("PLANNED", DIRECTIVE)}, "docs: plan", "2026-07-25")
    repo.commit({"src/runner.py": "x = 1\n"}, LANDING, "2026-07-27")
    repo.commit({ROADMAP: _row("ACTIVE", DIRECTIVE.replace("Port", "Finish porting"))}, "docs: reword", "2026-07-28")
    assert _findings(repo) == []  # written after the landing, with the landing in view


def test_editing_a_non_state_cell_is_working_on_the_row(git_repo):
    repo = git_repo()
    repo.commit({ROADMAP: _row("PLANNED", DIRECTIVE)}, "docs: plan", "2026-07-25")
    repo.commit({"src/runner.py": "x = 1\n"}, LANDING, "2026-07-27")
    repo.commit(
        {ROADMAP: _row("PLANNED", DIRECTIVE).replace("the token map", "the token map (see 07-27)")},
        "docs: the row's capability reworded",
        "2026-07-28",
    )
    assert _findings(repo) == []  # whoever reworded the row saw the directive and kept it


def test_a_group_takes_the_severity_of_its_strongest_reason():
    """Grouped surfaces of one stale directive: a warning of one surface outranks an info of another, as an error
    outranks both (the finding's severity is its leading reason's)."""
    from roadmap.analysis.facts import Reason
    from roadmap.analysis.stale import _rank

    def reason(severity: str) -> Reason:
        return Reason("RL101", severity, "directs work that landed", "strike it")

    ranked = sorted([reason("info"), reason("warning"), reason("error")], key=_rank)
    assert [r.severity for r in ranked] == ["error", "warning", "info"]

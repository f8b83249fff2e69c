"""Reference helpers behind RL302/RL303: symbol names, where a symbol is now, re-pointing a range."""

from __future__ import annotations

import pytest

from roadmap.analysis.anchors import locate, repoint, symbol_parts
from roadmap.analysis.refs import is_external, normalise
from roadmap.lint import LintOptions, lint
from roadmap.records.model import PathRef

CPP = ["int a;", "", "bool Runner::mirror() const {", "  return x;", "}", "void other() { mirror(); }"]


@pytest.mark.parametrize(
    "symbol, expected",
    [
        ("GPUModelRunner::async_device_mirror()", ("async_device_mirror", "GPUModelRunner")),
        ("Scheduler.run", ("run", "Scheduler")),
        ("step(x, y)", ("step", None)),
        ("--no-async-scheduling", ("--no-async-scheduling", None)),
    ],
)
def test_symbol_parts(symbol, expected):
    assert symbol_parts(symbol) == expected


def test_locate_prefers_the_definition_over_uses():
    ref = PathRef(path="r.cpp", line=10, end_line=12, symbol="Runner::mirror()", text="r.cpp:10-12")
    loc = locate(CPP, ref)
    assert loc.status == "moved" and loc.line == 3
    assert locate(CPP, PathRef(path="r.cpp", line=2, end_line=4, symbol="mirror")).status == "on-lines"
    assert locate(CPP, PathRef(path="r.cpp", line=1, end_line=1, symbol="gone_fn")).status == "absent"
    assert locate(CPP, PathRef(path="r.cpp", symbol="mirror", form="symbol")).status == "on-lines"


def test_flags_match_whole_flags_only():
    lines = ["--no-async-scheduling-extra", "parser.add('--no-async-scheduling')"]
    loc = locate(lines, PathRef(path="cli.py", line=1, end_line=1, symbol="--no-async-scheduling"))
    assert loc.status == "moved" and loc.line == 2


@pytest.mark.parametrize(
    "text, form, line, end, new_start, expected",
    [
        ("src/a.py:10-20", "colon", 10, 20, 35, "src/a.py:35-45"),
        ("src/a.py:10", "colon", 10, 10, 3, "src/a.py:3"),
        ("src/a.py#L10-L20", "hash", 10, 20, 40, "src/a.py#L40-L50"),
        ("[x](../src/a.py#L10-20)", "link", 10, 20, 5, "[x](../src/a.py#L5-15)"),
        ("src/a.py:11-20", "colon", 10, 20, 5, None),  # text and parsed line disagree: no edit
    ],
)
def test_repoint_keeps_style_and_range_length(text, form, line, end, new_start, expected):
    ref = PathRef(path="src/a.py", line=line, end_line=end, text=text, form=form)
    assert repoint(text, ref, new_start) == expected


def test_external_and_climbing_paths():
    assert is_external("/etc/hosts") and is_external("~/x.py") and is_external("github.com/o/r/x.py")
    assert is_external("git@host:repo/x.py") and not is_external("src/x.py")
    assert normalise("../../x.py", "agents") is None and normalise("../src/x.py", "agents") == "src/x.py"


def test_line_out_of_range_defers_to_anchor_drifted_only_when_that_rule_runs(fixture_repo):
    repo, _ = fixture_repo("RL303-anchor-drifted")
    both = [(f.code, f.line) for f in lint(repo.path, LintOptions(select=("RL302", "RL303"))).findings]
    assert ("RL303", 8) in both and ("RL302", 8) not in both
    alone = [(f.code, f.line) for f in lint(repo.path, LintOptions(select=("RL302",))).findings]
    assert alone == [("RL302", 8)]


def test_a_line_inside_the_symbols_body_is_on_it():
    # `run` is defined at line 3; a reference to line 5 points into its body, not at a stale anchor
    body = ["import os", "", "def run(x):", "    y = x + 1", "    return os.sep * y", "", "def other():", "    pass"]
    assert locate(body, PathRef(path="a.py", line=5, end_line=5, symbol="run")).status == "on-lines"
    # past the body (inside `other`), it has moved
    loc = locate(body, PathRef(path="a.py", line=8, end_line=8, symbol="run"))
    assert loc.status == "moved" and loc.line == 3
    cpp = ["int fold(int a,", "         int b) {", "  return a;", "}", "int g() { return 0; }"]
    assert locate(cpp, PathRef(path="a.cpp", line=3, end_line=3, symbol="fold")).status == "on-lines"


def test_an_indented_qualified_call_is_not_a_definition():
    # `vt::fused_chain(` on indented lines are calls; the one definition at the margin is where it is
    lines = [
        "namespace vt {}",
        "void run() {",
        "  vt::fused_chain(a,",
        "      b);",
        "}",
        "int vt::fused_chain(int a,",
        "                    int b) {",
        "  return a;",
        "}",
    ]
    loc = locate(lines, PathRef(path="a.cpp", line=1, end_line=1, symbol="vt::fused_chain"))
    assert loc.status == "moved" and loc.line == 6


def test_a_definition_moved_to_another_file_is_found_there_not_at_a_call(git_repo):
    """The cited file only calls the function now (its definition went to a sibling file): RL303 names the
    definition's file and line, and offers no automatic edit to the call's line. Where the name is defined in no
    other file, or in two, the message says the cited file only uses it, and still offers no edit."""
    repo = git_repo()
    old = (
        "package query\n\n"
        + "// filler\n" * 30
        + "func parseSelector(body string) map[string]string {\n\treturn nil\n}\n"
    )
    repo.commit(
        {
            "pkg/query/parse.go": old,
            "TODO.md": "# todo\n\n- `parseSelector` (pkg/query/parse.go:33) splits on commas\n",
        },
        "init",
        "2026-05-04",
    )
    new = "package query\n\nfunc Parse(s string) {\n\tsel := parseSelector(s)\n\t_ = sel\n}\n"
    moved = "package query\n\n// parseSelector parses a selector body.\nfunc parseSelector(body string) map[string]string {\n\treturn nil\n}\n"
    repo.commit({"pkg/query/parse.go": new, "pkg/query/selector.go": moved}, "move selector parsing", "2026-05-13")
    [f] = [f for f in lint(repo.path, LintOptions(use_cache=False, select=("RL303",))).findings]
    assert "defined at pkg/query/selector.go:4" in f.message and "only uses it now (line 4)" in f.message
    assert not f.edits
    # a second definition elsewhere: no single place to name, the use in the cited file is what is known
    repo.commit({"pkg/other/dup.go": "package other\n\nfunc parseSelector() {}\n"}, "dup", "2026-05-14")
    [g] = [f for f in lint(repo.path, LintOptions(use_cache=False, select=("RL303",))).findings]
    assert "pkg/query/parse.go only uses it now (line 4)" in g.message and not g.edits

"""Suppression comments: which findings each form covers, and which comments covered nothing."""

from __future__ import annotations

from roadmap.findings import Finding
from roadmap.records.model import RecordFile, Suppression
from roadmap.suppress import apply_suppressions

TEXT = "\n".join(f"line {n}" for n in range(1, 41)) + "\n"


def finding(code: str, line: int, end_line: int | None = None, path: str = "agents/a.md") -> Finding:
    return Finding(
        code=code, name="x", severity="error", message=f"{code}@{line}", path=path, line=line, end_line=end_line or line
    )


def record(*sups: Suppression, text: str = TEXT) -> RecordFile:
    return RecordFile(path="agents/a.md", text=text, suppressions=list(sups))


def sup(line: int, action: str, *codes: str) -> Suppression:
    return Suppression(path="agents/a.md", line=line, action=action, codes=codes)


def kept_lines(result) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in result.kept]


def test_disable_next_line_covers_only_the_next_line_and_its_codes():
    s = sup(4, "disable-next-line", "RL201")
    res = apply_suppressions([finding("RL201", 5), finding("RL201", 6), finding("RL301", 5)], [record(s)])
    assert kept_lines(res) == [("RL201", 6), ("RL301", 5)]
    assert res.used == {s}


def test_disable_next_line_skips_blank_lines_and_covers_multi_line_statements():
    text = "a\n<!-- c -->\n\n\npara line 5\npara line 6\n"
    s = sup(2, "disable-next-line")
    res = apply_suppressions([finding("RL101", 5, 6), finding("RL101", 7)], [record(s, text=text)])
    assert kept_lines(res) == [("RL101", 7)]


def test_code_prefixes_match_whole_families():
    s = sup(1, "disable-file", "RL2")
    res = apply_suppressions([finding("RL201", 10), finding("RL202", 20), finding("RL301", 30)], [record(s)])
    assert kept_lines(res) == [("RL301", 30)]


def test_disable_enable_range_with_per_code_reenable():
    sups = [sup(5, "disable"), sup(10, "enable", "RL3"), sup(20, "enable")]
    fs = [
        finding("RL301", 7),
        finding("RL201", 7),
        finding("RL301", 12),
        finding("RL201", 12),
        finding("RL201", 25),
        finding("RL301", 3),
    ]
    res = apply_suppressions(fs, [record(*sups)])
    # all codes off from line 5; RL3 back on at 10; everything back on at 20
    assert kept_lines(res) == [("RL301", 12), ("RL201", 25), ("RL301", 3)]
    assert res.used == {sups[0]}


def test_unused_suppressions_are_not_marked_used():
    used = sup(1, "disable-next-line", "RL301")
    unused = sup(20, "disable-next-line", "RL302")
    res = apply_suppressions([finding("RL301", 2)], [record(used, unused)])
    assert res.used == {used}
    assert res.kept == []


def test_other_files_are_not_affected():
    s = sup(1, "disable-file")
    res = apply_suppressions([finding("RL301", 2, path="agents/b.md")], [record(s)])
    assert len(res.kept) == 1 and not res.used


def test_expect_comments_in_fixtures_are_not_suppressions():
    from roadmap.config import Config
    from roadmap.records import parse_record

    text = (
        "# T\n\n- `src/a.py:9` <!-- expect: RL302 -->\n| ID | State |\n|---|---|\n| RM-X | OPEN | <!-- expect: RL401 -->\n"
        "<!-- roadmap: disable-next-line RL302 -- real one --> <!-- expect: RL901 -->\n- b\n"
    )
    rf = parse_record("agents/t.md", text.encode(), Config())
    assert [(s.line, s.action, s.codes) for s in rf.suppressions] == [(7, "disable-next-line", ("RL302",))]
    assert rf.problems == []

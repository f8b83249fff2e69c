"""A column named as ours holds our references even under a heading about upstream: a port's parity table sits in
a section titled after the project it ports ("# Op parity vs upstream"), one column cites their tree and one ours.
The heading still decides for columns that do not say whose they are."""

from __future__ import annotations

import pytest

from roadmap.analysis.ownership import ours_column
from linted import codes_on

from roadmap.lint import LintOptions, lint


@pytest.mark.parametrize(
    "header, expected",
    [
        ("Ours", True),
        ("Our impl", True),
        ("Local path", True),
        ("Here", True),
        ("Upstream ref", False),
        ("Reference", False),
        ("File", False),
        ("Ourania notes", False),  # a word that starts like "our" is not it
        (None, False),
    ],
)
def test_ours_column(header, expected):
    assert ours_column(header) is expected


def _calib(prefix_lines: int) -> str:
    head = "".join(f"// note {i}\n" for i in range(prefix_lines))
    body = "".join(f"  out[{i}] = raw[{i}] - bias_[{i}];\n" for i in range(10))
    return (
        head + "Sample ImuCalib::apply(const Sample& raw) const {\n  Sample out = raw;\n" + body + "  return out;\n}\n"
    )


def _port_repo(git_repo, name: str, heading: str, ours: str):
    """A table under `heading` with an upstream column and a column headed `ours`; our anchor drifts later."""
    repo = git_repo(name)
    record = (
        f"{heading}\n\n| Kernel | Upstream | {ours} |\n|---|---|---|\n"
        "| calib | `csrc/imu/calib.cu:40-61` | `src/calib.cpp:8-20` (`ImuCalib::apply`) |\n"
    )
    repo.commit({"agents/port.md": record, "src/calib.cpp": _calib(7)}, "docs: port table", "2026-02-01")
    repo.commit({"src/calib.cpp": _calib(19)}, "calib: bias table loader above apply", "2026-02-10")
    return repo


@pytest.mark.parametrize(
    "heading, ours",
    [
        ("# Op parity vs upstream", "Our impl"),
        ("## Differences from upstream PX4", "Ours"),
        ("## Kernels ported from upstream", "Local path"),
    ],
)
def test_a_column_named_as_ours_is_checked_under_an_upstream_heading(git_repo, heading, ours):
    repo = _port_repo(git_repo, f"ours-{len(ours)}", heading, ours)
    findings = lint(repo.path, LintOptions(use_cache=False)).findings
    assert [f.code for f in findings if "src/calib.cpp:8-20" in f.message] == ["RL303"]
    assert not [f for f in findings if "csrc/imu" in f.message + (f.fix or "")]  # their tree, never checked


def test_an_unnamed_column_under_an_upstream_heading_stays_theirs(git_repo):
    repo = _port_repo(git_repo, "neutral", "# Op parity vs upstream", "File")
    assert "RL303" not in codes_on(repo, "agents/port.md", "src/calib.cpp:8-20")

"""`--diff` shows the safe fixes and changes nothing; `--fix` rewrites only the lines its Edits name."""
from __future__ import annotations

from roadmap.cli import main
from roadmap.findings import Edit, Finding
from roadmap.fix import plan_fixes

RECORD = "agents/anchors.md"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_diff_then_fix_round_trip(capsys, fixture_repo):
    repo, _ = fixture_repo("RL303-anchor-drifted")
    path = repo.path / RECORD
    # CRLF line endings and a non-UTF-8 byte elsewhere must survive the fix byte for byte
    original = path.read_bytes().replace(b"\n", b"\r\n") + b"- caf\xe9 note\r\n"
    path.write_bytes(original)

    code, out, _ = run(capsys, "lint", str(repo.path), "--diff")
    assert code == 1
    assert f"--- a/{RECORD}" in out and f"+++ b/{RECORD}" in out
    assert "-- `GPUModelRunner::async_device_mirror()` (src/runner.cpp:10-15)" in out
    assert "+- `GPUModelRunner::async_device_mirror()` (src/runner.cpp:35-40)" in out
    assert path.read_bytes() == original, "--diff must not write"

    code, out, err = run(capsys, "lint", str(repo.path), "--fix", "--select", "RL303")
    assert "fixed 1 finding(s) in 1 file(s)" in err
    assert code == 0          # what is left (ambiguous/absent anchors) are warnings
    after = path.read_bytes()
    before_lines, after_lines = original.split(b"\r\n"), after.split(b"\r\n")
    changed = [i for i, (a, b) in enumerate(zip(before_lines, after_lines)) if a != b]
    assert len(before_lines) == len(after_lines) and changed == [3]
    assert after_lines[3] == before_lines[3].replace(b"runner.cpp:10-15", b"runner.cpp:35-40")

    code, out, _ = run(capsys, "lint", str(repo.path), "--format", "json", "--select", "RL303")
    assert "async_device_mirror" not in out
    assert run(capsys, "lint", str(repo.path), "--diff")[0:2] == (0, "")


def test_stale_edit_is_skipped_not_guessed(tmp_path):
    (tmp_path / "a.md").write_text("one\nsrc/x.py:3\n")
    f = Finding(code="RL303", name="anchor-drifted", severity="warning", message="m", path="a.md", line=2,
                end_line=2, edits=[Edit("a.md", 2, "src/x.py:10", "src/x.py:20")])
    plan = plan_fixes(tmp_path, [f])
    assert plan.files == [] and plan.fixed == [] and plan.skipped == f.edits

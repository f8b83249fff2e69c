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


def test_diff_then_fix_round_trip(capsys, fixture_repo, tmp_path):
    repo, _ = fixture_repo("RL303-anchor-drifted")
    path = repo.path / RECORD
    # CRLF line endings and a non-UTF-8 byte elsewhere must survive the fix byte for byte
    original = path.read_bytes().replace(b"\n", b"\r\n") + b"- caf\xe9 note\r\n"
    path.write_bytes(original)

    patch = tmp_path / "fix.patch"
    code, _, _ = run(capsys, "lint", str(repo.path), "--diff", "-o", str(patch))
    out = patch.read_bytes()
    assert code == 1
    assert f"--- a/{RECORD}".encode() in out and f"+++ b/{RECORD}".encode() in out
    assert b"-- `GPUModelRunner::async_device_mirror()` (src/runner.cpp:10-15)" in out
    assert b"+- `GPUModelRunner::async_device_mirror()` (src/runner.cpp:35-40)" in out
    assert b"caf\xe9" in out  # undecodable bytes shown as they are on disk
    assert path.read_bytes() == original, "--diff must not write"
    repo.git("apply", "--check", str(patch))  # the diff is a patch git accepts

    code, out, err = run(capsys, "lint", str(repo.path), "--fix", "--select", "RL303")
    assert "fixed 3 finding(s) in 1 file(s)" in err
    assert code == 0  # what is left (ambiguous/absent anchors) are warnings
    after = path.read_bytes()
    before_lines, after_lines = original.split(b"\r\n"), after.split(b"\r\n")
    changed = [i for i, (a, b) in enumerate(zip(before_lines, after_lines)) if a != b]
    assert len(before_lines) == len(after_lines) and changed == [3, 7, 8]
    assert after_lines[3] == before_lines[3].replace(b"runner.cpp:10-15", b"runner.cpp:35-40")
    assert after_lines[7] == before_lines[7].replace(b"runner.cpp:500-502", b"runner.cpp:7-9")
    assert after_lines[8] == before_lines[8].replace(b"runner.cpp#L1-L3", b"runner.cpp#L35-L37")

    code, out, _ = run(capsys, "lint", str(repo.path), "--format", "json", "--select", "RL303")
    assert "async_device_mirror" not in out
    assert run(capsys, "lint", str(repo.path), "--diff", "-o", str(patch))[0] == 0 and patch.read_bytes() == b""


def test_stale_edit_is_skipped_not_guessed(tmp_path):
    (tmp_path / "a.md").write_text("one\nsrc/x.py:3\n")
    f = Finding(
        code="RL303",
        name="anchor-drifted",
        severity="warning",
        message="m",
        path="a.md",
        line=2,
        end_line=2,
        edits=[Edit("a.md", 2, 0, "src/x.py:10", "src/x.py:20")],
    )
    plan = plan_fixes(tmp_path, [f])
    assert plan.files == [] and plan.fixed == [] and plan.skipped == f.edits


def test_diff_to_stdout_in_a_subprocess(fixture_repo):
    import subprocess
    import sys

    repo, _ = fixture_repo("RL303-anchor-drifted")
    proc = subprocess.run([sys.executable, "-m", "roadmap", "lint", str(repo.path), "--diff"], capture_output=True)
    assert proc.returncode == 1 and b"+- `helper_3()` (src/runner.cpp:7-9)" in proc.stdout
    assert repo.git("status", "--porcelain") == ""


def test_fix_rewrites_our_reference_and_never_another_projects(capsys, fixture_repo):
    # The port map cites our Go code and the C original side by side; the C side (another project's line
    # numbers, a vendored copy under a configured external root) must come out of --fix byte for byte.
    repo, _ = fixture_repo("RL3-ours-and-theirs")
    path = repo.path / "agents" / "port.md"
    before = path.read_text(encoding="utf-8").split("\n")
    code, _, err = run(capsys, "lint", str(repo.path), "--fix", "--select", "RL303")
    after = path.read_text(encoding="utf-8").split("\n")
    assert "fixed 2 finding(s) in 1 file(s)" in err and code == 0
    changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
    assert changed == [6, 12] and after[6] == before[6].replace("pager.go:12-14", "pager.go:21-23")
    assert "`src/pager.c:1900-1950`" in after[6]
    assert after[12] == before[12].replace("pager.go#L12-L14", "pager.go#L21-L23")  # a link: its target only

"""What roadmap writes survives a full disk, and a path with a space in it is one path (issue 10's smaller
repros, each test named after what it guards)."""

from __future__ import annotations

import json
import os

from roadmap.cachedir import CACHE_DIR, write_atomic
from roadmap.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _full_disk(fd: int) -> None:
    raise OSError(28, "No space left on device")


def test_path_with_a_space_is_not_reported_missing(capsys, git_repo):
    repo = git_repo()
    repo.commit(
        {
            "src/my file.py": "def run():\n    pass\n",
            "my dir/a.py": "x = 1\n",
            "agents/r.md": "- `run` (src/my file.py:1), and `my dir/a.py:1`, and src/my file.py\n"
            "- `run` (src/my file.py:9)\n",
        },
        "docs: record",
        "2026-07-01",
    )
    code, out, _ = run(capsys, "lint", str(repo.path), "--format", "json", "--select", "RL3")
    found = [(f["code"], f["line"]) for f in json.loads(out)["findings"]]
    assert found == [("RL302", 2)]  # the real mistake only: no RL301 for `file.py` or `dir/a.py`


def test_cache_gitignore_left_empty_by_a_full_disk_is_rewritten(git_repo, monkeypatch):
    repo = git_repo()
    top = repo.path / CACHE_DIR
    top.mkdir()
    (top / ".gitignore").write_text("")  # what an interrupted write used to leave for good
    write_atomic(top / "x.json", b"{}")
    assert (top / ".gitignore").read_text().endswith("*\n")
    assert repo.git("status", "--porcelain") == ""
    (top / ".gitignore").unlink()
    monkeypatch.setattr(os, "fsync", _full_disk)  # the .gitignore itself fails to write this time
    try:
        write_atomic(top / "y.json", b"{}")
    except OSError:
        pass
    assert not (top / ".gitignore").exists() or (top / ".gitignore").read_text().endswith("*\n")
    assert sorted(p.name for p in top.iterdir() if p.name.startswith(".")) in ([], [".gitignore"])


def test_report_output_is_never_left_empty_by_a_failed_write(capsys, git_repo, monkeypatch):
    repo = git_repo()
    repo.commit({"agents/r.md": "- fine\n"}, "docs: record", "2026-07-01")
    target = repo.path.parent / "report.md"
    assert run(capsys, "report", str(repo.path), "-o", str(target))[0] == 0
    good = target.read_text()
    assert good.startswith("# Coordination report")
    monkeypatch.setattr(os, "fsync", _full_disk)
    code, _, err = run(capsys, "report", str(repo.path), "-o", str(target))
    assert code == 2 and "No space left on device" in err
    assert target.read_text() == good  # the old report, whole
    fresh = repo.path.parent / "new.md"
    code, _, _ = run(capsys, "lint", str(repo.path), "-o", str(fresh))
    assert code == 2 and not fresh.exists()  # never a 0-byte file
    assert sorted(p.name for p in repo.path.parent.iterdir()) == ["repo", "report.md"]

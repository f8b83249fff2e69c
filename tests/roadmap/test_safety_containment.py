"""Nothing outside the work tree is read: symlinks that leave it are skipped with an info finding, special files
are never opened, reads are capped (issue 10: each test is one of its repros, named after what it guards)."""

from __future__ import annotations

import json
import os

import pytest

from roadmap.cli import main
from roadmap.history.tree import Tree
from roadmap.lint import LintOptions, lint

SECRET = "top-secret-line-from-outside-the-repository"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def outside(tmp_path):
    """A file outside any repository, holding text that must never appear in a report."""
    path = tmp_path / "outside" / "notes.md"
    path.parent.mkdir()
    path.write_text(f"# {SECRET}\n\n- Port `{SECRET}` (src/x.py:1)\n" + "line\n" * 40)
    return path


def findings(capsys, repo, *extra: str) -> list[dict]:
    code, out, _ = run(capsys, "lint", str(repo.path), "--format", "json", "--no-cache", *extra)
    assert code in (0, 1), out
    return json.loads(out)["findings"]


def test_symlinked_record_outside_tree_is_skipped(capsys, git_repo, outside):
    repo = git_repo()
    repo.commit({"agents/ok.md": "- fine\n"}, "docs: records", "2026-07-01")
    (repo.path / "agents" / "leak.md").symlink_to(outside)
    repo.git("add", "agents/leak.md")
    repo.git("commit", "-q", "-m", "docs: link", date="2026-07-02")
    found = findings(capsys, repo)
    assert SECRET not in json.dumps(found)
    [skip] = [f for f in found if f["path"] == "agents/leak.md"]
    assert skip["code"] == "RL001" and skip["severity"] == "info" and "outside the work tree" in skip["message"]
    for fmt in ("text", "markdown", "sarif", "github"):
        assert SECRET not in run(capsys, "lint", str(repo.path), "--format", fmt)[1]


def test_symlinked_source_outside_tree_leaks_no_line_count(capsys, git_repo):
    repo = git_repo()
    repo.commit({"agents/r.md": "- see `main` (src/passwd.py:9999)\n"}, "docs: record", "2026-07-01")
    (repo.path / "src").mkdir()
    (repo.path / "src" / "passwd.py").symlink_to("/etc/passwd")
    found = findings(capsys, repo)
    assert not [f for f in found if f["code"] in ("RL301", "RL302", "RL303")]  # no "it has N lines"
    [skip] = [f for f in found if f["code"] == "RL001"]
    assert skip["severity"] == "info" and "`src/passwd.py` was not read" in skip["message"]
    assert skip["path"] == "agents/r.md" and skip["line"] == 1


def test_record_linked_to_dev_zero_is_not_read(capsys, git_repo):
    repo = git_repo()
    repo.commit({"agents/ok.md": "- fine\n"}, "docs: records", "2026-07-01")
    (repo.path / "agents" / "zero.md").symlink_to("/dev/zero")
    found = findings(capsys, repo)
    [skip] = [f for f in found if f["path"] == "agents/zero.md"]
    assert skip["code"] == "RL001" and skip["severity"] == "info"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_inside_tree_is_never_opened(git_repo):
    repo = git_repo()
    repo.commit({"agents/ok.md": "- fine\n"}, "docs: records", "2026-07-01")
    os.mkfifo(repo.path / "agents" / "pipe.md")
    (repo.path / "agents" / "link.md").symlink_to("pipe.md")  # listed by git: a symlink to a FIFO
    tree = Tree(repo.path)
    assert tree.read_bytes("agents/link.md") is None  # an open() would block forever here
    skip = tree.skipped("agents/link.md")
    assert skip is not None and skip.kind == "special"


def test_symlink_inside_the_tree_is_read(git_repo):
    repo = git_repo()
    repo.commit({"notes/r.md": "- fine\n"}, "docs: note", "2026-07-01")
    (repo.path / "agents").mkdir()
    (repo.path / "agents" / "r.md").symlink_to("../notes/r.md")
    assert Tree(repo.path).read_bytes("agents/r.md") == b"- fine\n"


def test_record_larger_than_the_cap_is_a_finding_not_a_read(capsys, git_repo):
    repo = git_repo()
    repo.commit(
        {
            "agents/big.md": "- " + "x" * 5000 + "\n",
            "agents/ok.md": "- fine\n",
            "roadmap.yaml": "max_file_bytes: 1000\n",
        },
        "docs: records",
        "2026-07-01",
    )
    found = findings(capsys, repo)
    [big] = [f for f in found if f["path"] == "agents/big.md"]
    assert big["code"] == "RL001" and big["severity"] == "warning" and "max_file_bytes" in big["message"]


def test_at_a_revision_a_symlink_leaving_the_tree_is_skipped(capsys, git_repo, outside):
    repo = git_repo()
    repo.commit({"agents/ok.md": "- fine\n"}, "docs: records", "2026-07-01")
    (repo.path / "agents" / "leak.md").symlink_to(outside)
    (repo.path / "agents" / "inside.md").symlink_to("ok.md")
    repo.git("add", "agents")
    repo.git("commit", "-q", "-m", "docs: links", date="2026-07-02")
    at = Tree(repo.path, rev=repo.rev())
    assert at.read_bytes("agents/leak.md") is None and at.skipped("agents/leak.md").kind == "outside"
    assert at.read_bytes("agents/inside.md") == b"- fine\n"
    found = findings(capsys, repo, "--at", "HEAD")
    assert SECRET not in json.dumps(found)
    assert [f["severity"] for f in found if f["path"] == "agents/leak.md"] == ["info"]


def test_evidence_result_symlinked_outside_is_skipped(capsys, git_repo, tmp_path):
    secret = tmp_path / "result.json"
    secret.write_text(json.dumps({"schema": "evident.bench/1", "series": SECRET}))
    repo = git_repo()
    repo.commit({"agents/r.md": "- fine\n"}, "docs: records", "2026-07-01")
    ev = repo.path / "docs" / "bench-evidence" / "20260701-x"
    ev.mkdir(parents=True)
    (ev / "result.json").symlink_to(secret)
    result = lint(repo.path, LintOptions(use_cache=False))
    assert SECRET not in json.dumps([f.to_json() for f in result.findings])
    assert [(f.code, f.severity) for f in result.findings if "bench-evidence" in f.path] == [("RL001", "info")]


def test_config_symlinked_outside_the_tree_is_a_usage_error(capsys, git_repo, outside):
    repo = git_repo()
    repo.commit({"agents/ok.md": "- fine\n"}, "docs: records", "2026-07-01")
    (repo.path / "roadmap.yml").symlink_to("/dev/zero")  # not a regular file: never opened
    assert run(capsys, "lint", str(repo.path))[0] == 0
    (repo.path / "roadmap.yaml").symlink_to(outside)
    code, _, err = run(capsys, "lint", str(repo.path))
    assert code == 2 and "roadmap.yaml: cannot read config (a symlink whose target is outside" in err
    assert SECRET not in err

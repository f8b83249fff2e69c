"""Tree: files of the working tree or of a revision; an empty blob is empty bytes, a missing one is None."""

from __future__ import annotations

from roadmap.history.tree import Tree


def test_empty_blob_at_a_revision_is_empty_bytes_not_missing(git_repo) -> None:
    repo = git_repo()
    sha = repo.commit({"agents/empty.md": "", "agents/full.md": "- Port it.\n"}, "docs: records", "2026-07-25")
    repo.commit({"agents/empty.md": None}, "docs: drop the empty record", "2026-07-26")
    at = Tree(repo.path, rev=sha)
    assert at.read_bytes("agents/empty.md") == b""
    assert at.read_lines("agents/empty.md") == []
    assert at.read_bytes("agents/full.md") == b"- Port it.\n"
    assert at.read_bytes("agents/absent.md") is None
    now = Tree(repo.path)
    assert now.read_bytes("agents/empty.md") is None  # deleted since
    assert now.read_bytes("agents/full.md") == b"- Port it.\n"


def test_working_tree_empty_file_is_empty_bytes(git_repo) -> None:
    repo = git_repo()
    repo.commit({"agents/empty.md": ""}, "docs: empty record", "2026-07-25")
    assert Tree(repo.path).read_bytes("agents/empty.md") == b""


def test_a_path_git_cannot_read_at_the_revision_is_none(git_repo) -> None:
    """A gitlink (submodule entry) is listed by ls-tree but is no blob: None, never b""."""
    repo = git_repo()
    sha = repo.commit({"a.md": "x\n"}, "docs: a", "2026-07-25")
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{sha},vendor/sub")
    repo.git("commit", "-q", "-m", "chore: gitlink", date="2026-07-26")
    at = Tree(repo.path, rev=repo.rev())
    assert "vendor/sub" in at.files
    assert at.read_bytes("vendor/sub") is None

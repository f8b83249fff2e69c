"""RL104 for a setting of many values: a record says one value is opt-in (`--eviction=lru`), and a diff makes that
value the default. Voice: a cache service's README notes and a Go flag; negative controls: the default moved to a
third value, and a value that was already the default."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

NOTES = "agents/notes/cache.md"
GO = 'package main\n\nimport "flag"\n\nvar eviction = flag.String("eviction", "fifo", "fifo | lru | arc")\n'


def _findings(repo):
    return lint(repo.path, LintOptions(use_cache=False, select=("RL104",))).findings


def _repo(git_repo):
    repo = git_repo()
    repo.commit({"cmd/cache/flags.go": GO}, "flags", "2026-02-01")
    repo.commit(
        {NOTES: "# Cache notes\n\nFIFO stays the default; LRU eviction is opt-in via `--eviction=lru`.\n"},
        "notes",
        "2026-02-02",
    )
    return repo


def test_the_opted_in_value_made_the_default_is_a_flip(git_repo):
    repo = _repo(git_repo)
    sha = repo.commit({"cmd/cache/flags.go": GO.replace('"fifo", "fifo', '"lru", "fifo')}, "lru for all", "2026-02-10")
    [f] = _findings(repo)
    assert f.line == 3 and f.evidence[0]["sha"] == sha and "--eviction=lru" in f.message


def test_another_value_made_the_default_is_no_flip_of_this_one(git_repo):
    repo = _repo(git_repo)
    repo.commit({"cmd/cache/flags.go": GO.replace('"fifo", "fifo', '"arc", "fifo')}, "arc for all", "2026-02-10")
    assert _findings(repo) == []


def test_a_flip_turned_back_is_no_flip(git_repo):
    repo = _repo(git_repo)
    lru = GO.replace('"fifo", "fifo', '"lru", "fifo')
    repo.commit({"cmd/cache/flags.go": lru}, "lru for all", "2026-02-10")
    repo.commit({"cmd/cache/flags.go": GO}, "back to fifo: lru thrashed on scans", "2026-02-12")
    assert _findings(repo) == []

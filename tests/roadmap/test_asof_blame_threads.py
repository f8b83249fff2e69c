"""Blames begun in threads (asof.start_blame) give what blaming on demand gives, and are all collected by
finish_blame (before a fork) or by the first read of one of them."""

from __future__ import annotations

from roadmap.analysis.asof import blame_file, finish_blame, prefetch_blame, start_blame
from roadmap.analysis.context import LintContext
from roadmap.config import Config
from roadmap.history.tree import Tree

FILES = {f"agents/r{n}.md": "".join(f"| R-{n}-{k} | ACTIVE | step {k} |\n" for k in range(n + 2)) for n in range(6)}


def _ctx(repo) -> LintContext:
    return LintContext(root=repo.path, config=Config(), records=[], tree=Tree(repo.path), head=repo.rev())


def _repo(git_repo):
    r = git_repo()
    r.commit(FILES, "docs: records", "2026-07-25")
    r.commit({"agents/r3.md": FILES["agents/r3.md"] + "| R-3-x | DONE | late |\n"}, "docs: r3", "2026-07-27")
    return r


def test_begun_blames_equal_blames_on_demand(git_repo):
    r = _repo(git_repo)
    want = _ctx(r)
    prefetch_blame(want, FILES)
    got = _ctx(r)
    start_blame(got, list(FILES)[:3])
    start_blame(got, FILES)  # the begun ones are not begun twice
    assert got.facts.blaming is not None and len(got.facts.blaming.futures) == len(FILES)
    assert blame_file(got, "agents/r3.md") == want.facts.blame["agents/r3.md"]  # a read collects them all
    assert got.facts.blaming is None
    assert got.facts.blame == want.facts.blame


def test_finish_collects_and_a_missing_file_has_no_lines(git_repo):
    r = _repo(git_repo)
    ctx = _ctx(r)
    start_blame(ctx, ["agents/r1.md", "agents/gone.md"])
    finish_blame(ctx)
    assert ctx.facts.blaming is None
    assert ctx.facts.blame["agents/gone.md"] == {}
    assert ctx.facts.blame["agents/r1.md"][1] == r.rev("HEAD~1")  # no record loaded: its first line is asked
    finish_blame(ctx)  # nothing running: nothing to do


def test_a_serial_run_builds_the_history_once_though_the_detectors_prepare_in_threads(git_repo, monkeypatch):
    import roadmap.history.index as index_mod
    from roadmap.lint import LintOptions, lint

    r = git_repo()
    r.commit({"src/a.py": "x = 1\n"}, "feat: a", "2026-07-20")
    r.commit(
        {
            "agents/roadmap.md": "# Roadmap\n\n- Port `DeviceMirror` to CUDA because the host copy dominates.\n"
            "- Turn on `--fast-path`, which is opt-in today.\n"
        },
        "docs: roadmap",
        "2026-07-25",
    )
    r.commit({"src/a.py": "class DeviceMirror:\n    pass\n"}, "feat: DeviceMirror on CUDA", "2026-07-27")
    built = []
    real = index_mod.HistoryIndex.build.__func__
    monkeypatch.setattr(
        index_mod.HistoryIndex, "build", classmethod(lambda cls, *a, **k: built.append(1) or real(cls, *a, **k))
    )
    monkeypatch.setenv("ROADMAP_SERIAL", "1")
    lint(r.path, LintOptions(use_cache=False))
    assert built == [1]

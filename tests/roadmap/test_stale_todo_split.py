"""The statements the stale analysis tests, picked while the records parse (each record's by the process that
parsed it, records/parallel.py): the same statements, with the same detectors, as picked after the parse, and the
same findings as a serial run."""

from __future__ import annotations

import pytest

from roadmap.analysis import stale
from roadmap.lint import LintOptions, lint
from roadmap.records import parallel

TODO = ".agents/todo.md"


def _repo(git_repo):
    repo = git_repo()
    repo.commit({"uploader/put.go": "package uploader\n\nfunc Put() error { return nil }\n"}, "first cut", "2026-05-01")
    items = "".join(
        f"- [ ] Retry uploads with exponential backoff when S3 answers 50{k}\n"
        f"- [x] Wired `UploadQueue{k}` (off by default, opt-in with `--upload-queue-{k}`)\n"
        for k in range(40)
    )
    repo.commit(
        {TODO: "# Uploader todo\n\n" + items, ".agents/notes.md": "# Notes\n\nJust prose.\n"}, "todo", "2026-05-02"
    )
    repo.commit(
        {"uploader/put.go": "package uploader\n\nfunc Put() error { return retry(put) }\n"},
        "uploader: exponential backoff on S3 503s",
        "2026-05-04",
    )
    return repo


@pytest.mark.parametrize("serial", ["0", "1"])
def test_todo_picked_while_parsing_is_the_todo_picked_after(git_repo, monkeypatch, serial):
    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 1)
    monkeypatch.setenv("ROADMAP_SERIAL", serial)
    repo = _repo(git_repo)
    result = lint(repo.path, LintOptions(use_cache=False))
    ctx = result.context
    assert ctx is not None and ctx.facts.stale_todo
    picked = [(st, [d.code for d in ds]) for st, ds in ctx.facts.stale_todo]
    ctx.facts.stale_todo = None
    again = stale._todo(ctx, [st for st in ctx.statements() if not st.historical])
    assert picked == [(st, [d.code for d in ds]) for st, ds in again]
    assert {c for _, cs in picked for c in cs} >= {"RL101", "RL104"}


def test_findings_equal_a_serial_run(git_repo, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 1)
    repo = _repo(git_repo)
    split = lint(repo.path, LintOptions(use_cache=False)).findings
    monkeypatch.setenv("ROADMAP_SERIAL", "1")
    serial = lint(repo.path, LintOptions(use_cache=False)).findings
    assert split and [f.to_json() for f in split] == [f.to_json() for f in serial]


def test_a_detector_that_raises_is_met_by_the_analysis(git_repo, monkeypatch):
    """A detector's bug while the records parse is no crash of the parse: the analysis meets it again, where it
    picks its statements (as when nothing is picked while parsing)."""
    from roadmap.registry import DETECTORS

    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 1)
    repo = _repo(git_repo)

    def boom(st):
        raise ValueError("bug")

    monkeypatch.setitem(
        DETECTORS, "RL102", DETECTORS["RL102"].__class__(**{**DETECTORS["RL102"].__dict__, "applies": boom})
    )
    with pytest.raises(ValueError, match="bug"):
        lint(repo.path, LintOptions(use_cache=False))

"""A bullet labelled "Blocked on:" / "Waiting for:" names work left (whoever does it), live in a log's newest entry;
its directive is the sentence naming what it waits for, after the why. A commit naming the directive's own ticket
key is the tracker's id of the work. Found missing by a blind scenario of 2026-12-05 (a Go team's hand-off log
whose blocker landed through a merge). Controls: a blocker waiting on another project, an older entry's blocker,
and a commit naming the same ticket for other work."""

from __future__ import annotations

from linted import codes_on
from roadmap.lint import LintOptions, lint

LOG = "agents/handoff.md"
WHY = (
    "- **Blocked on:** exports can't be resumed yet: the `Exporter` writes one temp file for every tenant, so two "
    "tenants exporting at once clobber each other. Needs a per-tenant spool directory in `internal/export/spool.go` "
    "(BILL-2207).\n"
)
UPSTREAM = "- **Waiting for:** the upstream parquet-go fix for dictionary pages (their issue 1481).\n"


def _codes(repo, needle: str) -> set[str]:
    return codes_on(repo, LOG, needle)


def _repo(git_repo, entries: list[str], subject: str, body: str = "", name: str = "repo"):
    repo = git_repo(name)
    log = "# Hand-off\n\nNewest entry last.\n\n" + "\n".join(entries)
    repo.commit(
        {LOG: log, "internal/export/spool.go": 'package export\n\nconst spool = "/tmp/export"\n'}, "log", "2026-03-02"
    )
    code = 'package export\n\nfunc SpoolDir(tenant string) string { return "/tmp/export/" + tenant }\n'
    repo.commit({"internal/export/spool.go": code}, subject + ("\n\n" + body if body else ""), "2026-03-05")
    return repo


NEWEST = "## 2026-03-02 · Ines → Bo\n\n- **Done:** nightly exports run again.\n" + WHY + UPSTREAM


def test_a_blocker_in_the_newest_entry_whose_need_landed_is_stale(git_repo):
    repo = _repo(git_repo, [NEWEST], "export: per-tenant spool directory (BILL-2207)")
    assert "RL101" in _codes(repo, "**Blocked on:** exports can't be resumed yet")


def test_a_blocker_waiting_on_another_project_stays(git_repo):
    repo = _repo(git_repo, [NEWEST], "export: per-tenant spool directory (BILL-2207)")
    assert _codes(repo, "the upstream parquet-go fix") == set()


def test_an_older_entrys_blocker_is_history(git_repo):
    newer = "## 2026-03-03 · Bo → Ines\n\n- **Done:** spool work started.\n"
    repo = _repo(git_repo, [NEWEST, newer], "export: per-tenant spool directory (BILL-2207)")
    assert "RL101" not in _codes(repo, "**Blocked on:** exports can't be resumed yet")


def test_the_same_ticket_named_for_other_work_does_not_land_it(git_repo):
    repo = _repo(git_repo, [NEWEST], "billing: invoice footer wording (BILL-2207 follow-up)")
    assert "RL101" not in _codes(repo, "**Blocked on:** exports can't be resumed yet")


def _severity(repo, needle: str) -> str | None:
    text = (repo.path / LOG).read_text().split("\n")
    got = [
        f.severity
        for f in lint(repo.path, LintOptions(use_cache=False)).findings
        if f.code == "RL101" and f.path == LOG and needle in text[f.line - 1]
    ]
    return got[0] if got else None


def test_the_directives_own_ticket_named_by_the_commit_makes_a_word_match_evidence(git_repo):
    # the same words, with and without the ticket: words alone are a hint (info), the ticket makes them evidence
    words = "export: per-tenant spool directory"
    assert _severity(_repo(git_repo, [NEWEST], words), "**Blocked on:**") == "info"
    assert _severity(_repo(git_repo, [NEWEST], words + " (BILL-2207)", name="b"), "**Blocked on:**") in (
        "warning",
        "error",
    )


def test_a_label_that_says_nothing_is_left_asks_nothing():
    from roadmap.config import Config
    from roadmap.records.classify import Classifier

    c = Classifier(Config())
    for text in ("Blocked on: Nothing. Ansh needs the sketch first.", "Blockers: none", "Next: n/a", "Waiting on: —"):
        assert not c.classify(text, "item", None, (), False).directive, text
    assert c.classify("Blocked on: owner answers to the open questions.", "item", None, (), False).directive

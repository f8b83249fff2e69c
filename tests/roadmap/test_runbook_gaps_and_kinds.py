"""A runbook's "Known gaps" list is work owed (its steps are instructions); a symbol written after a `path:line`
with the word for its kind ("(variable `replica_count`)") is the reference's anchor. Found missing by a blind
scenario of 2026-12-05 (an SRE runbook over Terraform and Kubernetes files)."""

from __future__ import annotations

from roadmap.config import Config
from linted import codes_on
from roadmap.records.parser import parse_record

RUNBOOK = "runbooks/queue-drain.md"
CONFIG = 'records: ["runbooks/*.md"]\n'


def _codes(repo, needle: str) -> set[str]:
    return codes_on(repo, RUNBOOK, needle)


def _repo(git_repo, title: str = "Runbook: draining the order queue"):
    repo = git_repo()
    book = (
        f"# {title}\n\nOwner: platform · on call\n\n## Steps\n\n"
        "1. Pause the consumers: `kubectl scale deploy/order-consumer --replicas=0`.\n"
        "2. Add a maintenance banner in the status page.\n\n"
        "## Known gaps\n\n"
        "- Consumers lose their in-memory batch on SIGTERM: nothing flushes it. Add a shutdown handler that "
        "flushes the pending batch to the outbox before exit.\n"
    )
    repo.commit(
        {RUNBOOK: book, "roadmap.yaml": CONFIG, "consumer/main.go": "package main\n\nfunc main() {}\n"},
        "runbook",
        "2026-04-01",
    )
    code = "package main\n\nfunc main() { onShutdown(flushPendingBatch) }\n\nfunc flushPendingBatch() {}\n"
    repo.commit(
        {"consumer/main.go": code},
        "consumer: flush the pending batch to the outbox on SIGTERM\n\nA shutdown handler now flushes the "
        "in-memory batch before exit, so a drain loses nothing.",
        "2026-04-09",
    )
    return repo


def test_a_landed_known_gap_of_a_runbook_is_stale(git_repo):
    assert "RL101" in _codes(_repo(git_repo), "Consumers lose their in-memory batch")


def test_a_runbooks_steps_are_instructions_not_work(git_repo):
    repo = _repo(git_repo)
    assert "RL101" not in _codes(repo, "Add a maintenance banner")


def test_a_runbook_title_does_not_make_its_steps_a_list_of_work(git_repo):
    repo = _repo(git_repo, title="Queue drain TODO runbook")
    assert "RL101" not in _codes(repo, "Add a maintenance banner")


def test_a_symbol_after_a_reference_may_be_written_with_the_word_for_its_kind():
    text = (
        "# Notes\n\n- Replicas: `infra/rds.tf:11-15` (variable `replica_count`), and `app.py:40` (function `load`).\n"
    )
    rf = parse_record("agents/notes.md", text.encode(), Config())
    refs = {(p.path, p.symbol) for st in rf.statements for p in st.mentions.paths}
    assert ("infra/rds.tf", "replica_count") in refs and ("app.py", "load") in refs
    plain = parse_record("agents/n.md", b"# N\n\n- See `infra/rds.tf:11` (variable naming is odd).\n", Config())
    assert all(p.symbol is None for st in plain.statements for p in st.mentions.paths)

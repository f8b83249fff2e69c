"""RL401 state-contradiction and RL403 state-unknown on small repositories, each in its own voice, with a
negative control beside every positive."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

PLAN = "agents/plan.md"


def _findings(repo, *codes: str):
    return lint(repo.path, LintOptions(use_cache=False, select=codes)).findings


def _at(findings, path: str, line: int):
    return [f for f in findings if (f.path, f.line) == (path, line)]


def test_state_lines_and_titled_bullets_against_a_self_declared_canonical_table(git_repo):
    repo = git_repo()
    repo.commit(
        {
            "agents/status.md": "# Status\n\nThis table is the source of truth for row state.\n\n"
            "| Row | Feature | State |\n|---|---|---|\n| MQ-ACK | Acks | Done |\n"
            "| MQ-RETRY | Retries | in progress |\n| MQ-DLQ | Dead letters | planned |\n",
            "agents/rows/ack.md": "# MQ-ACK: acknowledgements\n\nState: WIP. Owner: ines.\n",
            "agents/rows/retry.md": "# MQ-RETRY: retries\n\n**Status:** wip — backoff is in.\n",
            "agents/week-31.md": "# Week 31\n\n- MQ-DLQ — ACTIVE (@li): poison messages go to a side queue.\n"
            "- MQ-RETRY — in progress (@ines).\n",
        },
        "records",
        "2026-08-03",
    )
    found = _findings(repo, "RL401")
    [ack] = _at(found, "agents/rows/ack.md", 3)
    assert ack.severity == "error" and "MQ-ACK is WIP here but DONE in agents/status.md:7" in ack.message
    [dlq] = _at(found, "agents/week-31.md", 3)
    assert dlq.severity == "warning" and "ACTIVE here but PLANNED" in dlq.message  # different stages
    assert not _at(found, "agents/rows/retry.md", 3) and not _at(found, "agents/week-31.md", 4)  # WIP = in progress


def test_only_a_leading_state_word_counts(git_repo):
    repo = git_repo()
    repo.commit(
        {
            "agents/roadmap.md": "# Roadmap\n\n| ID | State |\n|---|---|\n| GW-AUTH | ACTIVE |\n| GW-RATE | DONE |\n",
            PLAN: "# Plan\n\n| ID | Status | Note |\n|---|---|---|\n"
            "| GW-AUTH | 🚧 build `3f256ab` is **FAILED/open** at 55/124 | retry |\n"
            "| GW-RATE | ✅ merged | — |\n",
        },
        "records",
        "2026-08-03",
    )
    assert _findings(repo, "RL401") == []  # 🚧 is in progress, ✅ is done: both agree with the roadmap


def test_rows_keyed_by_name_and_a_closed_row_with_work_left(git_repo):
    repo = git_repo()
    repo.commit(
        {
            PLAN: "# Plan\n\n| Feature | State | Remaining |\n|---|---|---|\n"
            "| Compression | done | Gzip request bodies once the collector accepts them. |\n"
            "| Clean exit | done | — |\n| Overload | in progress | Back off on 503. |\n"
            "| Retries | done | `NET-RETRY` closed; jitter tuning rides the backoff work. |\n"
        },
        "plan",
        "2026-08-03",
    )
    [f] = _findings(repo, "RL401")
    assert (f.line, f.severity) == (5, "warning") and "'compression' is DONE" in f.message


def test_a_closed_canonical_row_and_directives_elsewhere_that_name_it(git_repo):
    repo = git_repo()
    repo.commit(
        {
            "agents/roadmap.md": "# Roadmap\n\n| ID | State |\n|---|---|\n| DB-VACUUM | DONE |\n",
            "agents/spec-vacuum.md": "# Vacuum spec (DB-VACUUM)\n\n## Work\n\n1. Tune the vacuum cost limit.\n"
            "2. Rerun the DB-VACUUM soak test.\n",
        },
        "records",
        "2026-08-03",
    )
    found = _findings(repo, "RL401")
    assert [(f.path, f.line) for f in found] == [("agents/spec-vacuum.md", 6)]  # item 1 only sits under the title


def test_unknown_state_words_once_each_and_words_a_record_defines(git_repo):
    repo = git_repo()
    repo.commit(
        {
            "agents/lifecycle.md": "# Lifecycle\n\n| State | Meaning |\n|---|---|\n| `TRIAGED` | seen, not started |\n",
            PLAN: "# Plan\n\n| ID | State | Owner |\n|---|---|---|\n| FS-SNAP | INVENTORIED | - |\n"
            "| FS-GC | INVENTORIED | - |\n| FS-TRIM | TRIAGED | - |\n| FS-QUOTA | `FS-SNAP` (blocked by it) | - |\n"
            "| FS-MOUNT | needs a kernel 6.8 box | - |\n",
        },
        "records",
        "2026-08-03",
    )
    [f] = _findings(repo, "RL403")
    assert (f.path, f.line, f.severity) == (PLAN, 5, "info")
    assert "INVENTORIED is not a state word" in f.message and "2 rows use it" in f.message
    assert [(r.path, r.line) for r in f.related] == [(PLAN, 6)] and "`states`" in (f.fix or "")


def test_history_keeps_the_states_it_had(git_repo):
    repo = git_repo()
    repo.commit(
        {
            "agents/roadmap.md": "# Roadmap\n\n| ID | State |\n|---|---|\n| UI-DARK | DONE |\n",
            "agents/changes.md": "# Change log\n\n- 2026-07-01 UI-DARK — ACTIVE (@bo): started the palette.\n",
            "agents/old.md": "# Old plan\n\n| ID | State |\n|---|---|\n| UI-DARK | ~~ACTIVE~~ |\n",
        },
        "records",
        "2026-08-03",
    )
    assert _findings(repo, "RL401", "RL403") == []


def test_a_work_table_without_ids_reports_its_unknown_state_words(git_repo):
    """A team's migration plan has no id column (`| Tarea | Responsable | Estado |`): a word its Estado column
    uses that no vocabulary knows is still reported once, since other rows there say states roadmap knows. An
    HTTP status table (no known state in its Status column), a table with a single known state, a note in the
    state cell and a totals row say nothing."""
    repo = git_repo()
    repo.commit(
        {
            "docs/plan.md": "# Plan de migración\n\n| Tarea | Responsable | Estado |\n|---|---|---|\n"
            "| Migrar el job diario | @vale | Hecho |\n| Paginar el endpoint | @nico | Pendiente |\n"
            "| Activar réplicas de lectura | @nico | Congelado |\n| Otra réplica | @caro | Congelado |\n"
            "| Auditoría | @vale | esperando (medido ayer) |\n| **Total** | | **5** |\n",
            "docs/api.md": "# API\n\n| Code | Status |\n|---|---|\n| 200 | Fine |\n| 301 | Moved |\n| 404 | Missing |\n",
            "docs/one.md": "# Ideas\n\n| Idea | Status |\n|---|---|\n| Dark mode | Done |\n| Sounds | Shelved |\n",
        },
        "records",
        "2026-08-03",
    )
    [f] = _findings(repo, "RL403")
    assert (f.path, f.line) == ("docs/plan.md", 7) and "CONGELADO is not a state word" in f.message
    assert "2 rows use it" in f.message

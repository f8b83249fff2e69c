"""The shapes the seventh batch of blind scenarios taught, each with a negative control beside it.

- a Dutch or Polish hand-off ("Volgende eigenaar moet ...", "Następna osoba musi ...") asks for its work;
- a Dutch or Polish board's state words ("Te doen", "W toku", "Zrobione") and work columns ("Omschrijving", "Opis");
  a column of nothing but ticket keys names the row, not its work, whatever its header says;
- an item filed under a GitHub issue ("... (#102)") is done by the commit that closes it ("closes #102"), not by one
  that closes another, and an issue named inside the sentence ("until #115 is sorted") is not the item's own;
- a two-letter initialism ("DI") meets a commit that spells it out ("dependency injection"), and a directive
  written after a commit that declared a name it names and reported its work is stale on arrival;
- "Drop `X`" is never done by the commit that brought `X` in.
"""

from __future__ import annotations

from roadmap.analysis.short_forms import short_forms
from roadmap.analysis.work import initialism_marks
from roadmap.checks.directive_landed import _closed_issues, own_issues
from roadmap.config import Config
from roadmap.lint import LintOptions, lint
from roadmap.records.parser import parse_record


def _rl101(repo) -> list:
    return [f for f in lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings if f.code == "RL101"]


def _directives(path: str, text: str) -> set[str]:
    rf = parse_record(path, text.encode(), Config())
    return {st.text for st in rf.statements if st.directive}


def _line(repo, path: str, f) -> str:
    return (repo.path / path).read_text().split("\n")[f.line - 1]


# --- Dutch and Polish hand-offs ----------------------------------------------------------------------------


def test_dutch_and_polish_handoffs_ask_and_reports_do_not() -> None:
    got = _directives(
        "docs/overdracht.md",
        "# Overdracht\n\n## 2026-03-23\n\n"
        "- Volgende eigenaar moet `i2c_bus_recover()` toevoegen.\n"
        "- De volgende eigenaar heeft de flash-driver al afgemaakt.\n"
        "- Następna osoba musi dodać `RateLimiter`.\n"
        "- Poprzednia osoba dodała `Paginator`.\n",
    )
    assert any("i2c_bus_recover" in t for t in got) and any("RateLimiter" in t for t in got)
    assert not any("afgemaakt" in t or "Paginator" in t for t in got)


LOG = "docs/overdracht.md"
LOG_TEXT = """# Overdracht

Oudste bovenaan, nieuwste onderaan.

## 2026-03-23 — Pieter → Sanne

- Volgende eigenaar moet `i2c_bus_recover()` toevoegen: 9 klokpulsen op SCL als SDA laag blijft hangen.
- Volgende eigenaar moet `enter_stop2()` afmaken (STOP2 met RTC-wakeup).
"""


def test_a_dutch_handoff_for_a_function_a_later_commit_adds_is_stale(git_repo) -> None:
    repo = git_repo()
    repo.commit({"fw/i2c.c": "int i2c_write(void) { return 0; }\n"}, "eerste import", "2026-03-01")
    repo.commit({LOG: LOG_TEXT}, "overdracht: Pieter -> Sanne", "2026-03-23")
    repo.checkout("lowpower", create=True)  # the control: only on a branch that never merged
    repo.commit({"fw/stop2.c": "void enter_stop2(void) {}\n"}, "stop2: eerste versie enter_stop2", "2026-03-27")
    repo.checkout("main")
    repo.commit(
        {"fw/i2c.c": "void i2c_bus_recover(void) {}\nint i2c_write(void) { i2c_bus_recover(); return 0; }\n"},
        "i2c: bus recovery met 9 SCL-pulsen als SDA laag blijft",
        "2026-03-30",
    )
    found = _rl101(repo)
    assert [("i2c_bus_recover" in _line(repo, LOG, f)) for f in found] == [True]


# --- Dutch and Polish boards -------------------------------------------------------------------------------

BOARD = """# Sprint 42

| Zadanie | Opis | Kto | Status |
|---|---|---|---|
| BE-311 | Limit zapytań: dodać `RateLimiter` (20 zapytań/min na klienta) | Kasia | W toku |
| BE-312 | Paginacja listy faktur (parametry strona i rozmiar) | Marek | Do zrobienia |
| BE-307 | Logowanie błędów płatności do Sentry | Ola | Zrobione |
"""


def test_a_polish_board_asks_for_its_open_rows_in_the_description_column() -> None:
    got = _directives("docs/sprint-42.md", BOARD)
    assert any("RateLimiter" in t for t in got) and any("Paginacja" in t for t in got)
    assert not any("Sentry" in t for t in got) and "BE-311" not in got


def test_a_dutch_board_and_an_english_one_with_keys_under_task() -> None:
    dutch = _directives(
        "docs/bord.md",
        "| Taak | Omschrijving | Status |\n|---|---|---|\n"
        "| FW-1 | Bus recovery voor de I2C-driver | Te doen |\n| FW-2 | SPI-flash page write | Klaar |\n",
    )
    assert dutch == {"Bus recovery voor de I2C-driver"}
    english = _directives(
        "docs/board.md",
        "| Task | Description | Status |\n|---|---|---|\n"
        "| APP-1 | Dark mode for onboarding | To do |\n| APP-2 | Crash on logout | Done |\n",
    )
    assert english == {"Dark mode for onboarding"}


def _board_repo(git_repo, ticket: str):
    repo = git_repo()
    repo.commit({"app/api.py": "def create_order():\n    pass\n"}, "BE-300: szkielet API", "2026-09-28")
    repo.commit({"docs/sprint-42.md": BOARD}, "Tablica sprintu 42", "2026-10-06")
    repo.commit(
        {"app/ratelimit.py": "class RateLimiter:\n    per_minute = 20\n"},
        f"{ticket}: RateLimiter dla tworzenia zamówień\n\n20 zapytań na minutę na klienta.\n",
        "2026-10-12",
    )
    return repo


def test_a_row_done_under_its_own_ticket_is_stale(git_repo) -> None:
    repo = _board_repo(git_repo, "BE-311")
    assert ["BE-311" in _line(repo, "docs/sprint-42.md", f) for f in _rl101(repo)] == [True]


def test_pagination_under_another_ticket_leaves_the_open_row_alone(git_repo) -> None:
    repo = _board_repo(git_repo, "BE-311")
    repo.commit(
        {"app/klienci.py": "def lista(strona=1, rozmiar=50):\n    pass\n"},
        "BE-309: paginacja listy klientów\n\nParametry strona i rozmiar.\n",
        "2026-10-13",
    )
    assert not any("BE-312" in _line(repo, "docs/sprint-42.md", f) for f in _rl101(repo))


# --- GitHub issues -----------------------------------------------------------------------------------------


def test_own_and_closed_issues() -> None:
    assert own_issues("`--check`: exit 1 if any file would change (#102)") == {"102"}
    assert own_issues("#12: wrap long lines") == {"12"}
    assert own_issues("Parallel walk, opt-in via `--jobs N`; default stays 1 until #115 is sorted") == set()
    assert _closed_issues("cli: add --check (closes #102)\n\nPrints paths.") == {"102"}
    assert _closed_issues("walk: fix UNC paths (#115)") == {"115"}
    assert _closed_issues("walk: see #115 for the details") == set()


ROADMAP = """# mdtidy roadmap

## 0.9

- [ ] `--check`: exit 1 if any file would change, print the paths, write nothing (#102)
- [ ] Stable JSON diagnostics: print every path with its changes (#110)
- [ ] Parallel walk, opt-in via `--jobs N`; default stays 1 until #115 is sorted
"""


def test_an_item_is_done_by_the_commit_that_closes_its_issue_and_by_no_other(git_repo) -> None:
    repo = git_repo()
    repo.commit({"src/cli.rs": "pub struct Cli {}\n"}, "initial import", "2026-01-20")
    repo.commit({"ROADMAP.md": ROADMAP}, "roadmap for 0.9", "2026-02-10")
    repo.commit(
        {"src/cli.rs": "pub struct Cli {\n    pub check: bool,\n}\n"},
        "cli: add --check (closes #102)\n\nPrints every path that would be reformatted and exits 1; writes nothing.\n",
        "2026-02-19",
    )
    repo.commit(
        {"src/walk.rs": "pub fn files() {}\n"},
        "walk: --jobs no longer mangles UNC paths on windows (#115)\n\nStill experimental and still 1 by default.\n",
        "2026-02-27",
    )
    lines = [_line(repo, "ROADMAP.md", f) for f in _rl101(repo)]
    assert len(lines) == 1 and "--check" in lines[0]


# --- initialisms, stale on arrival -------------------------------------------------------------------------


def test_two_letter_initialisms_meet_two_long_words() -> None:
    assert "^di" in initialism_marks("Settings screen uses dependency injection")
    assert "^ci" in initialism_marks("run the continuous integration job")
    assert "^di" not in initialism_marks("add data import")  # short words: too many chance pairs
    assert short_forms("Move `SettingsViewModel` to DI") == {"^di": frozenset({"di"})}
    # a well-known one means what the table says: "AI" is not "accessibility improvements"
    assert "^ai" not in short_forms("users applied AI suggestions")


CHECKLIST = """# Release checklist 4.12.0

## Code (before freeze)

- [ ] Move `SettingsViewModel` to DI (Hilt module `SettingsModule`)
- [ ] Call `SettingsRepository` from the checkout screen for the saved address
"""


def test_a_checklist_written_after_the_work_landed_is_stale_on_arrival(git_repo) -> None:
    repo = git_repo()
    repo.commit(
        {"app/SettingsViewModel.kt": "class SettingsViewModel : ViewModel() {\n}\n"}, "4.12 starts", "2026-11-03"
    )
    repo.commit(
        {
            "app/di/SettingsModule.kt": "@Module\nobject SettingsModule {\n}\n",
            "app/SettingsRepository.kt": "class SettingsRepository {\n}\n",
            "app/SettingsViewModel.kt": "@HiltViewModel\nclass SettingsViewModel @Inject constructor() : ViewModel() {\n}\n",
        },
        "Settings screen uses dependency injection\n\nSettingsViewModel is now a @HiltViewModel; the new Hilt module "
        "SettingsModule provides SettingsRepository.\n",
        "2026-11-12",
    )
    repo.commit({"release/checklist-4.12.md": CHECKLIST}, "Release checklist for 4.12.0", "2026-11-20")
    found = _rl101(repo)
    assert [("SettingsViewModel` to DI" in _line(repo, "release/checklist-4.12.md", f)) for f in found] == [True]
    assert found[0].severity == "warning"


def test_no_stale_on_arrival_without_the_words_of_the_work(git_repo) -> None:
    repo = git_repo()
    repo.commit(
        {"app/SettingsViewModel.kt": "class SettingsViewModel : ViewModel() {\n}\n"}, "4.12 starts", "2026-11-03"
    )
    repo.commit(
        {"app/di/SettingsModule.kt": "@Module\nobject SettingsModule {\n}\n"}, "Add a Hilt module", "2026-11-12"
    )
    repo.commit({"release/checklist-4.12.md": CHECKLIST}, "Release checklist for 4.12.0", "2026-11-20")
    assert _rl101(repo) == []


def test_extending_a_name_is_not_done_by_the_commit_that_created_it(git_repo) -> None:
    repo = git_repo()
    repo.commit({"db/schema.prisma": "model Price {\n  id String\n}\n"}, "db: prices", "2025-11-01")
    repo.commit(
        {"db/schema.prisma": "model Price {\n  id String\n}\nmodel RuleRun {\n  id String\n}\n"},
        "Add pricing rule run database model\n\nAdds the RuleRun model for rule runs.\n",
        "2025-11-09",
    )
    repo.commit(
        {"docs/plan.md": "# Plan\n\n- [ ] Extend `RuleRun` model (rule run database)\n"}, "docs: plan", "2025-11-13"
    )
    assert _rl101(repo) == []


# --- a drop is not done by what brought the name in --------------------------------------------------------

ADR = """# 12. Partition the `jobs` table by tenant

## Consequences

- [ ] Drop `jobs_legacy` after 30 days (not before 2026-07-06).
"""


def _adr_repo(git_repo):
    repo = git_repo()
    repo.commit({"migrations/0030.sql": "CREATE TABLE jobs (id bigint);\n"}, "queue: jobs table", "2026-05-20")
    repo.commit({"docs/adr/0012-partition.md": ADR}, "docs: ADR 12", "2026-06-03")
    repo.commit(
        {"migrations/0031.sql": "ALTER TABLE jobs RENAME TO jobs_legacy;\nREVOKE INSERT ON jobs_legacy FROM app;\n"},
        "queue: hash-partition jobs by tenant_id (ADR 12)\n\nThe old table is renamed jobs_legacy, read-only, for 30 days.\n",
        "2026-06-10",
    )
    return repo


def test_the_commit_that_made_the_legacy_table_did_not_drop_it(git_repo) -> None:
    assert _rl101(_adr_repo(git_repo)) == []


def test_the_commit_that_drops_the_legacy_table_did(git_repo) -> None:
    repo = _adr_repo(git_repo)
    repo.commit(
        {"migrations/0031.sql": "ALTER TABLE jobs RENAME TO old;\n", "migrations/0040.sql": "DROP TABLE old;\n"},
        "migrations: drop the legacy jobs table",
        "2026-07-08",
    )
    found = _rl101(repo)
    assert [("jobs_legacy" in _line(repo, "docs/adr/0012-partition.md", f)) for f in found] == [True]


# --- a quote wrapped over two lines of a commit body -------------------------------------------------------

CONTEXT_ADR = """# 12. Partition the `jobs` table by tenant

## Context

At peak p99 enqueue latency is 480 ms against a 100 ms SLO.
Row-lock contention between tenants on the shared `jobs` table is what makes enqueue slow.
Lock behaviour is upstream Postgres's, see `src/backend/storage/lmgr/lock.c:700-760` in postgres.
"""


def test_quotes_wrapped_within_a_paragraph_and_never_across_one() -> None:
    from roadmap.analysis.quoted_words import quoted, quoted_lines, quoted_phrases

    wrapped = 'ADR 12 rests on "Row-lock contention between tenants on the shared `jobs` table is\nwhat makes it slow."'
    assert quoted_phrases(wrapped) == (
        "row-lock contention between tenants on the shared jobs table is what makes it slow",
    )
    assert quoted_phrases('he said "one two three four\n\nfive six seven" there') == ()
    raw = "At peak it is slow.\nRow-lock contention between tenants on the shared `jobs` table is what makes it slow.\nSee x."
    phrase = quoted(wrapped, raw)
    assert phrase is not None and quoted_lines(phrase, raw) == (1, 1)  # 0-based: the second line only


def _context_repo(git_repo, body: str):
    repo = git_repo()
    repo.commit({"queue/enqueue.go": "package queue\n"}, "queue: job queue", "2026-05-20")
    repo.commit({"docs/adr/0012-partition.md": CONTEXT_ADR}, "docs: ADR 12", "2026-06-03")
    repo.commit({"queue/enqueue.go": "package queue\n\n// one NOTIFY per tx\n"}, body, "2026-07-08")
    return repo


def test_a_wrapped_quote_refutes_the_premise_and_the_finding_ends_with_it(git_repo) -> None:
    repo = _context_repo(
        git_repo,
        "queue: one NOTIFY per transaction\n\n"
        'ADR 12 rests on "Row-lock contention between tenants on the shared `jobs` table is\n'
        'what makes enqueue slow." That premise is wrong: pg_locks shows almost no waits.\n',
    )
    [f] = lint(repo.path, LintOptions(use_cache=False, select=("RL103",))).findings
    lines = (repo.path / "docs/adr/0012-partition.md").read_text().split("\n")
    assert "Row-lock contention" in lines[f.end_line - 1] and "lmgr/lock.c" not in " ".join(
        lines[f.line - 1 : f.end_line]
    )


def test_a_quote_broken_by_a_blank_line_refutes_nothing(git_repo) -> None:
    repo = _context_repo(
        git_repo,
        "queue: one NOTIFY per transaction\n\n"
        'ADR 12 rests on "Row-lock contention between tenants on the shared\n\n'
        '`jobs` table is what makes enqueue slow." That premise is wrong: pg_locks shows almost no waits.\n',
    )
    assert lint(repo.path, LintOptions(use_cache=False, select=("RL103",))).findings == []

"""An initialism in a record meets the commit that spells it out; "switch on" in another language meets "enable".

A Lisbon data team writes "Ativar CDC na tabela `orders`" in its quarterly plan, and the English commit that does it
says "enable change data capture for the orders table". The record's capitals stand for three words the commit
writes out, and "Ativar" is "enable". Each positive has its control: the initials spelled out by a commit about
other work, the opposite switch, and a commit that says the other table is blocked and not done yet.
"""

from __future__ import annotations

from roadmap.analysis.short_forms import short_forms
from roadmap.analysis.work import initialism_marks, terms_of
from roadmap.lint import LintOptions, lint

PLAN = "docs/plano.md"


def test_a_run_of_content_words_is_marked_with_its_initials():
    assert "^cdc" in initialism_marks("enable change data capture for the orders table")
    assert "^cdc" not in initialism_marks("change the data for capture")  # function words break the run
    assert "^cdc" in short_forms("Ativar CDC na tabela `orders`")
    assert "^cdc" not in short_forms("Ativar `CDC` na tabela")  # code in backticks is a name, not an initialism


def test_switch_words_of_other_languages_are_enable_and_disable():
    assert "enabl" in terms_of("Ativar CDC na tabela orders") and "enabl" in terms_of("enable it")
    assert "disabl" in terms_of("Desactivar la caché de pedidos") and "disabl" in terms_of("disabled by default")
    assert "enabl" not in terms_of("Desativar o cache")


def _repo(git_repo, item: str, landing: str):
    repo = git_repo()
    repo.commit({"ingest/cdc.py": "CAPTURED = []\n"}, "init: jobs de ingestão", "2026-01-05")
    repo.commit(
        {
            "roadmap.yaml": 'records: ["docs/*.md"]\n',
            PLAN: "# Plano do trimestre\n\nLegenda: 🟢 concluído · 🔴 não iniciado\n\n"
            f"| # | Trabalho | Estado |\n|---|---|---|\n| 1 | {item} | 🔴 |\n",
        },
        "docs: plano do trimestre",
        "2026-01-10",
    )
    repo.commit({"ingest/cdc.py": "CAPTURED = ['orders']\n"}, landing, "2026-02-12")
    return repo


def _found(repo) -> set[int]:
    return {f.line for f in lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings}


LANDING = (
    "feat(ingest): enable change data capture for the orders table\n\n"
    "Debezium connector for public.orders. payments is the obvious next one but it is blocked on the PCI review,\n"
    "so it is not in CAPTURED yet."
)


def test_an_initialism_and_a_portuguese_switch_meet_the_english_commit_that_spells_them_out(git_repo):
    assert 7 in _found(_repo(git_repo, "Ativar CDC na tabela `orders` (Debezium)", LANDING))


def test_the_table_the_commit_says_is_blocked_has_not_landed(git_repo):
    assert 7 not in _found(_repo(git_repo, "Ativar CDC na tabela `payments` (revisão PCI)", LANDING))


def test_the_opposite_switch_has_not_landed(git_repo):
    assert 7 not in _found(_repo(git_repo, "Desativar CDC na tabela `orders` (Debezium)", LANDING))


def test_initials_spelled_out_by_a_commit_about_other_work_do_not_land_it(git_repo):
    other = "docs: compare change data capture tools\n\nNotes on Debezium against Maxwell for later."
    assert 7 not in _found(_repo(git_repo, "Ativar CDC na tabela `orders` (Debezium)", other))


def test_a_clause_on_how_things_are_now_is_the_reason_not_the_work():
    from roadmap.records.classify import without_current_state

    assert without_current_state("Paginate GET /orders with a cursor: today it returns every order") == (
        "Paginate GET /orders with a cursor"
    )
    assert without_current_state("Paginar `GET /api/pedidos` con cursor: hoy devuelve todos los pedidos") == (
        "Paginar `GET /api/pedidos` con cursor"
    )
    assert without_current_state("Move the cache - currently it lives in process memory") == "Move the cache"
    # the work itself after a colon stays; so does a line that opens with the word
    assert without_current_state("Fix the pool: raise max size to 50") == "Fix the pool: raise max size to 50"
    assert without_current_state("Today: ship the release notes") == "Today: ship the release notes"
    assert without_current_state("Show today's orders first") == "Show today's orders first"


def test_a_short_directive_part_takes_the_language_of_its_whole_statement():
    from roadmap.analysis.surfaces import work_terms
    from roadmap.config import Config
    from roadmap.records.parser import parse_record

    text = (
        "# Pendientes\n\n1. Paginar `GET /api/pedidos` con cursor: hoy devuelve todos los pedidos del cliente y la"
        " app se cuelga.\n2. Add a cursor to `GET /api/orders`: today it returns every order.\n"
    )
    sts = [st for st in parse_record("docs/TODO.md", text.encode(), Config()).statements if st.directive]
    spanish, english = sts
    assert spanish.directive_text == "Paginar GET /api/pedidos con cursor"  # backticks are markup
    assert "pagin" in work_terms(spanish) and "hoy" not in work_terms(spanish)
    assert "cursor" in work_terms(english) and "order" in work_terms(english)  # English stems stay
    assert "return" not in work_terms(english)


def test_a_runbooks_action_items_are_work_its_steps_are_not():
    from roadmap.config import Config
    from roadmap.records.parser import parse_record

    text = (
        "# Runbook: orders_nightly\n\n## If it is late\n- [ ] Clear the task and rerun it\n\n"
        "## Action items\n- [ ] Give `load_orders` retries with exponential backoff (@priya)\n"
    )
    sts = {st.line: st.directive for st in parse_record("docs/runbooks/orders.md", text.encode(), Config()).statements}
    assert sts[7] and not sts[4]


def test_a_denied_cause_refutes():
    from roadmap.checks.premise_refuted import REFUTES

    assert REFUTES.search("The S3 listing was never what made extract slow.")
    assert REFUTES.search("It is not the convolution reverb -- its partitions never spike.")
    assert not REFUTES.search("This is not what the spec asks for.")
    assert not REFUTES.search("The listing is what we cache now.")

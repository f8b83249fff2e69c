"""Spanish and Portuguese records and commits: their words meet by Romance stems, their infinitives ask for work.

A Madrid team writes "Paginar el listado de pedidos" in its to-do list and "pedidos: listado por páginas" in the
commit that does it. English stems do not tie "Paginar" to "páginas"; a text whose function words are Spanish or
Portuguese is stemmed with accents folded and one Romance ending cut. Each positive has its control beside it: an
unrelated word that shares letters, an English text with a stray "con", a Spanish line that opens with a noun.
"""

from __future__ import annotations

from roadmap.analysis.stem import romance_stem
from roadmap.analysis.work import terms_of
from roadmap.lint import LintOptions, lint
from roadmap.records.language import opens_with_infinitive, romance

TODO = "docs/PENDIENTES.md"


def test_romance_stems_meet_across_forms_of_a_word():
    assert romance_stem("paginar") == romance_stem("páginas") == romance_stem("paginación") == "pagin"
    assert romance_stem("pedidos") == romance_stem("pedido")
    assert romance_stem("ativação") == romance_stem("ativar")
    assert romance_stem("pagar") != romance_stem("paginar")  # to pay is not to paginate
    assert romance_stem("streaming") == "stream"  # an English word of the text keeps its English stem


def test_a_text_is_spanish_by_its_function_words_not_by_a_stray_one():
    assert romance("paginar el listado de los pedidos con cursor".split())
    assert romance("listado por páginas con despues".split())
    assert not romance("the pros and con of the del key".split())  # English, with two look-alikes
    assert "pagin" in terms_of("Paginar el listado de los pedidos del cliente")
    assert "sidebar" in terms_of("Collapse the sidebar on mobile")  # English keeps Porter ("sideb" in Spanish)
    assert "sideb" in terms_of("Ocultar la sidebar en el móvil")


def test_an_infinitive_opens_a_spanish_or_portuguese_request():
    assert opens_with_infinitive("Migrar la base de datos a PostgreSQL 16.")
    assert opens_with_infinitive("Ativar CDC na tabela `orders` para o time de dados")
    assert not opens_with_infinitive("Métricas de latencia con Micrometer para todos los endpoints")  # a noun
    assert not opens_with_infinitive("Register the webhook for the new endpoint")  # English


def _repo(git_repo, item: str):
    repo = git_repo()
    repo.commit({"src/Repo.kt": "fun todos() = db.query()\n"}, "pedidos: servicio inicial", "2026-11-02")
    repo.commit(
        {
            "roadmap.yaml": 'records: ["docs/*.md"]\n',
            TODO: f"# Pendientes del equipo\n\nLista viva; se revisa los lunes.\n\n1. {item}\n",
        },
        "docs: pendientes",
        "2026-11-03",
    )
    repo.commit(
        {"src/Repo.kt": "fun pagina(despues: Long, limite: Int) = db.query()\n"},
        "pedidos: listado por páginas del cliente\n\nCada página trae como mucho 50 pedidos del cliente.",
        "2026-11-13",
    )
    return repo


def _found(repo) -> set[int]:
    return {f.line for f in lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings}


def test_a_spanish_item_landed_by_a_spanish_commit_in_other_forms_of_its_words(git_repo):
    assert 5 in _found(_repo(git_repo, "Paginar el listado de pedidos del cliente."))


def test_the_same_commit_does_not_land_spanish_work_that_only_shares_letters(git_repo):
    assert 5 not in _found(_repo(git_repo, "Pagar los pedidos con tarjeta desde la app."))

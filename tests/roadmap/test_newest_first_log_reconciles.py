"""A hand-off log kept newest first: a newer entry above an older one says, in a closed-state word of its language,
that the older entry's to-do is done ("hecho el 10/03", "erledigt am 09.03."). The record reconciled the landing
itself, so the older to-do gets no RL101. Controls: the newer entry denies it ("todavía no está hecho"), lists it
as open again, or is older than the to-do's own entry."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

LOG = "agents/relevos.md"
TODO = "Añadir una caché de plantillas compiladas al renderizador de correos: hoy recompila cada plantilla por envío."


def _log(newer: str, older: str = f"- {TODO}\n") -> str:
    return (
        "# Relevos del equipo de correo\n\nEl relevo más reciente va arriba.\n\n"
        f"## Relevo 2026-03-12\n\n{newer}\n## Relevo 2026-03-05\n\nPendiente:\n{older}"
    )


def _repo(git_repo, newer: str, older: str = f"- {TODO}\n"):
    repo = git_repo()
    repo.commit({LOG: _log("Sin novedades.\n", older), "mail/render.py": "x = 1\n"}, "relevo 05.03", "2026-03-05")
    repo.commit(
        {"mail/render.py": "class CompiledTemplateCache:\n    pass\n"},
        "renderizador de correos: caché de plantillas compiladas",
        "2026-03-10",
    )
    repo.commit({LOG: _log(newer, older)}, "relevo 12.03", "2026-03-12")
    return repo


def _rl101_lines(repo) -> list[str]:
    lines = (repo.path / LOG).read_text().split("\n")
    return [lines[f.line - 1] for f in lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings]


DONE = (
    "Hecho desde el último relevo:\n- Caché de plantillas compiladas en el renderizador de correos: hecho el 10/03.\n"
)


def test_a_newer_entry_above_that_says_done_reconciles_the_older_to_do(git_repo):
    assert _rl101_lines(_repo(git_repo, DONE)) == []


def test_items_under_a_label_that_says_done_are_reported_done(git_repo):
    done = "Hecho desde el último relevo:\n\n- Caché de plantillas compiladas en el renderizador de correos (10/03).\n"
    assert _rl101_lines(_repo(git_repo, done)) == []


def test_a_newer_entry_that_names_the_work_without_calling_it_done_does_not(git_repo):
    review = "- La caché de plantillas compiladas del renderizador de correos está en revisión.\n"
    assert [line for line in _rl101_lines(_repo(git_repo, review)) if "Añadir una caché" in line]


def test_a_done_statement_about_more_work_is_no_report_of_the_to_do(git_repo):
    broad = (
        "- Pruebas de carga del renderizador de correos con plantillas compiladas grandes, envíos por lotes, "
        "reintentos y métricas de la cola: completado.\n"
    )
    assert [line for line in _rl101_lines(_repo(git_repo, broad)) if "Añadir una caché" in line]


def test_a_newer_entry_that_denies_it_does_not(git_repo):
    denied = "- Caché de plantillas compiladas en el renderizador de correos: todavía no está hecho.\n"
    assert [line for line in _rl101_lines(_repo(git_repo, denied)) if "Añadir una caché" in line]


def test_a_newer_entry_that_lists_it_open_again_does_not(git_repo):
    again = "Pendiente:\n- [ ] Caché de plantillas compiladas en el renderizador de correos (sigue abierto).\n"
    assert [line for line in _rl101_lines(_repo(git_repo, again)) if "Añadir una caché" in line]


def test_an_older_entry_below_reconciles_no_newer_to_do(git_repo):
    """Below the to-do, in a log kept newest first, is the past: it cannot have recorded the landing."""
    repo = git_repo()
    log = (
        "# Relevos del equipo de correo\n\nEl relevo más reciente va arriba.\n\n"
        f"## Relevo 2026-03-05\n\nPendiente:\n- {TODO}\n\n"
        "## Relevo 2026-03-01\n\n- Caché de plantillas compiladas en el renderizador de correos: hecho en staging.\n"
    )
    repo.commit({LOG: log, "mail/render.py": "x = 1\n"}, "relevo 05.03", "2026-03-05")
    repo.commit(
        {"mail/render.py": "class CompiledTemplateCache:\n    pass\n"},
        "renderizador de correos: caché de plantillas compiladas",
        "2026-03-10",
    )
    assert [line for line in _rl101_lines(repo) if "Añadir una caché" in line]

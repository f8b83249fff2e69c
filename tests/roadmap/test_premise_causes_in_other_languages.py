"""A cause stated in French, Spanish, Portuguese or German ("Cause : la régression vient du seuil d'inlining",
"el retraso proviene del pool") is a premise RL103 tests, also in a hand-off log's newest entry (whose other
findings are history), and a later commit denying it ("ne vient pas du seuil") refutes it. Negative controls:
"vient de" as "has just" ("vient de sortir"), a cause the commit does not deny, a plain finding of the entry."""

from __future__ import annotations

from roadmap.checks.premise_refuted import _states_premise
from roadmap.lint import LintOptions, lint

LOG = "notes/passation.md"


def _log(cause: str) -> str:
    return (
        "# Journal de passation\n\nLe plus récent en haut.\n\n## 2026-05-22 — Camille → Julien\n\n"
        f"Constat :\n\n- {cause}\n- le bench nocturne tourne sur la machine 3.\n\n"
        "## 2026-05-15 — Julien → Camille\n\nFait :\n\n- seuil d'inlining relevé à 275.\n"
    )


CAUSE = "Cause : la régression de 7 % sur `bench/sqlite` vient du relèvement du seuil d'inlining (225 → 275)."


def _rl103(repo) -> list[int]:
    return [f.line for f in lint(repo.path, LintOptions(use_cache=False, select=("RL103",))).findings]


def test_a_cause_in_the_newest_entry_refuted_by_a_later_commit(git_repo) -> None:
    repo = git_repo()
    repo.commit({LOG: _log(CAUSE)}, "passation", "2026-05-22T18:00:00")
    repo.commit(
        {"src/Pipeline.cpp": "// licm, gvn\n"},
        "pipeline : LICM avant GVN\n\nBisect complet : la régression de 7 % sur bench/sqlite ne vient pas du seuil "
        "d'inlining. Le premier commit fautif est le réordonnancement GVN avant LICM.",
        "2026-05-27T16:00:00",
    )
    assert _rl103(repo) == [9]


def test_a_cause_no_commit_denies_stays_quiet(git_repo) -> None:
    repo = git_repo()
    repo.commit({LOG: _log(CAUSE)}, "passation", "2026-05-22T18:00:00")
    repo.commit(
        {"src/Inline.cpp": "// 225\n"},
        "inline : seuil remis à 225\n\nLa régression de 7 % sur bench/sqlite vient bien du seuil d'inlining.",
        "2026-05-27T16:00:00",
    )
    assert _rl103(repo) == []


def test_causes_in_other_languages_are_premises() -> None:
    for text in (
        CAUSE,
        "la latence provient des verrous du journal",
        "el retraso proviene del pool de conexiones",
        "o atraso vem do cache frio",
        "die Latenz kommt vom kalten Cache",
        "Ursache: der Cache ist kalt",
    ):
        assert _states_premise(text), text
    for text in ("la version 2 vient de sortir", "le bench nocturne tourne sur la machine 3", "kommt morgen"):
        assert not _states_premise(text), text

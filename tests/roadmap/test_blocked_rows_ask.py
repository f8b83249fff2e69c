"""A row of a status table whose state says the work is blocked (Blocked, Bloqueado, Blockiert, Bloqué) still asks
for its work: a rerun it asks for that was redone since is reported (RL102). Negative controls: a done row asking
the same, a blocked row whose rerun was not redone."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

PLAN = "docs/estado.md"


def _table(state: str, other: str = "Bloqueado") -> str:
    return (
        "# Estado\n\n| # | Tarea | Responsable | Estado |\n|---|---|---|---|\n"
        f"| 1 | Volver a ejecutar el benchmark de latencia (`bench/resultados/2026-03-05-lotes/`) | Ana | {state} |\n"
        f"| 2 | Volver a ejecutar la evaluación (`bench/resultados/2026-03-06-evaluacion/`) | Ana | {other} |\n"
    )


def _repo(git_repo, state: str):
    repo = git_repo(name=f"repo-{len(state)}-{state.encode().hex()}")
    repo.commit(
        {
            "bench/resultados/2026-03-05-lotes/resumen.md": "# lotes\n\n- p99: 184 ms\n",
            "bench/resultados/2026-03-06-evaluacion/resumen.md": "# evaluación\n\n- AUC: 0.91\n",
        },
        "bench: primeras corridas",
        "2026-03-06",
    )
    repo.commit({PLAN: _table(state)}, "docs: estado", "2026-03-09")
    repo.commit(
        {"bench/resultados/2026-03-18-lotes/resumen.md": "# lotes\n\n- p99: 121 ms\n"}, "bench: lotes", "2026-03-18"
    )
    return repo


def _rl102(repo) -> list[int]:
    return [f.line for f in lint(repo.path, LintOptions(use_cache=False, select=("RL102",))).findings]


def test_a_blocked_row_asking_for_a_rerun_done_since(git_repo) -> None:
    for state in ("Bloqueado", "Blocked", "blockiert", "Bloqué"):
        assert _rl102(_repo(git_repo, state)) == [5], state


def test_a_done_row_asks_nothing(git_repo) -> None:
    assert _rl102(_repo(git_repo, "Hecho")) == []

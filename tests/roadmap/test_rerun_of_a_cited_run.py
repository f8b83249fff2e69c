"""A rerun asked for in other words and languages ("Skalierungslauf wiederholen", "repetir la medición") of a run
its record cites, singled out by that run's day or a count its name holds (RL102); never a repeated step, nor a
run the day and the count do not single out."""

from __future__ import annotations

import json

import pytest

from roadmap.analysis.repeated_run import days_named
from roadmap.checks.rerun_done import says_rerun
from roadmap.lint import LintOptions, lint


@pytest.mark.parametrize(
    "text",
    [
        "[ ] Skalierungslauf auf 64 Knoten wiederholen (gleiche Einstellungen)",
        "Wiederhole die Messung auf 8 Knoten",
        "den 64-Knoten-Lauf nächste Woche wiederholen",
        "Messreihe mit neuem Compiler wiederholen",
        "Répéter la mesure sur 8 nœuds",
        "répéter l'expérience avec le nouveau noyau",
        "Repetir la misma medición en 8 GPUs",
        "repetir o benchmark com o cache novo",
        "ripetere la misura con 4 thread",
        "[ ] Nachmessung Probe B bei 300 K: Kontaktwiderstand prüfen",
        "Probe C bei 77 K nachmessen, sobald der Dewar zurück ist",
        "Wiederholungsmessung mit 5 Schüssen",
    ],
)
def test_a_repeated_run_is_a_rerun(text):
    assert says_rerun(text)


@pytest.mark.parametrize(
    "text",
    [
        "Schritt 3 wiederholen, falls der Export fehlschlägt",
        "die Frage im Review wiederholen",
        "den Ablauf für jedes Modul wiederholen",  # a procedure, not a run
        "Laufzeit wiederholen",
        "répéter la question au client",
        "repetir el paso 3 si falla",
        "ripetere la domanda",
        "Nachmittags messen wir die Referenz",  # not a re-measurement
        "Nachweis der Messung im Anhang",
    ],
)
def test_a_repeated_step_is_no_rerun(text):
    assert not says_rerun(text)


@pytest.mark.parametrize(
    "text, days",
    [
        ("gleiche Einstellungen wie am 04.03.", {(3, 4, None)}),
        ("same settings as the March 4 run", {(3, 4, None)}),
        ("comme le 4 mars 2026", {(3, 4, 2026)}),
        ("misma configuración que el 4 de marzo", {(3, 4, None)}),
        ("like the 2026-03-04 run", {(3, 4, 2026)}),
        ("version 1.5.2 on 64 Knoten", set()),  # a version and a count, no day
        ("set 4 workers", set()),  # "set" is a month only in Portuguese and Italian, written day first
    ],
)
def test_days_named(text, days):
    assert days_named(text)[0] == days


EV = "docs/bench-evidence"


def _entry(series: str, day: str, tps: float) -> dict[str, str]:
    return {f"{EV}/{day}-{series}/result.json": json.dumps({"series": series, "tokens_per_s": tps})}


def _repo(git_repo, ask: str, cited: tuple[str, ...] = ("sweep-8gpu", "sweep-4gpu")):
    """A Spanish team's notes citing the 4 March runs, a rerun asked on 6 March, two runs of sweep-8gpu after it."""
    repo = git_repo()
    runs = {k: v for s in ("sweep-8gpu", "sweep-4gpu") for k, v in _entry(s, "20260304", 900.0).items()}
    repo.commit(runs, "bench: barrido del 4 de marzo", "2026-03-04")
    refs = " y ".join(f"`{EV}/20260304-{s}/`" for s in cited)
    notes = f"# Notas de rendimiento\n\n## Estado\n\n- Barrido medido el 4 de marzo, ver {refs}.\n\n## Pendiente\n\n- {ask}\n"
    repo.commit({"agents/notas.md": notes}, "notas: pendiente", "2026-03-06")
    repo.commit(_entry("sweep-8gpu", "20260310", 1010.0), "bench: barrido tras el parche", "2026-03-10")
    repo.commit(_entry("sweep-8gpu", "20260314", 1015.0), "bench: barrido otra vez", "2026-03-14")
    return repo


def _rl102(repo) -> list[str]:
    return [f.message for f in lint(repo.path, LintOptions(use_cache=False, select=("RL102",))).findings]


def test_the_count_singles_out_the_cited_run(git_repo):
    found = _rl102(_repo(git_repo, "Repetir la medición en 8 GPUs con la misma configuración que el 4 de marzo."))
    assert len(found) == 1 and "20260310-sweep-8gpu" in found[0] and "20260314-sweep-8gpu" in found[0]


def test_a_day_that_fits_two_cited_series_singles_out_none(git_repo):
    assert _rl102(_repo(git_repo, "Repetir la medición con la misma configuración que el 4 de marzo.")) == []


def test_a_count_no_cited_run_holds_singles_out_none(git_repo):
    assert _rl102(_repo(git_repo, "Repetir la medición en 2 GPUs con la misma configuración.")) == []


def test_a_run_the_record_does_not_cite_is_not_meant(git_repo):
    assert _rl102(_repo(git_repo, "Repetir la medición en 8 GPUs.", cited=("sweep-4gpu",))) == []

"""Decision records and hand-off logs in the shapes and languages other teams write them.

- An ADR's Context states the premises of its decision, however worded; a later commit that quotes one and says it
  does not hold refutes it (RL103). A commit quoting other words, or saying something else does not hold, does not.
- A label on a line of its own ("Next steps:", "Als Nächstes:") hands on the list under it: each bullet is a
  directive, and in a dated log a bullet of an older entry stays open while a later entry says it is still open.
  A hand-off phrase named in quotes ("the items under "Next owner must"") asks for nothing.
- German records and commits are stemmed as German ("fehlende"/"fehlendem", "Exportdaten"/"Export"), and German
  refutations ("ist nicht der Engpass", "bringt nichts") refute a premise given with "weil".
"""

from __future__ import annotations

from roadmap.analysis.stem import german_stem
from roadmap.analysis.work import terms_of
from roadmap.config import Config
from roadmap.lint import LintOptions, lint
from roadmap.records.language import language
from roadmap.records.parser import parse_record


def _findings(repo, code: str):
    return lint(repo.path, LintOptions(use_cache=False, select=(code,))).findings


def _directives(path: str, text: str) -> set[str]:
    rf = parse_record(path, text.encode(), Config())
    return {st.text for st in rf.statements if st.directive}


# --- ADR premises ------------------------------------------------------------------------------------------

ADR = "docs/adr/0012-session-store-in-redis.md"
ADR_TEXT = """# 12. Keep web sessions in Redis

- Status: accepted
- Date: 2026-02-03

## Context

Our sessions table is the hottest table of the primary, and autovacuum falls behind it every evening.

## Decision

Keep sessions in the Redis cluster that already serves the rate limiter.
"""


def _adr_repo(git_repo, message: str):
    repo = git_repo()
    repo.commit(
        {ADR: ADR_TEXT, "app/sessions.py": "STORE = 'redis'\n"}, "docs(adr): 0012 sessions in Redis", "2026-02-03"
    )
    repo.commit(
        {"db/autovacuum.sql": "ALTER TABLE sessions SET (autovacuum_vacuum_scale_factor = 0.02);\n"},
        message,
        "2026-02-20",
    )
    return repo


def test_a_commit_quoting_an_adr_context_and_saying_it_does_not_hold_refutes_it(git_repo):
    repo = _adr_repo(
        git_repo,
        "db: per-table autovacuum for sessions\n\n"
        'ADR 0012 was written because "autovacuum falls behind it every evening". That does not hold with a\n'
        "scale factor of 0.02: the evening run now finishes in 4 minutes.\n",
    )
    [f] = _findings(repo, "RL103")
    assert (
        f.path == ADR
        and f.severity == "error"
        and "autovacuum falls behind" in open(repo.path / ADR).read().split("\n")[f.line - 1]
    )


def test_a_commit_saying_another_claim_does_not_hold_refutes_no_adr_context(git_repo):
    repo = _adr_repo(
        git_repo,
        "db: per-table autovacuum for sessions\n\n"
        'The comment "retries are idempotent for every job type" does not hold for webhooks; see #88.\n',
    )
    assert _findings(repo, "RL103") == []


# --- lists handed on by a label ----------------------------------------------------------------------------

LABELLED = """# Release notes draft

Next steps:

- publish the changelog to the docs site
- tag v2.4 once CI is green

The following went out last week:

- the new importer
"""


def test_the_bullets_under_a_label_of_its_own_ask_for_their_work():
    assert _directives("agents/release.md", LABELLED) == {
        "Next steps:",
        "publish the changelog to the docs site",
        "tag v2.4 once CI is green",
    }


def test_a_hand_off_phrase_in_quotes_is_named_not_used():
    text = '# Log\n\nWhoever takes over works through the items under "Next owner must" first.\n'
    assert _directives("agents/log.md", text) == set()


GERMAN_LOG = """# Schichtbuch Exportdienst

## 2026-03-02 — Aylin → Bernd

Als Nächstes:
- die Exportdaten der Filialen nach S3 hochladen
- den Zeitplan des Nachtlaufs dokumentieren

## 2026-03-09 — Bernd → Aylin

Stand: Der Export nach S3 ist noch offen, der Rest lief.
"""


def test_an_older_german_hand_off_bullet_stays_open_while_a_later_entry_says_so():
    rf = parse_record("agents/schichtbuch.md", GERMAN_LOG.encode(), Config())
    by_text = {st.text: st for st in rf.statements}
    assert by_text["die Exportdaten der Filialen nach S3 hochladen"].directive
    # the later entry does not say the schedule is still open: the older entry's bullet is history
    assert not by_text["den Zeitplan des Nachtlaufs dokumentieren"].directive


# --- German words --------------------------------------------------------------------------------------------


def test_german_text_is_told_from_spanish_and_stemmed_as_german():
    assert language("die spalte befüllen, sobald die migration da ist".split()) == "de"
    assert language("paginar los pedidos con cursor para la app".split()) == "es"
    assert german_stem("fehlendem") == german_stem("fehlende") == "fehlend"
    assert german_stem("zeilen") == german_stem("zeile")
    assert german_stem("stationsdaten") == german_stem("station")
    assert "export" in terms_of("die Exportdaten der Filialen hochladen") & terms_of("Export der Filialen nach S3")


def test_german_premise_refuted_by_a_german_commit(git_repo):
    repo = git_repo()
    plan = "# Übergabe\n\n## 2026-04-01 — Lena → Jonas\n\nNächste Person muss:\n- den Build-Cache vergrößern, weil die Plattenzugriffe den Build so bremsen (12 min)\n"
    repo.commit({"agents/uebergabe.md": plan}, "Übergabe Lena → Jonas", "2026-04-01")
    repo.commit(
        {"ci/profile.txt": "link 9m\n"},
        "CI: Build profiliert\n\nDer Build wartet kaum auf die Platte; die Plattenzugriffe sind nicht der Engpass, 9 der 12 Minuten\n"
        "gehen in den Linker.\n",
        "2026-04-05",
    )
    [f] = _findings(repo, "RL103")
    assert f.line == 6


def test_a_german_commit_that_only_speeds_the_disk_up_refutes_nothing(git_repo):
    repo = git_repo()
    plan = "# Übergabe\n\n## 2026-04-01 — Lena → Jonas\n\nNächste Person muss:\n- den Build-Cache vergrößern, weil die Plattenzugriffe den Build so bremsen (12 min)\n"
    repo.commit({"agents/uebergabe.md": plan}, "Übergabe Lena → Jonas", "2026-04-01")
    repo.commit({"ci/disk.txt": "nvme\n"}, "CI: schnellere Platten für die Build-Maschinen\n", "2026-04-05")
    assert _findings(repo, "RL103") == []


def test_a_constraint_written_with_cant_and_its_reason_is_a_premise(git_repo):
    repo = git_repo()
    notes = (
        "# Cache notes\n\n"
        "- Redis can't hold the whole session set: it is 40 GB and the cache node has 16 GB.\n"
        "- Redis serves the rate limiter for the public API.\n"
    )
    repo.commit({"agents/cache.md": notes}, "notes: cache sizing", "2026-05-02")
    repo.commit(
        {"ops/redis.conf": "maxmemory 16gb\n"},
        "ops: evict expired sessions\n\nThe 40 GB session set was mostly expired keys. That was wrong as a size: with\n"
        "expiry enforced the whole session set is 9 GB and Redis holds it with room to spare.\n",
        "2026-05-09",
    )
    [f] = _findings(repo, "RL103")
    assert f.line == 3

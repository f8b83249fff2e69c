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

from roadmap.config import Config
from roadmap.lint import LintOptions, lint
from roadmap.records.parser import parse_record


def _findings(repo, code: str):
    return lint(repo.path, LintOptions(use_cache=False, select=(code,))).findings


def _directives(path: str, text: str) -> set[str]:
    rf = parse_record(path, text.encode(), Config())
    return {st.text for st in rf.statements if st.directive}


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

"""A commit filed under another ticket is not the work of a directive that names its own ticket, however many words
they share; and words like "für", "den", "pour", "la" say nothing about which work. Voice: a French-English
operations checklist of a logistics app; the positive control is the commit filed under the item's own ticket."""

from __future__ import annotations

from roadmap.analysis.work import terms_of
from roadmap.lint import LintOptions, lint

CHECKLIST = """# Mise en production 7.3

- [ ] Export CSV des tournées pour la tablette chauffeur (LOG-512)
- [ ] Export CSV des factures pour la comptabilité (LOG-530)
"""


def test_a_commit_of_another_ticket_of_the_same_tracker_is_not_the_work(git_repo):
    repo = git_repo()
    repo.commit({"app/export.py": "def export():\n    pass\n"}, "LOG-500 squelette", "2026-05-01")
    repo.commit({"agents/checklist-7.3.md": CHECKLIST}, "LOG-501 checklist 7.3", "2026-05-02")
    repo.commit(
        {"app/export.py": "def export_invoices_csv():\n    pass\n"},
        "LOG-530 Export CSV des factures pour la comptabilité",
        "2026-05-06",
    )
    found = lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings
    lines = (repo.path / "agents/checklist-7.3.md").read_text().split("\n")
    hit = {lines[f.line - 1] for f in found if f.path == "agents/checklist-7.3.md"}
    assert hit == {"- [ ] Export CSV des factures pour la comptabilité (LOG-530)"}


def test_function_words_of_other_languages_are_no_work_terms():
    assert terms_of("Dark Mode für den Onboarding-Flow") == terms_of("Dark Mode Onboarding-Flow")
    assert "tournées" in terms_of("Export des tournées pour la tablette")  # a word with an accent stays whole
    assert not terms_of("für den pour la con el das het") & {"für", "den", "pour", "la", "con", "el", "das", "het"}

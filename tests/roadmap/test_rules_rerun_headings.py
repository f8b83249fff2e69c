"""RL102 where the request is a heading ("### R3. Re-measure ...") and the evidence sits in a one-word series folder
(`evals/recall/<date>.json`): the folder's metric (or its long form: ppl, perplexity) and a name the JSON records
as a value (its dataset) must both be in the request. Voice: a recommender team's open questions; negative
controls: the same metric on another dataset, and a question that asks for no rerun."""

from __future__ import annotations

import json

from roadmap.lint import LintOptions, lint

QUESTIONS = """# Open questions

### R3. Re-measure recall on movielens-1m after the negative-sampling fix

Last measured before the fix.

### R4. Re-measure recall on amazon-books after the negative-sampling fix

Not run yet.

### R5. Does the item tower need its own learning rate on movielens-1m?

Untried.
"""


def test_a_heading_rerun_answered_in_a_one_word_series_folder(git_repo):
    repo = git_repo()
    repo.commit(
        {
            "roadmap.yaml": "records: ['notes/*.md']\nevidence:\n  root: evals\n",
            "evals/recall/2026-10-01.json": json.dumps({"dataset": "movielens-1m", "recall_at_50": 0.27}),
        },
        "first eval",
        "2026-10-01",
    )
    repo.commit({"notes/questions.md": QUESTIONS}, "questions", "2026-10-02")
    repo.commit(
        {"evals/recall/2026-10-05.json": json.dumps({"dataset": "movielens-1m", "recall_at_50": 0.31})},
        "recall after the sampling fix",
        "2026-10-05",
    )
    found = lint(repo.path, LintOptions(use_cache=False, select=("RL102",))).findings
    lines = (repo.path / "notes/questions.md").read_text().split("\n")
    assert [(lines[f.line - 1][:8], [e["path"] for e in f.evidence if e.get("kind") == "evidence"]) for f in found] == [
        ("### R3. ", ["evals/recall/2026-10-05.json"])
    ]

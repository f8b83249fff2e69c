"""RL101 counts a commit that changed a file the directive names only where its change names what the directive
names in that file; word overlap alone stays a hint (info), never a warning. A data-platform team's punch-list,
the positive beside its control: the same file changed, once at the named setting and once elsewhere."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

TODO = ".agents/ingest-todo.md"
MERGE = "ingest/merge.py"
BASE = "dedupe_window = None\n\n\ndef merge(batch):\n    log = print\n    return batch\n"
ITEM = "Set `dedupe_window` in `ingest/merge.py` so late events in the merge step are deduplicated per partition."


def _severities(git_repo, new_merge: str, subject: str) -> dict[int, str]:
    repo = git_repo()
    repo.commit({MERGE: BASE}, "ingest: merge step", "2026-02-01")
    repo.commit({TODO: f"# Ingest punch-list\n\n- [ ] {ITEM}\n"}, "todo", "2026-02-02")
    repo.commit({MERGE: new_merge}, subject, "2026-02-06")
    found = lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings
    return {f.line: f.severity for f in found}


def test_a_change_at_the_named_setting_of_the_named_file_is_evidence(git_repo):
    new = BASE.replace("dedupe_window = None", "dedupe_window = 900  # seconds, per partition")
    assert _severities(git_repo, new, "ingest: deduplicate late events per partition in the merge step") == {
        3: "warning"
    }


def test_a_change_elsewhere_in_the_named_file_is_only_words(git_repo):
    new = BASE.replace("log = print", "log = logging.getLogger('merge').info  # late events, per partition")
    found = _severities(git_repo, new, "ingest: log late events per partition in the merge step")
    assert found.get(3) in (None, "info")

"""A commit that lists what was already there ("✅ /api/audit endpoint exists with pagination", "correlation ids
(already supported)") did not do that work: RL101 does not name it for a directive about it. A conditional
("skip it if the bucket already exists") describes new behaviour and still counts. An analytics team's plan,
each case beside its control."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

PLAN = ".agents/analytics-plan.md"
STATUS = ".agents/status.md"


def _found(git_repo, body: str) -> list[int]:
    repo = git_repo()
    repo.commit(
        {"api/audit.ts": "export const audit = []\n"}, "api: audit log with pagination and filters", "2026-03-01"
    )
    repo.commit(
        {PLAN: "# Analytics plan\n\n- [ ] Audit endpoint wired with pagination and filters\n"}, "plan", "2026-03-02"
    )
    repo.commit(
        {"api/export.ts": "export const exportAudit = () => []\n"},
        "feat(audit): audit milestone complete\n\n" + body,
        "2026-03-04",
    )
    repo.commit(
        {STATUS: "# Status\n\n- [x] Audit endpoint wired with pagination and filters\n"}, "status", "2026-03-05"
    )
    return [f.line for f in lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings]


def test_a_commit_that_says_the_work_exists_already_did_not_do_it(git_repo):
    assert (
        _found(
            git_repo, "- ✅ Audit endpoint exists with pagination and filters\n- Added CSV export of the audit log\n"
        )
        == []
    )


def test_a_commit_that_says_it_wired_the_work_did(git_repo):
    assert _found(
        git_repo, "- Wired the audit endpoint with pagination and filters\n- Added CSV export of the audit log\n"
    ) == [3]

"""RL101 does not count a commit a later commit reverted as the one that landed a directive's work: the item stays
open, rightly. A revert is git's own (`Revert "..."`, "This reverts commit <sha>.") or a conventional `revert:`
subject whose message names the sha; a revert of a revert lands the original again; a commit that only talks about
a revert button, or a revert naming a commit the history does not have, changes nothing.
Voice: a warehouse team's pick-floor punch-list."""

from __future__ import annotations

from roadmap.analysis.reverts import find_reverts, reverted_shas
from roadmap.history.commit import Commit
from roadmap.history.index import HistoryIndex
from roadmap.lint import LintOptions, lint

PUNCH = """# Pick floor punch-list

## Next

1. WH-12: batch pick lists per aisle behind `WMS_PICK_BATCHING` so pickers walk each aisle once.
"""
BASE = "def pick_list(orders):\n    return orders\n"
BATCHED = (
    "import os\n\nWMS_PICK_BATCHING = os.environ.get('WMS_PICK_BATCHING') == '1'\n\n\n"
    "def pick_list(orders):\n    if WMS_PICK_BATCHING:\n        return sorted(orders, key=lambda o: o.aisle)\n"
    "    return orders\n"
)
LANDING = "feat(picking): batch pick lists per aisle behind WMS_PICK_BATCHING\n\nRow: WH-12"


def _start(git_repo):
    repo = git_repo()
    repo.commit({"wms/picking.py": BASE}, "picking: first cut", "2026-04-01")
    repo.commit({"agents/punch-list.md": PUNCH}, "pick floor punch-list", "2026-04-02")
    landed = repo.commit({"wms/picking.py": BATCHED}, LANDING, "2026-04-06")
    return repo, landed


def _findings(repo) -> list[str]:
    found = lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings
    return [f.message for f in found if f.path == "agents/punch-list.md"]


def _git_revert(sha: str) -> str:
    return f'Revert "{LANDING.splitlines()[0]}"\n\nThis reverts commit {sha}.'


def test_landed_then_reverted_is_no_finding(git_repo):
    repo, landed = _start(git_repo)
    repo.commit({"wms/picking.py": BASE}, _git_revert(landed), "2026-04-07")
    assert _findings(repo) == []


def test_landed_is_a_finding_without_the_revert(git_repo):
    repo, landed = _start(git_repo)
    assert [m for m in _findings(repo) if landed[:9] in m]


def test_re_landed_after_a_revert_names_the_re_landing(git_repo):
    repo, landed = _start(git_repo)
    # a conventional revert that names the commit by an abbreviated sha
    msg = f"revert(picking): take aisle batching out again\n\nThis reverts {landed[:7]}'s batching: carts jammed.\n"
    repo.commit({"wms/picking.py": BASE}, msg, "2026-04-07")
    again = repo.commit(
        {"wms/picking.py": BATCHED},
        "feat(picking): batch pick lists per aisle behind WMS_PICK_BATCHING, carts fixed\n\nRow: WH-12",
        "2026-04-10",
    )
    messages = _findings(repo)
    assert messages and again[:9] in messages[0]
    assert landed[:9] not in messages[0]


def test_a_revert_of_the_revert_counts_the_original_again(git_repo):
    repo, landed = _start(git_repo)
    undo = repo.commit({"wms/picking.py": BASE}, _git_revert(landed), "2026-04-07")
    redo = f'Revert "Revert "{LANDING.splitlines()[0]}""\n\nThis reverts commit {undo}.'
    repo.commit({"wms/picking.py": BATCHED}, redo, "2026-04-08")
    messages = _findings(repo)
    assert messages and landed[:9] in messages[0]


def test_a_revert_button_in_prose_is_no_revert(git_repo):
    repo, landed = _start(git_repo)
    msg = (
        "feat(ui): a revert button on the pick screen\n\nPickers can revert the last scan; "
        f"builds on {landed[:9]} and reverts nothing."
    )
    repo.commit({"wms/screen.py": "def revert_last_scan(s):\n    return s[:-1]\n"}, msg, "2026-04-07")
    assert [m for m in _findings(repo) if landed[:9] in m]


def test_a_revert_of_a_commit_the_history_lacks_changes_nothing(git_repo):
    repo, landed = _start(git_repo)
    msg = "revert(picking): drop the cart weight check\n\nThis reverts 0badc0ffee12, which never reached main."
    repo.commit({"wms/carts.py": "MAX_KG = 40\n"}, msg, "2026-04-07")
    assert [m for m in _findings(repo) if landed[:9] in m]


def test_a_revert_that_names_no_sha_lands_nothing_itself(git_repo):
    """A `revert(scope):` subject whose message names no sha: what it took out is unknown, but its words describe
    that work, so it is no landing of a directive asking for it."""
    repo = git_repo()
    repo.commit({"wms/picking.py": BASE}, "picking: first cut", "2026-04-01")
    repo.commit({"agents/punch-list.md": PUNCH}, "pick floor punch-list", "2026-04-02")
    msg = "revert(picking): batch pick lists per aisle behind WMS_PICK_BATCHING were slower\n\nRow: WH-12"
    repo.commit({"wms/picking.py": BATCHED}, msg, "2026-04-06")
    assert _findings(repo) == []


def _commit(sha: str, subject: str, body: str = "") -> Commit:
    return Commit(sha, (), "2026-04-01T00:00:00+00:00", 0, "2026-04-01T00:00:00+00:00", 0, subject, body)


def test_which_messages_name_a_reverted_commit():
    sha = "996b5a5" + "0" * 33
    assert reverted_shas(_commit(sha, 'Revert "x"', f"This reverts commit {sha}.")) == [sha]
    assert reverted_shas(_commit(sha, "revert: engine", "This reverts 996b5a5's engine changes")) == ["996b5a5"]
    assert reverted_shas(_commit(sha, "revert(engine)!: undo", "reverts `996b5a5`")) == ["996b5a5"]
    assert reverted_shas(_commit(sha, "fix: the revert button", "it reverts 996b5a5's label")) == []
    assert reverted_shas(_commit(sha, "ui: revert button", "Adds a revert button.")) == []


def test_a_short_sha_resolves_and_a_revert_of_a_revert_restores(git_repo):
    repo, landed = _start(git_repo)
    undo = repo.commit({"wms/picking.py": BASE}, _git_revert(landed[:7]), "2026-04-07")
    history = HistoryIndex.build(repo.path, use_cache=False)
    assert find_reverts(history).reverted == {landed}
    repo.commit({"wms/picking.py": BATCHED}, f'Revert "Revert ..."\n\nThis reverts commit {undo[:8]}.', "2026-04-08")
    found = find_reverts(HistoryIndex.build(repo.path, use_cache=False))
    assert found.reverted == {undo}
    assert undo in found.reverts


NOTES = """# Pick floor rollout notes

- `WMS_PICK_BATCHING` is opt-in (off by default) until the cart trial ends.
"""
FLIP = "feat(picking): WMS_PICK_BATCHING is now enabled by default on every floor"


def _flipped(git_repo, revert: bool) -> list[str]:
    repo = git_repo(f"floor-{revert}")
    repo.commit({"wms/picking.py": BATCHED}, "picking: aisle batching behind a switch", "2026-04-01")
    repo.commit({"agents/rollout.md": NOTES}, "rollout notes", "2026-04-02")
    flip = repo.commit({"wms/floor.txt": "batching on\n"}, FLIP, "2026-04-06")
    if revert:
        repo.commit({"wms/floor.txt": None}, f'Revert "{FLIP}"\n\nThis reverts commit {flip}.', "2026-04-07")
    found = lint(repo.path, LintOptions(use_cache=False, select=("RL104",))).findings
    return [f.message for f in found if f.path == "agents/rollout.md"]


def test_rl104_a_default_flip_stands_until_it_is_reverted(git_repo):
    assert _flipped(git_repo, revert=False)
    assert _flipped(git_repo, revert=True) == []


PLAN = """# Cart routing plan (WH-40)

Written from the 2026-04-10 floor survey.

## Plan

1. Reroute carts around aisle 7: the survey blames its narrow turn for 30% of pick delays.
"""
REFUTING = (
    "routing: cart telemetry (WH-40)\n\nThe aisle 7 turn was misattributed: the 30% of pick delays are "
    "scanner retries at the turn, not the turn itself."
)


def _refuted(git_repo, revert: bool) -> list[str]:
    repo = git_repo(f"routing-{revert}")
    repo.commit({"agents/routing-plan.md": PLAN}, "routing plan", "2026-04-11")
    sha = repo.commit({"wms/routing.py": "TURN_SLOWDOWN = 0.3\n"}, REFUTING, "2026-04-20")
    if revert:
        msg = f"revert(routing): back out the cart telemetry\n\nThis reverts {sha[:8]}: the telemetry was miswired."
        repo.commit({"wms/routing.py": None}, msg, "2026-04-22")
    found = lint(repo.path, LintOptions(use_cache=False, select=("RL103",))).findings
    return [f.message for f in found if f.path == "agents/routing-plan.md"]


def test_rl103_a_refutation_stands_until_it_is_reverted(git_repo):
    assert _refuted(git_repo, revert=False)
    assert _refuted(git_repo, revert=True) == []


def test_a_git_revert_whose_body_lost_the_sha_reverts_the_commit_of_its_subject(git_repo):
    repo, landed = _start(git_repo)
    msg = f'Revert "{LANDING.splitlines()[0]}"\n\nThis reverts the aisle batching: carts jammed at aisle 7.'
    repo.commit({"wms/picking.py": BASE}, msg, "2026-04-07")
    assert find_reverts(HistoryIndex.build(repo.path, use_cache=False)).reverted == {landed}
    assert _findings(repo) == []


def test_a_subject_two_commits_share_names_no_reverted_commit(git_repo):
    repo, landed = _start(git_repo)
    repo.commit({"wms/picking.py": BATCHED + "\n"}, LANDING, "2026-04-07")
    msg = f'Revert "{LANDING.splitlines()[0]}"\n\nCarts jammed.'
    repo.commit({"wms/picking.py": BASE}, msg, "2026-04-08")
    assert find_reverts(HistoryIndex.build(repo.path, use_cache=False)).reverted == set()


def test_a_revert_quoting_the_subject_cut_short_finds_the_one_commit_it_starts(git_repo):
    repo, landed = _start(git_repo)
    msg = 'Revert "feat(picking): batch pick lists per aisle"\n\nThis reverts the batching: carts jammed.'
    repo.commit({"wms/picking.py": BASE}, msg, "2026-04-07")
    assert find_reverts(HistoryIndex.build(repo.path, use_cache=False)).reverted == {landed}


def test_a_reverted_merge_takes_out_the_work_of_its_branch(git_repo):
    repo = git_repo()
    repo.commit({"wms/picking.py": BASE}, "picking: first cut", "2026-04-01")
    repo.commit({"agents/punch-list.md": PUNCH}, "pick floor punch-list", "2026-04-02")
    landed = repo.commit({"wms/picking.py": BATCHED}, LANDING, "2026-04-06", branch="aisle-batching")
    merge = repo.merge("aisle-batching", "Merge branch 'aisle-batching'", "2026-04-07")
    assert [m for m in _findings(repo) if landed[:9] in m]
    msg = f"Revert \"Merge branch 'aisle-batching'\"\n\nThis reverts commit {merge}, reversing\nchanges made to x."
    repo.commit({"wms/picking.py": BASE}, msg, "2026-04-08")
    assert landed in find_reverts(HistoryIndex.build(repo.path, use_cache=False)).reverted
    assert _findings(repo) == []

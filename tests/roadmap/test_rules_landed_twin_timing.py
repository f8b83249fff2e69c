"""RL101's "another record already marks it done" (stale on arrival) depends on when the done mark was written.

A mobile team keeps its sprint checklist in `.agents/sprint.md` and a weekly status in `.agents/status/`. A mark in
the checklist's own file contradicts an open box there whenever it was written. A mark in another file that the
checklist's author had in front of them counts only when it names most of the open item's work and a commit had
done that work by then; a mark written by the same commit as the open item, in another file, is another thing the
author meant. A mark made after the item counts only with a commit between the two that reports the work. An item
that asks for a check is done only by a mark that records a check. Every positive has its control beside it.
"""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

SPRINT = ".agents/sprint.md"
STATUS = ".agents/status/w14.md"
APP = "app/src/sync/Offline.kt"


def _rl101(repo):
    return {f.line: f for f in lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings}


def _sprint(*items: str) -> str:
    return "# Sprint 14 (Android)\n\n" + "".join(f"- [ ] {i}\n" for i in items)


def _base(git_repo):
    repo = git_repo()
    repo.commit({APP: "class Offline {}\n"}, "android: offline sync skeleton", "2026-04-01")
    return repo


ITEM = "Queue offline edits in Room and replay them when the device reconnects"
OTHER = "Show a banner while the device is offline"


def test_an_earlier_mark_elsewhere_naming_the_work_is_stale_on_arrival(git_repo):
    repo = _base(git_repo)
    landed = repo.commit(
        {APP: "class Offline { val queue = RoomQueue(); fun onReconnect() = queue.replay() }\n"},
        "sync: queue offline edits in Room, replay on reconnect",
        "2026-04-02T09:00:00",
    )
    repo.commit(
        {STATUS: "# Week 14\n\n- ✅ Offline edits queued in Room, replayed on reconnect\n"},
        "status",
        "2026-04-02T11:00:00",
    )
    repo.commit({SPRINT: _sprint(ITEM, OTHER)}, "sprint 14 checklist", "2026-04-02T15:00:00")
    found = _rl101(repo)
    assert set(found) == {3}
    assert f"{STATUS}:3 already marks done" in found[3].message and found[3].evidence[0]["sha"] == landed


def test_an_earlier_mark_elsewhere_naming_only_the_topic_is_other_work(git_repo):
    repo = _base(git_repo)
    repo.commit(
        {APP: "class Offline { val queue = RoomQueue(); fun onReconnect() = queue.replay() }\n"},
        "sync: offline queue with replay",
        "2026-04-02T09:00:00",
    )
    repo.commit({STATUS: "# Week 14\n\n- ✅ Offline sync replay flow\n"}, "status", "2026-04-02T11:00:00")
    item = (
        "Replay flow: test the offline sync against a flaky proxy, check conflict dialogs and Crashlytics breadcrumbs"
    )
    repo.commit({SPRINT: _sprint(item)}, "sprint 14 checklist", "2026-04-02T15:00:00")
    assert 3 not in _rl101(repo)


def test_a_mark_in_the_same_file_contradicts_the_open_box_whenever_written(git_repo):
    repo = _base(git_repo)
    repo.commit(
        {APP: "class Offline { val queue = RoomQueue(); fun onReconnect() = queue.replay() }\n"},
        "sync: queue offline edits in Room, replay on reconnect",
        "2026-04-02T09:00:00",
    )
    repo.commit(
        {
            SPRINT: _sprint(ITEM, OTHER)
            + "\n## Already merged\n\n- [x] Offline edits queued in Room and replayed on reconnect\n"
        },
        "sprint 14 checklist",
        "2026-04-02T15:00:00",
    )
    assert set(_rl101(repo)) == {3}


def test_a_mark_written_with_the_item_in_another_file_is_another_thing_meant(git_repo):
    repo = _base(git_repo)
    repo.commit(
        {APP: "class Offline { val queue = RoomQueue(); fun onReconnect() = queue.replay() }\n"},
        "sync: queue offline edits in Room, replay on reconnect",
        "2026-04-02T09:00:00",
    )
    repo.commit(
        {
            STATUS: "# Week 14\n\n- ✅ Offline edits queued in Room and replayed on reconnect (QA session)\n",
            SPRINT: _sprint(ITEM, OTHER),
        },
        "sprint 14: QA session results and the checklist",
        "2026-04-02T15:00:00",
    )
    assert 3 not in _rl101(repo)


def _later(git_repo, between: tuple[str, str] | None):
    repo = _base(git_repo)
    early = repo.commit(
        {APP: "class Offline { val queue = RoomQueue() }\n"},
        "sync: queue offline edits in Room, replay on reconnect (spike)",
        "2026-04-01T12:00:00",
    )
    repo.commit({SPRINT: _sprint(ITEM, OTHER)}, "sprint 14 checklist", "2026-04-03")
    sha = None
    if between:
        sha = repo.commit({APP: between[0]}, between[1], "2026-04-06")
    repo.commit(
        {STATUS: "# Week 15\n\n- ✅ Offline edits queued in Room, replayed on reconnect\n"}, "status", "2026-04-08"
    )
    return repo, early, sha


def test_a_later_mark_elsewhere_counts_with_a_commit_between_that_did_the_work(git_repo):
    code = "class Offline { val queue = RoomQueue(); fun onReconnect() = queue.replay() }\n"
    repo, early, sha = _later(
        git_repo, (code, "sync: replay the Room queue of offline edits when the device reconnects")
    )
    found = _rl101(repo)
    assert 3 in found and found[3].evidence[0]["sha"] == sha != early


def test_a_later_mark_elsewhere_with_only_earlier_work_is_not_news(git_repo):
    repo, _, _ = _later(git_repo, None)  # the only commit saying it is older than the checklist
    assert 3 not in _rl101(repo)


def test_a_check_is_done_by_a_mark_that_records_a_check_not_by_the_thing_checked(git_repo):
    repo = _base(git_repo)
    repo.commit(
        {SPRINT: _sprint("Confirm the release notes mark offline sync as beta in the store listing")},
        "sprint",
        "2026-04-03",
    )
    repo.commit(
        {"store/listing.md": "Offline sync (beta)\n", APP: "class Offline { val beta = true }\n"},
        "store: mark offline sync as beta in the release notes and store listing",
        "2026-04-05",
    )
    done = "- [x] Release notes mark offline sync as beta in the store listing\n"
    repo.commit({STATUS: f"# Week 15\n\n{done}"}, "status", "2026-04-06")
    assert 3 not in _rl101(repo)
    repo.commit(
        {
            STATUS: f"# Week 15\n\n{done}- [x] Confirmed the release notes mark offline sync as beta in the store listing\n"
        },
        "status",
        "2026-04-07",
    )
    assert 3 in _rl101(repo)

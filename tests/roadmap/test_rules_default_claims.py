"""RL104 reads a default claim where it is written and about the switch it names: the table row that states it
(not the first row of a table cut off from its header), a phrase that claims a default (not a name beside a
state under a condition), and a commit that turns on the switch the line names (not one it mentions beside).

Voices: an SRE team's on-call board, a database team's design notes, a game studio's tech-debt board, a notes
file written by a non-native English writer. Each positive has its negative control beside it."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint


def _findings(repo):
    return lint(repo.path, LintOptions(use_cache=False, select=("RL104",))).findings


# --- a table's claims belong to the row that states them -----------------------------------------------------

BOARD = """# On-call board

| Claim | Service | Owner | Notes |
|---|---|---|---|
| CLAIM-PAGER-7 | alerting | @ines | quiet hours |

Handover notes for the week of 2026-05-04 sit between the table and its newer rows.

| CLAIM-DNS-2 | resolver | @tomas | cache warmup script, nothing about switches |
| CLAIM-LB-4 | edge | @kofi | connection draining is opt-in (`EDGE_DRAIN_ON_DEPLOY=1`) until the canary week ends |
| CLAIM-TLS-9 | edge | @kofi | certificate rotation cron |
"""


def test_a_row_cut_off_from_its_header_is_reported_on_its_own_line(git_repo):
    repo = git_repo()
    repo.commit({"ops/edge.py": "import os\n"}, "edge: skeleton", "2026-05-01")
    repo.commit({"agents/oncall.md": BOARD}, "board", "2026-05-05")
    sha = repo.commit(
        {"ops/edge.py": "import os\n# drain\n"},
        "edge: drain connections on every deploy\n\nEDGE_DRAIN_ON_DEPLOY now defaults to 1; set it to 0 to skip.",
        "2026-05-20",
    )
    [f] = _findings(repo)
    assert (f.path, f.line, f.end_line) == ("agents/oncall.md", 10, 10) and sha[:9] in f.message
    assert "`EDGE_DRAIN_ON_DEPLOY`" in f.message


def test_the_other_rows_of_such_a_table_claim_nothing(git_repo):
    repo = git_repo()
    repo.commit({"ops/edge.py": "import os\n"}, "edge: skeleton", "2026-05-01")
    repo.commit({"agents/oncall.md": BOARD}, "board", "2026-05-05")
    repo.commit(
        {"ops/edge.py": "import os\n# rotate\n"},
        "edge: certificate rotation on by default\n\nThe rotation cron is enabled by default for every cluster.",
        "2026-05-20",
    )
    assert _findings(repo) == []  # row 11 names the cron but calls nothing opt-in; row 10's switch never moved


# --- a line must claim a default of the switch it names -----------------------------------------------------

DESIGN = """# Storage engine design notes

## Checkpointing

**What shipped.** The writer grew `incremental_checkpoint` and routes dirty pages through `page_journal`,
which is off when the volume is read-only.

## Compaction

Tiered compaction (`tiered_compaction`) is opt-in: it stays `false` until the 30-day soak is clean.
"""
CONF = "incremental_checkpoint: false\npage_journal: true\ntiered_compaction: false\n"


def test_a_switch_named_beside_a_conditional_state_is_no_default_claim(git_repo):
    repo = git_repo()
    repo.commit({"conf/engine.yaml": CONF}, "conf: engine defaults", "2026-02-01")
    repo.commit({"agents/design.md": DESIGN}, "design notes", "2026-02-03")
    repo.commit(
        {"conf/engine.yaml": CONF.replace("incremental_checkpoint: false", "incremental_checkpoint: true")},
        "checkpoint: incremental for everyone",
        "2026-02-20",
    )
    assert _findings(repo) == []  # the notes name incremental_checkpoint, they never call it off or opt-in


def test_a_switch_the_line_calls_opt_in_is_still_reported(git_repo):
    repo = git_repo()
    repo.commit({"conf/engine.yaml": CONF}, "conf: engine defaults", "2026-02-01")
    repo.commit({"agents/design.md": DESIGN}, "design notes", "2026-02-03")
    sha = repo.commit(
        {"conf/engine.yaml": CONF.replace("tiered_compaction: false", "tiered_compaction: true")},
        "compaction: tiered after the soak",
        "2026-02-20",
    )
    [f] = _findings(repo)
    assert f.line == 10 and "`tiered_compaction`" in f.message and sha[:9] in f.message


# --- the flipped switch is the one the line names -----------------------------------------------------------

DEBT = """# Tech-debt board

- Streaming of the open-world terrain uses `terrain_lod_bias` (default 0.25) and the mip cache.
- The new occlusion pass is experimental, behind `OCCLUSION_PASS=1`.
- Texture streaming (`tex_stream_async`) stays off by default on consoles.
"""


def test_a_commit_turning_on_another_switch_in_a_sentence_naming_ours_is_no_flip(git_repo):
    repo = git_repo()
    repo.commit({"engine/render.cfg": "OCCLUSION_PASS=0\n"}, "render cfg", "2026-09-01")
    repo.commit({"agents/debt.md": DEBT}, "debt board", "2026-09-02")
    repo.commit(
        {"engine/render.cfg": "OCCLUSION_PASS=0\nHIZ_CULL=1\n"},
        "render: hi-z culling\n\nHIZ_CULL: default ON in the OCCLUSION_PASS build, =0 opts out; the default build "
        "is unchanged.\n\nThe streamer (tex_stream_async and terrain_lod_bias both feed it) is a measured win on "
        "PC, so make the hi-z path the default.",
        "2026-09-10",
    )
    assert _findings(repo) == []


def test_a_commit_turning_on_the_switch_the_line_names_is_a_flip(git_repo):
    repo = git_repo()
    repo.commit({"engine/render.cfg": "OCCLUSION_PASS=0\n"}, "render cfg", "2026-09-01")
    repo.commit({"agents/debt.md": DEBT}, "debt board", "2026-09-02")
    sha = repo.commit(
        {"engine/render.cfg": "OCCLUSION_PASS=0\nHIZ=1\n"},
        "render: occlusion for all\n\nFlip OCCLUSION_PASS default ON after the cert pass; =0 is the escape hatch.",
        "2026-09-10",
    )
    [f] = _findings(repo)
    assert f.line == 4 and "`OCCLUSION_PASS`" in f.message and sha[:9] in f.message


def test_a_diff_turning_on_a_neighbour_on_the_same_line_is_no_flip(git_repo):
    repo = git_repo()
    notes = (
        "# Notes for the cache\n\nThe event publishing of the cache, `publish_events`, is default off because "
        "nobody consume it yet.\n"
    )
    code = "def make_cache(capacity, log_stats=False, publish_events=False):\n    return None\n"
    repo.commit({"cache/api.py": code}, "cache api", "2026-06-01")
    repo.commit({"agents/notes.md": notes}, "notes", "2026-06-02")
    repo.commit({"cache/api.py": code.replace("log_stats=False", "log_stats=True")}, "stats on", "2026-06-09")
    assert _findings(repo) == []
    sha = repo.commit(
        {"cache/api.py": code.replace("publish_events=False", "publish_events=True")}, "events on", "2026-06-12"
    )
    [f] = _findings(repo)
    assert f.line == 3 and "`publish_events`" in f.message and sha[:9] in f.message


def test_a_state_with_its_reason_is_a_claim_and_a_state_under_a_condition_is_not(git_repo):
    repo = git_repo()
    notes = (
        "# Notes for the scanner\n\nThe `prefetch_rows` is off because the old disks can not follow it.\n\n"
        "The `direct_io` is off when the volume is a network mount.\n"
    )
    code = "prefetch_rows = False\ndirect_io = True\n"
    repo.commit({"scan/settings.py": code}, "scanner settings", "2026-04-01")
    repo.commit({"agents/scanner.md": notes}, "notes", "2026-04-02")
    sha = repo.commit(
        {"scan/settings.py": "prefetch_rows = True\ndirect_io = False\n"}, "new disks everywhere", "2026-04-20"
    )
    repo.commit({"scan/settings.py": "prefetch_rows = True\ndirect_io = True\n"}, "direct io back", "2026-04-22")
    [f] = _findings(repo)
    assert f.line == 3 and "`prefetch_rows`" in f.message and sha[:9] in f.message

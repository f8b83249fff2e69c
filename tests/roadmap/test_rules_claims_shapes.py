"""RL402 claim-stale on claims kept in tables and in one file per claim, with their own TTLs and the records'
rules, each beside a claim that must stay quiet."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

BOARD = "agents/claims/board.md"


def _findings(repo):
    return lint(repo.path, LintOptions(use_cache=False, select=("RL402",))).findings


def _board(*rows: str, preamble: str = "") -> str:
    return (
        f"# Who has what\n\n{preamble}\n\n| Claim | Owner | Taken | Last touched | Status |\n|---|---|---|---|---|\n"
        + "".join(f"{r}\n" for r in rows)
    )


def test_a_named_claim_closed_in_the_log_after_its_last_touch(git_repo):
    repo = git_repo()
    repo.commit(
        {
            BOARD: _board(
                "| wal-compaction | @ren | 2026-06-01 | 2026-06-02 | active |",
                "| wal-checksums | @ren | 2026-06-01 | 2026-06-02 | active |",
            ),
            "agents/claims/history.md": "# Claim history\n\n- 2026-06-04 @ren: released wal-compaction, merged.\n"
            "- 2026-05-20 @ren: closed wal-checksums (first attempt).\n",
        },
        "claims",
        "2026-06-05",
    )
    [f] = _findings(repo)
    assert (f.line, f.severity) == (7, "error") and "wal-compaction is closed" in f.message
    assert [(r.path, r.line) for r in f.related] == [("agents/claims/history.md", 3)]  # the older close was before


def test_idle_past_the_ttl_the_records_state_while_commits_did_its_work(git_repo):
    repo = git_repo()
    repo.commit(
        {
            BOARD: _board(
                "| wal-compaction | @ren | 2026-06-01 | 2026-06-01 | active |",
                "| index-bloom | @kai | 2026-06-01 | 2026-06-01 | paused |",
                preamble="A claim lapses after 5 days without a touch.",
            )
        },
        "claims",
        "2026-06-01",
    )
    repo.commit({"src/wal.rs": "// compaction\n"}, "wal: background compaction of sealed segments", "2026-06-04")
    repo.commit({"src/bloom.rs": "// bloom\n"}, "index: bloom filter per block", "2026-06-05")
    repo.commit({"README.md": "x\n"}, "docs", "2026-06-09")
    [f] = _findings(repo)
    assert f.severity == "warning" and f.line == 7 and "wal-compaction has been idle since 2026-06-01" in f.message
    assert "TTL 5 days" in f.message and f.evidence[0]["subject"].startswith("wal: background compaction")


def test_a_claim_file_with_its_own_ttl_and_its_listing(git_repo):
    repo = git_repo()
    repo.commit(
        {
            "agents/claims/CLAIM-SHARD-MOVE.md": "# CLAIM-SHARD-MOVE\n\nRow: KV-SHARD\nHolder: pia\n"
            "Claimed: 2026-06-01\nTTL: 36h\nStatus: active\n",
            "agents/claims/CLAIM-SHARD-SPLIT.md": "# CLAIM-SHARD-SPLIT\n\nRow: KV-SPLIT\nHolder: pia\n"
            "Claimed: 2026-06-01\nTTL: 2w\nStatus: active\n",
            "agents/board.md": "# Board\n\n## Active claims\n\n- CLAIM-SHARD-MOVE (pia)\n- CLAIM-SHARD-SPLIT (pia)\n",
        },
        "claims",
        "2026-06-01",
    )
    repo.commit({"src/a.rs": "x\n"}, "[KV-SHARD] move shards without a pause", "2026-06-04")
    repo.commit({"src/b.rs": "x\n"}, "[KV-SPLIT] split hot shards", "2026-06-04")
    [f] = _findings(repo)
    assert (f.path, f.line) == ("agents/claims/CLAIM-SHARD-MOVE.md", 7) and "TTL 1.5 days" in f.message
    assert [(r.path, r.line) for r in f.related] == [("agents/board.md", 5)]  # one finding, the listing attached


def test_a_closed_claim_file_closes_its_listing(git_repo):
    repo = git_repo()
    repo.commit(
        {
            "agents/claims/CLAIM-TLS.md": "# CLAIM-TLS\n\nStatus: released 2026-06-03\n",
            "agents/board.md": "# Board\n\n## Active claims\n\n- CLAIM-TLS (pia), see claims/CLAIM-TLS.md\n",
        },
        "claims",
        "2026-06-04",
    )
    [f] = _findings(repo)
    assert (f.path, f.line, f.severity) == ("agents/board.md", 5, "error")


def test_an_entry_about_another_claim_closes_nothing(git_repo):
    repo = git_repo()
    repo.commit(
        {
            "agents/claims.md": "# Claims\n\n## Active claims\n\n| Claim | State | Last update |\n|---|---|---|\n"
            "| CLAIM-GRID | ACTIVE | 2026-06-03 |\n| CLAIM-OLD | RELEASED | 2026-06-01 |\n",
            "agents/notes.md": "# Notes\n\nCLAIM-GRID owns the binding grid; its implementation claim is "
            "released and the serving claim owns the evidence.\n",
        },
        "claims",
        "2026-06-04",
    )
    [f] = _findings(repo)
    assert (f.line, f.severity) == (8, "error") and "CLAIM-OLD is closed (it says RELEASED itself)" in f.message


def test_a_board_that_keeps_released_rows_lists_them_as_released(git_repo):
    """Outside a section of active claims, a row whose Status column says RELEASED is the board's record of it
    ("set it to Released here when you are done (keep the line)"); under "Active claims" it is listed as active."""
    repo = git_repo()
    board = (
        "# Claims\n\nSet a claim to Released here when you are done (keep the line).\n\n"
        "| Claim | Agent | Since | Status |\n|---|---|---|---|\n"
        "| CLAIM-GRID | agent-ibis | 2026-06-03 | Active |\n| CLAIM-OLD | agent-wren | 2026-06-01 | Released |\n"
    )
    repo.commit({"agents/claims.md": board}, "claims", "2026-06-04")
    assert _findings(repo) == []

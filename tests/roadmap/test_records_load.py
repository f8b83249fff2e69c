"""load_records through a Tree (working tree and `--at REV`), record globs on both layouts, and defined_ids."""

from __future__ import annotations

from pathlib import Path

from roadmap.config import Config
from roadmap.history.tree import Tree
from roadmap.records import defined_ids, load_records, record_paths

SEED = Path(__file__).parent / "fixtures" / "records" / "seed"


def seed_files() -> dict[str, str]:
    return {p.relative_to(SEED).as_posix(): p.read_text(encoding="utf-8") for p in SEED.rglob("*.md")}


def test_record_globs_cover_both_layouts_by_default() -> None:
    files = [
        "agents/roadmap.md",
        "agents/sub/log.md",
        ".agents/specs/roadmap-v1-completion.md",
        ".agents/coordination.md",
        ".agents/claims/CLAIM-X.md",
        "docs/records.md",
        "README.md",
        "agents/notes.txt",
        "docs/bench-evidence/20260727-x/summary.md",
    ]
    assert record_paths(files, Config()) == [
        ".agents/claims/CLAIM-X.md",
        ".agents/coordination.md",
        ".agents/specs/roadmap-v1-completion.md",
        "agents/roadmap.md",
        "agents/sub/log.md",
    ]
    assert record_paths(files, Config(exclude=(".agents/claims/*",))) == [
        ".agents/coordination.md",
        ".agents/specs/roadmap-v1-completion.md",
        "agents/roadmap.md",
        "agents/sub/log.md",
    ]


def test_load_records_working_tree_and_at_rev(git_repo) -> None:
    repo = git_repo()
    first = repo.commit({**seed_files(), "src/runner.cpp": "int x;\n"}, "docs: seed records", "2026-07-25")
    repo.commit({".agents/coordination.md": "# Coordination log\n\n- Rerun ROAD-NEW-ROW.\n"}, "docs: log", "2026-07-27")
    repo.write({".agents/untracked.md": "- Port ROAD-UNTRACKED-ROW.\n", ".agents/ignored.bin": "x"})

    now = load_records(Tree(repo.path), Config())
    assert [rf.path for rf in now] == sorted(rf.path for rf in now)
    assert ".agents/untracked.md" in [rf.path for rf in now]
    coord = next(rf for rf in now if rf.path == ".agents/coordination.md")
    assert [st.mentions.ids for st in coord.statements if st.kind == "item"] == [("ROAD-NEW-ROW",)]

    then = load_records(Tree(repo.path, rev=first), Config())
    assert ".agents/untracked.md" not in [rf.path for rf in then]
    coord = next(rf for rf in then if rf.path == ".agents/coordination.md")
    assert any("Next owner must" in st.text for st in coord.statements)


def test_defined_ids_prefers_the_canonical_roadmap_table(git_repo) -> None:
    repo = git_repo()
    repo.commit(seed_files(), "docs: seed records", "2026-07-25")
    records = load_records(Tree(repo.path), Config())
    defined = defined_ids(records)
    row = defined["ROAD-V1-C2-LOCAL-BF16"]
    assert (row.path, row.kind, row.column) == (".agents/specs/roadmap-v1-completion.md", "cell", "ID")
    claim = defined["CLAIM-LOCAL-BF16-H32-AOT"]
    assert claim.path == ".agents/claims/CLAIM-LOCAL-BF16-H32-AOT.md" and claim.kind == "heading"
    assert set(defined) >= {"ROAD-V1-C1-SERVE", "ROAD-V1-C3-DOCS"}
    # Mentioned but never defined: candidates the unknown-reference rule gets to judge.
    mentioned = {i for rf in records for st in rf.statements for i in st.mentions.ids}
    assert "ROAD-V1-C2-LOCAL-BF16" in mentioned


def test_claim_file_named_after_its_claim_defines_it() -> None:
    from roadmap.records import parse_record

    rf = parse_record(".agents/claims/CLAIM-ABC-1.md", b"Owner: agent-3. Working on CLAIM-ABC-1 now.\n", Config())
    assert defined_ids([rf])["CLAIM-ABC-1"].line == 1


def test_seed_stale_surfaces_are_all_directives_for_the_row() -> None:
    """The three surfaces the seed issue lists all parse as directives tied to the row or its claim."""
    from roadmap.records import parse_record

    found = []
    for path, text in sorted(seed_files().items()):
        rf = parse_record(path, text.encode(), Config())
        for st in rf.statements:
            if st.directive and "discrete CUDA" in st.text:
                found.append((path, st.kind, st.column, st.item_number, st.row_id))
    assert found == [
        (".agents/benchmark-record.md", "cell", "Next actions", None, "ROAD-V1-C2-LOCAL-BF16"),
        (".agents/coordination.md", "item", None, None, "CLAIM-LOCAL-BF16-H32-AOT"),
        (".agents/specs/roadmap-v1-completion.md", "cell", "Remaining to close the row", None, "ROAD-V1-C2-LOCAL-BF16"),
        (".agents/specs/roadmap-v1-completion.md", "item", None, 14, "ROAD-V1-C2-LOCAL-BF16"),
    ]

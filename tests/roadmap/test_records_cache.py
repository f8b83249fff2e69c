"""The parsed-records cache: exact round trip, unchanged files not re-parsed, damaged entries rebuilt (never
trusted), keys that follow the content and the config, --no-cache, and a cache that stays out of git."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import roadmap.records.parallel as parallel
from roadmap.cachedir import seal
from roadmap.config import Config, DirectiveConfig
from roadmap.history.tree import Tree
from roadmap.lint import LintOptions, lint
from roadmap.records import load_records, parse_record
from roadmap.records.cache import MAGIC, SUBDIR, VERSION, RecordCache
from roadmap.records.codec import decode_record, encode_record

FIXTURES = Path(__file__).parent / "fixtures" / "records"
SEED = FIXTURES / "seed"
TABLE = "# Plan\n\n| ID | State | Remaining |\n|---|---|---|\n| ROAD-A-ONE | OPEN | Port `AsyncThing` to CUDA |\n"


def _all_fixture_records() -> list[tuple[str, bytes]]:
    return [(p.relative_to(FIXTURES).as_posix(), p.read_bytes()) for p in sorted(FIXTURES.rglob("*.md"))]


@pytest.mark.parametrize("path,data", _all_fixture_records(), ids=lambda v: v if isinstance(v, str) else "")
def test_round_trip_is_exact_and_tables_share_the_statements(path, data):
    rf = parse_record(path, data, Config())
    back = decode_record(json.loads(json.dumps(encode_record(rf))))
    assert back == rf
    ids = {id(st) for st in back.statements}
    assert all(id(st) in ids for t in back.tables for row in t.rows for st in row)


def test_round_trip_keeps_odd_text():
    """Lone surrogates (undecodable paths), replacement characters, problems and figures survive."""
    data = "# T\n\n- Next: fix `x` at 6831.71 tok/s (1.02x) caf\ufffd \U0001f600\n".encode() + b"- bad \xff byte\n"
    rf = parse_record("agents/odd.md", data, Config())
    assert rf.problems and any(st.mentions.figures for st in rf.statements)
    assert decode_record(json.loads(json.dumps(encode_record(rf)))) == rf


@pytest.fixture
def repo(git_repo):
    r = git_repo()
    r.commit(
        {"agents/roadmap.md": TABLE, "agents/log.md": "# Log\n\n- Next: rerun ROAD-A-ONE.\n", "src/a.py": "x = 1\n"},
        "docs: records",
        "2026-07-25",
    )
    return r


@pytest.fixture
def parses(monkeypatch):
    """The paths parse_record is called for, in order."""
    seen: list[str] = []
    real = parallel.parse_record

    def counting(path, data, config):
        seen.append(path)
        return real(path, data, config)

    monkeypatch.setattr(parallel, "parse_record", counting)  # small inputs parse in this process
    return seen


def _entries(root: Path) -> list[Path]:
    return sorted((root / ".roadmap_cache" / SUBDIR).glob("*.json"))


def test_unchanged_files_are_not_parsed_again(repo, parses):
    cold = load_records(Tree(repo.path), Config(), cache_dir=repo.path)
    assert parses == ["agents/log.md", "agents/roadmap.md"] and len(_entries(repo.path)) == 2
    parses.clear()
    warm = load_records(Tree(repo.path), Config(), cache_dir=repo.path)
    assert parses == [] and warm == cold
    repo.write({"agents/log.md": "# Log\n\n- Next: rerun ROAD-A-ONE twice.\n"})
    again = load_records(Tree(repo.path), Config(), cache_dir=repo.path)
    assert parses == ["agents/log.md"]
    assert again[0].statements[-1].text.endswith("twice.") and again[1] == cold[1]
    assert ".roadmap_cache" not in repo.git("status", "--porcelain", "--untracked-files=all")


def test_the_key_follows_content_path_and_config_not_the_config_source(repo):
    cache = RecordCache(repo.path, Config())
    key = cache.key("agents/a.md", b"x")
    assert key != cache.key("agents/b.md", b"x") and key != cache.key("agents/a.md", b"y")
    other = RecordCache(repo.path, Config(directives=DirectiveConfig(phrases=("Later:",))))
    assert other.key("agents/a.md", b"x") != key
    assert RecordCache(repo.path, Config(source="pyproject.toml")).key("agents/a.md", b"x") == key


def _damage(path: Path, how: str) -> None:
    raw = path.read_bytes()
    if how == "truncate":
        path.write_bytes(raw[: len(raw) // 2])
    elif how == "garbage":
        path.write_bytes(b"\x00\xff not a cache")
    elif how == "edited":  # a changed statement text: the checksum no longer matches
        path.write_bytes(raw.replace(b"rerun", b"RERUN", 1))
    elif how == "sealed-wrong-shape":  # checksum fine, content not a record: decoded as untrusted data
        key = path.stem
        doc = [key, ["agents/log.md", "", [["not a statement"]], [], [], [], None]]
        path.write_bytes(seal(MAGIC, VERSION, json.dumps(doc).encode()))
    elif how == "sealed-bad-index":  # a table row pointing past the statements
        body = json.loads(raw.partition(b"\n")[2])
        for t in body[1][3]:
            t[5] = [[999]]
        path.write_bytes(seal(MAGIC, VERSION, json.dumps(body).encode()))
    elif how in ("sealed-bad-section", "sealed-bad-raw"):  # a statement's shared section or raw source is nonsense
        body = json.loads(raw.partition(b"\n")[2])
        for st in body[1][2][1]:
            st[0 if how == "sealed-bad-section" else 2] = 999 if how == "sealed-bad-section" else 7
        path.write_bytes(seal(MAGIC, VERSION, json.dumps(body).encode()))
    elif how == "sealed-other-key":  # a valid entry renamed onto another key
        body = json.loads(raw.partition(b"\n")[2])
        body[0] = "0" * 64
        path.write_bytes(seal(MAGIC, VERSION, json.dumps(body).encode()))


@pytest.mark.parametrize(
    "how,reparsed",
    [
        ("truncate", ["agents/log.md", "agents/roadmap.md"]),
        ("garbage", ["agents/log.md", "agents/roadmap.md"]),
        ("edited", ["agents/log.md"]),
        ("sealed-wrong-shape", ["agents/log.md", "agents/roadmap.md"]),
        ("sealed-bad-index", ["agents/roadmap.md"]),
        ("sealed-other-key", ["agents/log.md", "agents/roadmap.md"]),
        ("sealed-bad-section", ["agents/log.md", "agents/roadmap.md"]),
        ("sealed-bad-raw", ["agents/log.md", "agents/roadmap.md"]),
    ],
)
def test_a_damaged_entry_is_parsed_again_and_rewritten(repo, parses, how, reparsed):
    good = load_records(Tree(repo.path), Config(), cache_dir=repo.path)
    for entry in _entries(repo.path):
        _damage(entry, how)
    parses.clear()
    assert load_records(Tree(repo.path), Config(), cache_dir=repo.path) == good
    assert parses == reparsed
    parses.clear()
    assert load_records(Tree(repo.path), Config(), cache_dir=repo.path) == good and parses == []


def test_no_cache_dir_means_no_cache(repo, parses):
    load_records(Tree(repo.path), Config())
    load_records(Tree(repo.path), Config())
    assert len(parses) == 4 and not (repo.path / ".roadmap_cache").exists()


def test_lint_uses_the_cache_unless_told_not_to(repo, parses):
    repo.commit({"src/gone.py": "y = 2\n"}, "feat: gone", "2026-07-25")
    repo.commit({"src/gone.py": None}, "chore: drop gone", "2026-07-25")  # a deleted file: RL301
    repo.commit({"agents/refs.md": "# Refs\n\n- See `src/gone.py:3` and `src/a.py:9`.\n"}, "docs: refs", "2026-07-26")
    lint(repo.path, LintOptions(select=("RL3",), use_cache=False))
    assert not (repo.path / ".roadmap_cache").exists()
    first = lint(repo.path, LintOptions(select=("RL3",)))
    parses.clear()
    second = lint(repo.path, LintOptions(select=("RL3",)))
    assert parses == [] and len(first.findings) == 2
    assert [f.to_json() for f in second.findings] == [f.to_json() for f in first.findings]
    assert repo.git("status", "--porcelain") == ""  # .roadmap_cache/ ignores itself


def test_unused_entries_are_pruned_least_recently_used_first(repo, monkeypatch):
    import roadmap.records.cache as cache_mod

    monkeypatch.setattr(cache_mod, "KEEP_MIN", 0)  # keep 4x the two records a run uses: 8 entries
    keys = []
    for n in range(10):  # ten versions of one file, each used once
        text = f"# Log\n\n- Next: rerun ROAD-A-ONE {n}.\n"
        repo.write({"agents/log.md": text})
        load_records(Tree(repo.path), Config(), cache_dir=repo.path)
        keys.append(RecordCache(repo.path, Config()).key("agents/log.md", text.encode()))
        entry = repo.path / ".roadmap_cache" / SUBDIR / f"{keys[-1]}.json"
        os.utime(entry, (1_000_000 + n, 1_000_000 + n))  # a clear order, whatever the clock resolution
    left = {p.stem for p in _entries(repo.path)}
    assert len(left) == 8
    assert left >= set(keys[3:]) and not left & set(keys[:3])


def test_a_symlinked_cache_directory_is_never_written_or_pruned_through(repo, tmp_path, monkeypatch):
    """A repository can commit `.roadmap_cache` as a symlink to anywhere: roadmap neither writes nor deletes
    there, and still lints (parsing every file)."""
    import roadmap.records.cache as cache_mod

    monkeypatch.setattr(cache_mod, "KEEP_MIN", 0)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / SUBDIR).mkdir(parents=True)
    precious = elsewhere / SUBDIR / ("a" * 64 + ".json")
    precious.write_bytes(seal(MAGIC, VERSION, b"[]"))
    (repo.path / ".roadmap_cache").symlink_to(elsewhere, target_is_directory=True)
    records = load_records(Tree(repo.path), Config(), cache_dir=repo.path)
    assert [rf.path for rf in records] == ["agents/log.md", "agents/roadmap.md"]
    assert sorted(p.name for p in (elsewhere / SUBDIR).iterdir()) == [precious.name]
    assert not (elsewhere / ".gitignore").exists()


def test_prune_keeps_files_that_are_not_entries(repo, monkeypatch):
    import roadmap.records.cache as cache_mod

    monkeypatch.setattr(cache_mod, "KEEP_MIN", 0)
    load_records(Tree(repo.path), Config(), cache_dir=repo.path)
    d = repo.path / ".roadmap_cache" / SUBDIR
    stranger = d / ("b" * 64 + ".json")
    stranger.write_text("{}")  # named like an entry, not one
    notes = d / "notes.json"
    notes.write_text("{}")
    for n in range(12):
        repo.write({"agents/log.md": f"# Log\n\n- Next: rerun ROAD-A-ONE {n}.\n"})
        load_records(Tree(repo.path), Config(), cache_dir=repo.path)
    assert stranger.exists() and notes.exists()
    assert len(_entries(repo.path)) == 8 + 2  # 4x the two used entries, plus the two strangers


def test_no_cache_when_the_parser_source_cannot_be_read(repo, parses, monkeypatch):
    import roadmap.records.cache as cache_mod

    monkeypatch.setattr(cache_mod, "parser_fingerprint", lambda: None)
    load_records(Tree(repo.path), Config(), cache_dir=repo.path)
    load_records(Tree(repo.path), Config(), cache_dir=repo.path)
    assert len(parses) == 4 and not (repo.path / ".roadmap_cache").exists()

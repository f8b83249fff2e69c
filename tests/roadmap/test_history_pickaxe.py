"""The history index's symbol hits equal `git log -S<symbol> --format=%H` exactly, on a repo of tricky cases."""

from __future__ import annotations

import random
import subprocess

import pytest

from roadmap.history.index import HistoryIndex
from roadmap.history.pickaxe import SymbolMatcher

SYMBOLS = [
    "foo",
    "bar()",
    "a.b(",
    "--flag",
    "x*",
    "ab",
    "bc",
    "Async",
    "AsyncDevice",
    "aa",
    "café",
    "sideSym",
    "ghostSym",
    "binSym",
    "ENV_VAR",
    "never_there",
]


def git_s(path, sym: str) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(path), "log", f"-S{sym}", "--format=%H", "HEAD"], capture_output=True, check=True
    ).stdout.decode()
    return out.split()


@pytest.fixture
def tricky(git_repo):
    r = git_repo()
    sha = {}
    sha["root"] = r.commit({"a.py": "foo = 1\nbar()\nkeep\n", "b.md": "use --flag here\n"}, "root", "2026-01-01")
    sha["move_within"] = r.commit({"a.py": "bar()\nkeep\nfoo = 1\n"}, "move foo within a.py", "2026-01-02")
    sha["move_between"] = r.commit({"a.py": "bar()\nkeep\n", "c.py": "foo = 1\n"}, "move foo to c.py", "2026-01-03")
    sha["remove"] = r.commit({"a.py": "keep\n"}, "remove bar()", "2026-01-04")
    sha["rename"] = r.mv("c.py", "d.py", "rename c.py to d.py", "2026-01-05")
    sha["meta_decoy"] = r.commit({"m.py": "axb(\nxx\n"}, "regex decoys only", "2026-01-06")
    sha["meta"] = r.commit({"m.py": "axb(\nxx\na.b( x*\n"}, "metacharacter symbols", "2026-01-07")
    sha["overlap"] = r.commit({"o.txt": "abc\nAsyncDevice\n"}, "overlapping symbols", "2026-01-08")
    sha["count_in_line"] = r.commit({"d.py": "foo = 1 # foo\n"}, "foo twice on one line", "2026-01-09")
    sha["aaa"] = r.commit({"s.txt": "aaa"}, "aaa without newline", "2026-01-10")
    sha["aaaa"] = r.commit({"s.txt": "aaaa"}, "aa now twice (non-overlapping)", "2026-01-11")
    sha["aaaaa"] = r.commit({"s.txt": "aaaaa\n"}, "still twice", "2026-01-12")
    sha["utf8"] = r.commit({"u.txt": "café\n".encode()}, "utf-8 text", "2026-01-13")
    sha["latin1"] = r.commit({"l.txt": b"caf\xe9 \xff\xfe foo\n"}, "latin-1 bytes, foo added", "2026-01-14")
    sha["binary"] = r.commit({"blob.bin": b"\x00\x01binSym\x00" + bytes(range(256))}, "binary", "2026-01-15")
    sha["crlf"] = r.commit({"w.txt": "ENV_VAR=1\r\n"}, "crlf", "2026-01-16")
    sha["side"] = r.commit({"side.py": "sideSym()\n"}, "side work", "2026-01-17", branch="side")
    sha["main_e"] = r.commit({"e.txt": "x\n"}, "main moves on", "2026-01-18")
    sha["merge"] = r.merge("side", "merge side", "2026-01-19")
    sha["ghost"] = r.commit({"g.py": "ghostSym\n"}, "never merged", "2026-01-20", branch="ghost")
    sha["delete"] = r.commit({"u.txt": None}, "delete u.txt", "2026-01-21")
    return r, sha


def test_hits_equal_git_log_S_for_every_symbol(tricky, tmp_path):
    r, _ = tricky
    idx = HistoryIndex.build(r.path, "HEAD", SYMBOLS, cache_dir=tmp_path / "c")
    for sym in SYMBOLS:
        assert [c.sha for c in idx.symbol_hits(sym)] == git_s(r.path, sym), sym


def test_tricky_cases_named(tricky, tmp_path):
    r, sha = tricky
    idx = HistoryIndex.build(r.path, "HEAD", SYMBOLS, cache_dir=tmp_path / "c")
    foo = {c.sha for c in idx.symbol_hits("foo")}
    assert sha["move_within"] not in foo  # moved within a file: count unchanged
    assert sha["move_between"] in foo and idx.delta("foo", sha["move_between"]) == 0  # git: per file pair
    assert sha["rename"] not in foo  # pure rename: rename detection pairs it
    assert idx.delta("foo", sha["count_in_line"]) == 1
    assert idx.delta("bar()", sha["remove"]) == -1
    assert idx.symbol_hits("a.b(")[0].sha == sha["meta"] and sha["meta_decoy"] not in {
        c.sha for c in idx.symbol_hits("a.b(")
    }
    assert [c.sha for c in idx.symbol_hits("x*")] == [sha["meta"]]
    assert sha["overlap"] in {c.sha for c in idx.symbol_hits("ab")} & {c.sha for c in idx.symbol_hits("bc")}
    assert {c.sha for c in idx.symbol_hits("Async")} == {c.sha for c in idx.symbol_hits("AsyncDevice")}
    assert [c.sha for c in idx.symbol_hits("aa")] == [sha["aaaa"], sha["aaa"]]
    assert [c.sha for c in idx.symbol_hits("café")] == [sha["delete"], sha["utf8"]]  # bytes, not latin-1
    assert sha["latin1"] in foo
    assert [c.sha for c in idx.symbol_hits("binSym")] == [sha["binary"]]
    assert [c.sha for c in idx.symbol_hits("ENV_VAR")] == [sha["crlf"]]
    assert idx.symbol_hits("never_there") == []
    assert idx.introduced_by("foo").sha == sha["root"]
    assert idx.introduced_by("foo", among=idx.commits_after(sha["rename"])).sha == sha["count_in_line"]


def test_merged_branch_counts_unmerged_never_appears(tricky, tmp_path):
    r, sha = tricky
    idx = HistoryIndex.build(r.path, "HEAD", SYMBOLS, cache_dir=tmp_path / "c")
    assert [c.sha for c in idx.symbol_hits("sideSym")] == [sha["side"]]  # the merge itself is no hit
    assert idx.by_sha(sha["merge"]).is_merge
    assert idx.symbol_hits("ghostSym") == [] and not idx.contains(sha["ghost"])
    assert idx.contains(sha["side"]) and idx.contains(sha["side"][:10])
    assert [c.sha for c in idx.commits] == r.git("rev-list", "--topo-order", "HEAD").split()  # graph order


def test_unknown_symbol_is_a_clear_error(tricky, tmp_path):
    r, _ = tricky
    idx = HistoryIndex.build(r.path, "HEAD", ["foo"], cache_dir=tmp_path / "c")
    with pytest.raises(KeyError, match="not in the symbol set"):
        idx.symbol_hits("bar()")


def test_matcher_finds_overlapping_and_prefix_symbols():
    m = SymbolMatcher(["ab", "bc", "abcd", "abc", "x.y"])
    assert m.candidates(b"zabcdz") >= {b"ab", b"bc", b"abc", b"abcd"}
    assert m.candidates(b"xzy") == set()
    assert m.deltas([(b"ab ab", b"ab")]) == {"ab": 1}
    assert m.deltas([(b"x.y", b""), (b"", b"x.y")]) == {"x.y": 0}  # moved between files: a hit, net 0


def test_counts_are_bytes_count_for_overlapping_repeats_and_prefixes():
    # `counts` reads every symbol's count off one walk; it must be bytes.count's leftmost non-overlapping count
    symbols = ["aa", "aaa", "ab", "aba", "abab", "b", "ba", "x.y", "--f", "--flag"]
    m = SymbolMatcher(symbols)
    rng = random.Random(0)
    for _ in range(500):
        text = "".join(
            rng.choice(["a", "b", "aa", "ab", "x.y", "--flag", " ", "\n"]) for _ in range(rng.randint(0, 40))
        )
        data = text.encode()
        got = m.counts(data)
        assert got == {s.encode(): data.count(s.encode()) for s in symbols if data.count(s.encode())}


def test_a_commit_with_many_candidates_gives_the_same_deltas_as_counting_each():
    symbols = [f"sym{i:03d}" for i in range(40)] + ["sym0", "sym00"]
    m = SymbolMatcher(symbols)
    added = " ".join(symbols * 3).encode()
    removed = " ".join(symbols[::2]).encode()
    files = [(added, removed), (removed, added), (b"sym001 sym001", b"")]

    def delta(s: str, a: bytes, r: bytes) -> int:
        return a.count(s.encode()) - r.count(s.encode())

    hit = [s for s in symbols if any(delta(s, a, r) for a, r in files)]  # some pair's count differs
    assert m.deltas(files) == {s: sum(delta(s, a, r) for a, r in files) for s in hit}


def test_uncounted_files_give_no_hits_but_keep_their_commits(git_repo, tmp_path):
    # A plan, a note or an evidence file naming a symbol is no change to it: `uncounted` leaves their diffs out of
    # the count, exactly `git log -S<symbol> -- . <excludes>`, while every commit stays in the history.
    r = git_repo()
    plan = r.commit(
        {"agents/plan.md": "- [ ] add `--gpu-mem` and `ChunkPool`\n"}, "plan: ask for the flag", "2026-02-01"
    )
    code = r.commit({"src/args.py": "p.add_argument('--gpu-mem')\n"}, "feat: add the flag", "2026-02-02")
    note = r.commit(
        {"docs/notes.txt": "--gpu-mem landed\n", "bench/run.json": '{"ChunkPool": 1}\n'}, "notes", "2026-02-03"
    )
    both = r.commit(
        {"src/pool.py": "class ChunkPool:\n    pass\n", "agents/plan.md": "- [x] `ChunkPool`\n"}, "pool", "2026-02-04"
    )
    excludes = [":(exclude,glob)**/*.md", ":(exclude,glob)**/*.txt", ":(exclude)bench"]
    idx = HistoryIndex.build(
        r.path, "HEAD", ["--gpu-mem", "ChunkPool"], cache_dir=tmp_path, use_cache=False, uncounted=excludes
    )
    assert [c.sha for c in idx.commits] == [both, note, code, plan]  # the doc-only commits are still there
    for sym in ("--gpu-mem", "ChunkPool"):
        want = subprocess.run(
            ["git", "-C", str(r.path), "log", f"-S{sym}", "--format=%H", "HEAD", "--", ".", *excludes],
            capture_output=True,
            check=True,
        ).stdout.split()
        assert [c.sha for c in idx.symbol_hits(sym)] == [w.decode() for w in want]
    assert [c.sha for c in idx.symbol_hits("--gpu-mem")] == [code]
    assert [c.sha for c in idx.symbol_hits("ChunkPool")] == [both]
    assert idx.delta("ChunkPool", both) == 1  # the plan's line in the same commit is not counted
    assert idx.declared_names(both) == frozenset({"ChunkPool"})
    assert idx.declared_names(note) == frozenset()  # nothing counted changed: it declares nothing there

"""The history rules scale with as-of points and commits, not statements x commits: the per-run indexes
(commits naming a row, news subsets, per-commit diffs and refutations) are built once and give the same
findings as asking per statement."""

from __future__ import annotations

import roadmap.analysis.code_symbols as code_symbols
import roadmap.history.index as index_mod
from roadmap.lint import LintOptions, lint

PLAN = "agents/punch-list.md"


def _lint(repo, *codes: str):
    return lint(repo.path, LintOptions(use_cache=False, select=codes)).findings


def _plan(items: list[str]) -> str:
    body = "\n".join(f"{n}. {text}" for n, text in enumerate(items, start=1))
    return f"# Punch-list\n\nAs of 2026-07-25.\n\n## Punch-list\n\n{body}\n"


def test_row_mentions_are_scanned_once_per_row_however_many_directives(git_repo, monkeypatch):
    calls: list[str] = []
    real = index_mod.HistoryIndex._mentioning_scan

    def counting(self, tok, ignore_case):
        calls.append(tok)
        return real(self, tok, ignore_case)

    monkeypatch.setattr(index_mod.HistoryIndex, "_mentioning_scan", counting)
    items = [f"ENG-MIRROR: Port the sampled-token map variant {n} to discrete CUDA." for n in range(30)]
    items.append("ENG-MIRROR: Port the device-resident sampled-token map to discrete CUDA hosts.")
    repo = git_repo()
    repo.commit({PLAN: _plan(items)}, "docs: plan", "2026-07-25")
    for n in range(5):
        repo.commit({f"src/f{n}.py": f"x = {n}\n"}, f"chore: unrelated {n}\n\nRow: ENG-OTHER", f"2026-07-2{6 + n % 3}")
    sha = repo.commit(
        {"src/runner.py": "x = 1\n"},
        "feat(engine): device-resident sampled-token map on discrete CUDA hosts\n\nRow: ENG-MIRROR",
        "2026-07-29",
    )
    found = _lint(repo, "RL101")
    assert calls.count("ENG-MIRROR") == 1
    # Items of one list are distinct pieces of work, however alike: each is found, each citing the commit.
    assert len(found) == 31 and all(f.evidence[0]["sha"] == sha for f in found)


def test_one_diff_per_commit_however_many_symbols_ask(git_repo, monkeypatch):
    diffs: list[str] = []
    real = code_symbols.run_git

    def counting(root, *args, **kw):
        if args and args[0] == "diff-tree" and "-p" in args:  # a commit's diff, not a tree listing
            diffs.append(args[args.index("--end-of-options") + 1])
        return real(root, *args, **kw)

    monkeypatch.setattr(code_symbols, "run_git", counting)
    directive = "ENG-MIRROR: Wire `DeviceTokenMirror`, `HostTokenMirror` and `VT_TOKEN_MIRROR` into the runner."
    repo = git_repo()
    repo.commit({PLAN: _plan([directive]), "src/runner.py": "x = 1\n"}, "docs: plan", "2026-07-25")
    repo.commit(
        {"src/runner.py": "class DeviceTokenMirror: ...\nclass HostTokenMirror: ...\nFLAG = 'VT_TOKEN_MIRROR'\n"},
        "refactor: tidy runner",
        "2026-07-28",
    )
    [f] = _lint(repo, "RL101")
    for sym in ("DeviceTokenMirror", "HostTokenMirror", "VT_TOKEN_MIRROR"):
        assert f"`{sym}`" in f.message
    assert len(diffs) == 1


def test_code_delta_counts_added_minus_removed_code_lines(git_repo):
    from roadmap.analysis.context import LintContext
    from roadmap.config import Config
    from roadmap.history.tree import Tree

    repo = git_repo()
    repo.commit({"src/a.py": "old_name()\nold_name()\nkeep()\n", "agents/p.md": "- x\n"}, "a", "2026-07-25")
    sha = repo.commit({"src/a.py": "new_name()\nkeep()\n", "agents/p.md": "- new_name new_name\n"}, "b", "2026-07-26")
    ctx = LintContext(root=repo.path, config=Config(), records=[], tree=Tree(repo.path), head=sha)
    assert code_symbols.code_delta(ctx, "old_name", sha) == -2
    assert code_symbols.code_delta(ctx, "new_name", sha) == 1  # the record's mentions are not code
    assert code_symbols.code_delta(ctx, "keep", sha) == 0
    assert code_symbols.code_delta(ctx, "a\nb", sha) == 0  # nothing spans two lines


def test_refutations_found_among_many_statements_and_commits(git_repo):
    """Thirty directives and a history with several refuting commits: each directive gets the refutation
    that names its own row, none gets another row's."""
    items = [f"ROW-{n:02d}-X: Remove the main-stream wait measured at {100 + n} calls." for n in range(30)]
    repo = git_repo()
    repo.commit({PLAN: _plan(items)}, "docs: plan", "2026-07-25")
    shas = {}
    for n in (3, 17, 29):
        shas[n] = repo.commit(
            {f"src/r{n}.py": "x\n"},
            f"perf: profile again\n\nThe ROW-{n:02d}-X attribution of {100 + n} calls is wrong.",
            f"2026-07-2{6 + n % 3}",
        )
    found = _lint(repo, "RL103")
    assert sorted((f.record_id, f.evidence[0]["sha"]) for f in found) == sorted(
        (f"ROW-{n:02d}-X", sha) for n, sha in shas.items()
    )


def test_in_code_at_reads_the_revision_once_and_answers_as_git_grep(git_repo, monkeypatch):
    import os
    import subprocess

    from roadmap.analysis.context import LintContext
    from roadmap.config import Config
    from roadmap.history.tree import Tree

    repo = git_repo()
    repo.commit(
        {
            "src/a.py": "class DeviceTokenMirror: ...\nFLAG = '--no-async'\n",
            "assets/b.bin": b"\0\1VT_X_Y\0",
            "agents/plan.md": "- Wire `HostOnly` and `DeviceTokenMirror`.\n",
            "docs/n.md": "HostOnly\n",
            "src/empty.py": "",
        },
        "a",
        "2026-07-25",
    )
    os.symlink("LinkTargetName", repo.path / "src" / "link.py")  # git grep searches no symlink in a tree
    repo.git("add", "-A")
    repo.git("commit", "-qm", "link", date="2026-07-26")
    sha = repo.rev()
    ctx = LintContext(root=repo.path, config=Config(), records=[], tree=Tree(repo.path), head=sha)
    symbols = ["DeviceTokenMirror", "--no-async", "VT_X_Y", "HostOnly", "Mirror: .", "x*", "", "a\nb", "LinkTargetName"]
    calls = []
    real = code_symbols.run_git

    def counting(root, *args, **kw):
        calls.append(args[0])
        return real(root, *args, **kw)

    monkeypatch.setattr(code_symbols, "run_git", counting)
    got = {s: code_symbols.in_code_at(ctx, s, sha) for s in symbols}
    assert calls.count("diff-tree") == 1 and calls.count("grep") == 2  # the listing; a grep each for "", "a\nb"
    want = {}
    for s in symbols:
        out = subprocess.run(
            ["git", "-C", str(repo.path), "grep", "-l", "-F", "-e", s, sha, "--", *code_symbols.code_pathspec(ctx)],
            capture_output=True,
        ).stdout
        want[s] = bool(out.strip())
    assert got == want
    assert got["DeviceTokenMirror"] and got["VT_X_Y"] and not got["HostOnly"]  # records and docs are not code
    assert not got["LinkTargetName"]

    monkeypatch.setattr(code_symbols, "MAX_HELD_BYTES", 0)  # nothing held: blobs read again when asked
    monkeypatch.setattr(code_symbols, "MAX_BLOB_BYTES", 0)  # every blob searched as a stream
    fresh = LintContext(root=repo.path, config=Config(), records=[], tree=Tree(repo.path), head=sha)
    assert {s: code_symbols.in_code_at(fresh, s, sha) for s in symbols} == want
    assert code_symbols.in_code_at(fresh, "DeviceTokenMirror", "0" * 40) is True  # unknown: never "absent"


def test_in_code_at_reads_a_revisions_blobs_ahead_and_answers_as_one_by_one(git_repo, monkeypatch):
    """The blobs of a revision are read ahead in two `git cat-file` passes (not one request per blob); a blob
    whose object is missing holds nothing, and one past the budget is read when asked: the answers are those of
    reading each blob when asked."""
    from roadmap.analysis.context import LintContext
    from roadmap.config import Config
    from roadmap.history.tree import Tree

    repo = git_repo()
    files = {f"src/m{k}.py": f"VALUE_{k} = {k}\nclass Mirror{k}: ...\n" for k in range(12)}
    files["src/gone.py"] = "ONLY_IN_GONE = 1\n"
    repo.commit(files, "a", "2026-07-25")
    sha = repo.rev()
    gone = repo.git("rev-parse", f"{sha}:src/gone.py").strip()
    (repo.path / ".git" / "objects" / gone[:2] / gone[2:]).unlink()  # a blob the clone lacks
    symbols = ["VALUE_3", "Mirror11", "ONLY_IN_GONE", "Absent", "class"]

    def answers(**patches):
        for name, value in patches.items():
            monkeypatch.setattr(code_symbols, name, value)
        ctx = LintContext(root=repo.path, config=Config(), records=[], tree=Tree(repo.path), head=sha)
        return {s: code_symbols.in_code_at(ctx, s, sha) for s in symbols}, ctx

    reads = []
    real = code_symbols.read_object
    monkeypatch.setattr(code_symbols, "read_object", lambda root, name: reads.append(name) or real(root, name))
    ahead, ctx = answers()
    assert reads == [] and ctx.facts.blob_data[gone] is None
    one_by_one, _ = answers(_read_ahead=lambda ctx, oids: None)
    assert len(reads) == 12
    assert (
        ahead
        == one_by_one
        == {"VALUE_3": True, "Mirror11": True, "ONLY_IN_GONE": False, "Absent": False, "class": True}
    )
    size = len(files["src/m0.py"])
    partly, ctx = answers(MAX_HELD_BYTES=5 * size)  # five blobs held ahead, the others read when asked
    assert partly == ahead and ctx.facts.blob_bytes <= 5 * size

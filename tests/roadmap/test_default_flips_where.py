"""Where the flags live (analysis/default_flips.py `_where`): what `git grep -F -I -o` reports, path by path,
though git is only asked which files name a flag. Overlapping flags, a flag inside a longer one, a binary file,
a symlink, a record and a file changed in the working tree are the cases -o decides."""

from __future__ import annotations

import os

from roadmap.analysis.context import LintContext
from roadmap.analysis.default_flips import _where
from roadmap.config import Config
from roadmap.history.tree import Tree

FLAGS = ["Q4_K", "Q4_K_M", "aa", "aaa", "ab", "abc", "bc", "--fast-path", "USE_X"]
FILES: dict[str, str | bytes] = {
    "src/quant.c": 'int x = Q4_K_M; // Q4_K\nconst char *s = "aaaa";\n',
    "src/words.py": "xabcx\nabcd bc\n--fast-path=False\n",
    "src/only_inner.py": "Q4_K_MX\n",
    "src/blob.bin": b"\x00\x01USE_X\x00",
    "docs/notes.md": "USE_X is opt-in\n",
    "src/env.sh": "export USE_X=0\n",
}


def _git_o(repo, rev: str | None) -> dict[str, set[str]]:
    args = [
        "grep",
        "-F",
        "-I",
        "-o",
        "--no-color",
        *[a for f in FLAGS for a in ("-e", f)],
        *([rev] if rev else []),
        "--",
        ".",
    ]
    out: dict[str, set[str]] = {}
    for line in repo.git(*args).splitlines():
        if rev and line.startswith(rev + ":"):
            line = line[len(rev) + 1 :]
        path, _, hit = line.rpartition(":")
        if not path.endswith(".md"):
            out.setdefault(path, set()).add(hit)
    return out


def test_where_equals_git_grep_o_in_the_working_tree_and_at_a_revision(git_repo):
    repo = git_repo()
    sha = repo.commit(dict(FILES), "feat: flags", "2026-07-01")
    os.symlink("quant.c", repo.path / "src" / "link.c")
    repo.git("add", "src/link.c")
    repo.write({"src/words.py": "abc only\n"})  # the working tree differs from the commit
    for rev in (None, sha):
        ctx = LintContext(root=repo.path, config=Config(), records=[], tree=Tree(repo.path, rev=rev), head=sha)
        got = _where(ctx, FLAGS)
        assert got == _git_o(repo, rev)
        assert "Q4_K" in got["src/quant.c"] and got["src/only_inner.py"] == {"Q4_K_M"}
        assert "src/blob.bin" not in got and "src/link.c" not in got and "docs/notes.md" not in got
    assert _where(LintContext(root=repo.path, config=Config(), records=[], tree=Tree(repo.path), head=sha), FLAGS)[
        "src/words.py"
    ] == {"abc"}


def test_flag_finder_finds_what_an_alternation_longest_first_finds():
    """The trie is the alternation `git grep -o` behaves like (longest flag first), on random text."""
    import random
    import re

    from roadmap.analysis.default_flips import flag_finder

    flags = ["ab", "abc", "bc", "Q4_K", "Q4_K_M", "aa", "aaa", "a.b", "x", "é_on"]
    finder = flag_finder(flags)
    plain = re.compile("|".join(re.escape(f) for f in sorted(flags, key=len, reverse=True)))
    rng = random.Random(0)
    for _ in range(5000):
        text = "".join(rng.choice("abcQ4_KM.x é_on") for _ in range(rng.randrange(40)))
        assert finder.findall(text) == plain.findall(text), text

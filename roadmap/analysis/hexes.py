"""Which hex tokens of a record are commits of ours.

Records are full of hex that is not a commit of this repository: sha256/md5 prefixes of models and logs,
fingerprints, elided digests (`f784ba01…e046`), upstream pins ("Upstream synced to `e24d1b24`", "whisper.cpp
2c8d4f1", "`registry.py:331` @ `702f481`"). A token is read as a commit of ours only in a commit context — the
word commit/sha/rev, "landed/fixed/merged/reverted in|by", `@`, a range `a..b`, a Git trailer, a base/as-of note,
a Commit/SHA column — that is neither a digest context nor another project's (analysis/ownership.py).

Another project's, also: a sha pinned after a path or checkout that is not ours (`vllm/x.py:12 @ e24d1b24`,
`/home/me/_git/vllm @ e24d1b24`), a sha in a statement whose every path reference is absent from our tree (it
is about another code base), and a sha written anywhere in the records in a foreign context (a sha is one
project's everywhere: "Upstream synced to `e24d1b24`" once makes every `e24d1b24` upstream's).
"""

from __future__ import annotations

import re
from typing import Iterator

from roadmap.analysis.context import LintContext
from roadmap.analysis.refs import is_external, is_foreign_at, normalise, project_names, resolve
from roadmap.records.model import Statement
from roadmap.records.patterns import find_shas

_OPEN = r"[\s(`'\"\[]*"
# The words right before the token name a commit.
_COMMIT_BEFORE = re.compile(
    r"(?:\b(?:commits?|sha1?|shas|rev|revs|revision|head|tip|base|as\s+of|since|parent|"
    r"(?:landed|fixed|merged|introduced|shipped|reverted|cherry-picked|squashed|pushed|broken|broke|regressed|"
    r"added|removed|changed|caused|done|implemented|tagged)\s+(?:in|by|at|as|with|on|via)|"
    r"fix(?:es|ed)?|reverts?|cherry-pick)\s*[:=#]?|\b[\w-]+-by:|\b(?:fixes|refs|reverts|landed-in|commit|base):|@)"
    + _OPEN
    + "$",
    re.I,
)
# Further back in the clause: a verb of landing code ("Fixed the flake (a3f9c02)"), or a commit subject after it
# as `git log --oneline` prints it ("a3f9c02 fix(ctrl): ...").
_LANDED_IN_CLAUSE = re.compile(
    r"\b(?:fixed|landed|merged|shipped|reverted|committed|pushed|cherry-picked|squashed|"
    r"introduced|regressed)\b",
    re.I,
)
_SUBJECT_AFTER = re.compile(
    r"[`)\]]?\s*(?:[-—–:]\s*)?(?:feat|fix|refactor|chore|docs|perf|test|build|ci|style|revert)"
    r"(?:\([^)]*\))?!?:\s"
)
_COMMIT_COLUMN = re.compile(r"\b(?:commit|commits|sha|shas|rev|revision|landed(?:\s+in)?|fixed\s+in|base)\b", re.I)
# Anywhere in the clause before the token: it is a digest, not a commit.
_DIGEST = re.compile(
    r"(?i:sha-?(?:224|256|384|512)|sha3|md5|blake\w*|xxh\w*|\bcrc\d*|\bhash(?:es|ed)?|digests?|"
    r"fingerprints?|checksums?|signatures?|\betag|\buuid|\bnonce|\bsalt|\bkey\s*id|manifest)\b"
)
_CLAUSE = re.compile(r"[.;!?](?:\s|$)|\s[—–]\s|\||\n")
_HEX7 = re.compile(r"[0-9a-f]{7,40}")
_GIT_LENGTHS = range(7, 13)  # the abbreviations people paste; a full sha is 40


def commit_context(text: str, start: int, end: int, column: str | None = None) -> str:
    """ "commit" | "digest" | "none" for the hex token at text[start:end]."""
    token = text[start:end]
    after = text[end : end + 44]
    before = text[max(0, start - 120) : start]
    if (
        after.startswith(("…", "..."))
        or before.endswith(("…", "..."))
        or (after.startswith("..") and not _HEX7.match(after, 2))
    ):
        return "digest"  # `f784ba01…e046`: half a digest, never pasted as a commit
    if re.search(r"\bindex\s+(?:[0-9a-f]{7,40}\.\.)?$", before):
        return "none"  # `index 6914761e..d51a8050 100644`: blob ids of a pasted diff, not commits
    clause = re.sub(r"\b(commit)\s+(?:hash(?:es)?|ids?)\b", r"\1", _CLAUSE.split(before)[-1], flags=re.I)
    explicit = _COMMIT_BEFORE.search(clause[-60:]) is not None
    if _DIGEST.search(clause):
        return "digest"
    if len(token) not in _GIT_LENGTHS and len(token) != 40 and not explicit:
        return "digest"  # 16, 32, 64 hex: a digest prefix or a whole digest
    ranged = (after.startswith("..") and _HEX7.match(after.lstrip(".")) is not None) or re.search(
        r"[0-9a-f]{7,40}\.\.\.?$", before
    ) is not None
    if explicit or ranged or (column is not None and _COMMIT_COLUMN.search(column) is not None):
        return "commit"
    if len(token) in _GIT_LENGTHS and (_LANDED_IN_CLAUSE.search(clause[-60:]) or _SUBJECT_AFTER.match(after)):
        return "commit"  # "Fixed the flake (a3f9c02).", "a3f9c02 fix(ctrl): wait for the pod"
    return "none"


# `<path or checkout> @ <sha>`: the thing pinned, written right before the `@`.
_PINNED = re.compile(r"(?P<what>[^\s`()]+)`?\s*@\s*`?$")


def _pinned_elsewhere(ctx: LintContext, st: Statement, start: int) -> bool | None:
    """For `X @ <sha>`: True when X is not ours (a path absent from our tree, another checkout), False when it is
    (a path of ours, a checkout named after this repository), None when there is no `@` pin."""
    window = st.text[max(0, start - 200) : start]
    if not window.rstrip().removesuffix("`").rstrip().endswith("@"):
        return None  # no `@` right before the sha (only spaces and a backtick between): nothing to search for
    m = _PINNED.search(window)
    if m is None:
        return None
    what = m.group("what").rstrip(":,")
    what = re.sub(r":\d[\d,-]*$", "", what)  # `registry.py:331-583` -> `registry.py`
    if ctx.root.name.lower() in what.lower():
        return False  # `~/work/<this repo>-branch @ 62fc0e0`: a checkout of ours
    if is_external(what) or ":" in what:
        return True  # `/home/me/_git/vllm`, `dgx:~/x`: another checkout
    rel = normalise(what)
    return rel is None or not (ctx.tree.exists(rel) or rel in project_names(ctx).basenames)


def _about_elsewhere(ctx: LintContext, rf_path: str, st: Statement) -> bool:
    """The statement names files and none of them is provably ours (a bare `README.md` may be anyone's): it
    describes another code base."""
    refs = [r for r in st.mentions.paths if r.form != "link"]
    if not refs:
        return False
    for r in refs:
        res = resolve(ctx, r, rf_path)
        if "/" in r.path and res.path is not None and res.path in res.candidates:
            return False
    return True


def _raw_tokens(ctx: LintContext, rf_path: str, st: Statement) -> Iterator[tuple[str, str]]:
    """(token, "commit" | "foreign" | "other") for each hex token of `st`."""
    wanted = set(st.mentions.shas)
    floor = 0
    elsewhere: bool | None = None
    for start, end, token in find_shas(st.text):
        if token not in wanted:
            continue
        ctx_kind = commit_context(st.text, start, end, st.column)
        pinned = _pinned_elsewhere(ctx, st, start)
        if ctx_kind == "digest":
            kind = "other"
        elif pinned or (pinned is None and is_foreign_at(ctx, st, start, end, floor)):
            kind = "foreign"
        elif ctx_kind == "commit":
            if elsewhere is None:
                elsewhere = _about_elsewhere(ctx, rf_path, st)
            kind = "foreign" if elsewhere and pinned is None else "commit"
        else:
            kind = "other"
        floor = end
        yield token, kind


def foreign_shas(ctx: LintContext) -> dict[str, frozenset[str]]:
    """Every hex token some record writes in another project's context (historical text included), by its
    first 7 characters."""
    if ctx.facts.foreign_shas is None:
        found: dict[str, set[str]] = {}
        for rf in ctx.records:
            for st in rf.statements:
                if st.mentions.shas:
                    for t, kind in _raw_tokens(ctx, rf.path, st):
                        if kind == "foreign":
                            found.setdefault(t[:7], set()).add(t)
        ctx.facts.foreign_shas = {k: frozenset(v) for k, v in found.items()}
    return ctx.facts.foreign_shas


def commit_tokens(ctx: LintContext, rf_path: str, st: Statement) -> Iterator[str]:
    """The hex tokens of `st` written as commits (before asking whether the records call them upstream's)."""
    for token, kind in _raw_tokens(ctx, rf_path, st):
        if kind == "commit":
            yield token


def is_upstream_sha(ctx: LintContext, token: str) -> bool:
    """The records write this sha (or a longer or shorter spelling of it) in another project's context."""
    # one sha abbreviated twice (`702f481`, `702f4814`) is one commit: compare on the shorter length
    return any(t.startswith(token) or token.startswith(t) for t in foreign_shas(ctx).get(token[:7], ()))

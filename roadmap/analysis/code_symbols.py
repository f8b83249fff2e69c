"""Was a symbol introduced in *code* by a commit? The history index counts `-S` deltas over the files that are
not records, evidence or prose docs (context.uncounted_pathspecs), as a net over all of them; a plan that names
`VT_ASYNC_DEVICE_MIRROR` before anyone writes it must not look like the flag landing. These helpers re-count, for
the few candidate commits only, file by file on the same code paths, and answer whether a revision's code holds it.
"""

from __future__ import annotations

import re
from typing import Callable

from roadmap.analysis.context import LintContext, uncounted_pathspecs
from roadmap.history.commit import Commit
from roadmap.history.git import GitError, empty_tree, object_info, popen_git, read_object, run_git

SHA = re.compile(r"^[0-9a-f]{40}$")


def code_pathspec(ctx: LintContext) -> list[str]:
    """Everything but records, evidence and prose docs."""
    return [".", *uncounted_pathspecs(ctx.config)]


MAX_HELD_BYTES = 256 << 20  # code blobs kept in memory for the run; past it, blobs are read again when asked
MAX_BLOB_BYTES = 64 << 20  # a blob larger than this is searched as a stream, never held whole
_CHUNK = 1 << 20
_REGULAR = (b"100644", b"100755", b"100664")  # what `git grep` searches in a tree: regular files, not links


def in_code_at(ctx: LintContext, symbol: str, rev: str) -> bool:
    """Does `symbol` occur in a code file of `rev`? (A git failure reads as "present": no introduction
    is ever inferred from an error.) Answers what `git grep -l -F -e <symbol> <rev> -- <code pathspec>`
    would: a readable regular file under the code pathspec holds the bytes. The revision's code files are
    listed once (`code_blobs`) and each blob is searched once per symbol, however many revisions share it."""
    cache = ctx.facts.in_code
    key = (symbol, rev)
    if key not in cache:
        try:
            cache[key] = _in_code_at(ctx, symbol, rev)
        except GitError:
            cache[key] = True
    return cache[key]


def _in_code_at(ctx: LintContext, symbol: str, rev: str) -> bool:
    if not SHA.match(rev):  # git grep has no --end-of-options: only full shas reach it
        return True
    if not symbol or "\n" in symbol:  # git grep's own reading of an empty or a multi-line pattern
        out = run_git(ctx.root, "grep", "-l", "-F", "-e", symbol, rev, "--", *code_pathspec(ctx), check=False)
        return bool(out.strip()) or not _rev_ok(ctx, rev)
    blobs = code_blobs(ctx, rev)
    if blobs is None:
        return True
    needle = symbol.encode("utf-8", "surrogateescape")
    seen = ctx.facts.blob_hits.setdefault(symbol, {})
    for oid in blobs:
        hit = seen.get(oid)
        if hit is None:
            hit = seen[oid] = _blob_holds(ctx, oid, needle)
        if hit:
            return True
    return False


def code_blobs(ctx: LintContext, rev: str) -> tuple[str, ...] | None:
    """The blob ids of the regular files under the code pathspec at `rev` (what `git grep` would search), from
    one `git diff-tree` against the empty tree, which reads no file content; once per revision. None when git
    cannot list the revision."""
    cache = ctx.facts.code_blobs
    if rev not in cache:
        try:
            out = run_git(
                ctx.root,
                "diff-tree",
                "-r",
                "-z",
                "--no-renames",
                "--no-ext-diff",
                "--no-textconv",
                "--end-of-options",
                empty_tree(ctx.root),
                rev,
                "--",
                *code_pathspec(ctx),
            )
        except GitError:
            cache[rev] = None
        else:
            fields = out.split(b"\0")
            # ":000000 100644 0000... <oid> A", then the path
            blobs = cache[rev] = tuple(
                meta[3].decode()
                for meta in (f.split() for f in fields[0 : len(fields) - 1 : 2])
                if len(meta) == 5 and meta[1] in _REGULAR
            )
            _read_ahead(ctx, blobs)
    return cache[rev]


def _read_ahead(ctx: LintContext, oids: tuple[str, ...]) -> None:
    """Hold the blobs of `oids` not held yet, as _blob_holds would hold each when first asked, read in two `git
    cat-file` passes over all of them (their types and sizes, then the contents): a revision's symbol search
    reads most of its code files, and one request per blob through GitPython's `cat-file` cost more than git's
    reading (mudler/vllm.cpp: 1,700 blobs, half a second, in each process of the stale analysis). Unreadable and
    non-blob objects are held as None; a blob too large to hold, or past the budget, is left to _blob_holds."""
    held = ctx.facts.blob_data
    todo = [o for o in dict.fromkeys(oids) if o not in held and SHA.match(o)]
    if not todo:
        return
    try:
        info = run_git(ctx.root, "cat-file", "--batch-check", input="".join(o + "\n" for o in todo).encode())
    except GitError:
        return  # each is asked on its own when needed
    lines = info.decode("utf-8", "replace").split("\n")
    if len(lines) != len(todo) + 1:
        return
    wanted: list[tuple[str, int]] = []
    budget = MAX_HELD_BYTES - ctx.facts.blob_bytes
    for oid, line in zip(todo, lines):
        got = line.split()
        if len(got) == 2 and got[0] == oid and got[1] == "missing":
            held[oid] = None  # what object_info's None makes of it
        elif len(got) != 3 or got[0] != oid or not got[2].isdigit():
            return  # an answer not read as expected: the rest is asked one by one
        elif got[1] != "blob":
            held[oid] = None
        elif int(got[2]) <= MAX_BLOB_BYTES and int(got[2]) <= budget:
            wanted.append((oid, int(got[2])))
            budget -= int(got[2])
    if not wanted:
        return
    try:
        out = run_git(ctx.root, "cat-file", "--batch", input="".join(o + "\n" for o, _ in wanted).encode())
    except GitError:
        return
    pos = 0
    for oid, size in wanted:
        end = out.find(b"\n", pos)
        if end < 0 or out[pos:end] != f"{oid} blob {size}".encode():
            return  # not what --batch-check said: the rest is asked one by one
        data = out[end + 1 : end + 1 + size]
        if len(data) != size:
            return
        held[oid] = data
        ctx.facts.blob_bytes += size
        pos = end + 1 + size + 1  # the content's own line feed


def _blob_holds(ctx: LintContext, oid: str, needle: bytes) -> bool:
    """Does blob `oid` contain `needle`? An unreadable blob holds nothing (git grep skips it too)."""
    held = ctx.facts.blob_data
    if oid in held:
        data = held[oid]
        return data is not None and needle in data
    info = object_info(ctx.root, oid)
    if info is None or info[0] != "blob":
        held[oid] = None
        return False
    if info[1] > MAX_BLOB_BYTES:
        return _stream_holds(ctx, oid, needle)
    got = read_object(ctx.root, oid)
    data = got[1] if got is not None else None
    if data is not None and ctx.facts.blob_bytes + len(data) <= MAX_HELD_BYTES:
        held[oid] = data
        ctx.facts.blob_bytes += len(data)
    return data is not None and needle in data


def _stream_holds(ctx: LintContext, oid: str, needle: bytes) -> bool:
    """`needle in blob` for a blob too large to hold, read in chunks that overlap by len(needle) - 1 bytes."""
    proc = popen_git(ctx.root, "cat-file", "blob", oid)
    assert proc.stdout is not None
    tail = b""
    try:
        while chunk := proc.stdout.read(_CHUNK):
            if needle in tail + chunk:
                return True
            tail = (tail + chunk)[-(len(needle) - 1) :] if len(needle) > 1 else b""
        return False
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def _rev_ok(ctx: LintContext, rev: str) -> bool:
    return bool(run_git(ctx.root, "cat-file", "-t", rev, check=False).strip())


def code_delta(ctx: LintContext, symbol: str, sha: str) -> int:
    """Net change in `symbol`'s count made by commit `sha` in code files (first-parent diff; root: all)."""
    cache = ctx.facts.code_deltas
    key = (symbol, sha)
    if key not in cache:
        diff = None if "\n" in symbol else _code_diff(ctx, sha)  # counted line by line: no symbol spans lines
        cache[key] = 0 if diff is None else _count(diff[0], symbol) - _count(diff[1], symbol)
    return cache[key]


def declares(ctx: LintContext, symbol: str, sha: str) -> bool:
    """Does commit `sha` declare `symbol` in the code it adds (a function, type, model, table or constant of
    that name: `+export function coalesceRequests(`, `+public static class SaveDataMigrator`, `+model RuleTarget {`,
    `+MAX_INFLIGHT = 64`), not only use it (`+test.afterEach(...)`)?"""
    diff = None if "\n" in symbol else _code_diff(ctx, sha)
    if diff is None or symbol not in diff[0]:
        return False
    name = re.escape(symbol.rsplit(".", 1)[-1].removesuffix("()"))
    return re.search(_DECLARES.format(name=name), diff[0], re.M | re.I) is not None


def first_declaration(
    ctx: LintContext, symbol: str, before: Commit, also: Callable[[LintContext, str, str], bool] | None = None
) -> Commit | None:
    """The first commit, strictly before `before`, that added `symbol` to the code and declared it there
    (`declares`, or `also` for another form of declaration: a name given as a string), merges left out: where a
    directive written at `before` asking for that name was already stale."""
    history = ctx.get_history()
    for c, d in reversed(history.symbol_deltas(symbol)):
        if (
            d > 0
            and not c.is_merge
            and history.rank(c) < history.rank(before)
            and code_delta(ctx, symbol, c.sha) > 0
            and (declares(ctx, symbol, c.sha) or (also is not None and also(ctx, symbol, c.sha)))
        ):
            return c
    return None


# A declaration of {name} on an added line, in the languages teams write: keyword-led (def, fn, class, model,
# table, ...), an assignment of a function or constant (`name = function(`, `NAME = 64`), a C-like signature.
_DECLARES = (
    r"^\+\s*(?:(?:export|default|pub(?:\([a-z]+\))?|static|async|public|private|protected|internal|abstract|sealed|"
    r"final|partial|readonly|declare|inline|virtual|extern|override|unsafe|open|data)\s+)*"
    r"(?:def|func|fn|function|class|struct|enum|trait|interface|type|const|let|var|val|model|record|module|"
    r"namespace|message|service|table|view|object|protocol|macro_rules!|create\s+(?:table|view|index|function))\s+"
    r"(?:\([^)]*\)\s*)?[`\"\[]?{name}\b"
    r"|^\+\s*(?:(?:export|const|let|var)\s+)?{name}\s*(?::[^=]{{0,40}})?=\s*(?:async\s+)?(?:function\b|\(|[\w.]+\s*=>|"
    r"-?\d|\"|'|class\b|\[|\{{|new\b|[A-Z]\w*\()"
    r"|^\+\s*(?!return\b|await\b|yield\b|else\b|new\b)(?:[\w:<>,]+[*&]*\s+)+[*&]*{name}\s*\([^;]*\)\s*(?:const\s*)?(?:\{{|$)"
)


def added_code(ctx: LintContext, sha: str) -> str | None:
    """The lines commit `sha` adds in code files (each with its `+`), comment-only lines left out; None when git
    cannot diff it."""
    diff = _code_diff(ctx, sha)
    return None if diff is None else diff[0]


def _count(text: str, symbol: str) -> int:
    """Occurrences of `symbol` as a whole name: `explain_trace` is not in `add_explain_trace_table`, nor
    `AsyncDeviceInputs` in `AsyncDeviceInputsV2` (a side that is punctuation, `--flag` or `a::b`, needs no edge)."""
    if symbol not in text:
        return 0
    head = r"(?<![A-Za-z0-9_])" if symbol[:1].isalnum() or symbol[:1] == "_" else ""
    tail = r"(?![A-Za-z0-9_])" if symbol[-1:].isalnum() or symbol[-1:] == "_" else ""
    return len(re.findall(head + re.escape(symbol) + tail, text))


def _code_diff(ctx: LintContext, sha: str) -> tuple[str, str] | None:
    """(added lines, removed lines) of commit `sha` in code files, newline-joined, comment-only lines left out:
    one `git diff-tree` per commit, however many symbols ask about it. None when git cannot diff it."""
    cache = ctx.facts.code_diffs
    if sha not in cache:
        try:
            out = run_git(
                ctx.root,
                "diff-tree",
                "-p",
                "-U0",
                "--root",
                "--no-ext-diff",
                "--no-textconv",
                "--no-color",
                "-r",
                "--end-of-options",
                sha,
                "--",
                *code_pathspec(ctx),
            )
        except GitError:
            cache[sha] = None
        else:
            added, removed = [], []
            for line in out.decode("utf-8", "replace").split("\n"):
                if line.startswith("+") and not line.startswith("+++ "):
                    if not _COMMENT_LINE.match(line, 1):
                        added.append(line)
                elif line.startswith("-") and not line.startswith("--- "):
                    if not _COMMENT_LINE.match(line, 1):
                        removed.append(line)
            cache[sha] = ("\n".join(added), "\n".join(removed))
    return cache[sha]


# A line that is only a comment: a name it mentions ("// once someone writes dedupeLedgerEntries ...") is no code.
# C's preprocessor lines (`#define`, `#if`) are code; so is a Python/shell line that merely starts with `#!`.
_COMMENT_LINE = re.compile(
    r"\s*(?://|/\*|\*(?:\s|$|/)|<!--|--\s|;;|#(?!\s*(?:define|undef|if|ifdef|ifndef|elif|else|endif|include|"
    r"pragma|import|error|warning|line|region|endregion)\b|!|\[))"
)

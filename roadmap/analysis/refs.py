"""Shared by the RL3xx rules: which path references are real references into this repository, where they
point, and on which record line they are written.

Precision before recall: text in fenced code blocks, historical statements, URLs, absolute or `~` paths
and paths that climb out of the repository are not references, so they are never flagged; references into
other projects are marked foreign (analysis/ownership.py), and only a reference proven ours is read at lines.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace
from typing import Callable, Iterator

from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import RefSite, Resolved
from roadmap.analysis.ownership import (
    Names,
    foreign_column,
    foreign_section,
    names_for,
    ours_column,
    text_verdict,
    under_external_root,
)
from roadmap.records.model import PathRef, RecordFile, Statement
from roadmap.records.patterns import ISO_DATE
from roadmap.records.source import split_lines

FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# Extensions a bare `name.ext:12` (no directory) must have to count as a file reference; keeps
# `example.com:443` and `127.0.0.1:8000` out.
FILE_EXTS = frozenset(
    """py pyi md rst txt toml yaml yml json jsonl cfg ini c cc cpp cxx h hh hpp hxx cu cuh
rs go java kt scala js mjs ts tsx jsx sh bash zsh ps1 rb php swift m mm cs lua pl r sql proto html css scss
vue svelte cmake mk ipynb csv tsv lock gradle bzl bazel""".split()
)
EXTENSIONLESS = frozenset(
    {
        "Makefile",
        "Dockerfile",
        "CMakeLists.txt",
        "BUILD",
        "WORKSPACE",
        "LICENSE",
        "README",
        "Justfile",
        "Gemfile",
        "Rakefile",
        "Procfile",
    }
)
HOSTLIKE_RE = re.compile(r"^[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|org|net|io|dev|ai|co|gov|edu|app|sh)$", re.I)


def fenced_lines(rf: RecordFile) -> frozenset[int]:
    """1-based line numbers inside fenced code blocks (fences included)."""
    out: set[int] = set()
    fence: str | None = None
    for n, line in enumerate(split_lines(rf.text), 1):
        m = FENCE_RE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)[0] * len(m.group(1))
                out.add(n)
        else:
            out.add(n)
            if m and m.group(1).startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
    return frozenset(out)


def record_lines(ctx: LintContext, rf: RecordFile) -> list[str]:
    cache = ctx.facts.record_lines
    if rf.path not in cache:
        cache[rf.path] = split_lines(rf.text)
    return cache[rf.path]


def live_statements(ctx: LintContext) -> Iterator[tuple[RecordFile, Statement]]:
    """Statements that make current claims: not historical, not inside a fenced code block, not a dated entry
    of a log, not in a snapshot (an archived or audit record, a baseline section), not in a vendored project."""
    if ctx.facts.live is None:
        ctx.facts.live = list(_live(ctx))
    return iter(ctx.facts.live)


def _live(ctx: LintContext) -> Iterator[tuple[RecordFile, Statement]]:
    vendored = vendored_roots(ctx)
    for rf in ctx.records:
        if snapshot_record(rf) or any(rf.path.startswith(v) for v in vendored):
            continue
        fences = fenced_lines(rf)
        rows = _row_heads(rf) if is_log(rf) else None
        describes = describes_the_system(rf)
        snapshot_sections: dict[tuple[str, ...], bool] = {}
        for st in rf.statements:
            if st.section not in snapshot_sections:
                snapshot_sections[st.section] = any(_SNAPSHOT_SECTION.search(h) for h in st.section[1:])
            if (
                st.historical
                and not (describes and st.history.startswith(_STATUS_LINE))
                or st.line in fences
                or (rows is not None and dated_entry(st, rows))
                or snapshot_sections[st.section]
            ):
                continue
            yield rf, st


# A record that reports on a moment (an audit, a post-mortem) and a section that
# describes the tree before the work ("Our baseline", "Status quo") cite what was there when they were written;
# keeping their line numbers current is nobody's job, so the reference rules read them as history.
_SNAPSHOT_TITLE = re.compile(r"\b(?:audit|retro(?:spective)?|post-?mortem|incident|investigation)\b", re.I)
_SNAPSHOT_SECTION = re.compile(r"\b(?:baseline|status quo|before (?:the|this) (?:change|work|port)|as found)\b", re.I)


_LICENSE = re.compile(r"^(?:LICEN[CS]E|COPYING)(?:[.-][\w.-]*)?$", re.I)


def vendored_roots(ctx: LintContext) -> tuple[str, ...]:
    """Directories below the root that carry their own LICENSE: another project copied in (a vendored skill, a
    third-party library), whose records cite that project's commits and files, not ours."""
    if ctx.facts.vendored_roots is None:
        roots = {f.rsplit("/", 1)[0] + "/" for f in ctx.tree.files if "/" in f and _LICENSE.match(f.rsplit("/", 1)[1])}
        ctx.facts.vendored_roots = tuple(sorted(roots))
    return ctx.facts.vendored_roots


_ARCHIVE_DIRS = frozenset(
    {
        "archive",
        "archived",
        "archives",
        "completed",
        "done",
        "closed",
        "old",
        "history",
        "retired",
        "attic",
        "superseded",
    }
)


# A design or architecture document describes the system as built: "Status: implemented" closes its work, not its
# description, and the code it cites by `path:line` is meant to be kept current ("cites code so that reviewers can
# check the description against the implementation"). Its references stay live though its status closes it.
_DESIGN_TITLE = re.compile(
    r"\b(?:design|architecture|overview|internals|how\b.{1,40}\bworks|technical spec\w*|entwurf|architektur|"
    r"conception|diseño|arquitectura|arquitetura|projeto técnico)\b|設計|设计|アーキテクチャ|架构|설계",
    re.I,
)
_STATUS_LINE = "its status line says"


def describes_the_system(rf: RecordFile) -> bool:
    """Is the record a design or architecture document, by its title?"""
    title = next((ln.lstrip("#").strip() for ln in rf.text[:800].splitlines() if ln.startswith("# ")), "")
    return _DESIGN_TITLE.search(title) is not None


def snapshot_record(rf: RecordFile) -> bool:
    """A record filed under an archive/completed directory, or titled as an audit, retrospective, post-mortem or
    investigation."""
    *dirs, _ = rf.path.split("/")
    if any(d.lower() in _ARCHIVE_DIRS for d in dirs):
        return True
    title = next((ln.lstrip("#").strip() for ln in rf.text[:800].splitlines() if ln.startswith("# ")), "")
    return _SNAPSHOT_TITLE.search(title) is not None


def _row_heads(rf: RecordFile) -> dict[int, str]:
    """Line of each table row -> the text of its first cell (a ledger row is dated there)."""
    return {row[0].line: row[0].text for table in rf.tables for row in table.rows if row}


_LOG_TITLE = re.compile(r"\b(?:log|logbook|journal|changelog|history|ledger)\b", re.I)
_APPEND_ONLY = re.compile(r"\bappend[- ]only\b|\(append\b|\bappend;|\bnewest (?:last|first)\b", re.I)
_DATED = re.compile(rf"^[\s*_\[(#|-]*{ISO_DATE}")
_DATED_NAME = re.compile(rf"(?<!\d){ISO_DATE}(?!\d)")


def is_log(rf: RecordFile) -> bool:
    """A record that says it is a log: its title names a log/journal/history, or its opening says append-only."""
    head = rf.text[:800]
    title = next((ln.lstrip("#").strip() for ln in head.splitlines() if ln.startswith("# ")), "")
    return bool(_LOG_TITLE.search(title)) or _APPEND_ONLY.search(head) is not None


def dated_entry(st: Statement, rows: dict[int, str]) -> bool:
    """An entry of a log, as of its date: it opens with a date, its table row does, or a section heading below
    the title does. What it cites was so when it was written ("## 2026-07-04 — ...", "- **2026-07-02** — ...",
    "| 2026-07-08 (gap scan) | ... |")."""
    head = rows.get(st.line, st.text) if st.kind == "cell" else st.text
    return _DATED.match(head) is not None or any(_DATED.match(h) for h in st.section[1:])


def line_of(ctx: LintContext, rf: RecordFile, st: Statement, needle: str) -> int:
    """The record line within the statement's span where `needle` is written (the first line otherwise)."""
    if needle:
        lines = record_lines(ctx, rf)
        for n in range(st.line, min(st.end_line, len(lines)) + 1):
            if needle in lines[n - 1]:
                return n
    return st.line


def is_external(path: str) -> bool:
    """A path that is clearly not in this repository: absolute, home, URL, or another repo's."""
    first = path.split("/")[0]
    return (
        path.startswith(("/", "~", "\\"))
        or "://" in path
        or path.startswith(("http:", "https:", "mailto:"))
        or re.match(r"^[A-Za-z]:[\\/]", path) is not None
        or "@" in first
        or ("/" in path and HOSTLIKE_RE.match(first) is not None)
    )


def normalise(path: str, base_dir: str = "") -> str | None:
    """Repo-relative posix path, or None when it climbs out of the repository."""
    path = path.replace("\\", "/")
    joined = posixpath.normpath(posixpath.join(base_dir, path)) if base_dir else posixpath.normpath(path)
    if joined == ".":
        return ""
    if joined.startswith("../") or joined == "..":
        return None
    return joined


def looks_like_file(path: str) -> bool:
    name = path.rstrip("/").rsplit("/", 1)[-1]
    if name in EXTENSIONLESS:
        return True
    stem, dot, ext = name.rpartition(".")
    return bool(dot and stem and ext.lower() in FILE_EXTS)


def _suffix_index(ctx: LintContext) -> dict[str, list[str]]:
    idx = ctx.facts.basename_index
    if idx is None:
        idx = {}
        for f in ctx.tree.files:
            idx.setdefault(f.rsplit("/", 1)[-1], []).append(f)
        ctx.facts.basename_index = idx
    return idx


def resolve(ctx: LintContext, ref: PathRef, record_path: str) -> Resolved:
    """Where `ref` points in the linted tree: repo-relative first (the parser already resolves link targets
    against the record's directory), then relative to the record's directory, then a unique file whose path
    ends with it."""
    record_dir = posixpath.dirname(record_path)
    cache = ctx.facts.resolved
    key = (ref.path, record_dir)
    if key not in cache:
        cache[key] = _resolve(ctx, ref.path, record_dir)
    return cache[key]


def _resolve(ctx: LintContext, path: str, record_dir: str) -> Resolved:
    tries = [normalise(path), normalise(path, record_dir)]
    cands = tuple(dict.fromkeys(t for t in tries if t))
    for cand in cands:
        if ctx.tree.exists(cand):
            return Resolved(cand, candidates=cands)
    rel = cands[0] if cands else None
    if rel:
        hits = [f for f in _suffix_index(ctx).get(rel.rsplit("/", 1)[-1], []) if f.endswith("/" + rel)]
        if len(hits) == 1:
            return Resolved(hits[0], candidates=cands)
        if len(hits) > 1:
            return Resolved(None, ambiguous=True, candidates=cands)
    return Resolved(None, candidates=cands)


def project_names(ctx: LintContext) -> Names:
    """Which words name another project here (analysis/ownership.py), built once per run."""
    if ctx.facts.project_names is None:
        ctx.facts.project_names = names_for(ctx.config, ctx.root.name, frozenset(_suffix_index(ctx)))
    return ctx.facts.project_names


def statement_foreign(ctx: LintContext, st: Statement) -> bool:
    """The statement's column or section is about another project (an Upstream column, "## Upstream ..."); a
    column named as ours is ours whatever its section's heading says."""
    if ours_column(st.column):
        return False
    return foreign_column(st.column, project_names(ctx)) or foreign_section(st.section)


def is_foreign_at(ctx: LintContext, st: Statement, start: int, end: int, floor: int = 0) -> bool:
    """Whether the reference written at st.text[start:end] is another project's (analysis/ownership.py)."""
    verdict = text_verdict(st.text, start, end, project_names(ctx), floor)
    return verdict == "foreign" or (verdict is None and statement_foreign(ctx, st))


def path_refs(ctx: LintContext) -> list[RefSite]:
    """Every path reference in live statements that could be a reference into this repository, once per
    (record line, text) even when nested statements repeat their children's text (is_foreign says whether one
    is another project's)."""
    cached = ctx.facts.path_refs
    if cached is not None:
        return cached
    seen: set[tuple[str, int, str]] = set()
    out: list[RefSite] = []
    for rf, st in live_statements(ctx):
        cursor = 0
        for ref in st.mentions.paths:
            start = st.text.find(ref.text, cursor) if ref.form != "link" and ref.text else -1
            floor = cursor
            if start >= 0:
                cursor = start + len(ref.text)
            if ref.form == "bare" and ref.path[-1:] in ".,;:":
                # sentence punctuation is not part of a path ("see src/x.py.")
                text = ref.text.rstrip(".,;:")
                ref = replace(
                    ref,
                    path=ref.path.rstrip(".,;:"),
                    text=text,
                    end_col=None if ref.start_col is None else ref.start_col + len(text),
                )
            if not ref.path or is_external(ref.path) or normalise(ref.path) is None:
                continue
            spaced = _with_spaces(ctx, rf, ref)
            if spaced is not None:  # `src/my file.py:3`: drop the `src/my` read before the space
                if start >= 0:
                    start = max(0, start - (len(spaced.text) - len(ref.text)))
                ref = spaced
                out = [o for o in out if not _within(o.ref, ref)]
            line = ref.record_line or line_of(ctx, rf, st, ref.text or ref.path)
            key = (rf.path, line, ref.text or ref.path)
            if key in seen:
                continue
            seen.add(key)
            out.append(RefSite(rf, st, ref, line, start, floor))
    ctx.facts.path_refs = out
    return out


_MORE_LINES = re.compile(r"(?:,\s*:?\d+(?:-\d+)?)+")


def further_ranges(site: RefSite) -> tuple[tuple[int, int], ...]:
    """The line ranges listed after the first one: `ops.h:158,384-390,789` -> ((384, 390), (789, 789))."""
    if site.start < 0:
        return ()
    m = _MORE_LINES.match(site.st.text, site.start + len(site.ref.text))
    if m is None:
        return ()
    out = []
    for part in re.findall(r"(\d+)(?:-(\d+))?", m.group(0)):
        a = int(part[0])
        out.append((a, max(a, int(part[1]) if part[1] else a)))
    return tuple(out)


def is_foreign(ctx: LintContext, site: RefSite) -> bool:
    """Whether the reference is another project's (analysis/ownership.py); decided once, when first asked."""
    if site.foreign is None:
        ref = site.ref
        if under_external_root(normalise(ref.path) or "", ctx.config):
            site.foreign = True
        elif site.start < 0:
            site.foreign = False  # a markdown link: resolved against this tree by every markdown viewer
        else:
            site.foreign = is_foreign_at(ctx, site.st, site.start, site.start + len(ref.text), site.floor)
    return site.foreign


def proven_ours(ctx: LintContext, site: RefSite, foreign_too: bool = True) -> str | None:
    """The repo-relative file a reference points at when it is provably ours, else None: not foreign, and the
    path as written (repo-relative, or relative to the record for links and `./x`, `../x`) exists. A bare file
    name (`ops.cpp:4624`) or a path only found as the tail of a longer one proves nothing: another project has
    files of that name too."""
    ref = site.ref
    if ref.form != "link" and "/" not in ref.path:
        return None
    res = resolve(ctx, ref, site.rf.path)
    if res.path is None or res.path not in res.candidates or (foreign_too and is_foreign(ctx, site)):
        return None
    return res.path


_WORDS_BEFORE = re.compile(r"(?:[^\s`|()\[\]<>*\"']+ ){1,3}$")


def _words_before_from(line: str, end: int) -> int:
    """Where a match of _WORDS_BEFORE ending at `end` can start at the earliest: after the fourth space before
    `end`, since it holds at most three words each ended by one space. A search from the line's start tried every
    position of a long table line, each reading up to three words on."""
    at = end
    for _ in range(4):
        at = line.rfind(" ", 0, at)
        if at == -1:
            return 0
    return at + 1


def _with_spaces(ctx: LintContext, rf: RecordFile, ref: PathRef) -> PathRef | None:
    """The reference as written when its path has spaces in it: the parser cannot know the tree, so in
    `src/my file.py:3` it reads `file.py:3`; when that does not resolve but up to three words written right
    before it, joined with single spaces, name a file of the tree, the reference is that file."""
    if ref.record_line is None or ref.start_col is None or ref.form == "link":
        return None
    lines = record_lines(ctx, rf)
    if not 1 <= ref.record_line <= len(lines) or resolve(ctx, ref, rf.path).path is not None:
        return None
    line = lines[ref.record_line - 1]
    m = _WORDS_BEFORE.search(line, _words_before_from(line, ref.start_col), ref.start_col)
    if m is None:
        return None
    words = m.group().split(" ")[:-1]
    for k in range(len(words)):
        prefix = " ".join(words[k:]) + " "
        # a symbol the parser took from those words (`my` of `my dir/a.py:1`) was part of the path
        symbol = None if ref.symbol and ref.symbol in prefix else ref.symbol
        joined = replace(
            ref, path=prefix + ref.path, text=prefix + ref.text, symbol=symbol, start_col=ref.start_col - len(prefix)
        )
        if normalise(joined.path) is not None and resolve(ctx, joined, rf.path).path is not None:
            return joined
    return None


def _within(inner: PathRef, outer: PathRef) -> bool:
    return (
        inner.record_line == outer.record_line
        and inner.start_col is not None
        and outer.start_col is not None
        and outer.start_col <= inner.start_col < (outer.end_col or outer.start_col)
    )


def file_lines(ctx: LintContext, path: str) -> list[str] | None:
    """Lines of a text file at the linted tree; None for directories, binaries and unreadable files."""
    cache = ctx.facts.file_lines
    if path not in cache:
        data = None if ctx.tree.is_dir(path) else ctx.tree.read_bytes(path)
        cache[path] = None if data is None or b"\0" in data[:8192] else split_lines(data.decode("utf-8", "replace"))
    return cache[path]


def readable_refs(ctx: LintContext, want: Callable[[PathRef], bool]) -> Iterator[tuple[RefSite, str, list[str]]]:
    """(site, resolved path, file lines) for every path reference `want(ref)` accepts that is written as ours
    (proven_ours without its foreign check: a rule asks is_foreign only for a reference it would report, most
    are fine) and reads as text: what the line and anchor rules share before they judge the lines."""
    for site in path_refs(ctx):
        if not want(site.ref) or _DATED_NAME.search(site.rf.path.rsplit("/", 1)[-1]):
            continue  # `gap-scan-2026-07-08.md`: a report as of its date; its line numbers are that day's
        path = proven_ours(ctx, site, foreign_too=False)
        if path is None:
            continue
        lines = file_lines(ctx, path)
        if lines is not None:
            yield site, path, lines


def anchored(ref: PathRef) -> bool:
    """A reference to lines or a symbol: unmistakably meant as a file reference."""
    return ref.line is not None or ref.symbol is not None


def quote(ref: PathRef) -> str:
    return f"`{ref.text or ref.path}`"

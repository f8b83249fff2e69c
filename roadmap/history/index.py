"""HistoryIndex: HEAD's ancestry (what `git log HEAD` walks, never `--all`) with per-symbol `-S` hits.

    idx = HistoryIndex.build(root, "HEAD", symbols={"AsyncDeviceInputs", "--no-async-scheduling"})
    idx.symbol_hits("AsyncDeviceInputs")      # [Commit, ...] newest first == `git log -S<sym> --format=%H`
    idx.delta("AsyncDeviceInputs", sha)       # net count change in that commit: +N introduced, -N removed
    idx.commits_after("2026-07-25")           # commits dated after that day; or a sha -> sha..HEAD
    idx.commits_mentioning("ENG-ASYNC-SCHED") # whole-token in subject, body or trailers

Semantics are git's defaults, pinned: rename detection on (a pure rename is no hit), a symbol moved
between files IS a hit (git compares counts per file pair; `delta` is then 0, which `introduced_by`
ignores), a symbol moved within one file is not, and merge commits never hit (`git log -S` shows no diff
for merges without -m; the commits of a merged branch carry the hits). Repository textconv drivers are never
run (`--no-textconv`), so a path with one is matched on its raw bytes where `git log -S` would use the
converted text. A commit whose diff could not be read is listed in `unknown_commits`, never read as "no hit".
"""

from __future__ import annotations

import bisect
import hashlib
import json
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from roadmap.history.ancestry import Ancestry
from roadmap.history.cache import HistoryCache
from roadmap.history.commit import Commit, parse_when
from roadmap.history.git import GitError, git_succeeds, is_shallow, resolve_rev, run_git
from roadmap.history.forked import map_split, run_split
from roadmap.history.log_stream import MAX_UNKNOWN, Scanned, read_metadata, scan_commits
from roadmap.history.pickaxe import SymbolMatcher

DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$")
_WORD = re.compile(r"[\w-]+")
MIN_SPLIT_COMMITS = 200  # fewer commits stream by in less time than a fork and a second git process take
SCAN_BLOCK = 8  # commits per block that _scan deals out in turn to this process and the forked child


class ShallowHistoryError(GitError):
    """The walk would cross a shallow clone's boundary: hits beyond it are unknown, not absent."""


class AmbiguousShaError(GitError):
    """A short sha matches more than one commit of the index."""


@dataclass
class HistoryStats:
    total_commits: int = 0  # commits in the index
    cached_commits: int = 0  # taken from the cache as they were
    scanned_commits: int = 0  # read from `git log -p` this run (new, or rescanned for new symbols)
    unknown_commits: int = 0  # diff could not be read
    symbols: int = 0
    cache: str = "disabled"  # cold | warm | corrupt | disabled
    cache_path: str = ""
    seconds: float = 0.0


class HistoryIndex:
    def __init__(
        self,
        root: Path,
        head: str,
        commits: list[Commit],
        symbols: frozenset[str],
        hits: dict[str, list[tuple[Commit, int]]],
        complete: bool,
        stats: HistoryStats,
        declared: dict[str, frozenset[str]] | None = None,
    ):
        self.root = root
        self.head = head
        self.commits = commits  # newest first in graph order: every commit before its parents
        self._rank = {c.sha: len(commits) - i for i, c in enumerate(commits)}
        self.symbols = symbols
        self._hits = hits
        self._by_sha = {c.sha: c for c in commits}
        self._sorted = sorted(self._by_sha)
        self._complete = complete  # every ancestor of head is in `commits`
        self._words: dict[str, set[str]] | None = None
        self._mentioning: dict[tuple[str, bool], tuple[Commit, ...]] = {}
        self._after: dict[tuple[str, bool], tuple[Commit, ...]] = {}
        self._graph: Ancestry | None = None
        self._declared = declared or {}
        self.stats = stats
        self.extras: dict[str, object] = {}  # sha -> build's per_commit result, for the commits its pass read

    # ---------------------------------------------------------------- build
    @classmethod
    def build(
        cls,
        root: str | Path,
        head_sha: str = "HEAD",
        symbols: Iterable[str] = (),
        since: str | None = None,
        cache_dir: str | Path | None = None,
        pathspecs: Iterable[str] | None = None,
        progress: Callable[[int, int], None] | None = None,
        use_cache: bool = True,
        uncounted: Iterable[str] | None = None,
        per_commit: Callable[[Commit], object] | None = None,
    ) -> "HistoryIndex":
        """Index HEAD's ancestry (or `since..head` for a sha, commits after a date for a date).

        `pathspecs` limits the history itself (commits touching none of those paths are not in it); `uncounted`,
        exclude pathspecs (`:(exclude)...`), names files whose changes are not counted (symbol deltas, declared
        names) while every commit stays in: the lint's records, evidence and prose docs, since a plan naming a
        symbol is no change to it (and their diffs were most of git's work and of the stream on mudler/vllm.cpp).
        `per_commit(commit)` is computed for each commit the pass reads, in the process that reads it (half of them
        in a forked child on a long history), and kept in `extras` by sha: per-commit work the caller would do
        anyway, done on both cores (the analysis reads every commit message's work terms).
        `cache_dir` is the directory holding `.roadmap_cache/` (default: `root`); `use_cache=False` is
        `--no-cache`. Raises ShallowHistoryError when the walk would cross a shallow boundary.
        """
        t0 = time.perf_counter()
        root = Path(root)
        head = resolve_rev(root, head_sha)
        specs = tuple(pathspecs or ())
        wanted = frozenset(s for s in symbols if s and "\n" not in s)
        shas = _rev_list(root, head, since, specs)
        _check_shallow(root, shas)
        skip = tuple(uncounted or ())
        stream = (*(specs or (".",)), *skip) if skip else specs  # the history's pathspecs, less the uncounted files
        key = hashlib.sha256(json.dumps([specs, skip] if skip else specs).encode()).hexdigest()[:12]
        cache = HistoryCache.open(Path(cache_dir) if cache_dir else root, key, enabled=use_cache)
        stats = HistoryStats(symbols=len(wanted), cache=cache.state, cache_path=str(cache.path))
        covers: dict[int, bool] = {}  # per distinct symbol set (the cache shares one object per set)
        extras: dict[str, object] = {}
        todo = [s for s in shas if s not in cache.scans or not _covers(covers, cache.scans[s][0], wanted)]
        if todo and not wanted:  # metadata only: no symbol asks for a diff
            for c in read_metadata(root, todo):
                old = cache.scans.get(c.sha)
                cache.put(c, old[0] if old else frozenset(), old[1] if old else {})
        elif todo:
            matcher = SymbolMatcher(wanted)
            seen: set[str] = set()
            for sc in _scan(root, todo, matcher, stream, progress, per_commit):
                seen.add(sc.commit.sha)
                if per_commit is not None:
                    extras[sc.commit.sha] = sc.extra
                if sc.unknown:
                    cache.put(sc.commit, None, {})
                    cache.commits[sc.commit.sha] = _with_unknown(sc.commit, sc.unknown)
                    stats.unknown_commits += 1
                else:
                    old = cache.scans.get(sc.commit.sha)
                    # a path-limited patch is not `git show`'s: its declared names are not the commit's
                    names = None if specs else sc.declared
                    cache.put(sc.commit, wanted | old[0] if old else wanted, sc.deltas, names)
            # A pathspec-limited stream drops commits that touch none of the paths: no diff there, no hit.
            dropped = read_metadata(root, [s for s in todo if s not in seen])
            for c in dropped:
                old = cache.scans.get(c.sha)
                # dropped for touching only uncounted files: it declares nothing in the counted ones
                cache.put(c, wanted | old[0] if old else wanted, {}, None if specs or c.is_merge else frozenset())
            if per_commit is not None:  # their messages too, on both cores
                extras.update(zip((c.sha for c in dropped), map_split(dropped, per_commit)))
        stats.scanned_commits = len(todo)
        stats.cached_commits = len(shas) - len(todo)
        commits = [cache.commits[s] for s in shas]
        stats.unknown_commits = sum(1 for c in commits if c.unknown)
        hits: dict[str, list[tuple[Commit, int]]] = {s: [] for s in wanted}
        for c in commits:
            scan = cache.scans.get(c.sha)
            if scan is None:
                continue
            for sym, d in scan[1].items():
                if sym in hits:
                    hits[sym].append((c, d))
        cache.save()
        stats.total_commits = len(commits)
        stats.seconds = round(time.perf_counter() - t0, 3)
        declared = {c.sha: names for c in commits if (names := cache.declared.get(c.sha)) is not None}
        index = cls(root, head, commits, wanted, hits, since is None and not specs, stats, declared)
        index.extras = extras
        return index

    # ---------------------------------------------------------------- queries
    def by_sha(self, sha: str) -> Commit | None:
        """The commit for a full sha or a unique prefix, or None when it is not in the index."""
        if sha in self._by_sha:
            return self._by_sha[sha]
        full = self.resolve_short(sha)
        return self._by_sha.get(full) if full else None

    def resolve_short(self, prefix: str) -> str | None:
        """Full sha of the one indexed commit starting with `prefix`; AmbiguousShaError when several do."""
        p = prefix.strip().lower()
        if not re.fullmatch(r"[0-9a-f]{4,40}", p):
            return None
        i = bisect.bisect_left(self._sorted, p)
        found: list[str] = []
        while i < len(self._sorted) and self._sorted[i].startswith(p) and len(found) < 2:
            found.append(self._sorted[i])
            i += 1
        if len(found) > 1:
            raise AmbiguousShaError(f"`{prefix}` matches several commits; write more hex digits")
        return found[0] if found else None

    def rank(self, commit: Commit) -> int:
        """Where `commit` stands in the history's graph order: larger is newer, a commit always ranks above its
        parents (0: not in the index). Sort by it, never by commit dates, which skewed clocks put in any order."""
        return self._rank.get(commit.sha, 0)

    def contains(self, sha: str) -> bool:
        """Is `sha` (full or short) a commit of HEAD's ancestry?"""
        if self.by_sha(sha) is not None:
            return True
        if self._complete:
            return False
        try:
            full = resolve_rev(self.root, sha)
        except GitError:
            return False
        return _is_ancestor(self.root, full, self.head)

    def symbol_hits(self, symbol: str) -> list[Commit]:
        """Commits where `git log -S<symbol>` reports a change, newest first (exact -S semantics)."""
        return [c for c, _ in self._symbol(symbol)]

    def symbol_deltas(self, symbol: str) -> list[tuple[Commit, int]]:
        """(commit, net count change over all files) for every hit, newest first."""
        return list(self._symbol(symbol))

    def delta(self, symbol: str, commit: Commit | str) -> int:
        """Net change in the symbol's count made by `commit` (0 when no hit, or a move between files)."""
        sha = commit.sha if isinstance(commit, Commit) else commit
        return next((d for c, d in self._symbol(symbol) if c.sha == sha or c.sha.startswith(sha)), 0)

    def introduced_by(self, symbol: str, among: Iterable[Commit] | None = None) -> Commit | None:
        """The oldest hit with a positive net delta (optionally only among `among`, e.g. news commits)."""
        allowed = None if among is None else {c.sha for c in among}
        for c, d in reversed(self._symbol(symbol)):
            if d > 0 and (allowed is None or c.sha in allowed):
                return c
        return None

    def declared_names(self, sha: str) -> frozenset[str] | None:
        """The names commit `sha`'s patch declares in code (history/declared.py), read in this index's own pass or
        cached with it; None when the pass had no patch text for it (a merge, a huge or unreadable diff)."""
        return self._declared.get(sha)

    @property
    def unknown_commits(self) -> list[Commit]:
        """Commits whose diff could not be read: a symbol hit there is unknown, not absent."""
        return [c for c in self.commits if c.unknown]

    def commits_after(self, when: str, inclusive: bool = False) -> tuple[Commit, ...]:
        """News since an as-of point, newest first (a tuple, memoised: rules ask once per statement).

        A sha (or ref): the commits in `sha..HEAD`. A date `YYYY-MM-DD`: commits whose commit date, in the
        committer's own offset, falls on a later day (`inclusive=True`: that day too). A datetime: commits
        with a commit time after it (UTC when no offset is written). For a date, every descendant of a news
        commit is news too, whatever its own date says: a commit built on one made after the as-of point
        cannot predate it (a skewed clock must not hide the commits on top of it).
        """
        key = (when.strip(), inclusive)
        hit = self._after.get(key)
        if hit is not None:
            return hit
        w = key[0]
        if DATE_RE.match(w) and not re.fullmatch(r"[0-9a-f]{7,40}", w):
            if len(w) == 10:
                dated = {c.sha for c in self.commits if c.day > w or (inclusive and c.day == w)}
            else:
                t = parse_when(w)
                dated = {c.sha for c in self.commits if c.commit_time > t or (inclusive and c.commit_time == t)}
            news = self._with_descendants(dated)
            out = tuple(c for c in self.commits if c.sha in news)
        else:
            known = self.by_sha(w) if re.fullmatch(r"[0-9a-fA-F]{4,40}", w) else None
            base = known.sha if known else resolve_rev(self.root, w)
            if self._complete and base in self._by_sha:
                news = self._ancestry().range(self.head, base)  # in memory, no git process
            else:
                news = set(run_git(self.root, "rev-list", "--end-of-options", self.head, f"^{base}").decode().split())
            out = tuple(c for c in self.commits if c.sha in news)
        self._after[key] = out
        return out

    def _with_descendants(self, shas: set[str]) -> set[str]:
        """`shas` and every indexed commit that has one of them as an ancestor (one pass, oldest first)."""
        if not shas:
            return shas
        out = set(shas)
        for c in reversed(self.commits):  # graph order: parents before children
            if c.sha not in out and any(p in out for p in c.parents):
                out.add(c.sha)
        return out

    def merged_in(self, merge: Commit) -> set[str]:
        """The commits a merge brought in: reachable from its other parents, not from its first (`p1..p2`)."""
        graph = self._ancestry()
        out: set[str] = set()
        for p in merge.parents[1:]:
            if p in self._by_sha and merge.parents[0] in self._by_sha:
                out |= graph.range(p, merge.parents[0])
        return out

    def _ancestry(self) -> Ancestry:
        if self._graph is None:
            self._graph = Ancestry({c.sha: c.parents for c in self.commits})
        return self._graph

    def commits_mentioning(self, token: str, ignore_case: bool = False) -> list[Commit]:
        """Commits whose subject, body or trailers name `token` as a whole token (`ENG-X` is not in `ENG-X2`)."""
        tok = token.strip()
        if not tok:
            return []
        hit = self._mentioning.get((tok, ignore_case))
        if hit is None:  # once per token: rules ask for the same row ids statement after statement
            hit = self._mentioning[(tok, ignore_case)] = tuple(self._mentioning_scan(tok, ignore_case))
        return list(hit)

    def index_words(self) -> None:
        """Build the word index commits_mentioning reads now (before a fork shares it, history/forked.py)."""
        self._word_index()

    def _mentioning_scan(self, tok: str, ignore_case: bool) -> list[Commit]:
        if re.fullmatch(r"\w(?:[\w-]*\w)?", tok):
            words = self._word_index()
            key = tok.lower() if ignore_case else tok
            found = words.get(key, set()) if not ignore_case else words.get("\0" + key, set())
            if not found:
                return []  # most row ids no commit names: no pass over every commit for them
            return [c for c in self.commits if c.sha in found]
        rx = re.compile(r"(?<![\w-])" + re.escape(tok) + r"(?![\w-])", re.I if ignore_case else 0)
        return [c for c in self.commits if rx.search(_text(c))]

    def _symbol(self, symbol: str) -> list[tuple[Commit, int]]:
        try:
            return self._hits[symbol]
        except KeyError:
            raise KeyError(f"{symbol!r} was not in the symbol set this index was built for") from None

    def _word_index(self) -> dict[str, set[str]]:
        if self._words is None:
            words: dict[str, set[str]] = {}
            for c in self.commits:
                # each distinct word of a message once (a long message says its words many times over)
                found = set(_WORD.findall(_text(c)))
                found.update([w.strip("-") for w in found])  # `ROW-1-` at a line end still names ROW-1
                # and under its lower case, once per message (no empty set made per word that has one)
                for v in (*found, *{"\0" + w.lower() for w in found}):
                    shas = words.get(v)
                    if shas is None:
                        words[v] = {c.sha}
                    else:
                        shas.add(c.sha)
            self._words = words
        return self._words


def _covers(memo: dict[int, bool], scanned: frozenset[str], wanted: frozenset[str]) -> bool:
    hit = memo.get(id(scanned))
    if hit is None:
        hit = memo[id(scanned)] = wanted <= scanned
    return hit


def _text(c: Commit) -> str:
    trailers = "\n".join(f"{k}: {v}" for k, vals in c.trailers.items() for v in vals)
    return f"{c.subject}\n{c.body}\n{trailers}"


def _with_unknown(c: Commit, why: str) -> Commit:
    return Commit(
        c.sha,
        c.parents,
        c.author_date,
        c.author_time,
        c.commit_date,
        c.commit_time,
        c.subject,
        c.body,
        c.trailers,
        unknown=why,
    )


def _is_ancestor(root: Path, sha: str, head: str) -> bool:
    return git_succeeds(root, "merge-base", "--is-ancestor", sha, head)


def _scan(
    root: Path,
    shas: list[str],
    matcher: SymbolMatcher,
    specs: tuple[str, ...],
    progress: Callable[[int, int], None] | None,
    per_commit: Callable[[Commit], object] | None = None,
) -> list[Scanned]:
    """scan_commits over `shas`, in order: every other block of SCAN_BLOCK commits in a forked child (its own
    `git log -p`) while this process reads the rest (history/forked.py). Exactly the serial walk's result: a
    commit's diff does not depend on the others streamed with it, and where the two parts together meet
    MAX_UNKNOWN commits with missing objects (past which the serial walk stops reading) the serial walk is run
    instead.

    Interleaved blocks, not the newer and the older half: a history's diff sizes are far from even (on
    mudler/vllm.cpp the newer half of the commits is 87% of the `git log -p` bytes, and git and the parse took
    four times as long for it as for the older half), while neighbouring blocks are alike."""

    def read(part: list[str], report: Callable[[int, int], None] | None = None) -> list[Scanned]:
        out = list(scan_commits(root, part, matcher, specs, report))
        if per_commit is not None:
            for sc in out:
                sc.extra = per_commit(sc.commit)
        return out

    if progress is not None or len(shas) < MIN_SPLIT_COMMITS:
        return read(shas, progress)
    mine = [s for i, s in enumerate(shas) if (i // SCAN_BLOCK) % 2 == 0]
    theirs = [s for i, s in enumerate(shas) if (i // SCAN_BLOCK) % 2 == 1]
    ours, other = run_split(lambda: read(mine), lambda: read(theirs))
    got = ours + other
    if sum(1 for sc in got if sc.unknown) >= MAX_UNKNOWN:
        return read(shas)
    at = {s: i for i, s in enumerate(shas)}
    return sorted(got, key=lambda sc: at[sc.commit.sha])  # the serial walk's order


def _rev_list(root: Path, head: str, since: str | None, specs: tuple[str, ...]) -> list[str]:
    """HEAD's ancestry newest first in graph order (`--topo-order`: every commit before its parents, whatever the
    commit dates say): `since` a sha -> since..head; a date -> commit dates after it.

    A bare date keeps one extra day (any UTC offset), so `commits_after(date)` always finds what it needs.
    """
    args = ["rev-list", "--topo-order", "--timestamp", "--end-of-options", head]
    cutoff = None
    if since:
        s = since.strip()
        if DATE_RE.match(s) and not re.fullmatch(r"[0-9a-f]{7,40}", s):
            cutoff = parse_when(s) - (86400 if len(s) == 10 else 0)
        else:
            args.append("^" + resolve_rev(root, since))
    if specs:
        args += ["--", *specs]
    out = run_git(root, *args).decode().split("\n")
    shas = []
    for line in out:
        if not line:
            continue
        ts, _, sha = line.partition(" ")
        if cutoff is None or int(ts) > cutoff:
            shas.append(sha)
    return shas


def _check_shallow(root: Path, shas: list[str]) -> None:
    if not is_shallow(root):
        return
    path = run_git(root, "rev-parse", "--git-path", "shallow").decode().strip()
    p = Path(path) if Path(path).is_absolute() else root / path
    try:
        boundary = set(p.read_text().split())
    except OSError:
        boundary = set()
    crossed = [s for s in shas if s in boundary]
    if crossed or not boundary:
        where = f" at {crossed[0][:9]}" if crossed else ""
        raise ShallowHistoryError(
            f"{root} is a shallow clone: the history walk reaches its boundary{where}, so commits before it "
            "are unknown, not absent. Fix: `git fetch --unshallow` (in CI: check out with full history, "
            "e.g. actions/checkout `fetch-depth: 0`)"
        )

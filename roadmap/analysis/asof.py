"""A statement's as-of point and its news: the commits (and evidence dates) it cannot have known about.

First that applies:
1. a base commit the record names ("Base `<sha>`", "as of `<sha>`")  -> news = commits in base..HEAD;
2. a date the statement, its row, its section or the file preamble names -> news = commits dated after it;
3. else git blame of the statement's lines (the newest commit among them; for a directive table cell, walked back
   past commits that only flipped its row's state, see cell_asof.py) -> news = commits after it.
Lines not committed yet have no news. A named base that is not on HEAD's ancestry is unknown: no news,
never "everything is news".
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Hashable, Iterable, Sequence

from roadmap.analysis.cell_asof import cell_origin, prefetch_origins
from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import News
from roadmap.history.blame import NULL_SHA, BlameLine, blame_lines
from roadmap.history.commit import Commit
from roadmap.history.forked import map_split
from roadmap.history.git import GitError, resolve_rev
from roadmap.records.model import Statement

_NOT_COMMITTED = NULL_SHA

_SOURCES = {"statement": "the statement", "row": "its row", "section": "its section", "preamble": "the file preamble"}


def news_for(ctx: LintContext, st: Statement) -> News:
    """The statement's as-of point and news commits (cached per statement for the run)."""
    cache = ctx.facts.news
    key = (st.path, st.line, st.end_line, st.column)
    if key not in cache:
        cache[key] = _compute(ctx, st)
    return cache[key]


def _compute(ctx: LintContext, st: Statement) -> News:
    history = ctx.get_history()
    asof = st.as_of
    where = _SOURCES.get(asof.source, asof.source) if asof else ""
    if asof is not None and asof.sha:
        base = history.by_sha(asof.sha)
        if base is not None:
            return News("sha", base.sha, base.day, where, _after(ctx, base.sha))
        # A sha this history does not hold is another project's (an upstream pin: "Pinned upstream: mamba at
        # commit 6b4f2e9d") or one rewritten away: it dates nothing here, so the lines' own commit does.
    if asof is not None and asof.date:
        return News("date", asof.date, asof.date, where, _after(ctx, asof.date))
    sha = newest_blame(ctx, st.path, st.line, st.end_line)
    if sha is None:
        return News("unknown", "", None, "git blame could not place its lines")
    if st.directive and st.kind == "cell":
        sha = cell_origin(ctx, st, sha)  # a state flip elsewhere in the row does not re-date this cell
    if sha == _NOT_COMMITTED:
        return News("uncommitted", "", None, "its lines are not committed yet")
    commit = history.by_sha(sha)
    if commit is None:
        return News("unknown", sha, None, "its blame commit is not on HEAD's history")
    return News("blame", commit.sha, commit.day, "git blame", _after(ctx, commit.sha))


def _after(ctx: LintContext, base: str) -> tuple[Commit, ...]:
    """history.commits_after, once per base per run (thousands of statements share a few bases)."""
    cache = ctx.facts.commits_after
    if base not in cache:
        cache[base] = tuple(ctx.get_history().commits_after(base))
    return cache[base]


def newest_blame(ctx: LintContext, path: str, first: int, last: int) -> str | None:
    """The newest commit (in graph order, never by commit date) that last touched any of lines first..last; once
    per span (the prefetch, the news and the landing tests of a directive all ask)."""
    cache = ctx.facts.newest_blame
    key = (path, first, last)
    if key not in cache:
        cache[key] = _newest_blame(ctx, path, first, last)
    return cache[key]


def _newest_blame(ctx: LintContext, path: str, first: int, last: int) -> str | None:
    lines = blame_file(ctx, path)
    if not lines:
        return None
    shas = {lines[n] for n in range(first, last + 1) if n in lines}
    if not shas:
        return None
    if _NOT_COMMITTED in shas:
        return _NOT_COMMITTED
    history = ctx.get_history()
    known = [c for s in shas if (c := history.by_sha(s)) is not None]
    if len(known) < len(shas):
        return None
    return max(known, key=history.rank).sha


def blame_file(ctx: LintContext, path: str) -> dict[int, str]:
    """{line: sha of the commit that last changed it} for one record file, blamed once per run (at `--at REV`
    or the working tree; uncommitted lines have the null sha). A failed blame is an empty dict: the
    statement's news is then unknown, never "everything"."""
    cache = ctx.facts.blame
    if path not in cache:
        prefetch_blame(ctx, [path])
    return cache[path]


def prefetch_blame(ctx: LintContext, paths: Iterable[str]) -> None:
    """Blame the record files in `paths` not blamed yet, several git processes at once; return when every file
    blamed so far (these and any start_blame began) is in the cache."""
    start_blame(ctx, paths)
    finish_blame(ctx)


def start_blame(ctx: LintContext, paths: Iterable[str]) -> None:
    """Begin blaming the record files in `paths` not blamed or begun yet, in threads that wait on git processes
    while this one goes on with other work; finish_blame (or the first read of one of them) collects them.
    Collect them before forking (history/forked.py): a child has none of this process's threads."""
    cache = ctx.facts.blame
    running = ctx.facts.blaming
    todo = sorted({p for p in paths if p not in cache and (running is None or p not in running.futures)})
    if not todo:
        return
    if running is None:
        running = ctx.facts.blaming = _Blaming(ctx)
    spans = {}
    for path in todo:
        rf = ctx.record(path)
        spans[path] = max(1, rf.text.count("\n") + 1) if rf is not None else 1
    for path in sorted(todo, key=lambda p: -spans[p]):  # the longest first: the last to finish starts first
        running.submit(path, [(1, spans[path])])


def finish_blame(ctx: LintContext) -> None:
    """Wait for the blames start_blame began and put them in the cache."""
    running = ctx.facts.blaming
    if running is None:
        return
    ctx.facts.blaming = None
    for path, lines in running.results().items():
        ctx.facts.blame[path] = {k: v.sha for k, v in lines.items()}


class _Blaming:
    """Blames running in a few threads (blame_files' way: one git process per file, four at a time)."""

    def __init__(self, ctx: LintContext):
        self.root = ctx.root
        try:
            self.sha = resolve_rev(ctx.root, ctx.tree.rev) if ctx.tree.rev is not None else None
        except GitError:
            self.sha = ctx.tree.rev  # each file reports the bad revision
        self.pool = ThreadPoolExecutor(max_workers=4)
        self.futures: dict[str, Future[dict[int, BlameLine]]] = {}

    def submit(self, path: str, ranges: list[tuple[int, int]]) -> None:
        self.futures[path] = self.pool.submit(self._one, path, ranges)

    def _one(self, path: str, ranges: list[tuple[int, int]]) -> dict[int, BlameLine]:
        try:
            return blame_lines(self.root, self.sha, path, ranges)
        except GitError:
            return {}

    def results(self) -> dict[str, dict[int, BlameLine]]:
        try:
            return {p: f.result() for p, f in self.futures.items()}
        finally:
            self.pool.shutdown(wait=True)


def prefetch_cell_walks(ctx: LintContext, statements: Iterable[Statement]) -> None:
    """Walk back the directive cells among `statements` whose as-of point is their blame together
    (cell_asof.prefetch_origins), from the blame commits news_for starts them at."""
    starts = []
    for st in statements:
        if st.directive and st.kind == "cell" and needs_blame(st):
            sha = newest_blame(ctx, st.path, st.line, st.end_line)
            if sha is not None:
                starts.append((st, sha))
    prefetch_origins(ctx, starts)


def needs_blame(st: Statement) -> bool:
    """Is git blame how this statement's as-of point is found (no base sha or date named)?"""
    return st.as_of is None or not (st.as_of.sha or st.as_of.date)


def news_shas(ctx: LintContext, news: News) -> frozenset[str]:
    """The news commits' shas as a set, once per as-of point."""
    cache = ctx.facts.news_shas
    key = (news.kind, news.base)
    if key not in cache:
        cache[key] = frozenset(c.sha for c in news.commits)
    return cache[key]


def commits_matching(
    ctx: LintContext, name: str, predicate: Callable[[str], object], merges: bool = False
) -> list[Commit]:
    """History commits (oldest first) whose message satisfies `predicate`, computed once per run per `name`;
    detectors intersect this short list with a statement's news instead of scanning every news commit. Merge
    commits count only with `merges` (a pull request's merge message often says what its branch did)."""
    cache = ctx.facts.commits_matching
    if name not in cache:
        history = ctx.get_history()
        cache[name] = sorted(
            (c for c in history.commits if (merges or not c.is_merge) and predicate(c.message)), key=history.rank
        )
    return cache[name]


def prefetch_commits_matching(ctx: LintContext, tests: Iterable[tuple[str, Callable[[str], object], bool]]) -> None:
    """commits_matching(ctx, name, test, merges) for each of `tests` not computed yet, every message tested once
    for all of them, every other block of commits in a forked child (history/forked.py): the same lists. Call it
    with no thread of this process running (a fork copies only the calling thread)."""
    todo = [(name, test, merges) for name, test, merges in tests if name not in ctx.facts.commits_matching]
    if not todo:
        return
    history = ctx.get_history()
    commits = history.commits
    said = map_split(commits, lambda c: tuple(bool(test(c.message)) for _, test, _ in todo))
    for k, (name, _, merges) in enumerate(todo):
        ctx.facts.commits_matching[name] = sorted(
            (c for c, hit in zip(commits, said) if (merges or not c.is_merge) and hit[k]), key=history.rank
        )


def news_subset(
    ctx: LintContext, label: Hashable, candidates: Callable[[], Sequence[Commit]], news: News
) -> list[Commit]:
    """The members of a per-run commit list (`candidates()`, e.g. the commits naming a row, or the refuting
    ones) that are news for `news`, in the list's order; computed once per (label, as-of point). Thousands
    of statements share a handful of as-of points, so a detector scans only the commits that can matter
    to it instead of the whole history per statement."""
    cache = ctx.facts.news_subsets
    key = (label, news.kind, news.base)
    hit = cache.get(key)
    if hit is None:
        fresh = news_shas(ctx, news)
        hit = cache[key] = [c for c in candidates() if c.sha in fresh]
    return hit

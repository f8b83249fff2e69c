"""Stale directives, analysed once for RL101-RL104: one finding per stale thing, every reason, every surface.

A directive can be stale for several reasons at once (its work landed, a commit refuted its premise, the
feature it calls opt-in was turned on by default, the rerun it asks for was done). Each of those rules has a
*detector* (listed in roadmap/registry.py; the runner puts the selected ones in `ctx.detectors`); `analyse`
runs them on every candidate statement, groups the stale statements with the statements that repeat them
(surfaces.py), and each group becomes ONE finding, reported by the rule of its leading reason (errors before
warnings, then RL101 > RL103 > RL104 > RL102 > RL401) and carrying all the reasons, commits and evidence entries.
Deselecting a rule drops its reason.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from itertools import chain
from typing import Any, Callable, Hashable, Iterable, Iterator, TypeVar

from roadmap.analysis.asof import (
    finish_blame,
    needs_blame,
    news_for,
    prefetch_cell_walks,
    prefetch_commits_matching,
    start_blame,
)
from roadmap.analysis.context import Detector, LintContext
from roadmap.analysis.facts import Reason, StaleGroup
from roadmap.history.forked import map_split
from roadmap.analysis.surfaces import Surfaces, apart, describe, primary_key, subject_ids
from roadmap.findings import Hit, Related
from roadmap.history.commit import Commit
from roadmap.records.model import RecordFile, Statement

T = TypeVar("T")
PRIORITY = ("RL101", "RL103", "RL104", "RL102", "RL401")
WARM = 8  # statements tested before the rest is shared out
# The rules whose findings come from this analysis: RL101-RL104 report its groups, RL401 skips statements in them.
STALE_RULES = frozenset(("RL101", "RL102", "RL103", "RL104", "RL401"))


_SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}


def _rank(r: Reason) -> tuple[int, int]:
    """Errors first, then warnings, then infos (a group's finding takes its leading reason's severity), then by rule."""
    return (_SEVERITY_RANK.get(r.severity, 3), PRIORITY.index(r.code) if r.code in PRIORITY else 99)


def _order(d: Detector) -> int:
    return PRIORITY.index(d.code) if d.code in PRIORITY else len(PRIORITY)


def analyse(ctx: LintContext) -> list[StaleGroup]:
    if ctx.facts.stale_groups is not None:
        return ctx.facts.stale_groups
    active = sorted(ctx.detectors, key=_order)
    pool = [st for st in ctx.statements() if not st.historical]
    reasons: dict[int, list[Reason]] = {}
    todo = _todo(ctx, pool)
    if todo:
        ctx.get_history()  # every test reads it: built here, not by the prepares' threads at once
    work = [(d, mine) for d in active if d.prepare is not None and (mine := [st for st, ds in todo if d in ds])]
    # the prepares' tests of every commit message, on both cores: before any thread of this process starts
    prefetch_commits_matching(ctx, [t for d, _ in work for t in d.commit_tests])
    # the blames (git processes) run while the detectors prepare; the cell walks read them
    start_blame(ctx, {st.path for st, _ in todo if needs_blame(st)})
    _prepare(ctx, work)
    prefetch_cell_walks(ctx, [st for st, _ in todo if st.directive])
    finish_blame(ctx)  # before the fork below

    def detect(item: tuple[Statement, list[Detector]]) -> list[Reason]:
        st, dets = item
        news = news_for(ctx, st)
        if news.kind in ("unknown", "uncommitted"):
            return []
        return [r for d in dets if (r := d.detect(ctx, st, news)) is not None]

    # the first block here, so that what every test builds on first use (weights, indexes) is built once, before
    # the fork shares it; the rest over two processes (history/forked.py)
    head = [detect(item) for item in todo[:WARM]]
    pin, unpin = _pins(ctx)
    for (st, _), found in zip(todo, head + map_split(todo[WARM:], detect, pin, unpin)):
        if found:
            reasons[id(st)] = found
    groups = _group(pool, [st for st in pool if id(st) in reasons], reasons)
    ctx.facts.stale_groups = groups
    return groups


def _prepare(ctx: LintContext, work: list[tuple[Detector, list[Statement]]]) -> None:
    """Each detector's prepare, in a thread of its own: what one waits for from git (RL104 reads a `git log -p`)
    the others compute meanwhile. They fill distinct facts. All are done when this returns (before any fork);
    the first to raise, in detector order, raises here."""
    if len(work) < 2:
        for d, mine in work:
            assert d.prepare is not None
            d.prepare(ctx, mine)
        return
    for d, mine in work:
        if d.prelude is not None:
            try:
                d.prelude(ctx, mine)
            except Exception:
                pass  # its prepare meets the same error in its thread, and raises it in detector order
    # the prepares with a prelude wait on git next: started first, so that git starts before the others' work
    first = sorted(range(len(work)), key=lambda i: work[i][0].prelude is None)
    with ThreadPoolExecutor(max_workers=len(work)) as pool:
        futures = {}
        for i in first:
            prepare, mine = work[i][0].prepare, work[i][1]
            if prepare is not None:
                futures[i] = pool.submit(prepare, ctx, mine)
        for i in sorted(futures):
            futures[i].result()


def _todo(ctx: LintContext, pool: list[Statement]) -> list[tuple[Statement, list[Detector]]]:
    """The live statements some selected detector tests, each with those detectors (once per run)."""
    if ctx.facts.stale_todo is None:
        active = sorted(ctx.detectors, key=_order)
        ctx.facts.stale_todo = [(st, dets) for st in pool if (dets := [d for d in active if d.applies(st)])]
    return ctx.facts.stale_todo


Applying = tuple[tuple[int, tuple[int, ...]], ...]  # (statement's index in its record, indices of detectors)


def ordered(detectors: Iterable[Detector]) -> tuple[Detector, ...]:
    """The detectors in the order the analysis runs them (PRIORITY)."""
    return tuple(sorted(detectors, key=_order))


def applying(detectors: tuple[Detector, ...]) -> Callable[[RecordFile], Applying | None]:
    """A record's live statements some detector of `detectors` (in `ordered` order) tests, each with the indices
    of those detectors: what _todo works out, per record (the records' loader works it out in the process that
    parsed the record, on both cores; `set_todo` puts the records' together)."""

    def of(rf: RecordFile) -> Applying | None:
        out = []
        try:
            for i, st in enumerate(rf.statements):
                if not st.historical and (ds := tuple(k for k, d in enumerate(detectors) if d.applies(st))):
                    out.append((i, ds))
        except Exception:
            return None  # a detector's bug: _todo meets it again, where the rule's run names it
        return tuple(out)

    return of


def set_todo(ctx: LintContext, found: list[tuple[RecordFile, Applying | None]]) -> None:
    """_todo from `applying(ordered(ctx.detectors))` of every record of ctx.records (in their order)."""
    active = ordered(ctx.detectors)
    todo: list[tuple[Statement, list[Any]]] = []
    for rf, of in found:
        if of is None:
            return  # not worked out for this record: _todo works it all out
        todo.extend((rf.statements[i], [active[k] for k in ds]) for i, ds in of)
    ctx.facts.stale_todo = todo


def early_blame(ctx: LintContext) -> None:
    """Begin blaming the record files the detectors' prepares will blame whatever else they find (those of the
    live statements a `blames_files` detector applies to), so that git works on them on the other core while
    this process picks the statements to test (_todo). The caller collects them (finish_blame) before anything
    forks: a child forked with them done inherits them, where the forked rules' child of lint._run_checks blamed
    the same large files again."""
    owners = [d for d in ctx.detectors if d.blames_files]
    if not owners or ctx.facts.stale_groups is not None:
        return
    if ctx.facts.stale_todo is not None:  # worked out already (set_todo): the same statements
        start_blame(ctx, {st.path for st, ds in ctx.facts.stale_todo if any(d.blames_files for d in ds)})
        return
    start_blame(ctx, {st.path for st in ctx.statements() if not st.historical and any(d.applies(st) for d in owners)})


def reads_history(ctx: LintContext) -> bool:
    """Will the analysis read history (does a selected detector test some live statement)?"""
    return ctx.facts.stale_groups is None and bool(_todo(ctx, [st for st in ctx.statements() if not st.historical]))


def _pins(ctx: LintContext) -> tuple[Callable[[object], Hashable | None], Callable[[Hashable], object]]:
    """A forked child's results name the records' statements and the history's commits by reference
    (history/forked.py), so the merged reasons hold the objects a serial run would."""
    statements = list(ctx.statements())
    where = {id(st): n for n, st in enumerate(statements)}

    def pin(obj: object) -> Hashable | None:
        if isinstance(obj, Statement):
            n = where.get(id(obj))
            return ("s", n) if n is not None else None
        if isinstance(obj, Commit) and ctx.history is not None and ctx.history.by_sha(obj.sha) is obj:
            return ("c", obj.sha)
        return None

    def unpin(key: Hashable) -> object:
        assert isinstance(key, tuple)
        kind, value = key
        return statements[value] if kind == "s" else ctx.get_history().by_sha(value)

    return pin, unpin


def _keys(rs: list[Reason]) -> set[str]:
    """What makes a stale thing this one: the commit that did or refuted it, the evidence that reran it."""
    out: set[str] = set()
    for r in rs:
        if r.commits:
            out.add(r.commits[0][0].sha)
        out.update(e.path for e in r.evidence)
    return out


def _group(pool: list[Statement], stale: list[Statement], reasons: dict[int, list[Reason]]) -> list[StaleGroup]:
    """Stale statements that are one stale thing become one group: they repeat each other (same row, near-
    identical text), or they are the same work in other words stale for the same commit or evidence, in
    different places, and both ask for work or both state a fact (a finding and the plan built on it are two
    stale things). Every other live directive that repeats a member is attached as a further surface.

    Only pairs that can pass are tested: a repeat names a row or claim the other names too, and related text
    shares work terms (and a row or claim, when both name one); indexes by id and by term find those pairs,
    so the work grows with the pairs that share something, not with the square of the statements."""
    if not stale:
        return []  # no group, so no surface to look for: indexing every live directive's terms would be wasted
    sf = Surfaces()
    parent = {id(s): id(s) for s in stale}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    keys = {id(s): _keys(reasons[id(s)]) for s in stale}
    for a, b in _stale_pairs(sf, stale, keys):
        if apart(a, b) and (
            sf.repeats(a, b)
            or (a.directive == b.directive and keys[id(a)] & keys[id(b)] and sf.related_text(a, b, 2, 0.3))
        ):
            parent[find(id(a))] = find(id(b))
    members: dict[int, list[Statement]] = {}
    for s in stale:
        members.setdefault(find(id(s)), []).append(s)
    live = [st for st in pool if st.directive]
    order = {id(st): n for n, st in enumerate(live)}
    by_id = _index(live, sf.ids)  # live directives by the rows and claims they name
    by_term = _index(range(len(live)), lambda n: sf.work_terms(live[n]))  # ... by work term (their places in live)
    by_term_no_id = _index([n for n, st in enumerate(live) if not sf.ids(st)], lambda n: sf.work_terms(live[n]))
    sizes = [len(sf.work_terms(st)) for st in live]  # per place in live: _surfaces reads it a million times
    groups = []
    for group in members.values():
        group.sort(key=primary_key)
        inside = {id(s) for s in group}
        extra: dict[int, Statement] = {}
        for m in group:
            for o in _surfaces(sf, m, by_id, by_term if not sf.ids(m) else by_term_no_id, live, sizes):
                if id(o) not in inside and id(o) not in extra and apart(m, o):
                    extra[id(o)] = o
        surfaces = group + sorted(extra.values(), key=lambda o: (primary_key(o), order[id(o)]))
        merged: dict[str, Reason] = {}
        for s in group:  # primary's own reasons win; the others fill in what it lacks
            for r in reasons[id(s)]:
                if r.code not in merged or _rank(r) < _rank(merged[r.code]):
                    merged[r.code] = r
        groups.append(StaleGroup(surfaces[0], surfaces, sorted(merged.values(), key=_rank)))
    return sorted(groups, key=lambda g: primary_key(g.primary))


def _index(statements: Iterable[T], words: Callable[[T], frozenset[str]]) -> dict[str, list[T]]:
    out: dict[str, list[T]] = {}
    for st in statements:
        for w in words(st):
            out.setdefault(w, []).append(st)
    return out


def _stale_pairs(sf: Surfaces, stale: list[Statement], keys: dict[int, set[str]]) -> list[tuple[Statement, Statement]]:
    """The pairs (earlier, later) of stale statements that could be one stale thing: they name a row or claim
    in common (a repeat, or related text when both name one), or one names none and they share a commit or
    evidence key and a work term (related text)."""
    at = {id(s): n for n, s in enumerate(stale)}
    by_id = _index(stale, sf.ids)
    no_id_by_key_term: dict[tuple[str, str], list[Statement]] = {}
    for s in stale:
        if not sf.ids(s):
            for k in keys[id(s)]:
                for t in sf.work_terms(s):
                    no_id_by_key_term.setdefault((k, t), []).append(s)
    pairs: set[tuple[int, int]] = set()
    for n, a in enumerate(stale):
        near = [o for i in sf.ids(a) for o in by_id[i]]
        near += [o for k in keys[id(a)] for t in sf.work_terms(a) for o in no_id_by_key_term.get((k, t), ())]
        pairs.update((n, at[id(o)]) if n < at[id(o)] else (at[id(o)], n) for o in near if o is not a)
    return [(stale[i], stale[j]) for i, j in sorted(pairs)]


SURFACE_TERMS, SURFACE_CONTAINMENT, SURFACE_JACCARD = 3, 0.5, 0.25  # related text, for a further surface


def _surfaces(
    sf: Surfaces,
    m: Statement,
    by_id: dict[str, list[Statement]],
    by_term: dict[str, list[int]],
    live: list[Statement],
    sizes: list[int],
) -> list[Statement]:
    """Live directives that repeat `m` or relate to it (`sf.repeats`, or `sf.related_text` with the SURFACE_
    bounds): among those sharing a work term with it and a row or claim, and those sharing SURFACE_TERMS work terms
    where one of the two names no row or claim (`by_term` holds only those when `m` names one, by their places in
    `live`; `sizes` holds how many work terms each of `live` has). A pair of the second kind names no row or claim
    in common, so it repeats nothing; the terms it shares are counted here, and related text is decided on that
    count as related_text decides it."""
    terms = sf.work_terms(m)
    out: list[Statement] = []
    for i in sf.ids(m):
        for o in by_id.get(i, ()):
            if terms & sf.work_terms(o) and (
                sf.repeats(m, o) or sf.related_text(m, o, SURFACE_TERMS, SURFACE_CONTAINMENT, SURFACE_JACCARD)
            ):
                out.append(o)
    counts = Counter(chain.from_iterable(by_term.get(t, ()) for t in terms))
    n = len(terms)
    for at, shared in counts.items():
        if shared < SURFACE_TERMS:
            continue
        k = sizes[at]
        if shared / (min(n, k) or 1) >= SURFACE_CONTAINMENT and shared / ((n + k - shared) or 1) >= SURFACE_JACCARD:
            out.append(live[at])
    return out


def hits_for(ctx: LintContext, code: str) -> Iterator[Hit]:
    """One hit per stale group whose leading reason is rule `code`'s."""
    for g in analyse(ctx):
        if g.lead == code:
            yield _hit(g)


def _hit(g: StaleGroup) -> Hit:
    p = g.primary
    row = p.row_id or p.defines or next(iter(sorted(subject_ids(p))), None)
    phrases = [r.phrase for r in g.reasons]
    landed = next((r for r in g.reasons if r.code == "RL101"), None)
    for i, r in enumerate(g.reasons):  # "on a premise the same commit refuted", as a person writes it
        if (
            r.code == "RL103"
            and landed
            and landed.commits
            and r.commits
            and r.commits[0][0].sha == landed.commits[0][0].sha
        ):
            phrases[i] = r.phrase.replace(f"{r.commits[0][0].short} ({r.commits[0][0].day})", "the same commit")
    others = g.surfaces[1:]
    label = describe(p)
    lines = g.reasons[0].lines  # the lines of the statement the leading reason is about, when fewer than its span
    if lines is not None:
        label = f"{'line' if lines[0] == lines[1] else 'lines'} {_span(lines)} of {label}"
    message = f"{_capital(label)}{f' ({row})' if row and row not in label else ''} " + "; ".join(phrases)
    if others:
        message += f" [repeated on {len(others)} other surface{'s' if len(others) > 1 else ''}]"
    related = [Related(s.path, s.line, f"repeats the stale directive: {describe(s)}") for s in others]
    evidence: list[dict[str, Any]] = []
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for r in g.reasons:  # one entry per commit/evidence, listing every reason it supports
        for c, role in r.commits:
            item = seen.get(("c", c.sha))
            if item is None:
                item = seen[("c", c.sha)] = {
                    "kind": "commit",
                    "sha": c.sha,
                    "date": c.day,
                    "subject": c.subject,
                    "reasons": [],
                    "roles": [],
                }
                evidence.append(item)
            item["reasons"].append(r.code)
            item["roles"].append(role)
        for e in r.evidence:
            item = seen.get(("e", e.path))
            if item is None:
                item = seen[("e", e.path)] = {"kind": "evidence", "path": e.path, "date": e.date, "reasons": []}
                evidence.append(item)
            item["reasons"].append(r.code)
        for st, role in r.statements:
            item = seen.get(("s", f"{st.path}:{st.line}"))
            if item is None:
                item = seen[("s", f"{st.path}:{st.line}")] = {
                    "kind": "statement",
                    "path": st.path,
                    "line": st.line,
                    "text": st.text[:300],
                    "reasons": [],
                    "roles": [],
                }
                evidence.append(item)
            item["reasons"].append(r.code)
            item["roles"].append(role)
    where = ", ".join(f"{s.path}:{s.line}" for s in g.surfaces)
    fix = (
        f"Records-only fix on {len(g.surfaces)} surface{'s' if len(g.surfaces) > 1 else ''} ({where}): "
        + "; ".join(r.fix for r in g.reasons)
        + ". No code change; the row's state stays as it is."
    )
    return Hit(
        severity=g.reasons[0].severity,
        message=message,
        path=p.path,
        line=lines[0] if lines else p.line,
        end_line=lines[1] if lines else p.end_line,
        record_id=row,
        related=related,
        evidence=evidence,
        fix=fix,
        key=" ".join((p.directive_text or p.text).split()),
    )


def _span(lines: tuple[int, int]) -> str:
    return str(lines[0]) if lines[0] == lines[1] else f"{lines[0]}-{lines[1]}"


def _capital(s: str) -> str:
    return s[:1].upper() + s[1:]

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

from typing import Any, Iterator

from roadmap.analysis.asof import needs_blame, news_for, prefetch_blame
from roadmap.analysis.context import Detector, LintContext
from roadmap.analysis.facts import Reason, StaleGroup
from roadmap.analysis.surfaces import apart, describe, primary_key, related_text, repeats, subject_ids, work_terms
from roadmap.findings import Hit, Related
from roadmap.records.model import Statement

PRIORITY = ("RL101", "RL103", "RL104", "RL102", "RL401")


def _rank(r: Reason) -> tuple[int, int]:
    return (0 if r.severity == "error" else 1, PRIORITY.index(r.code) if r.code in PRIORITY else 99)


def _order(d: Detector) -> int:
    return PRIORITY.index(d.code) if d.code in PRIORITY else len(PRIORITY)


def analyse(ctx: LintContext) -> list[StaleGroup]:
    if ctx.facts.stale_groups is not None:
        return ctx.facts.stale_groups
    active = sorted(ctx.detectors, key=_order)
    pool = [st for st in ctx.statements() if not st.historical]
    reasons: dict[int, list[Reason]] = {}
    todo = [(st, dets) for st in pool if (dets := [d for d in active if d.applies(st)])]
    prefetch_blame(ctx, {st.path for st, _ in todo if needs_blame(st)})
    for st, dets in todo:
        news = news_for(ctx, st)
        if news.kind in ("unknown", "uncommitted"):
            continue
        found = [r for d in dets if (r := d.detect(ctx, st, news)) is not None]
        if found:
            reasons[id(st)] = found
    groups = _group(pool, [st for st in pool if id(st) in reasons], reasons)
    ctx.facts.stale_groups = groups
    return groups


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
    stale things). Every other live directive that repeats a member is attached as a further surface."""
    parent = {id(s): id(s) for s in stale}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    keys = {id(s): _keys(reasons[id(s)]) for s in stale}
    for n, a in enumerate(stale):
        for b in stale[n + 1:]:
            if apart(a, b) and (repeats(a, b) or (a.directive == b.directive and keys[id(a)] & keys[id(b)]
                                                  and related_text(a, b, 2, 0.3))):
                parent[find(id(a))] = find(id(b))
    members: dict[int, list[Statement]] = {}
    for s in stale:
        members.setdefault(find(id(s)), []).append(s)
    by_term: dict[str, list[Statement]] = {}          # live directives by work term, to find repeats fast
    for st in pool:
        if st.directive:
            for t in work_terms(st):
                by_term.setdefault(t, []).append(st)
    groups = []
    for group in members.values():
        group.sort(key=primary_key)
        inside = {id(s) for s in group}
        extra: dict[int, Statement] = {}
        for m in group:
            near = {id(o): o for t in work_terms(m) for o in by_term.get(t, ())}
            for o in near.values():
                if id(o) not in inside and id(o) not in extra and apart(m, o) and (
                        repeats(m, o) or related_text(m, o, 3, 0.5, 0.25)):
                    extra[id(o)] = o
        surfaces = group + sorted(extra.values(), key=primary_key)
        merged: dict[str, Reason] = {}
        for s in group:              # primary's own reasons win; the others fill in what it lacks
            for r in reasons[id(s)]:
                if r.code not in merged or _rank(r) < _rank(merged[r.code]):
                    merged[r.code] = r
        groups.append(StaleGroup(surfaces[0], surfaces, sorted(merged.values(), key=_rank)))
    return sorted(groups, key=lambda g: primary_key(g.primary))


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
    for i, r in enumerate(g.reasons):   # "on a premise the same commit refuted", as a person writes it
        if r.code == "RL103" and landed and landed.commits and r.commits and \
                r.commits[0][0].sha == landed.commits[0][0].sha:
            phrases[i] = r.phrase.replace(f"{r.commits[0][0].short} ({r.commits[0][0].day})", "the same commit")
    others = g.surfaces[1:]
    label = describe(p)
    message = f"{_capital(label)}{f' ({row})' if row and row not in label else ''} " + "; ".join(phrases)
    if others:
        message += f" [repeated on {len(others)} other surface{'s' if len(others) > 1 else ''}]"
    related = [Related(s.path, s.line, f"repeats the stale directive: {describe(s)}") for s in others]
    evidence: list[dict[str, Any]] = []
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for r in g.reasons:                 # one entry per commit/evidence, listing every reason it supports
        for c, role in r.commits:
            item = seen.get(("c", c.sha))
            if item is None:
                item = seen[("c", c.sha)] = {"kind": "commit", "sha": c.sha, "date": c.day, "subject": c.subject,
                                             "reasons": [], "roles": []}
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
                item = seen[("s", f"{st.path}:{st.line}")] = {"kind": "statement", "path": st.path, "line": st.line,
                                                              "text": st.text[:300], "reasons": [], "roles": []}
                evidence.append(item)
            item["reasons"].append(r.code)
            item["roles"].append(role)
    where = ", ".join(f"{s.path}:{s.line}" for s in g.surfaces)
    fix = (f"Records-only fix on {len(g.surfaces)} surface{'s' if len(g.surfaces) > 1 else ''} ({where}): "
           + "; ".join(r.fix for r in g.reasons) + ". No code change; the row's state stays as it is.")
    return Hit(severity=g.reasons[0].severity, message=message, path=p.path, line=p.line,
               end_line=p.end_line, record_id=row, related=related, evidence=evidence, fix=fix,
               key=" ".join((p.directive_text or p.text).split()))


def _capital(s: str) -> str:
    return s[:1].upper() + s[1:]

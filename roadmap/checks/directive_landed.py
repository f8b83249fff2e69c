"""RL101 directive-landed: the work a directive asks for was done by a commit the directive predates."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from roadmap.analysis.asof import news_shas, news_subset
from roadmap.analysis.code_symbols import code_delta, in_code_at
from roadmap.analysis.commit_text import message_tokens, term_weights
from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import News, Reason
from roadmap.analysis.stale import hits_for
from roadmap.analysis.surfaces import directive_terms, subject_ids
from roadmap.analysis.terms import Overlap, overlap_tokens
from roadmap.findings import Hit
from roadmap.history.commit import Commit
from roadmap.records.model import Statement

# A symbol distinctive enough that its first appearance in code is evidence on its own: an identifier
# with an inner capital or underscore (`AsyncDeviceInputs`, `VT_ASYNC_DEVICE_MIRROR`), or a long flag.
_DISTINCT = re.compile(r"^(?:--[a-z0-9][a-z0-9-]{5,}|[A-Za-z_][A-Za-z0-9_:.]*(?:[a-z][A-Z]|_)[A-Za-z0-9_:.]*)$")
STRONG_RATIO, WEAK_RATIO = 0.6, 0.35   # IDF-weighted share of the directive's terms


@dataclass
class _Candidate:
    commit: Commit
    names: str = ""             # "trailer" | "body" | ""
    named: tuple[str, ...] = ()
    introduced: tuple[str, ...] = ()
    terms: Overlap | None = None

    @property
    def score(self) -> float:
        pts = {"trailer": 3.0, "body": 2.0}.get(self.names, 0.0) + (3.0 if self.introduced else 0.0)
        if self.terms and len(self.terms.matched) >= 2:
            pts += 5.0 * self.terms.ratio
        return round(pts, 1)

    @property
    def strength(self) -> str | None:
        ratio = self.terms.ratio if self.terms else 0.0
        matched = len(self.terms.matched) if self.terms else 0
        if (self.names and ratio >= STRONG_RATIO and matched >= 3) or \
                (self.introduced and (self.names or ratio >= WEAK_RATIO)):
            return "error"
        if (self.names and ratio >= WEAK_RATIO and matched >= 3) or self.introduced:
            return "warning"
        return None

    def reasons(self) -> str:
        out = []
        if self.names:
            out.append(f"{'a trailer' if self.names == 'trailer' else 'its message'} names {', '.join(self.named)}")
        if self.introduced:
            out.append("introduces " + ", ".join(f"`{s}`" for s in self.introduced) + " in code")
        if self.terms and self.terms.matched:
            out.append(self.terms.describe(6))
        return "; ".join(out)


def symbols(st: Statement) -> list[str]:
    """The distinctive symbols, flags and env vars the directive names: what RL101 asks the history index about."""
    return sorted({s for s in (*st.mentions.symbols, *st.mentions.env_vars) if _DISTINCT.match(s)})


def _base_rev(ctx: LintContext, news: News) -> str | None:
    """The commit the statement is as of: its named base or blame commit, or the newest commit on or before
    its date (None when the whole history is news). Once per as-of point."""
    if news.kind in ("sha", "blame"):
        return news.base
    cache = ctx.facts.landed_base
    key = (news.kind, news.base)
    if key not in cache:
        fresh = news_shas(ctx, news)
        cache[key] = next((c.sha for c in ctx.get_history().commits if c.sha not in fresh), None)
    return cache[key]


@lru_cache(maxsize=4096)
def _id_re(i: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(i)}(?![\w-])")


def _named(commit: Commit, ids: frozenset[str]) -> tuple[str, tuple[str, ...]]:
    trailer_text = " ".join(v for vals in commit.trailers.values() for v in vals)
    in_trailer = tuple(sorted(i for i in ids if _id_re(i).search(trailer_text)))
    if in_trailer:
        return "trailer", in_trailer
    return "body", tuple(sorted(i for i in ids if _id_re(i).search(commit.message)))


def _introductions(ctx: LintContext, sym: str, news: News) -> list[Commit]:
    """News commits that raised `sym`'s count, oldest first (once per symbol and as-of point)."""
    history = ctx.get_history()
    return news_subset(ctx, ("introduced", sym),
                       lambda: [c for c, d in reversed(history.symbol_deltas(sym)) if d > 0], news)


def _candidates(ctx: LintContext, st: Statement, news: News) -> list[_Candidate]:
    history = ctx.get_history()
    ids = subject_ids(st)
    cands: dict[str, _Candidate] = {}
    for i in sorted(ids):
        for c in news_subset(ctx, ("mentions", i), lambda: history.commits_mentioning(i), news):
            if not c.is_merge and c.sha not in cands:
                where, named = _named(c, ids)
                cands[c.sha] = _Candidate(c, where if named else "", named)
    base = None
    for sym in symbols(st):
        if sym not in history.symbols:
            continue
        hits = [c for c in _introductions(ctx, sym, news) if not c.is_merge]
        if not hits:
            continue
        base = base or _base_rev(ctx, news)
        if base is not None and in_code_at(ctx, sym, base):
            continue                    # already in the code when the directive was written
        first = next((c for c in hits if code_delta(ctx, sym, c.sha) > 0), None)
        if first is not None:
            cand = cands.setdefault(first.sha, _Candidate(first))
            cand.introduced += (sym,)
    if not cands:
        return []
    terms = directive_terms(st)
    weights = term_weights(ctx)
    for cand in cands.values():
        cand.terms = overlap_tokens(terms, message_tokens(cand.commit), weights)
    return list(cands.values())


def _together(ctx: LintContext, st: Statement, cands: list[_Candidate]) -> tuple[list[_Candidate], Overlap] | None:
    """Work that landed in a series of commits: no single commit matches, but the news commits whose trailer names
    the row, taken together, carry the directive's terms as strongly as one strong commit would ("Build the server
    and its load client": one commit builds the server, a later one the load client). Only commits that share at
    least one term count, and the union must match more terms than any one of them."""
    named = sorted((c for c in cands if c.names == "trailer" and c.terms and c.terms.matched),
                   key=lambda c: c.commit.commit_time)
    if len(named) < 2:
        return None
    union = frozenset().union(*(message_tokens(c.commit) for c in named))
    together = overlap_tokens(directive_terms(st), union, term_weights(ctx))
    best_single = max(len(c.terms.matched) for c in named if c.terms)
    if len(together.matched) >= 3 and together.ratio >= STRONG_RATIO and len(together.matched) > best_single:
        return named, together
    return None


def applies(st: Statement) -> bool:
    return st.directive


def detect(ctx: LintContext, st: Statement, news: News) -> Reason | None:
    if not news.commits:
        return None
    cands = _candidates(ctx, st, news)
    found = [c for c in cands if c.strength]
    strong = [c for c in found if c.strength == "error"]
    if not strong:                  # no one commit did it all: maybe a series did (it explains more than a weak one)
        series = _together(ctx, st, cands)
        if series:
            return _series_reason(series, news)
    if not found:
        return None
    pool = strong or found
    best = min(pool, key=lambda c: (c.commit.commit_time, -c.score))   # the first commit that did the work
    c = best.commit
    phrase = (f"directs work that landed {c.day} in {c.short} ({c.subject!r}; score {best.score}: {best.reasons()})")
    others = sorted((x for x in pool if x is not best), key=lambda x: x.commit.commit_time)
    if others:
        phrase += " and later in " + ", ".join(x.commit.short for x in others[:3])
    fix = f"drop or strike the directive: {c.short} did the work"
    return Reason("RL101", best.strength or "warning", phrase, fix,
                  commits=[(best.commit, "landed")] + [(x.commit, "landed") for x in others], news=news)


def _series_reason(series: tuple[list[_Candidate], Overlap], news: News) -> Reason:
    named, together = series
    first, last = named[0].commit, named[-1].commit
    listed = ", ".join(f"{c.commit.short} ({', '.join(c.terms.matched) if c.terms else ''})" for c in named[:4])
    more = f" and {len(named) - 4} more" if len(named) > 4 else ""
    rows = ", ".join(sorted({i for c in named for i in c.named}))
    phrase = (f"directs work that landed in {len(named)} commits whose trailer names {rows}, "
              f"{first.day} to {last.day}: {listed}{more}; together {together.describe(6)}")
    fix = f"drop or strike the directive: {first.short} .. {last.short} did the work"
    return Reason("RL101", "warning", phrase, fix, commits=[(c.commit, "landed") for c in named], news=news)


def directive_landed(ctx: LintContext) -> list[Hit]:
    """What it does:
    Flags a directive (a punch-list item, a "Remaining"/"Next actions" cell, a "Next owner must ..."
    bullet) whose work was done by a commit made after the directive was written. A commit counts when a
    trailer or its message names the directive's row or claim and its message shares the directive's
    distinctive terms, or when it introduces in code a symbol, flag or env var the directive names. Work
    that landed as a series (no single commit matches, but the news commits whose trailer names the row
    together carry the directive's terms as strongly as one strong match) is a warning listing them. Each
    match is scored (names the row: +3 trailer / +2 message; introduces a named symbol: +3; term overlap:
    up to +5, by the IDF-weighted share of its distinctive terms found in the message, so words every
    commit uses count little) and the score and reasons are shown; weak matches are warnings, strong ones
    errors. Every other statement that repeats the directive is attached as a related location.

    Why:
    A directive for finished work sends the next person to redo it. The records drift silently: the
    commit that did the work rarely edits the plan that asked for it.

    Example:
    A punch-list item, written from the 2026-07-25 checkpoint, says "Port the device-resident
    sampled-token map to discrete CUDA as an opt-in mirror (`VT_ASYNC_DEVICE_MIRROR`)"; the 2026-07-27
    commit that names the checkpoint's claim introduces `VT_ASYNC_DEVICE_MIRROR` in the runner.

    Fix:
    Records only: strike or rewrite the directive on every surface listed, citing the commit that did
    the work. Suppress with `<!-- roadmap: disable-next-line RL101 -- reason -->` when the match is wrong.
    """
    return list(hits_for(ctx, "RL101"))

"""RL101 directive-landed: the work a directive asks for was done by a commit the directive predates."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice

from roadmap.analysis.asof import news_shas, news_subset, start_blame
from roadmap.analysis.cell_asof import cell_origin
from roadmap.analysis.code_symbols import code_delta, declares, in_code_at
from roadmap.analysis.context import LintContext
from roadmap.analysis.endpoints import changes_endpoint, endpoints
from roadmap.analysis.evidence_index import row_of
from roadmap.analysis.facts import News, Reason
from roadmap.analysis.landing import (
    asks_documentation,
    builds_nothing,
    changed_paths,
    changes_no_behaviour,
    declared_terms,
    done_statements,
    done_terms,
    done_twin,
    may_have_twin,
    path_commits,
    reverts,
    work_weights,
    written_by,
)
from roadmap.analysis.reconciled import landing_reconciled
from roadmap.analysis.short_forms import identifier_forms, initial_forms, short_forms, spelled_initials
from roadmap.analysis.spec_numbers import spec_numbers
from roadmap.analysis.stale import hits_for
from roadmap.analysis.steps import names_workstream, step_terms
from roadmap.analysis.touched import changes_named
from roadmap.analysis.surfaces import describe, subject_ids, work_terms
from roadmap.analysis.stem import stem
from roadmap.analysis.work import (
    CommitWork,
    WorkMatch,
    WorkWeights,
    candidates,
    commit_work,
    match,
    may_match,
    said_in_subject,
    term_count,
    terms_of,
)
from roadmap.checks.added_already import added_already
from roadmap.checks.bumped_already import bumped_already
from roadmap.checks.flipped_already import flipped_already
from roadmap.checks.named_already import named_already
from roadmap.checks.removed_already import asks_to_remove, removed_already
from roadmap.findings import Hit
from roadmap.history.commit import Commit
from roadmap.records.classify import waits_for
from roadmap.records.model import Statement

# A symbol distinctive enough that its first appearance in code is evidence on its own: an identifier
# with an inner capital or underscore (`AsyncDeviceInputs`, `VT_ASYNC_DEVICE_MIRROR`, and `Migration41To42`, whose
# inner capital follows digits), or a long flag.
# (a trailing `!` or `?` is part of a Julia, Ruby or Scheme name: `assemble_jacobienne!`, `empty?`)
_DISTINCT = re.compile(r"^(?:--[a-z0-9][a-z0-9-]{5,}|[A-Za-z_][A-Za-z0-9_:.]*(?:[a-z]\d*[A-Z]|_)[A-Za-z0-9_:.]*[!?]?)$")
_FILE_NAME = re.compile(r"\.[A-Za-z0-9]{1,5}$")  # `qwen3_5.cpp` names a file, not code in it
STRONG_RATIO, WEAK_RATIO = 0.5, 0.3  # IDF-weighted share of the directive's work terms the commit reports done
MAX_CHANCE = 0.05  # expected chance matches among the news commits, for terms alone
MAX_TERMS_ALONE = 20  # a longer directive names several pieces of work: terms alone cannot say
REPORTED_RATIO = 2 / 3  # of a directive written after the commit: it must report most of the work, not half
REPORTED_TERMS, REPORTED_SUBJECT = 3, 2  # ... and at least three of its terms, two of them in its subject
REFUSED = 0.3  # share of the unmatched terms a commit says it did NOT do: it left that work
# Directives that ask for a measurement are not done by a commit that builds something: only by one that
# adds evidence or says it measured. "bench", "benchmark" and "profile" also name tools and features ("bench and
# serve share one flag"), and stems make "benchmarked" one of them: those count only with evidence written.
# A target ("Reach 95% precision", "Meet the 10 s bound") is an outcome: measured, not built.
_MEASURE_VERBS = frozenset(
    "measure re-measure remeasure rerun re-run bench benchmark re-bench rebench profile "
    "time validate verify confirm reproduce soak evaluate".split()
)
# A target ("Reach 95% precision", "Meet the 10 s bound") is an outcome: a commit, or evidence written, does
# not say whether it was reached (the figure rules and a person do), so RL101 leaves it alone.
_TARGET_VERBS = frozenset("reach achieve attain meet exceed hit bring push".split())  # "bring X to 2.6 ms"
_MEASURED = frozenset(terms_of("measured evidence soak reran"))  # "results", "numbers": any commit's words


@dataclass
class _Candidate:
    commit: Commit
    names: str = ""  # "trailer" | "body" | ""
    named: tuple[str, ...] = ()
    introduced: tuple[str, ...] = ()
    touches: tuple[str, ...] = ()  # files the directive names that the commit changed
    routes: tuple[str, ...] = ()  # HTTP routes the directive names whose handler the commit changed
    other_rows: bool = False  # its trailers name rows, none of them the directive's
    other_ticket: bool = False  # it names a ticket of the directive's tracker, never the directive's own
    ticket: tuple[str, ...] = ()  # the directive's own ticket keys it names (INV-311): the tracker's id of the work
    part: str = ""  # the one of the directive's requests it did, when it did one of several
    figures: tuple[int, ...] = ()  # numbers the directive is specified by that its message states too (5,000 entries)
    news: int = 0  # commits the directive cannot have known about (for the chance of a match)
    size: int = 0  # the directive's length in words (work.term_count of its terms)
    work: WorkMatch | None = None

    @property
    def _terms(self) -> tuple[int, float, int]:
        w = self.work
        return (len(w.matched), w.ratio, w.in_subject) if w else (0, 0.0, 0)

    @property
    def strength(self) -> str | None:
        """Error or warning from which kinds of evidence agree (counts, not a continuous score, so that an
        unrelated commit cannot move a finding across the line); None when the commit did not do the work."""
        if self.work is not None and self.work.refused_ratio >= REFUSED and not self.introduced:
            return None  # its message says it left this work for later
        if self.work is not None and self.work.partial and not self.introduced and not self.names:
            return None  # by its words, it did part of the work and left the rest
        if self.work is not None and self.work.absent:
            return None  # it says a piece the directive asks for is not there yet ("No forward yet")
        if (self.other_rows or self.other_ticket) and not self.names and not self.introduced:
            return None  # it says whose work it is, and that is another row's or another ticket's
        n, ratio, subject = self._terms
        total = self.work.total if self.work else 0
        # Terms alone (no row named, no symbol introduced) count only for a directive short enough to name one
        # piece of work, from a commit whose subject is about it (two of the directive's terms there): most of the
        # directive's weight, or four of its terms, or all of a short directive's terms.
        # And the match must not be one some news commit would make by chance: common words of the project
        # ("source", the project's own name) are said together by many commits.
        specific = self.work is not None and self.work.chance * max(self.news, 1) <= MAX_CHANCE
        if self.part:
            # one of several requests, matched by words alone: most of that request, many of its words in the
            # subject, and only ever a hint (a part is a smaller target than the whole: easier to hit by chance)
            return "info" if specific and subject >= 3 and n >= PART_TERMS and ratio >= PART_RATIO else None
        terms_alone = (
            specific
            and subject >= 2
            and self.size <= MAX_TERMS_ALONE
            and (n >= 3 and ratio >= STRONG_RATIO or n >= 4 and ratio >= 0.4 or n >= 2 and n == total)
        )
        # Changing the very file the directive names, with a subject about the same work, is evidence too.
        touched = bool(self.touches or self.routes) and n >= 3 and subject >= 1 and ratio >= WEAK_RATIO
        # A ticket key of the directive's own, named by the commit, is the tracker's id of the work: as good as a
        # row named, with the same words said.
        named = bool(self.names or self.ticket)
        # The bound, size or count the directive specifies, stated by a commit whose subject is about the work
        # ("bounded at 5,000 entries" / "Cap 5000"): the specification built, a second kind of evidence beside the
        # words, as a row named is.
        specified = bool(self.figures) and subject >= 2 and n >= 3 and ratio >= WEAK_RATIO
        if (
            named
            and (n >= 3 and ratio >= STRONG_RATIO or touched)
            or self.introduced
            and (named or n >= 2 and ratio >= WEAK_RATIO)
        ):
            return "error"
        if named and n >= 3 and ratio >= WEAK_RATIO or self.introduced or touched or specified:
            return "warning"
        # Words alone, however specific, were right about half the time on records other teams wrote
        # (tests/realworld/labels/): a hint for a person to look at, not a warning.
        return "info" if terms_alone else None

    @property
    def weight(self) -> float:
        return 3.0 * bool(self.names or self.ticket) + 3.0 * bool(self.introduced) + 5.0 * self._terms[1]

    def reasons(self) -> str:
        out = []
        if self.names:
            out.append(f"{'a trailer' if self.names == 'trailer' else 'its message'} names {', '.join(self.named)}")
        elif self.ticket:
            out.append(f"its message names the ticket {', '.join(self.ticket)}")
        if self.introduced:
            out.append("introduces " + ", ".join(f"`{s}`" for s in self.introduced) + " in code")
        if self.touches:
            out.append("changes " + ", ".join(self.touches[:3]))
        if self.routes:
            out.append("changes the handler of " + ", ".join(f"`{r}`" for r in self.routes[:3]))
        if self.figures:
            out.append("states " + ", ".join(f"{v:,}" for v in self.figures) + " as the directive does")
        if self.work and self.work.matched:
            out.append(self.work.describe(6))
        if self.part:
            part = self.part if len(self.part) <= 60 else self.part[:57] + "..."
            out.append(f"of the request {part!r}")
        return "; ".join(out)


@lru_cache(maxsize=1 << 15)
def _work_terms(st: Statement) -> frozenset[str]:
    """The directive's work terms without its step labels ("W0 nsys, then W1 cache policy": nsys, cache, policy).
    Once per statement: the landed test and the twin test of every directive both ask."""
    return work_terms(st) - step_terms(st.directive_text or st.text)


@lru_cache(maxsize=8)
def _verbs_of(verbs: tuple[str, ...]) -> frozenset[str]:
    return frozenset(v.lower() for v in verbs)


def _verbs(ctx: LintContext) -> frozenset[str]:
    """The imperatives a directive opens with (config `directives.verbs`)."""
    return _verbs_of(tuple(ctx.config.directives.verbs))


# Where a directive that asks for two pieces of work starts the second: ", and rerun ...", "; then add ...".
_NEXT_REQUEST = re.compile(r"(?:[,;]\s+(?:and\s+)?(?:then\s+)?|\s+and\s+then\s+|\.\s+(?:then\s+)?)(?=[a-z])")
MIN_PART_TERMS = 4
MAX_REQUESTS = 4  # more pieces than that is a plan's prose, not a list of requests
PART_TERMS, PART_RATIO = 5, 0.55  # what a commit must say of one request of several (terms alone)


def _requests(st: Statement, terms: frozenset[str], verbs: frozenset[str]) -> list[tuple[str, frozenset[str]]]:
    """The pieces of work a directive asks for one after another ("turn on X so Y fits, and rerun Z"): the
    directive's first piece and each later one that opens with an imperative (one of `verbs`), each with its work
    terms, when there are two or more of at least MIN_PART_TERMS terms each (else none). A piece that opens
    otherwise ("model_registry.cpp", "vLLM runs ...") goes on explaining the one before it."""
    if st.kind not in ("item", "cell"):
        return []  # a paragraph's sentences explain as much as they ask: its pieces are no list of requests
    text = st.directive_text or st.text
    pieces = [p.strip() for p in _NEXT_REQUEST.split(text) if p.strip()]
    if not 2 <= len(pieces) <= MAX_REQUESTS:
        return []
    parts = pieces[:1] + [p for p in pieces[1:] if p.split(None, 1)[0].lower() in verbs]
    if len(parts) < 2:
        return []
    out = [(p, terms_of(p) & terms) for p in parts]
    if sum(len(t) >= MIN_PART_TERMS for _, t in out) < 2:
        return []
    return [(p, t) for p, t in out if len(t) >= MIN_PART_TERMS]


@lru_cache(maxsize=1 << 15)
def _short_forms(st: Statement) -> dict[str, frozenset[str]]:
    """Short forms of the directive's own words (analysis/short_forms.py), for the terms they stand for. Once per
    statement (the landed test and the declared-before test both ask); callers read it and never change it."""
    text = st.directive_text or st.text
    for i in subject_ids(st):
        text = text.replace(i, " ")
    return short_forms(text)


def symbols(st: Statement) -> list[str]:
    """The distinctive symbols, flags and env vars the directive names: what RL101 asks the history index about."""
    named = (_CALL.sub("", s) for s in (*st.mentions.symbols, *st.mentions.env_vars))  # `f(prefix)` names f
    return sorted({s for s in named if _DISTINCT.match(s)})


_CALL = re.compile(r"\([^()]*\)$")


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
    return news_subset(
        ctx, ("introduced", sym), lambda: [c for c, d in reversed(history.symbol_deltas(sym)) if d > 0], news
    )


def _candidates(ctx: LintContext, st: Statement, news: News) -> list[_Candidate]:
    history = ctx.get_history()
    ids = subject_ids(st)
    cands: dict[str, _Candidate] = {}
    for i in sorted(ids):
        for c in news_subset(ctx, ("mentions", i), lambda: history.commits_mentioning(i), news):
            if not c.is_merge and c.sha not in cands:
                where, named = _named(c, ids)
                if named and not names_workstream(c, st, named, ids):
                    named = ()  # "W0/W1" of another workstream
                cands[c.sha] = _Candidate(c, where if named else "", named)
    for n in sorted(own_issues(st.directive_text or st.text)):  # commits that close the item's issue ("closes #102")
        for c in news_subset(ctx, ("closes", n), lambda: _issue_commits(ctx).get(n, []), news):
            if not c.is_merge and c.sha not in cands:
                cands[c.sha] = _Candidate(c)
    base = None
    taken_out = reverts(ctx)
    removing = [sym for sym in symbols(st) if asks_to_remove(st.raw, sym)]
    for sym in symbols(st):
        if sym not in history.symbols or sym in removing:
            continue  # a name the directive asks to drop is not dropped by the commit that brought it in
        hits = [c for c in _introductions(ctx, sym, news) if not c.is_merge and not taken_out.undone(c)]
        if not hits:
            continue
        base = base or _base_rev(ctx, news)
        if base is not None and in_code_at(ctx, sym, base):
            continue  # already in the code when the directive was written
        first = next((c for c in hits if code_delta(ctx, sym, c.sha) > 0), None)
        if first is not None:
            cand = cands.setdefault(first.sha, _Candidate(first))
            cand.introduced += (sym,)
    terms = _work_terms(st)
    weights = work_weights(ctx)
    fresh = news_shas(ctx, news)
    named_paths = sorted(
        {p.path for p in st.mentions.paths if p.path and not p.path.endswith("/") and not builds_nothing((p.path,))}
    )  # a record or doc changed is no work done
    if named_paths:  # commits that changed a file the directive names
        index = path_commits(ctx)
        for path in named_paths:
            for sha in index.get(path, ()):
                touching = history.by_sha(sha) if sha in fresh else None
                if touching is not None and not touching.is_merge:
                    cand = cands.setdefault(sha, _Candidate(touching))
                    cand.touches += (path,)
    size = term_count(terms)
    verbs = _verbs(ctx)
    requests = _requests(st, terms, verbs) if size > MAX_TERMS_ALONE // 2 else []
    forms = _short_forms(st)
    forms_key = frozenset(forms.items())  # _match's key for `forms`: hashed once here, not once per candidate
    # commits that report the same work (or one of its requests) in their own words: terms alone are evidence only
    # from a subject saying two of them (`strength`): a commit that cannot be one is no candidate, and is not
    # looked at (said_in_subject); a short form of the directive's words counts ("kid")
    wordings = ([terms | frozenset(forms)] if 2 <= size <= MAX_TERMS_ALONE else []) + [t for _, t in requests]
    for words in wordings:
        for c in _said(ctx, words, news):
            if c.sha in fresh and not c.is_merge and c.sha not in cands:
                cands[c.sha] = _Candidate(c)
    if not cands:
        return []  # no commit can be the work: what the candidates are weighed by need not be worked out
    renamed = identifier_forms(st.directive_text or st.text)  # `--min-base-quality` written `--min-bq` by a commit
    cut = initial_forms(st.directive_text or st.text)  # "i-frames" written "invulnerability window"
    measuring = _asks_measurement(st)
    total = weights.idf_sum(terms) or 1.0  # the same for every candidate: match() would sum the same
    tickets = _tickets(" ".join([st.directive_text or st.text, *(c.text for c in row_of(ctx, st)[1])]))
    # what the directive names in its files: code symbols, and upper-case names (`DEFAULT_DIMENSIONS`, read as
    # env-var shaped) too, or a change to a file it names would count whatever lines it changed; a symbol written
    # beside a `path:line` is code in that file whatever it ends with (`aws_launch_template.nodes` is no file name)
    things = frozenset(
        s for s in (*st.mentions.symbols, *st.mentions.env_vars) if "/" not in s and not _FILE_NAME.search(s)
    ) | frozenset(p.symbol for p in st.mentions.paths if p.symbol)
    routes = endpoints(st.directive_text or st.text)
    issues = own_issues(st.directive_text or st.text)
    numbers = spec_numbers(st.directive_text or st.text)
    out = []
    for cand in cands.values():
        if taken_out.undone(cand.commit):
            continue  # a later commit reverted it (or it is a revert): that work did not land
        cand.news, cand.size = len(fresh), size
        if cand.touches:  # a file changed counts only where the change names what the directive names there
            cand.touches = tuple(p for p in cand.touches if changes_named(ctx, cand.commit.sha, p, things))
        if ids and not cand.names:
            cand.other_rows = _names_other_rows(cand.commit, ids)
        cand.other_ticket = _names_other_ticket(cand.commit, tickets)
        if numbers:
            cand.figures = tuple(sorted(numbers & spec_numbers(cand.commit.message)))
        if tickets:
            cand.ticket = tuple(sorted(f"{p}-{n}" for p, n in tickets & _tickets(cand.commit.message) if len(n) >= 2))
        if issues:
            closed = _closed_issues(cand.commit.message)
            cand.ticket += tuple(f"#{n}" for n in sorted(issues & closed))
            if closed and not issues & closed and _CLOSES.search(cand.commit.message):
                cand.other_ticket = True  # "closes #110": the issue it settles is another one
        cw = commit_work(cand.commit)
        cand.work = _match(
            ctx, terms, cand.commit, _renamed_in(cand.commit, renamed, cut, verbs, forms, forms_key), total
        )
        handled = tuple(r for r in routes if changes_endpoint(str(ctx.root), cand.commit.sha, r))
        if handled:  # it changed the handler of a route the directive names: it has said the route's words
            cand.routes = handled
            cw = CommitWork(cw.done | terms_of(" ".join(handled)), cw.undone, cw.subject, cw.partial, cw.absent)
            cand.work = match(terms, cw, weights, forms, total)
        if cand.strength is None:
            # one of the pieces of work the directive asks for, done in full: that piece landed
            for part, part_terms in requests:
                if _asks_measurement_text(part) and not cand.introduced and not _measured(ctx, cand.commit):
                    continue
                was = cand.work
                cand.work, cand.part = match(part_terms, cw, weights), part
                if cand.strength is not None:
                    break
                cand.work, cand.part = was, ""
        if cand.strength is None and len(cand.work.matched) >= 3:
            # a terse message may leave the work's name to the code: the names the commit declares count as done
            declared = declared_terms(ctx, cand.commit) - cw.done - cw.undone
            if declared & terms:
                cand.work = match(
                    terms,
                    CommitWork(cw.done | declared, cw.undone, cw.subject, cw.partial, cw.absent),
                    weights,
                    forms,
                    total,
                )
        if measuring and not cand.introduced and not _measured(ctx, cand.commit):
            continue  # a measurement is not done by a commit that only builds
        if not cand.names and changes_no_behaviour(cand.commit.message, st):
            continue  # "No behaviour change": it cannot be the fix or feature the directive asks for
        if any(code_delta(ctx, sym, cand.commit.sha) > 0 for sym in removing if sym in history.symbols):
            continue  # "Drop `jobs_legacy`" is not done by the commit that made `jobs_legacy`: it did the opposite
        out.append(cand)
    return out


_ROW_TRAILERS = ("row", "rows", "refs", "claim", "claims")


def _renamed_in(
    commit: Commit,
    renamed: tuple[tuple[str, str, frozenset[str]], ...],
    cut: tuple[tuple[str, frozenset[str]], ...],
    verbs: frozenset[str],
    forms: dict[str, frozenset[str]],
    key: frozenset[tuple[str, frozenset[str]]],
) -> tuple[dict[str, frozenset[str]], frozenset[tuple[str, frozenset[str]]]]:
    """`forms`, plus the initials of each short name of the directive's names that the commit writes whole: a
    commit adding `--min-bq` has said "base quality" of `--min-base-quality`; plus the commit's words that spell
    out a hyphen-cut word of the directive ("invulnerability" of "i-frames"); with its key for _match (`key` is
    that of `forms`)."""
    if not renamed and not cut:
        return forms, key
    low = _lower(commit.message)
    said = {
        initials: stands
        for short, initials, stands in renamed
        if short in low and re.search(rf"(?<![\w-])-{{0,2}}{re.escape(short)}(?![\w-])", low)
    }
    if cut:
        said.update(spelled_initials(commit.message, cut, verbs))
    if not said:
        return forms, key
    both = {**forms, **said}
    return both, frozenset(both.items())


@lru_cache(maxsize=1 << 12)
def _lower(message: str) -> str:
    """A commit message lower-cased, once per message: the same news commits are candidates for directive after
    directive."""
    return message.lower()


def _match(
    ctx: LintContext,
    terms: frozenset[str],
    commit: Commit,
    forms: tuple[dict[str, frozenset[str]], frozenset[tuple[str, frozenset[str]]]],
    total: float,
) -> WorkMatch:
    """match(terms, commit_work(commit), work_weights(ctx), forms, total), once per run for the same arguments:
    directives that differ only in a number or an id meet the same commit with the same words. Keyed by the
    commit's sha and `forms`' own key (a frozenset hashes once): hashing the commit's work and a tuple of the forms
    anew per candidate was a third of this on the 10,000-commit benchmark."""
    cache = ctx.facts.work_matches
    key = (terms, commit.sha, forms[1], total)
    hit = cache.get(key)
    if hit is None:
        hit = cache[key] = match(terms, commit_work(commit), work_weights(ctx), forms[0], total)
    return hit


def _said(ctx: LintContext, words: frozenset[str], news: News) -> list[Commit]:
    """said_in_subject(words, ...) among the news of `news`, once per (words, as-of point): directives that
    differ only in a number or an id ("stage 3 runner", "stage 4 runner") have the same words."""
    cache = ctx.facts.news_subsets
    key = (("said", words), news.kind, news.base)
    hit = cache.get(key)
    if hit is None:
        hit = cache[key] = said_in_subject(words, work_weights(ctx), news_shas(ctx, news))
    return hit


def _names_other_rows(commit: Commit, ids: frozenset[str]) -> bool:
    """Do the commit's trailers (Row:, Refs:, Claim:) name rows, none of them one of `ids`?"""
    named = _row_trailers(commit)
    return named is not None and not any(_id_re(i).search(named) for i in ids)


@lru_cache(maxsize=1 << 12)
def _row_trailers(commit: Commit) -> str | None:
    """The values of the commit's row trailers joined, None when it has none (once per commit: the same few
    news commits are candidates for directive after directive)."""
    named = [v for k in _ROW_TRAILERS for v in commit.trailer_values(k)]
    return " ".join(named) if named else None


# A tracker's ticket key: APP-902, DATA-1290 (a project key, a dash, a number).
_TICKET = re.compile(r"(?<![\w-])([A-Z][A-Z0-9]{1,9})-(\d+)(?![\w-])")


@lru_cache(maxsize=1 << 15)
def _tickets(text: str) -> frozenset[tuple[str, str]]:
    """The ticket keys in `text`, once per text: the same commit messages are asked about for directive after
    directive (on the 10,000-commit benchmark this regex was a tenth of the stale analysis)."""
    if "-" not in text:
        return frozenset()  # every key has its dash
    return frozenset(_TICKET.findall(text))


# The issue an item is filed under, GitHub style: "(#102)" (or "(#102, #103)") at its end, or "#102:" leading it.
# An issue named inside the sentence ("until #115 is sorted") is another piece of work the item waits for.
_OWN_ISSUES = re.compile(r"\((#\d+(?:\s*,\s*#\d+)*)\)\W*$|^\W*(#\d+)\s*[:—–-]\s")
# A commit settles an issue by GitHub's closing keywords, or names its own number at its subject's end ("(#102)").
_CLOSES = re.compile(r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s+#(\d+)\b", re.I)
_SUBJECT_ISSUE = re.compile(r"\(#(\d+)\)\s*$")


@lru_cache(maxsize=1 << 12)
def own_issues(text: str) -> frozenset[str]:
    """The issue numbers `text` (a directive) is filed under: "(#102)" at its end, "#102:" at its start."""
    if "#" not in text:
        return frozenset()
    m = _OWN_ISSUES.search(text.strip())
    if m is None:
        return frozenset()
    return frozenset(re.findall(r"#(\d+)", m.group(1) or m.group(2)))


def _issue_commits(ctx: LintContext) -> dict[str, list[Commit]]:
    """Issue number -> the commits of the history that settle it, newest first (once per run)."""
    if ctx.facts.issue_commits is None:
        index: dict[str, list[Commit]] = {}
        for c in ctx.get_history().commits:
            if "#" in c.message:
                for n in _closed_issues(c.message):
                    index.setdefault(n, []).append(c)
        ctx.facts.issue_commits = index
    return ctx.facts.issue_commits


@lru_cache(maxsize=1 << 12)
def _closed_issues(message: str) -> frozenset[str]:
    """The issues a commit message settles ("closes #102", "Fixes #7") or names at its subject's end ("(#102)")."""
    if "#" not in message:
        return frozenset()
    found = set(_CLOSES.findall(message))
    m = _SUBJECT_ISSUE.search(message.split("\n", 1)[0])
    if m:
        found.add(m.group(1))
    return frozenset(found)


_LEAD_TICKET = re.compile(r"^\W{0,2}[A-Z][A-Z0-9]{1,9}-\d+\b")


def _names_other_ticket(commit: Commit, tickets: frozenset[tuple[str, str]]) -> bool:
    """Is the commit filed under another ticket than the directive's (or its row's)? It names tickets, none of
    them the directive's, and one is of the directive's project ("APP-910 Dark Mode for the settings screen" is
    not the work of "Dark mode for onboarding (APP-902)"), or its subject opens with one while the directive
    files a ticket number ("PAY-2231 breaker for the ledger client" is not CAT-410's breaker for search). A key
    with a one-digit number may be a name ("GPT-4"), not a ticket."""
    if not tickets:
        return False
    theirs = _tickets(commit.message)
    if not theirs or theirs & tickets:
        return False
    projects = {p for p, _ in tickets}
    if any(p in projects for p, _ in theirs):
        return True
    return _LEAD_TICKET.match(commit.subject) is not None and any(len(n) >= 2 for _, n in tickets)


def _measured(ctx: LintContext, commit: Commit) -> bool:
    """Did the commit say it measured, or write under the evidence root?"""
    if _MEASURED & commit_work(commit).done:
        return True
    root = ctx.config.evidence.root.strip("/")
    return bool(root) and any(p.startswith(root + "/") for p in changed_paths(ctx, [commit]).get(commit.sha, ()))


def _asks_measurement(st: Statement) -> bool:
    return _asks_measurement_text(st.directive_text or st.text)


@lru_cache(maxsize=1 << 10)
def _asks_measurement_text(text: str) -> bool:
    """Does `text` open with a measuring verb (one of its first three words)? Cached: a directive's detectors
    ask it of the same text several times in a row."""
    return any(w in _MEASURE_VERBS for w in _first_words(text))


_WORD_RE = re.compile(r"[a-z][a-z-]*")


@lru_cache(maxsize=1 << 16)
def _first_words(text: str) -> tuple[str, ...]:
    """The first three lower-case words of `text` (what `re.findall(...)[:3]` gives, without reading past them);
    once per text: the history's symbol pass, the detectors' applies and the tests of a directive all ask."""
    return tuple(m.group(0) for m in islice(_WORD_RE.finditer(text.lower()), 3))


def _together(ctx: LintContext, st: Statement, cands: list[_Candidate]) -> tuple[list[_Candidate], WorkMatch] | None:
    """Work that landed in a series of commits: no single commit matches, but the news commits whose trailer names
    the row, taken together, carry the directive's terms as strongly as one strong commit would ("Build the server
    and its load client": one commit builds the server, a later one the load client). Only commits that share at
    least one term count, and the union must match more terms than any one of them. A commit that changed only
    documentation and records builds no piece of it (unless the directive asks for documentation): a row's
    measurement write-ups share its words without doing its work."""
    rank = ctx.get_history().rank
    named = sorted(
        (c for c in cands if c.names == "trailer" and c.work and c.work.matched), key=lambda c: rank(c.commit)
    )
    if len(named) < 2:
        return None
    if not asks_documentation(st):
        paths = changed_paths(ctx, [c.commit for c in named])
        named = [c for c in named if not builds_nothing(paths.get(c.commit.sha, ()))]
        if len(named) < 2:
            return None
    named = _fewest(named)
    if len(named) < 2:
        return None
    done = frozenset().union(*(commit_work(c.commit).done for c in named))
    subject = frozenset().union(*(commit_work(c.commit).subject for c in named))
    together = match(_work_terms(st), CommitWork(done, frozenset(), subject), work_weights(ctx))
    best_single = max(len(c.work.matched) for c in named if c.work)
    if len(together.matched) >= 3 and together.ratio >= STRONG_RATIO and len(together.matched) > best_single:
        return named, together
    return None


MAX_SERIES = 3  # a directive's work landed "as a series" in a few commits; a row's whole stream is not a series


def _fewest(named: list[_Candidate]) -> list[_Candidate]:
    """The commits that, taken greedily by the directive terms each adds, cover what they all match, at most
    MAX_SERIES of them (in history order): eleven commits of an active row that each say a word or two of the
    directive ("h100", "slower") together say much of it without any of them doing it."""
    covered: set[str] = set()
    chosen: list[_Candidate] = []
    left = list(named)
    while left and len(chosen) < MAX_SERIES:
        best = max(left, key=lambda c: len(set(c.work.matched if c.work else ()) - covered))
        gain = set(best.work.matched if best.work else ()) - covered
        if not gain:
            break
        chosen.append(best)
        covered |= gain
        left.remove(best)
    return [c for c in named if c in chosen]


def applies(st: Statement) -> bool:
    if not st.directive:
        return False
    return not any(w in _TARGET_VERBS for w in _first_words(st.directive_text or st.text))


def prepare(ctx: LintContext, statements: list[Statement]) -> None:
    """The history's term weights and word index, and which commits changed which path, when some directive
    names a path: what the tests of every directive read. And the blame of every file a test may date a line of
    (the directives' own, and those holding a done mark a directive may repeat) begun, several git processes at
    once, before the tests are shared out: asked for one at a time, a large record's blame was run in both of
    the processes of history/forked.py."""
    marks = {st.path for done in done_statements(ctx).values() for st, _ in done}
    start_blame(ctx, {st.path for st in statements} | marks)
    work_weights(ctx)
    if any(subject_ids(st) for st in statements):
        ctx.get_history().index_words()  # every row id the directives name is looked up in it
    if any(st.mentions.paths for st in statements):
        path_commits(ctx)


def detect(ctx: LintContext, st: Statement, news: News) -> Reason | None:
    reason = _landed_reason(ctx, st, news) or _twin_reason(ctx, st, news)
    if reason is None or reason.severity == "info":  # words alone: what the code says of a named thing is more
        reason = (
            added_already(ctx, st, news, symbols(st), lambda: _base_rev(ctx, news))
            or named_already(ctx, st, news, symbols(st), lambda: _base_rev(ctx, news))
            or removed_already(ctx, st, news, symbols(st), lambda: _base_rev(ctx, news))
            or bumped_already(ctx, st, news, lambda: _base_rev(ctx, news))
            or _declared_before(ctx, st, news)
            or flipped_already(ctx, st, news)
            or reason
        )
    if reason is not None and reason.commits and landing_reconciled(ctx, st, reason.commits[0][0]):
        reason = None  # the record itself says, further on, in a newer entry or in its header, that this landed
    ctx.facts.landed[id(st)] = reason  # RL401 reads it: a row whose last work landed while its state stays open
    return reason


def _declared_before(ctx: LintContext, st: Statement, news: News) -> Reason | None:
    """Stale on arrival by a name and the words: a commit before the line was written declared in code a name the
    directive names, and its message, subject included, reports the directive's work ("Move `SettingsViewModel` to
    DI (Hilt module `SettingsModule`)" written after "Settings screen uses dependency injection", which declared
    `SettingsModule`). Either alone is not enough: a plan names the helpers that exist ("call `X` from Y"), and
    words alone were right about half the time. A name the directive asks to remove is another matter
    (removed_already)."""
    worked_on = _object_of_verb(st.raw)
    names = [n for n in symbols(st) if not asks_to_remove(st.raw, n) and n != worked_on]
    if not names:
        return None
    history = ctx.get_history()
    rev = _base_rev(ctx, news)
    written = history.by_sha(rev) if rev else None
    if written is None:
        return None
    terms = _work_terms(st)
    if not 3 <= term_count(terms) <= MAX_TERMS_ALONE:
        return None  # a long statement names several pieces of work, or explains the one it asks for
    weights = work_weights(ctx)
    forms = _short_forms(st)
    taken_out = reverts(ctx)
    for name in names:
        if name not in history.symbols:
            continue
        # the words first (cheap), then what the code says (a diff read per commit)
        found: tuple[Commit, WorkMatch] | None = next(
            (
                (c, m)
                for c, d in reversed(history.symbol_deltas(name))
                if d > 0
                and not c.is_merge
                and history.rank(c) < history.rank(written)
                and may_match(terms, cw := commit_work(c), forms, REPORTED_TERMS, REPORTED_SUBJECT)
                and _reports(m := match(terms, cw, weights, forms))
                and not taken_out.undone(c)
                and code_delta(ctx, name, c.sha) > 0
                and declares(ctx, name, c.sha)
            ),
            None,
        )
        if found is None or not in_code_at(ctx, name, written.sha):
            continue
        first, m = found
        phrase = (
            f"directs work that {first.short} ({first.day}, {first.subject!r}: declares `{name}` in code; "
            f"{m.describe(6)}) had already done when the line was written"
        )
        fix = f"drop or strike the directive: {first.short} did the work"
        return Reason("RL101", "warning", phrase, fix, commits=[(first, "landed")], news=news)
    return None


# The name a directive's verb works on ("Extend `RuleRun` model", "Fix the `X` parser"): a name that was there to
# work on, which the commit that created it did not extend, fix or move. A verb of adding is checks/added_already's.
_WORKS_ON = re.compile(
    r"^\W*(?:\[ \]\s*)?(?:\*\*)?([A-Za-z][a-z]+)(?:\s+(?:a|an|the|our|its|this|that|old|existing|current)){0,2}\s+"
    r"\**`([^`\n]+?)(?:\(\))?`"
)
_ADDING = frozenset("add introduce create implement write new build".split())


def _object_of_verb(text: str) -> str | None:
    m = _WORKS_ON.match(text)
    return m.group(2) if m and m.group(1).lower() not in _ADDING else None


def _reports(m: WorkMatch) -> bool:
    """Does a commit's message report the directive's work on its own: most of its terms, two in its subject, none
    refused or said to be missing?"""
    return (
        m.in_subject >= REPORTED_SUBJECT
        and len(m.matched) >= REPORTED_TERMS
        and m.ratio >= REPORTED_RATIO
        and m.refused_ratio < REFUSED
        and not m.partial
        and not m.absent
    )


def _landed_reason(ctx: LintContext, st: Statement, news: News) -> Reason | None:
    if not news.commits:
        return None
    cands = [c for c in _candidates(ctx, st, news) if _after_writing(ctx, st, news, c.commit)]
    found = [c for c in cands if c.strength]
    if found and not asks_documentation(st) and not _asks_measurement(st):  # only docs written: nothing built
        paths = changed_paths(ctx, [c.commit for c in found])
        found = [c for c in found if c.introduced or not builds_nothing(paths[c.commit.sha])]
    strong = [c for c in found if c.strength == "error"]
    if not strong and not _asks_measurement(st):  # no one commit did it all: maybe a series built it
        series = _together(ctx, st, cands)
        if series:
            return _series_reason(series, news)
    if not found:
        return None
    pool = strong or [c for c in found if c.strength == "warning"] or found
    rank = ctx.get_history().rank  # graph order: commit dates can be skewed
    top = max(c.weight for c in pool)
    best = min((c for c in pool if c.weight >= top - 1.0), key=lambda c: rank(c.commit))  # the first that did it
    c = best.commit
    asks = "waits for" if waits_for(st.directive_text or "") else "directs"  # a blocker's need, not its row's work
    phrase = f"{asks} work that landed {c.day} in {c.short} ({c.subject!r}: {best.reasons()})"
    others = sorted((x for x in pool if x is not best), key=lambda x: rank(x.commit))
    if others:
        phrase += " and later in " + ", ".join(x.commit.short for x in others[:3])
    fix = f"drop or strike the directive: {c.short} did the work"
    return Reason(
        "RL101",
        best.strength or "warning",
        phrase,
        fix,
        commits=[(best.commit, "landed")] + [(x.commit, "landed") for x in others],
        news=news,
    )


def _after_writing(ctx: LintContext, st: Statement, news: News, commit: Commit) -> bool:
    """Writing the line is not doing its work, and neither is any commit before it: whoever wrote the line had
    that history in front of them. (News from a named base or date can reach back past the writing commit:
    reports dated the day before they were committed, a base note over rows added later.)"""
    if news.kind not in ("sha", "date"):
        return True  # news from blame already starts after the writing commit
    history = ctx.get_history()
    own = written_by(ctx, st)
    if own is not None and st.kind == "cell":
        own = cell_origin(ctx, st, own)  # a state flip elsewhere in the row does not re-date this cell
    wrote = history.by_sha(own) if own else None
    return wrote is None or commit.sha != wrote.sha and history.rank(commit) > history.rank(wrote)


def _twin_reason(ctx: LintContext, st: Statement, news: News) -> Reason | None:
    """Stale on arrival: another record already marks this work done. The commit that did it is named when
    one reports the same work, before or after the directive was written.

    When the done mark was written decides what it proves. One in the directive's own file contradicts it
    whenever it was written. One in another file written by the same commit is another thing
    its author meant ("session: Completed" beside "merge it: Ready"). One written before the directive was in
    front of whoever wrote it: it counts only when it names most of the directive's work (a mark
    naming a part of it or its topic, "[x] End-to-end protocol run flow" for "Test the .py upload flow end to
    end", is other work) and some commit had done that work by then. One written after the directive is news
    it corroborates: it counts only with a commit between the two that reports the work. A directive that
    asks for a check is done only by a mark that records a check ("Confirm X is green" is not done by "[x] mark
    X green")."""
    terms = _work_terms(st)
    if not may_have_twin(ctx, terms):
        return None  # no statement marked done shares enough terms with it: no twin, whoever wrote it
    history = ctx.get_history()
    rank = history.rank
    wrote = _writing_commit(ctx, st)
    checking = _asks_measurement(st)

    def when(twin: Statement) -> str:
        """'same' (the directive's file), 'before' (the mark was there when the directive was written),
        'after', or '' (no twin: blame cannot date the mark, or one commit wrote both)."""
        if twin.path == st.path:
            return "same"
        sha = written_by(ctx, twin)
        marked = history.by_sha(sha) if sha else None
        if marked is None or wrote is not None and marked.sha == wrote.sha:
            return ""  # one commit writing "done" in one file and "to do" in another meant two different things
        if wrote is None or rank(marked) < rank(wrote):
            return "before"
        return "after"

    weights = work_weights(ctx)

    def accept(twin: Statement, same: bool) -> bool:
        if checking and not _CHECK_STEMS & {stem(w) for w in re.findall(r"[a-z][a-z-]*", twin.text.lower())}:
            return False
        timing = when(twin)
        if same or timing == "same":
            return same and timing == "same"
        return timing == "after" or timing == "before" and _covers(weights, terms, done_terms(twin)) >= MIN_TWIN_NAMES

    # the directive's own file first: its mark needs no commit to say the same
    twin = done_twin(ctx, st, terms, lambda t: accept(t, True)) or done_twin(ctx, st, terms, lambda t: accept(t, False))
    if twin is None:
        return None
    timing = when(twin)
    own = written_by(ctx, st)
    marked_at = history.by_sha(written_by(ctx, twin) or "")
    best: tuple[float, Commit, WorkMatch] | None = None
    docs = asks_documentation(st) or checking
    # oldest first, so that of two commits that match as well the one that did the work first is named (a set's
    # order changes from run to run with Python's string hashing)
    taken_out = reverts(ctx)
    for c in sorted(candidates(terms, weights), key=rank):
        if c.is_merge or c.sha == own or taken_out.undone(c):
            continue
        if timing == "after" and wrote is not None and rank(c) <= rank(wrote):
            continue  # a mark made since the directive corroborates work done since, not before
        if timing in ("before", "after") and marked_at is not None and rank(c) > rank(marked_at):
            continue  # the mark cannot record work that landed after it
        m = match(terms, commit_work(c), weights)
        if not docs and builds_nothing(changed_paths(ctx, [c])[c.sha]):
            continue
        # a mark made since the directive already says which work: a commit since then whose body reports most of
        # it need not say so in its subject ("feat(M0.5): runner foundation" designing the RuleRun state machine)
        said = m.in_subject >= 1 or timing == "after" and m.ratio >= STRONG_RATIO
        if (
            len(m.matched) >= 2
            and m.ratio >= WEAK_RATIO
            and m.refused_ratio < REFUSED
            and said
            and (best is None or m.ratio > best[0])
        ):
            best = (m.ratio, c, m)
    if best is None and timing in ("before", "after"):
        return None  # another file's word alone, with no commit that did the work when it says
    done = " ".join(twin.text.split())
    done = done if len(done) <= 80 else done[:77] + "..."
    phrase = f"lists work {twin.path}:{twin.line} already marks done ({done!r})"
    commits: list[tuple[Commit, str]] = []
    if best is not None:
        c, m = best[1], best[2]
        phrase += f"; it landed {c.day} in {c.short} ({c.subject!r}: {m.describe(6)})"
        commits.append((c, "landed"))
    fix = f"drop or strike the directive: {describe(twin)} records it done"
    # Another record's words, even with a commit saying the same, are not proof it is the same work: a warning.
    return Reason("RL101", "warning", phrase, fix, commits=commits, news=news)


MIN_TWIN_NAMES = 0.5  # share of the directive's (IDF-weighted) work terms an earlier mark in another file names
_CHECK_STEMS = frozenset(stem(v) for v in _MEASURE_VERBS)


def _covers(weights: WorkWeights, terms: frozenset[str], named: frozenset[str]) -> float:
    """IDF-weighted share of `terms` that `named` names."""
    return weights.idf_sum(terms & named) / (weights.idf_sum(terms) or 1.0)


def _writing_commit(ctx: LintContext, st: Statement) -> Commit | None:
    """The commit that wrote the directive (for a table cell, the one before later state flips of its row);
    None for a line not committed yet or one blame cannot date."""
    own = written_by(ctx, st)
    if own is not None and st.kind == "cell":
        own = cell_origin(ctx, st, own)
    return ctx.get_history().by_sha(own) if own else None


def _series_reason(series: tuple[list[_Candidate], WorkMatch], news: News) -> Reason:
    named, together = series
    first, last = named[0].commit, named[-1].commit
    listed = ", ".join(f"{c.commit.short} ({', '.join(c.work.matched[:4]) if c.work else ''})" for c in named[:4])
    more = f" and {len(named) - 4} more" if len(named) > 4 else ""
    rows = ", ".join(sorted({i for c in named for i in c.named}))
    phrase = (
        f"directs work that landed in {len(named)} commits whose trailer names {rows}, "
        f"{first.day} to {last.day}: {listed}{more}; together {together.describe(6)}"
    )
    fix = f"drop or strike the directive: {first.short} .. {last.short} did the work"
    return Reason("RL101", "warning", phrase, fix, commits=[(c.commit, "landed") for c in named], news=news)


def directive_landed(ctx: LintContext) -> list[Hit]:
    """What it does:
    Flags a directive (a punch-list item, a "Remaining"/"Next actions"/"Blockers" cell, a "Next owner must ..."
    bullet) whose work was done by a commit made after the directive was written. A commit counts when a
    trailer or its message names the directive's row or claim and its message shares the directive's
    distinctive terms, or when it introduces in code a symbol, flag or env var the directive names. Work
    that landed as a series (no single commit matches, but the news commits whose trailer names the row
    together carry the directive's terms as strongly as one strong match) is a warning listing them. Each
    match is scored (names the row: +3 trailer / +2 message; introduces a named symbol: +3; term overlap:
    up to +5, by the IDF-weighted share of its distinctive terms found in the message, so words every
    commit uses count little) and the score and reasons are shown; weak matches are warnings, strong ones
    errors. A commit matched by its words alone (no row named, no named file changed, no symbol introduced)
    is information: on records other teams wrote such matches were right about half the time; one that also states
    a number the directive is specified by (a bound, size or count of 100 or more: "bounded at 5,000 entries" /
    "Cap 5000"), with a subject about the work, is a warning. A commit may
    write the work shorter than the directive: a short form of the directive's own adjacent words ("key id" ->
    kid, initials of three words) or a listed synonym (cap, bound -> limit) counts as those words, and an initialism
    the directive writes in capitals ("Ativar CDC") counts as said by a commit that spells it out ("change data
    capture"); a long form is one term, its abbreviation's ("least-recently-used" is LRU, not also "recently" and
    "used"), and a Latin noun meets its verb ("resolution" / "resolved"). Records and commits in Spanish or
    Portuguese meet by Romance stems ("Paginar" / "páginas"), Chinese,
    Japanese and Korean ones by the character bigrams of their text (no spaces there: "粗排特征读取加本地缓存" and
    "粗排特征读取加 Caffeine 本地缓存" share 粗排, 特征, 本地, 缓存), and
    switch words of other languages are enable and disable ("Ativar", "desactivar"); a directive to switch a
    thing on is not done by a commit that switched it off. A directive to remove a name (`Remove the X flag`) is
    done by a commit that took the name out of the code, and one to bump a dependency to a version (`Bump X to
    8.5.0`) by a commit that names the dependency and writes that version into the code: a warning, also when that
    commit came before the line was written (stale on arrival), as is a directive to add a name the code already
    declared then, or to make a metric, setting or route it names in backticks ("Export the buffer depth as a gauge
    (`ingest_buffer_depth`)") that the code declared then, as an identifier or as a string (`Name: "ingest_buffer_depth"`).
    Items under a plan heading in other words and languages ("Future work", "下周计划", "次の作業", "Próximos pasos")
    ask for their work, and so does a status line's note of a pending fix ("🟡 Cart: ... Fix pending: ..."), never
    on a healthy (🟢) line. A directive to flip a flag's default (`flip -http2 default to true`, "activer par défaut") is
    done (an error) by a later commit whose diff flipped that flag's default that way (`flag.Bool("http2", false`
    -> `true`) and was not flipped back, whatever condition the directive waits on. The state or note of a table row not closed that says what the row waits for ("blocked until
    the export API lands (`export_api`)", "waiting on ...") names work left, whoever does it. Work a record
    already marks done (stale on arrival) is a warning: a done mark in the directive's own file always counts;
    one in another file counts when it was written before the directive, names at least half of its work and
    a commit before the mark reports it, or when it was written after the directive and a commit between the
    two reports it, never when one commit wrote both. Every other statement that repeats the
    directive is attached as a related location. A changed file the directive names counts only where the
    change names what the directive names in it (a symbol written beside a `path:line` is code there, whatever it
    ends with); so does a change inside the handler of an HTTP endpoint the directive names (`GET /api/orders`,
    found by indentation, its path whole or in pieces, the method agreeing), whose words it has then said.
    A commit's sentence about what was there before it ("already supported", "works with the build
    we already have") is not work it did. In a section of gates, acceptance criteria, scope,
    dependencies, results, background or design, only a line written as a request (an open box, TODO, Next:,
    a hand-off) is a directive, and a past-tense report or a check recorded at a commit never is. A step label
    (W0, W3-G) counts as named only with its workstream. A finding whose commit the same record already
    records as landed (a LANDED status header, or a later result, "what landed" or dated section naming the
    commit or most of its subject, or in a log kept newest first a newer entry above that names the commit or
    reports the to-do done: "Block-Jacobi statt ILU(0): erledigt am 09.03.") is left out: the plan above is history. A commit filed under another
    ticket (`APP-910` against the directive's or its row's `APP-902`, or a subject led by another tracker's key)
    is not the directive's work, whatever words they share. An item filed under a GitHub issue ("... (#102)" at its
    end, "#102:" at its start) is done by a commit that closes it ("closes #102", or "(#102)" ending its subject),
    as by one naming its ticket, and not by one that closes another issue; an issue named inside the sentence ("until
    #115 is sorted") is one the item waits for, not its own. A directive written after a commit that declared in
    code a name it names (not the one its verb works on: "Extend `RuleRun`" is not done by the commit that created
    `RuleRun`), and whose message, subject included, reports two thirds of the directive's work, was stale on
    arrival (a warning; "Move `SettingsViewModel` to DI (Hilt module `SettingsModule`)" after "Settings screen uses
    dependency injection"): a two-letter initialism in capitals (DI) meets two long words that spell it out, unless
    it is a well-known one (AI, UI), which means what it always means. A
    directive to drop or remove a name is never done by a commit that brought that name in ("Drop `jobs_legacy`"
    and the migration that renamed the old table to `jobs_legacy`). A list item or cell that asks for several pieces of
    work in turn ("turn on X, and rerun Y": each later piece opens with an imperative) is also matched piece by
    piece: a commit that says most of one piece, in its own words, is information. A commit a later commit
    of the history reverted (git's `This reverts commit <sha>.`, or a `revert:` subject naming the sha) did not
    land anything, and neither did the revert; a revert of that revert lands the original again.

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

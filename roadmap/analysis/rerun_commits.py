"""Evidence a commit wrote while saying it did the rerun a directive asks for.

"Next: rerun the May holdout eval with `max_session_len=200`" and a later commit "exp031: rerun May holdout eval
with max_session_len=200, per-length buckets" that adds results/2026-05-24_exp031-len200/: the entry's name shares
no word with the directive, but the commit that wrote it says it reran that very thing. A news commit counts when
its message says a rerun, its subject says the directive's work (two of its terms there, three in all, most of
their weight) and it changed files of evidence entries: those entries answer the rerun.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

from roadmap.analysis.asof import news_shas
from roadmap.analysis.facts import News
from roadmap.analysis.landing import changed_paths, work_weights
from roadmap.analysis.surfaces import work_terms
from roadmap.analysis.work import commit_work, match, said_in_subject, terms_of
from roadmap.records.model import Statement

if TYPE_CHECKING:
    from roadmap.analysis.context import LintContext
    from roadmap.evidence.store import EvidenceEntry

MIN_TERMS, MIN_RATIO = 3, 0.5  # what the commit's message must say of the directive's work terms
REFUSED = 0.3  # share of the unmatched terms it says it did NOT do ("EXP-027 is NOT rerun"): no rerun


def rerun_entries(
    ctx: "LintContext", st: Statement, news: News, says_rerun: Callable[[str], bool]
) -> list["EvidenceEntry"]:
    """The evidence entries (oldest first) that news commits saying they did the directive's rerun wrote."""
    store = ctx.get_evidence()
    if not store.entries or not news.commits:
        return []
    terms = work_terms(st) - _precondition_terms(st)
    if len(terms) < MIN_TERMS:
        return []
    weights = work_weights(ctx)
    # a commit that writes evidence measured (`bench: blocksparse-v2 at 32k on the A100 node`): what it says of
    # the directive's work is enough, whether or not it calls it a rerun; one that writes none must say it reran
    commits = [c for c in said_in_subject(terms, weights, news_shas(ctx, news)) if not c.is_merge]
    written: set[str] = set()
    for c in commits:
        m = match(terms, commit_work(c), weights)
        if len(m.matched) >= MIN_TERMS and m.ratio >= MIN_RATIO and m.refused_ratio < REFUSED and not m.absent:
            paths = changed_paths(ctx, [c])[c.sha]
            if says_rerun(c.message) or any(store.get(p) is not None for p in paths):
                written.update(paths)
    if not written:
        return []
    return [e for e in store.entries if any(p == e.path or p.startswith(e.path + "/") for p in written)]


# "Rerun X once the OOM is fixed": what the clause waits for is no part of what the rerun measures.
_PRECONDITION = re.compile(r"\b(?:once|when|after|as soon as|until|if)\b[^.;]*", re.I)


def _precondition_terms(st: Statement) -> frozenset[str]:
    """The terms only the directive's precondition clauses say ("once the activation-checkpoint OOM is fixed")."""
    text = st.directive_text or st.text
    clauses = " ".join(m.group(0) for m in _PRECONDITION.finditer(text))
    if not clauses:
        return frozenset()
    rest = _PRECONDITION.sub(" ", text)
    return terms_of(clauses) - terms_of(rest)

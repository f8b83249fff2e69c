"""RL103 premise-refuted: a later commit says the measurement or claim a directive rests on was wrong."""
from __future__ import annotations

import re
from functools import lru_cache

from roadmap.analysis.asof import commits_matching, news_subset
from roadmap.analysis.commit_text import MAX_COMMITS
from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import News, Reason
from roadmap.analysis.stale import hits_for
from roadmap.analysis.surfaces import subject_ids
from roadmap.analysis.terms import distinctive_terms, id_parts, overlap
from roadmap.findings import Hit
from roadmap.history.commit import Commit
from roadmap.records.model import Statement

REFUTES = re.compile(
    r"\b(?:is|was|were|are|turned out(?: to be)?|proved|proves)\s+(?:(?:also|simply|actually|therefore|"
    r"in fact)\s+)?(?:wrong|incorrect|mistaken|false|bogus|invalid|refuted|misattributed|not the cause)\b"
    r"|\brefut(?:es|ed|ing)\b|\bdo(?:es)?(?:n't| not) apply\b|\bmisattribut\w*|\bnot the (?:cause|bottleneck)\b",
    re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`(\"'])")
MIN_TERMS = 3


def _sentences(paragraph: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(" ".join(paragraph.split())) if s.strip()]


def _anchors(st: Statement, news: News) -> tuple[set[str], set[str]]:
    """What a refutation must name to be about this statement: (dates, figures). Dates are its as-of date
    and the dates it quotes; figures are the numbers it quotes ("497", "20.975")."""
    dates = set(st.mentions.dates)
    if news.kind == "date" and news.base:
        dates.add(news.base)
    figures = {f.text.split()[0].rstrip("x%") for f in st.mentions.figures if any(ch.isdigit() for ch in f.text)}
    return {d for d in dates if d}, {f for f in figures if f}


@lru_cache(maxsize=4096)
def _value_re(v: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.-]){re.escape(v)}(?![\w-]|\.\d)")


def _names(text: str, values: set[str]) -> bool:
    return any(v in text and _value_re(v).search(text) for v in values)   # a substring first: cheap


@lru_cache(maxsize=MAX_COMMITS)
def _refuting(c: Commit) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The commit's paragraphs that say something was wrong, each with its sentences that say so (the
    part of `_refutation` that does not depend on the statement: once per commit, not per statement)."""
    out = []
    for para in re.split(r"\n\s*\n", c.message):
        if REFUTES.search(para):
            out.append((para, tuple(s for s in _sentences(para) if REFUTES.search(s))))
    return tuple(out)


def _refutation(c: Commit, st: Statement, news: News) -> tuple[str, str] | None:
    """(severity, quoted sentence) when commit `c` refutes the statement's premise.

    Error: the refuting paragraph names the statement's row/claim, or the refuting sentence names its
    checkpoint date or a figure it quotes and the commit names its row/claim. Warning: the sentence names
    a figure it quotes and the paragraph shares its distinctive terms. A date alone is never enough: every
    statement of a file shares its preamble's date."""
    paragraphs = _refuting(c)
    if not paragraphs:
        return None
    ids = set(subject_ids(st))
    names_ids = _names(c.message, ids)
    dates, figures = _anchors(st, news)
    terms: set[str] | None = None
    for para, sentences in paragraphs:
        para_ids = _names(para, ids)
        shared: int | None = None
        for sent in sentences:
            if para_ids or (names_ids and (_names(sent, dates) or _names(sent, figures))):
                return "error", sent
            if _names(sent, figures):
                if shared is None:
                    if terms is None:
                        terms = distinctive_terms(st.text, exclude=id_parts(ids))
                    shared = len(overlap(terms, para).matched)
                if shared >= MIN_TERMS:
                    return "warning", sent
    return None


def applies(st: Statement) -> bool:
    return st.directive


def detect(ctx: LintContext, st: Statement, news: News) -> Reason | None:
    for c in news_subset(ctx, "refutes", lambda: commits_matching(ctx, "refutes", REFUTES.search), news):
        hit = _refutation(c, st, news)
        if hit is None:
            continue
        severity, sentence = hit
        quote = sentence if len(sentence) <= 160 else sentence[:157] + "..."
        phrase = f"on a premise {c.short} ({c.day}) refuted: \u201c{quote}\u201d"
        fix = f"remove the premise {c.short} refuted and say what it found instead"
        return Reason("RL103", severity, phrase, fix, commits=[(c, "refuted")], news=news)
    return None


def premise_refuted(ctx: LintContext) -> list[Hit]:
    """What it does:
    Flags a directive whose premise a later commit refuted: a commit made after the directive was written
    has a sentence saying something "is wrong", "was refuted", "does not apply" or was misattributed, and
    either that paragraph names the directive's row or claim, or the sentence names the directive's
    checkpoint date or a figure it quotes while the commit names the row or claim (an error). A sentence
    naming a quoted figure in a paragraph that shares the directive's terms is a warning. The refuting
    sentence is quoted.

    Why:
    A directive built on a measurement that turned out wrong sends the next person after a cause that does
    not exist; the correction lives only in a commit message nobody rereads.

    Example:
    "Remove the measured main-stream wait" (from the 2026-07-25 checkpoint), and a later commit says "The
    2026-07-25 attribution of 497 cudaStreamSynchronize calls to sample_tokens_async is wrong for this
    workload".

    Fix:
    Records only: drop the refuted premise from every surface of the directive and record what the commit
    found instead.
    """
    return list(hits_for(ctx, "RL103"))

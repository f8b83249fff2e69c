"""RL104 default-changed: a statement calls a flag or feature opt-in, and a later commit turned it on by default."""
from __future__ import annotations

import re
from functools import lru_cache

from roadmap.analysis.asof import commits_matching, news_subset
from roadmap.analysis.commit_text import MAX_COMMITS, message_tokens
from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import News, Reason
from roadmap.analysis.stale import hits_for
from roadmap.analysis.surfaces import subject_ids
from roadmap.analysis.terms import distinctive_terms, hinted, id_parts, is_distinctive, overlap_tokens, tokens
from roadmap.findings import Hit
from roadmap.history.commit import Commit
from roadmap.records.model import Statement

OPT_IN = re.compile(r"\bopt-?in\b|\b(?:off|disabled) by default\b|\bdefault(?:s|ed)?(?: to| is)?[ :=]+"
                    r"(?:off|0|false|disabled)\b|\bexperimental\b|\bnot (?:on|enabled) by default\b", re.I)
FLIPPED = re.compile(r"(?<!not )\b(?:on|enabled|true) by default\b|\bdefault(?:s|ed)?(?: to| is| is now| now)?"
                     r"[ :=]+(?:on|1|true|enabled)\b|\b(?:turn(?:s|ed)?|switch(?:es|ed)?|flip(?:s|ped)?)\b[^.]{0,40}"
                     r"\bon by default\b", re.I)
says_opt_in = hinted(OPT_IN, ("opt", "default", "exper"))     # every OPT_IN match holds one of these
says_flipped = hinted(FLIPPED, ("default",))
_SENTENCE = re.compile(r"(?<=[.!?:;])\s+")
_FLAG = re.compile(r"^(?:--[a-z0-9][\w-]+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)$")


def _flags(st: Statement) -> set[str]:
    return {s for s in (*st.mentions.env_vars, *st.mentions.symbols) if _FLAG.match(s)}


def _feature_words(st: Statement) -> set[str]:
    """Distinctive words right around the opt-in phrase: 'an opt-in mirror' -> {'mirror'}."""
    out: set[str] = set()
    for m in OPT_IN.finditer(st.text):
        before = [t for t in tokens(st.text[max(0, m.start() - 40):m.start()]) if is_distinctive(t)][-2:]
        after = [t for t in tokens(st.text[m.end():m.end() + 30]) if is_distinctive(t)][:2]
        out.update(before + after)
    return out - {"opt"}


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(" ".join(text.split())) if s.strip()]


def applies(st: Statement) -> bool:
    return says_opt_in(st.text)


def detect(ctx: LintContext, st: Statement, news: News) -> Reason | None:
    flags = _flags(st)
    feature = _feature_words(st)
    terms = distinctive_terms(st.text, exclude=id_parts(subject_ids(st)))
    for c in news_subset(ctx, "flips-default", lambda: commits_matching(ctx, "flips-default", says_flipped), news):
        best: tuple[int, str, str, list[str]] | None = None    # (rank, what, sentence, flags named)
        for sent, before in _flip_sentences(c):
            named = sorted(f for f in flags if f in sent and _flag_re(f).search(sent))
            near = [t for t in before if t in feature]
            if named:
                cand = (0, f"`{named[0]}`", sent, named)
            elif near:
                ratio = overlap_tokens(terms, message_tokens(c)).ratio
                if ratio < 0.3:
                    continue
                cand = (1 if ratio >= 0.5 else 2, f"the {near[-1]}", sent, [])
            else:
                continue
            if best is None or cand[0] < best[0]:
                best = cand
        if best is None or _reverted(ctx, news, c, best[3]):
            continue
        rank, what, sent, _ = best
        quote = sent if len(sent) <= 140 else sent[:137] + "..."
        phrase = f"calls {what} opt-in, but {c.short} ({c.day}) turned it on by default: \u201c{quote}\u201d"
        fix = f"say {what} is on by default since {c.short} and name its rollback switch instead of the opt-in"
        return Reason("RL104", "error" if rank < 2 else "warning", phrase, fix,
                      commits=[(c, "default flipped")], news=news)
    return None


def _reverted(ctx: LintContext, news: News, flip: Commit, flags: list[str]) -> bool:
    """A later news commit that turns the same flag back off (and names it) cancels the flip."""
    for c in news_subset(ctx, "opt-in", lambda: commits_matching(ctx, "opt-in", says_opt_in), news):
        if ctx.get_history().rank(c) <= ctx.get_history().rank(flip):    # graph order, not commit dates
            continue
        for sent in _turned_off(c):
            if not flags or any(f in sent for f in flags):
                return True
    return False


@lru_cache(maxsize=MAX_COMMITS)
def _flip_sentences(c: Commit) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(sentence, tokens of the 30 characters before its phrase) for each sentence of the commit (subject,
    then body) that turns something on by default: once per commit, not per statement."""
    out = []
    for sent in [c.subject] + _sentences(c.body):
        m = FLIPPED.search(sent)
        if m:
            out.append((sent, tuple(tokens(sent[max(0, m.start() - 30):m.start()]))))
    return tuple(out)


@lru_cache(maxsize=MAX_COMMITS)
def _turned_off(c: Commit) -> tuple[str, ...]:
    """The commit's sentences that call something opt-in again (and flip nothing on)."""
    return tuple(s for s in _sentences(c.message) if OPT_IN.search(s) and not FLIPPED.search(s))


@lru_cache(maxsize=4096)
def _flag_re(flag: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(flag)}(?![\w-])")


def default_changed(ctx: LintContext) -> list[Hit]:
    """What it does:
    Flags a statement that calls a flag or feature opt-in ("opt-in", "off by default", "experimental",
    "defaults to 0") when a commit made after the statement was written turned it on by default ("enabled
    by default", "defaults to 1", "mirror default ON") and names the same flag or env var (or, weaker, the
    same feature word in a commit about the same work). A later commit turning it back off cancels it.

    Why:
    Readers of the record will think the feature is off unless they ask for it; the rollback switch,
    not the opt-in, is what they need to know.

    Example:
    "Port ... as an opt-in mirror (`VT_ASYNC_DEVICE_MIRROR`, off by default)" while a later commit says
    "VT_ASYNC_DEVICE_MIRROR defaults to 1 and VT_ASYNC_DEVICE_MIRROR=0 is the rollback".

    Fix:
    Records only: say the feature is on by default since that commit and name the rollback switch.
    """
    return list(hits_for(ctx, "RL104"))

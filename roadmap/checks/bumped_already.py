"""RL101 by a version: a directive asks to bump a dependency to a version, and a commit bumped it to that version.

"- [ ] Bump `io.sentry:sentry-android` to 8.5.0" committed on 04-14, while "deps(android): bump
io.sentry:sentry-android 8.3.0 -> 8.5.0" landed on 04-03: the line was stale when it was written. A bump is done by
the commit that (a) names the dependency in its message (the name as written, or its last part: `sentry-android`
of `io.sentry:sentry-android`) and (b) writes that very version into the code (its code diff adds occurrences of
`8.5.0` or `v8.5.0`). A bump to another version (to 3.3.2 for "to 3.4.0") is other work, and so is a commit that
names the dependency without writing the version (a changelog line, a comment). Only dotted versions count: "to
340" or "to 30" may be any setting. A commit before the line was written, whose version the code still holds there,
makes the line stale on arrival; a news commit landed it; a reverted one did neither.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from roadmap.analysis.code_symbols import code_delta, in_code_at
from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import News, Reason
from roadmap.analysis.landing import reverts
from roadmap.history.commit import Commit
from roadmap.records.model import Statement

# The verb the directive opens with, past a list mark, an open box and emphasis (English inflections; German,
# Spanish, Portuguese, French, Dutch forms).
_BUMP = re.compile(
    r"\s*(?:[-*+>]\s+|\d+[.)]\s+)?(?:\[\s\]\s*)?[*_]{0,2}(?:bump|bumps|bumping|upgrade|upgrades|upgrading|update|updates|updating|raise|raises|"
    r"pin|pins|aktualisieren|aktualisiere|anheben|hebe|actualizar|actualiza|subir|sube|atualizar|"
    r"atualize|mettre\s+à\s+jour|passer|bijwerken|upgraden)\b",
    re.I,
)
# German writes the verb last: "`sentry-android` auf 8.5.0 aktualisieren".
_BUMP_LAST = re.compile(r"\b(?:aktualisieren|anheben|heben|updaten|upgraden|bumpen)\W{0,3}$", re.I)
# The preposition and the version ("to 8.5.0", "-> v2.1.20", "auf 8.5.0"), after an optional "from <old>".
_TO_VERSION = re.compile(
    r"(?:\s+(?:from|von|de|desde|van)\s+\S+)?\s+(?:to|->|→|auf|a|para|à|vers|naar|op)\s+`?v?(\d+(?:\.\d+)+"
    r"(?:[-+][0-9A-Za-z.]+)?)`?(?![\w.])",
    re.I,
)
_DOTTED = re.compile(r"\d\.\d")
# A major version pair written with an arrow, no dots: "bump redis 6->7", "node 18 → 20". The arrow makes the bare
# numbers versions; the version bumped to is read from the commit that did it ("redis 6.2 -> 7.1").
_ARROW_MAJOR = re.compile(r"(?<![\w.])v?(\d{1,3})\s*(?:->|→)\s*v?(\d{1,3})(?![\w.])")
_NAME = re.compile(r"`([^`\n]{2,80})`|(?<![\w.:/@-])([A-Za-z@][\w.:/@-]{1,80})")
# Words between the verb and the preposition that name no dependency: articles, conjunctions, prepositions.
_STOP = frozenset(
    """the a an our its all and or to from in of for with on at by version versions dependency dependencies
    und oder der die das den y o e et en de la el le los las""".split()
)


def bumps(text: str) -> list[tuple[str, str]]:
    """(dependency, version) pairs a directive asks to bump to: "Bump `io.sentry:sentry-android` to 8.5.0",
    "Upgrade the Gradle wrapper to 8.12". The dependency is among the last three names before the preposition: the
    one in backticks, else the first that is no article ("Gradle")."""
    if _DOTTED.search(text) is None and _ARROW_MAJOR.search(text) is None:
        return []  # no version to bump to: most directives
    opening = _BUMP.match(text)
    if opening is None and not _BUMP_LAST.search(text[-24:]):
        return []
    out = []
    start = opening.end() if opening else 0
    for m in _ARROW_MAJOR.finditer(text, start):
        if int(m.group(2)) > int(m.group(1)):  # a bump goes up: "6->7"
            near = [
                n for n in _NAME.finditer(text, start, m.start()) if (n.group(1) or n.group(2)).lower() not in _STOP
            ]
            if near:
                out.append(((near[-1].group(1) or near[-1].group(2)).strip(), m.group(2)))
    for m in _TO_VERSION.finditer(text, start):
        near = list(_NAME.finditer(text, start, m.start()))[-3:]
        start = m.end()
        quoted = [n.group(1) for n in near if n.group(1)]
        name = quoted[-1] if quoted else next((n.group(2) for n in near if n.group(2).lower() not in _STOP), None)
        if name is not None:
            out.append((name.strip(), m.group(1)))
    return out


@lru_cache(maxsize=1 << 10)
def _forms(name: str) -> tuple[re.Pattern[str], ...]:
    """How a commit message names the dependency: the name as written, and its last part after `:` or `/` that is no
    major-version suffix (`sentry-android` of `io.sentry:sentry-android`, `pgx` of `github.com/jackc/pgx/v5`)."""
    forms = {name.lower()}
    last = next((p for p in reversed(re.split(r"[:/]", name.lower())) if not _MAJOR.fullmatch(p)), "")
    if len(last) >= 3:
        forms.add(last)
    return tuple(re.compile(rf"(?<![\w.-]){re.escape(f)}(?![\w-])") for f in sorted(forms))


_MAJOR = re.compile(r"v\d+")


def _names(commit: Commit, name: str) -> bool:
    low = _lower(commit.message)
    return any(p.search(low) for p in _forms(name))


@lru_cache(maxsize=1 << 12)
def _lower(message: str) -> str:
    return message.lower()


def _bumped(ctx: LintContext, commit: Commit, version: str) -> str | None:
    """The version the commit writes into the code (added occurrences, `8.5.0` or `v8.5.0`), or None. For a bare
    major version ("7" of "6->7") the dotted ones of that major its message names ("redis 6.2 -> 7.1") are tried."""
    tried = [version] if "." in version else _message_versions(commit.message, version)
    for v in tried:
        if code_delta(ctx, v, commit.sha) > 0 or code_delta(ctx, "v" + v, commit.sha) > 0:
            return v
    return None


def _message_versions(message: str, major: str) -> list[str]:
    return sorted(set(re.findall(rf"(?<![\w.])v?({re.escape(major)}(?:\.\d+)+)(?![\w.])", message)))


def bumped_already(ctx: LintContext, st: Statement, news: News, base: Callable[[], str | None]) -> Reason | None:
    if not st.directive:
        return None
    pairs = bumps(st.raw)
    if not pairs:
        return None
    history = ctx.get_history()
    rev = base()
    written = history.by_sha(rev) if rev else None
    fresh = {c.sha for c in news.commits}
    taken_out = reverts(ctx)
    for name, version in pairs:
        for c in reversed(history.commits):  # oldest first: the commit that bumped to it first
            if c.is_merge or not _names(c, name) or taken_out.undone(c):
                continue
            wrote = _bumped(ctx, c, version)
            if wrote is None:
                continue
            if c.sha in fresh and (written is None or history.rank(c) > history.rank(written)):
                phrase = f"directs work that landed {c.day} in {c.short} ({c.subject!r}: bumps {name} to {wrote})"
            elif (
                written is not None and history.rank(c) < history.rank(written) and in_code_at(ctx, wrote, written.sha)
            ):
                phrase = (
                    f"asks to bump {name} to {wrote}, which {c.short} ({c.day}, {c.subject!r}) had already done "
                    "when the line was written"
                )
            else:
                continue
            fix = f"drop or strike the directive: {c.short} bumped {name} to {wrote}"
            return Reason("RL101", "warning", phrase, fix, commits=[(c, "landed")], news=news)
    return None

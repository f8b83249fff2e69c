"""RL101, stale on arrival by a name: a directive asks to add a symbol that the code already had when it was written.

"add `normalizeTicker` to packages/quotes so ..." written on 05-13, while a commit of 05-11 introduced
`normalizeTicker` in code: whoever wrote the line did not look. Only a request to *add* the very name counts (add,
introduce, create, implement, write, a new `X`), with the name right after the verb, or a planned item titled by
the name ("- [ ] `merge_layers()`: deep-merge ..."): "fix `X`", "call `X` from the
importer", "add retries to `X`" ask for work on a name that exists, and are not this. The commit reported is the
first that declared the name in code (a function, type, model or constant of that name: a comment naming it, or a
call of a library's `afterEach`, declares nothing), strictly before the commit that wrote the line: a plan written
together with the helper it tells others to call is not stale. Nor is a request to spread a name to every one of some
things ("Ensure all ORM models implement the `plr_category` attribute"): the name was there, the rest is the work.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from roadmap.analysis.code_symbols import first_declaration, in_code_at
from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import News, Reason
from roadmap.records.model import Statement

# The verb, then at most three small words ("a", "new", "helper called"), then the name in backticks.
_ADDS = r"\b(?:add|adds|adding|introduce|introduces|create|creates|implement|implements|write|writes|new)\b"
_BETWEEN = r"(?:\s+(?:a|an|the|new|helper|function|method|class|type|hook|util|utility|called|named)){0,3}\s+"


# A planned item titled by the name it adds: "- [ ] `merge_layers()`: deep-merge several config sources".
_TITLED = r"^\s*(?:[-*+]|\d+[.)])?\s*(?:\[ \]\s*)?(?:\*\*)?`{name}(?:\([^`]*\))?`(?:\*\*)?\s*(?::|—|–|-\s)"


# The same two patterns with any name: what stands in the backticks, once per statement. The opening backtick is the
# first one after the verb (or the item's lead), the closing one the next, so the text between is the one a name's
# own pattern would have to match; the lookahead tries every start, as a search for each name does.
_ADDS_ANY = re.compile(rf"(?={_ADDS}{_BETWEEN}`([^`]*)`)", re.I)
_TITLED_ANY = re.compile(_TITLED.format(name="([^`]*)").replace(r"(?:\([^`]*\))?`", "`", 1))


def _asks_to_add_slow(raw: str, name: str) -> bool:
    if re.search(rf"{_ADDS}{_BETWEEN}`{re.escape(name)}(?:\(\))?`", raw, re.I) is not None:
        return True
    return re.match(_TITLED.format(name=re.escape(name)), raw) is not None


@lru_cache(maxsize=1 << 12)
def _added_texts(raw: str) -> tuple[frozenset[str], str | None]:
    """What stands in backticks right after an adding verb in `raw`, and in the backticks that title a planned
    item (None when none does)."""
    titled = _TITLED_ANY.match(raw)
    return frozenset(m.group(1) for m in _ADDS_ANY.finditer(raw)), titled.group(1) if titled else None


def _asks_to_add(raw: str, name: str) -> bool:
    """Does `raw` ask to add `name` (the verb, then `name` or `name()`; or an item titled `name` or `name(...)`)?
    Decided on the statement's backticked texts; a text that equals the name only case-blind outside ASCII, or a
    name holding a backtick, asks the name's own patterns."""
    if "`" in name:
        return _asks_to_add_slow(raw, name)
    added, titled = _added_texts(raw)
    if titled is not None and (
        titled == name or (len(titled) >= len(name) + 2 and titled.startswith(name + "(") and titled.endswith(")"))
    ):
        return True
    for text in added:
        if len(text) != len(name) and len(text) != len(name) + 2:
            continue
        if text.isascii() and name.isascii():
            low, want = text.lower(), name.lower()
            if low == want or low == want + "()":
                return True
        elif _asks_to_add_slow(raw, name):
            return True
    return False


# "Ensure all ORM models ... implement the `plr_category` attribute": the verb's subject is every one of some things,
# so the name is there already somewhere and the work is to spread it to the rest; that is no request to add it.
_EVERY = re.compile(r"\b(?:all|every|each|remaining|other|rest\s+of)\b", re.I)


def _spreads(raw: str, name: str) -> bool:
    """Does a quantifier ("all", "every", "each", "the remaining") stand before the adding verb of `name`?"""
    m = re.search(rf"{_ADDS}{_BETWEEN}`{re.escape(name)}(?:\(\))?`", raw, re.I)
    return m is not None and _EVERY.search(raw, 0, m.start()) is not None


def added_already(
    ctx: LintContext, st: Statement, news: News, names: list[str], base: Callable[[], str | None]
) -> Reason | None:
    if not st.directive or "`" not in st.raw:
        return None
    asked = [n for n in names if _asks_to_add(st.raw, n) and not _spreads(st.raw, n)]
    if not asked:
        return None
    history = ctx.get_history()
    rev = base()
    if rev is None:
        return None
    written = history.by_sha(rev)
    if written is None:
        return None
    for name in asked:
        if name not in history.symbols or not in_code_at(ctx, name, rev):
            continue
        first = first_declaration(ctx, name, written)
        if first is None:
            continue
        phrase = (
            f"asks to add `{name}`, which {first.short} ({first.day}, {first.subject!r}) had already introduced in "
            "code when the line was written"
        )
        fix = f"drop or strike the directive: {first.short} added `{name}`"
        return Reason("RL101", "warning", phrase, fix, commits=[(first, "landed")], news=news)
    return None

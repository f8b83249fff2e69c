"""RL101 by a removal: a directive asks to remove a symbol, and a commit took it out of the code.

"- [ ] Remove the `new_checkout_flow` flag" committed on 04-14, while a commit of 04-06 took `new_checkout_flow` out
of the code: the line was stale when it was written (whoever copied it from an older plan did not look). Or the
line was written while the code still had the name, and a later commit took it out: the work landed, whatever that
commit's message says. The mirror of checks/added_already.py. Only a request to *remove* the very name counts
(remove, delete, drop, retire, rip out, get rid of, and the same verbs of the other languages records are written
in), with the name right after the verb ("Remove the `X` flag", "drop legacy `X`"); "remove the fallback once `X`
lands" asks for other work. A removal is a commit whose code diff removes occurrences of the name and after which
no code file holds it, not reverted since; and the code at HEAD still lacks it (a name added back is there to
remove). Stale on arrival names the last such commit before the line was written; landed, the first one after it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from roadmap.analysis.code_symbols import code_delta, in_code_at
from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import News, Reason
from roadmap.analysis.landing import reverts
from roadmap.records.model import Statement

# The verb (English inflections; German, Spanish, Portuguese, French, Dutch infinitives and imperatives), then at
# most three small words ("the", "old", "feature flag"), then the name in backticks.
_REMOVES = (
    r"\b(?:remove[sd]?|removing|delete[sd]?|deleting|drop(?:s|ped|ping)?|retire[sd]?|retiring|purge[sd]?|purging|"
    r"rip(?:s|ped|ping)?\s+out|get(?:s|ting)?\s+rid\s+of|eliminate[sd]?|"
    r"entfernen|entferne|löschen|lösche|eliminar|elimina|quitar|quita|borrar|borra|remover|remova|excluir|exclua|"
    r"apagar|apague|supprimer|supprime|retirer|verwijderen|verwijder)\b"
)
_BETWEEN = (
    r"(?:\s+(?:a|an|the|this|that|old|legacy|unused|dead|obsolete|deprecated|stale|temporary|feature|flag|toggle|"
    r"setting|option|env|variable|column|table|field|class|function|method|type|helper|hook|el|la|los|las|o|os|as|"
    r"der|die|das|den|le|les|de)){0,3}\s+"
)

_ASKS = re.compile(rf"{_REMOVES}{_BETWEEN}`([^`\n]+?)(?:\(\))?`", re.I)


# What every removal verb above holds, lower-cased: a statement with none of them asks to remove nothing.
_HINTS = (
    "remov", "delet", "drop", "retir", "purg", "rip", "rid", "elimin", "entfern", "lösch", "quit", "borr", "exclu",
    "apag", "supprim", "verwijder",
)  # fmt: skip


@lru_cache(maxsize=1 << 12)
def _removal_targets(raw: str) -> frozenset[str]:
    """The names in backticks right after a removal verb in `raw` (once per statement: every name asks)."""
    low = raw.lower()
    if not any(h in low for h in _HINTS):
        return frozenset()
    return frozenset(m.group(1) for m in _ASKS.finditer(raw))


def asks_to_remove(raw: str, name: str) -> bool:
    """Does `raw` (a statement's markdown) ask to remove `name`, written in backticks right after the verb?"""
    return name in _removal_targets(raw)


def removed_already(
    ctx: LintContext, st: Statement, news: News, names: list[str], base: Callable[[], str | None]
) -> Reason | None:
    if not st.directive or "`" not in st.raw:
        return None
    asked = [n for n in names if asks_to_remove(st.raw, n)]
    if not asked:
        return None
    history = ctx.get_history()
    rev = base()
    written = history.by_sha(rev) if rev else None
    if written is None or ctx.head is None:
        return None
    fresh = {c.sha for c in news.commits}
    taken_out = reverts(ctx)
    for name in asked:
        if name not in history.symbols:
            continue
        if in_code_at(ctx, name, ctx.head):
            continue  # in the code now: there is something to remove
        there = in_code_at(ctx, name, written.sha)  # when the line was written
        removals = [
            c
            for c, d in history.symbol_deltas(name)  # newest first
            if d < 0
            and not c.is_merge
            and not taken_out.undone(c)
            and (
                c.sha in fresh and history.rank(c) > history.rank(written)
                if there
                else history.rank(c) < history.rank(written)
            )
            and code_delta(ctx, name, c.sha) < 0
            and not in_code_at(ctx, name, c.sha)
        ]
        if not removals:
            continue
        if there:  # the first news commit that took it out did the work
            c = removals[-1]
            phrase = f"directs work that landed {c.day} in {c.short} ({c.subject!r}: takes `{name}` out of the code)"
        else:  # the last commit before the line that took it out: the line was stale when written
            c = removals[0]
            phrase = (
                f"asks to remove `{name}`, which {c.short} ({c.day}, {c.subject!r}) had already taken out of the code "
                "when the line was written"
            )
        fix = f"drop or strike the directive: {c.short} removed `{name}`"
        return Reason("RL101", "warning", phrase, fix, commits=[(c, "landed")], news=news)
    return None

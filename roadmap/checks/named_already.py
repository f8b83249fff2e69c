"""RL101, stale on arrival by a name given: a directive asks for a metric, setting or route of a name the code had.

"Export the buffer depth as a Prometheus gauge (`ingest_buffer_depth`)" written on 02-11, while a commit of 02-09
declared that gauge: whoever wrote the line did not look. The directive asks to make (add, export, expose, emit,
publish, register, create, introduce, define) a named thing of a kind that has a name in code (a gauge, counter,
histogram, metric, setting, config key, option, route, endpoint), and gives its name in backticks right after the
kind ("... gauge (`x`)", "... counter `x`", "... metric called `x`").

Such a name is declared as a string as often as an identifier: `Gauge("x", ...)`, `prometheus.NewGauge(GaugeOpts{Name:
"x"})`, `new client.Counter({ name: 'x' })`, `@app.get("/x")`, `"x": 30` in a config. A commit declared the name when
its added code (comment lines left out: analysis/code_symbols.py) declares it as an identifier (code_symbols.declares),
or holds it as a whole string literal on a line that declares a metric, a named field, a route or a setting. The
commit reported is the first such one strictly before the commit that wrote the line, and the code at that commit
still holds the name. A name only mentioned in a comment, in a longer string, or only used (`alert on x`), is none.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from roadmap.analysis.code_symbols import added_code, first_declaration, in_code_at
from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import News, Reason
from roadmap.records.model import Statement

_MAKES = r"(?:add|adds|export|expose|emit|publish|register|create|introduce|define|declare|implement)"
_KIND = (
    r"(?:gauges?|counters?|histograms?|summar(?:y|ies)|metrics?|timers?|meters?|settings?|config(?:uration)?\s+keys?|"
    r"keys?|options?|routes?|endpoints?)"
)
# The verb opening the item (past its box and bold), up to 100 characters of object, the kind, then the name.
_ASKS = re.compile(
    rf"^\W*(?:\[ \]\s*)?(?:\*\*)?{_MAKES}\b[^`\n.;]{{0,100}}?\b{_KIND}\b\**\s*"
    r"(?:\(\s*`([^`\n]+)`\s*\)|`([^`\n]+)`|(?:called|named)\s+`([^`\n]+)`|:\s*`([^`\n]+)`)",
    re.I,
)


@lru_cache(maxsize=1 << 12)
def asked_names(raw: str) -> tuple[str, ...]:
    """The names a directive asks to make as a metric, setting or route ("... as a gauge (`x`)")."""
    m = _ASKS.match(raw.strip())
    if m is None:
        return ()
    return tuple(g.strip() for g in m.groups() if g)


# A line that declares a named thing: a metric's constructor or registration, a `name`/`key`/`path` field, a
# route's registration, a setting read or defined.
_DECLARING_LINE = re.compile(
    r"\b(?:gauge|counter|histogram|summary|metric|meter|timer|register\w*|new\w*(?:gauge|counter|histogram)\w*|"
    r"route|handle(?:func)?|setting|config\w*|getenv|environ)\b|\b(?:name|key|path|id)\s*[:=]|"
    r"@\w+(?:\.\w+)*\.(?:get|post|put|patch|delete|route)\(",
    re.I,
)


def declares_string(ctx: LintContext, name: str, sha: str) -> bool:
    """Does commit `sha` add, in code, `name` as a whole string literal on a line that declares a metric, a named
    field, a route or a setting (the line itself or the one before it: `NewGauge(GaugeOpts{` then `Name: "x",`)?"""
    added = None if "\n" in name else added_code(ctx, sha)
    if added is None or name not in added:
        return False
    literal = re.compile(r"([\"'`])" + re.escape(name) + r"\1")
    lines = added.split("\n")
    for i, line in enumerate(lines):
        if literal.search(line) and (_DECLARING_LINE.search(line) or i > 0 and _DECLARING_LINE.search(lines[i - 1])):
            return True
    return False


def named_already(
    ctx: LintContext, st: Statement, news: News, names: list[str], base: Callable[[], str | None]
) -> Reason | None:
    """A directive asking for a metric, setting or route by a name the code declared before the line was written."""
    if not st.directive or "`" not in st.raw:
        return None
    asked = [n for n in asked_names(st.raw) if n in names]
    if not asked:
        return None
    history = ctx.get_history()
    rev = base()
    written = history.by_sha(rev) if rev else None
    if written is None:
        return None
    for name in asked:
        if name not in history.symbols or not in_code_at(ctx, name, written.sha):
            continue
        first = first_declaration(ctx, name, written, also=declares_string)
        if first is None:
            continue
        phrase = (
            f"asks for `{name}`, which {first.short} ({first.day}, {first.subject!r}) had already declared in code "
            "when the line was written"
        )
        fix = f"drop or strike the directive: {first.short} added `{name}`"
        return Reason("RL101", "warning", phrase, fix, commits=[(first, "landed")], news=news)
    return None

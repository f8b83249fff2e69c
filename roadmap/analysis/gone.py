"""When a record already expects a path to be gone, so a missing path is no news (RL301).

It says so beside it ("(former `x.cpp:378`)", "`src/a.py` was removed"); it plans the removal itself ("Disable/
remove:" and the paths below it, "Delete `old.sh` once ...": once done, every mention of that path in the record
is expected to point nowhere); or it tells how to bring the path back ("Rollback: restore `x.yml`").
"""

from __future__ import annotations

import re

from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import RefSite
from roadmap.analysis.refs import normalise, path_refs, record_lines
from roadmap.records.model import RecordFile, Statement

_GONE = re.compile(
    r"\b(?:deleted|removed|retired|renamed|moved|dropped|gone|replaced|former|formerly|"
    r"previously|obsolete|superseded|no\s+longer|used\s+to)\b",
    re.I,
)
_REMOVAL = re.compile(r"\b(?:remove|delete|drop|retire|disable|deprecate|restore|re-?enable|revert|archive)s?\b", re.I)
_CLAUSE = re.compile(r"[.;!?](?:\s|$)|\|")
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s")


def _around(site: RefSite) -> tuple[str, str]:
    """The clause before the reference (up to 60 characters) and after it (up to 40)."""
    text = site.st.text
    end = site.start + len(site.ref.text)
    return (_CLAUSE.split(text[max(0, site.start - 60) : site.start])[-1], _CLAUSE.split(text[end : end + 40])[0])


def acknowledged_gone(site: RefSite) -> bool:
    """The clause around the reference says it is gone or old, so it is not a stale claim about the present."""
    if site.start < 0:
        return False
    before, after = _around(site)
    return _GONE.search(before) is not None or _GONE.search(after) is not None


def lead_in(ctx: LintContext, rf: RecordFile, st: Statement) -> str:
    """For a nested list item, the line that introduces its list (the parent item, or "Disable/remove:")."""
    lines = record_lines(ctx, rf)
    if not 1 <= st.line <= len(lines):
        return ""
    m = _BULLET.match(lines[st.line - 1])
    if m is None or not m.group(1):
        return ""
    indent = len(m.group(1))
    for n in range(st.line - 2, max(-1, st.line - 60), -1):
        line = lines[n]
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            return line
    return ""


def removal_planned(ctx: LintContext, rf: RecordFile) -> frozenset[str]:
    """Paths the record asks to remove (or tells how to restore): their mentions are expected to dangle."""
    cache = ctx.facts.removal_planned
    if cache is None:
        found: dict[str, set[str]] = {}
        for site in path_refs(ctx):  # one pass for every record
            if site.start < 0:
                continue
            before, _ = _around(site)
            if _REMOVAL.search(before) or _REMOVAL.search(lead_in(ctx, site.rf, site.st)):
                path = normalise(site.ref.path)
                if path:
                    found.setdefault(site.rf.path, set()).add(path)
        cache = ctx.facts.removal_planned = {k: frozenset(v) for k, v in found.items()}
    return cache.get(rf.path, frozenset())

"""RL201 figure-superseded: a record quotes, as current, a figure that a newer figure for the same row replaced."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from roadmap.analysis.asof import news_for
from roadmap.analysis.context import LintContext
from roadmap.analysis.figures_compare import close, comparable, headline, marked_historical
from roadmap.analysis.surfaces import describe
from roadmap.config import glob_match
from roadmap.findings import Hit, Related
from roadmap.records.model import Figure, Statement

_QUALS = ("output", "total", "prefill", "decode", "input", "peak")
_LEADING_DATE = re.compile(r"^\s*\d{4}-\d{2}-\d{2}\b")


@dataclass
class _Stale:
    st: "Statement"
    row: str
    date: str
    old: list["Figure"]
    new: list[tuple[float, str]]                   # the newer figures: (value, text as written)
    source: str                                    # "the canonical row 2a (.agents/roadmap.md:12, 2026-08-07)"
    evidence: dict[str, Any]


def _canonical(ctx: "LintContext", path: str) -> bool:
    return any(glob_match(g, path) for g in ctx.config.canonical_states)


def _quals(fig: "Figure") -> set[str]:
    return {w for w in (fig.metric or "").split() if w in _QUALS}


def _superseded(old: list["Figure"], new: list["Figure"]) -> list["Figure"]:
    out = []
    for f in old:
        peers = [n for n in new if comparable(f, n) and not (_quals(f) and _quals(n) and _quals(f) != _quals(n))]
        if peers and not any(close(f.value, f.text, n.value, n.text) for n in peers):
            out.append(f)
    return out


def _row_label(ctx: "LintContext", t: "Statement") -> str:
    """'row 2a' when the canonical table numbers its rows in a '#' column, else the row id."""
    rf = ctx.record(t.path)
    for table in rf.tables if rf else []:
        if table.line <= t.line <= table.end_line and table.headers and table.headers[0].strip() in ("#", "No", "No."):
            for cells in table.rows:
                if cells and cells[0].line == t.line and cells[0].text.strip():
                    return f"row {cells[0].text.strip()}"
    return t.row_id or "the canonical row"


def _fmt(figs: list[tuple[float, str]]) -> str:
    return ", ".join(dict.fromkeys(text for _, text in figs))


def _text(f: "Figure") -> str:
    return f.text if (" " in f.text or f.text.endswith(("x", "%")) or not f.unit) else f"{f.text} {f.unit}"


def _find(ctx: "LintContext") -> list[_Stale]:
    canon: dict[str, list["Statement"]] = {}
    for st in ctx.statements():
        if _canonical(ctx, st.path) and not st.historical and st.mentions.figures and st.row_id:
            canon.setdefault(st.row_id, []).append(st)
    store = ctx.get_evidence()
    out: list[_Stale] = []
    for st in ctx.statements():
        row = st.row_id or st.defines
        if not row or st.historical or not st.mentions.figures:
            continue
        if st.kind == "item" and _LEADING_DATE.match(st.text):
            continue                     # a dated log entry records what was true that day
        figs = [f for f in st.mentions.figures if f.unit and not marked_historical(st.text, f)]
        date = news_for(ctx, st).date if figs else None
        if not date:
            continue
        newer = [(d, t) for t in canon.get(row, []) if t is not st and (d := news_for(ctx, t).date) and d > date]
        if newer:
            d, t = max(newer, key=lambda x: (x[0], x[1].line))
            old = _superseded(figs, list(t.mentions.figures))
            if old:
                new = [(f.value, _text(f)) for f in t.mentions.figures if any(comparable(o, f) for o in old)]
                src = f"{_row_label(ctx, t)} ({t.path}:{t.line}, {d})"
                ev = {"kind": "statement", "path": t.path, "line": t.line, "date": d, "text": t.text[:200]}
                out.append(_Stale(st, row, date, old, new, src, ev))
            continue
        entries = [e for e in store.by_row.get(row, []) if e.raw and e.date and e.date > date]
        if entries:
            e = entries[-1]
            head = headline(e)
            old = [f for f in figs if f.unit in head and not any(close(f.value, f.text, v) for v in head[f.unit])]
            if old:
                new = [(v, f"{v:.4f}x" if u == "x" else f"{v:.2f} {u}") for u, vs in head.items()
                       for v in vs if any(o.unit == u for o in old)]
                out.append(_Stale(st, row, date, old, new, f"newer evidence {e.name} ({e.date})",
                                  {"kind": "evidence", "path": e.path, "date": e.date}))
    return out


def figure_superseded(ctx: LintContext) -> list[Hit]:
    """What it does:
    Flags figures a record quotes as current for a row (a table cell, a list item) when a newer figure
    for the same row and metric exists: the row's statement in the canonical state file, written after
    the quoting statement (its as-of date, else git blame), or a newer evidence entry of that row with a
    result.json. Figures are compared by unit and metric (TTFT is never compared with TPOT) within the
    rounding they are written with. Struck-through figures, figures called superseded/previous/old where
    they are quoted, historical statements and dated log entries are never flagged. Statements quoting
    the same superseded figures are reported once, the others as related locations.

    Why:
    Old numbers quoted as current mislead every reader who does not open the canonical row, and make the
    row look like it still fails (or passes) when it no longer does.

    Example:
    A plan cell quotes "0.9864x" from 2026-07-25 while the canonical row 2a records "6831.71 vs 6643.40
    tok/s, 1.0283x PASS" since 2026-08-07.

    Fix:
    Records only: replace the figures with the canonical ones (citing the evidence), or strike the old
    figures through (`~~0.9864x~~`) and name what superseded them.
    """
    stale = _find(ctx)
    used: set[int] = set()
    findings = []
    stale.sort(key=lambda s: (-len(s.old), s.st.path, s.st.line))
    for s in stale:
        if id(s) in used:
            continue
        values = {round(f.value, 6) for f in s.old}
        group = [o for o in stale if id(o) not in used and o.row == s.row and values & {round(f.value, 6) for f in o.old}]
        used.update(id(o) for o in group)
        old = ", ".join(_text(f) for f in s.old)
        new = _fmt(s.new)
        others = group[1:]
        label = describe(s.st)
        label = label[:1].upper() + label[1:] + (f" ({s.row})" if s.row not in label else "")
        message = (f"{label} quotes {old} as current "
                   f"(as of {s.date}); {s.source} records {new}")
        if others:
            message += f" [the same figures on {len(others)} other surface{'s' if len(others) > 1 else ''}]"
        related = [Related(o.st.path, o.st.line, f"also quotes {', '.join(_text(f) for f in o.old)} "
                           f"as current: {describe(o.st)}") for o in others]
        where = ", ".join(f"{o.st.path}:{o.st.line}" for o in group)
        fix = (f"Records-only fix at {where}: replace {old} with {new} from {s.source}, or strike the old "
               f"figures through and say what superseded them")
        findings.append(Hit(
            message=message, path=s.st.path, line=s.st.line, end_line=s.st.end_line, record_id=s.row,
            related=related, evidence=[s.evidence], fix=fix,
            key=f"{s.row} {' '.join(sorted(f.text for f in s.old))}"))
    return findings

"""RL201 figure-superseded: a record quotes, as current, a figure that a newer figure for the same series and
metric replaced."""

from __future__ import annotations

from dataclasses import dataclass

from roadmap.analysis.context import LintContext
from roadmap.analysis.figures_compare import close_scaled
from roadmap.analysis.evidence_index import quotes
from roadmap.analysis.figure_marks import echoes
from roadmap.analysis.figure_stale import Stale, with_unit
from roadmap.analysis.supersession import stale_quotes
from roadmap.analysis.surfaces import describe
from roadmap.findings import Hit, Related


@dataclass
class _Surface:
    """The stale quotes of one record line (a statement, or the cells of one table row)."""

    path: str
    line: int
    stale: list[Stale]

    @property
    def row(self) -> str | None:
        return next((s.quote.row for s in self.stale if s.quote.row), None)


def _label(s: Stale) -> str:
    """'the silesia-l3 row at line 9' for a table row with a key, else how surfaces.describe names it."""
    q = s.quote
    if q.st.kind == "cell" and q.row_key and len(q.row_key) <= 60:
        return f"the {q.row_key} row at line {q.st.line}"
    return describe(q.st)


def _old(s: Stale) -> str:
    return with_unit(s.quote.fig.text, s.quote.unit)


def _same_figure(a: Stale, b: Stale) -> bool:
    qa, qb = a.quote, b.quote
    if not close_scaled(qa.fig.value, qa.fig.text, qa.unit, qb.fig.value, qb.unit, qb.fig.text):
        return False
    return bool((qa.row and qa.row == qb.row) or qa.keys & qb.keys or a.source == b.source)


def _surfaces(stale: list[Stale]) -> list[_Surface]:
    by_line: dict[tuple[str, int], _Surface] = {}
    for s in sorted(stale, key=lambda s: (s.quote.st.path, s.quote.st.line, s.quote.fig.start)):
        key = (s.quote.st.path, s.quote.st.line)
        by_line.setdefault(key, _Surface(key[0], key[1], [])).stale.append(s)
    return list(by_line.values())


def figure_superseded(ctx: LintContext) -> list[Hit]:
    """What it does:
    Flags a figure a record quotes as current when a newer figure for the same series and metric says
    otherwise: a newer evidence entry of its series (its result.json, or in a dated folder without one its only
    JSON file or one named like a summary; one it names or cites, its table row names or cites,
    or its section heading names), a newer statement in any record quoting the same table key and metric
    (by as-of date, else git blame; the newest dated row of an append-only benchmark table too), the row's newer statement in the canonical state file, or a record
    that calls that very figure replaced (struck through, "superseded by ...", "previously"). Like is
    compared with like: the metric's words must agree ("compress MB/s" is `compress_mbps`, "RTF" is
    "real-time factor", never TTFT against TPOT), units are converted, and evidence of one of our schemas
    counts only when it measured on the same machine class, model, weights and workload. Struck-through
    figures, figures called previous/old/superseded where they are quoted, targets and budgets ("<= 200
    ms", a Target column), dated entries (a table row led by its date is one run, as of that day) and
    historical statements are never flagged (a log's undated section beside its dated entries, "## Numbers we
    quote", is no entry: current). A line that restates the figures of one row of its record's table, with
    nothing else naming their series ("Current best: 188 TFLOP/s / 2.8 ms"), is about that row's series and
    its columns' metrics. A summary line ("Résumé :", "Summary:", "TL;DR:") quotes its figures as current wherever it
    sits, and a Run or Experiment column names its row's series (`exp-07`), as a Series column does. Each line is one
    finding; other lines quoting the same stale figure are related locations, and lines of one row id are
    one finding.

    Why:
    Old numbers quoted as current mislead every reader who does not open the newest evidence, and make a
    row look like it still fails (or passes) when it no longer does.

    Example:
    `| silesia-l3 | compress MB/s | 412.6 | 20260402-silesia-l3 |` written on 2026-04-03, while
    docs/bench-evidence/20260410-silesia-l3/result.json says `"compress_mbps": 468.9`.

    Fix:
    Records only: replace the figures with the newer ones (citing their evidence), or strike the old
    figures through (`~~0.9864x~~`) and name what superseded them.
    """
    surfaces = _surfaces(stale_quotes(ctx))
    groups: list[list[_Surface]] = []
    used: set[int] = set()
    ranked = sorted(surfaces, key=lambda f: (-len(f.stale), f.path, f.line))
    for s in ranked:  # surfaces of one row quoting the same stale figure are one finding (the seed's)
        if id(s) in used:
            continue
        group = [s] + [
            o
            for o in ranked
            if id(o) not in used
            and o is not s
            and s.row
            and o.row == s.row
            and any(_same_figure(a, b) for a in s.stale for b in o.stale)
        ]
        used.update(id(o) for o in group)
        groups.append(group)
    stale_lines = {(o.path, o.line) for o in surfaces}
    current = [q for q in quotes(ctx) if q.role == "current" and (q.st.path, q.st.line) not in stale_lines]
    findings = []
    for group in groups:
        primary, members = group[0], group[1:]
        others = members + [
            o for o in surfaces if o not in group and any(_same_figure(a, b) for a in primary.stale for b in o.stale)
        ]
        echoed: dict[tuple[str, int], _Surface] = {}
        for q in current:  # lines that repeat the stale figure without naming their series
            hits = [s for s in primary.stale if echoes(s, q)]
            if hits and (q.st.path, q.st.line) not in echoed:
                echoed[(q.st.path, q.st.line)] = _Surface(
                    q.st.path, q.st.line, [Stale(q, hits[0].date, hits[0].new, hits[0].source, hits[0].kind)]
                )
        findings.append(_hit(primary, members, others + list(echoed.values())))
    return findings


def _hit(p: _Surface, members: list[_Surface], others: list[_Surface]) -> Hit:
    lead = p.stale[0]
    st = lead.quote.st
    row = p.row
    old = ", ".join(dict.fromkeys(_old(s) for s in p.stale))
    sources: dict[str, list[str]] = {}
    for s in p.stale:
        sources.setdefault(s.source, []).extend(text for _, text in s.new)
    said = "; ".join(f"{src} records {', '.join(dict.fromkeys(new))}" if new else src for src, new in sources.items())
    label = _label(lead)
    label = label[:1].upper() + label[1:] + (f" ({row})" if row and row not in label else "")
    message = f"{label} quotes {old} as current (as of {lead.date}); {said}"
    if members:
        message += f" [the same figures on {len(members)} other surface{'s' if len(members) > 1 else ''}]"
    related = [
        Related(
            o.path,
            o.line,
            f"also quotes {', '.join(dict.fromkeys(_old(s) for s in o.stale))} as current: {_label(o.stale[0])}",
        )
        for o in others
    ]
    where = ", ".join(f"{o.path}:{o.line}" for o in [p, *members])
    new = ", ".join(dict.fromkeys(t for s in p.stale for _, t in s.new)) or "the newer figures"
    fix = (
        f"Records-only fix at {where}: replace {old} with {new} from {', '.join(sources)}, or strike the old "
        f"figures through and say what superseded them"
    )
    evidence = list({repr(s.evidence): s.evidence for s in p.stale if s.evidence}.values())
    severity = None if any(s.strong for s in p.stale) else "warning"
    key = f"{row or next(iter(sorted(lead.quote.keys)), '')} {' '.join(sorted(s.quote.fig.text for s in p.stale))}"
    return Hit(
        message=message,
        path=p.path,
        line=p.line,
        end_line=st.end_line,
        severity=severity,
        record_id=row,
        related=related,
        evidence=evidence,
        fix=fix,
        key=key,
    )

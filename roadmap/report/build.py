"""LintResult -> Report: the same records, facts and findings `roadmap lint` used, arranged for people.

    result = lint(root, LintOptions())
    report = build_report(result)

Nothing here parses records or re-decides a rule: states and claims are read as RL401 and RL402 read them
(analysis/states.py, analysis/claims.py), as-of points come from analysis/asof.py, verdicts from the findings.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from roadmap.analysis.asof import news_for
from roadmap.analysis.claims import claims, is_active
from roadmap.analysis.refs import fenced_lines
from roadmap.analysis.states import EMPTY_CELL, state_cells
from roadmap.analysis.surfaces import describe, section_name
from roadmap.findings import SEVERITIES, Finding
from roadmap.history.git import GitError, run_git
from roadmap.report.model import ClaimInfo, DirectiveInfo, Point, Reconciliation, Report, RowInfo, Series, Surface

if TYPE_CHECKING:
    from roadmap.analysis.context import LintContext
    from roadmap.evidence.store import EvidenceEntry
    from roadmap.lint import LintResult

STALE_CODES = ("RL101", "RL102", "RL103", "RL104")
MAX_TEXT = 240


def build_report(result: "LintResult") -> Report:
    ctx = result.context
    if ctx is None:
        raise ValueError("build_report needs a LintResult from roadmap.lint.lint() (it carries the context)")
    report = Report(
        head=result.head,
        head_date=_commit_day(ctx, result.head),
        records=result.records,
        summary=result.summary(),
        claims_ttl_days=ctx.config.claims_ttl_days,
        closed_states=ctx.config.closed_states,
    )
    report.series = _series(ctx, report)
    report.rows = _rows(ctx, report.series)
    by_location = _findings_by_location(result.findings)
    report.directives = _directives(ctx, report, by_location)
    report.claims = _claims(ctx, report, by_location)
    report.reconciliations = [
        _reconciliation(f) for f in sorted(result.findings, key=lambda f: (SEVERITIES.index(f.severity), f.sort_key()))
    ]
    return report


def _commit_day(ctx: "LintContext", sha: str | None) -> str | None:
    if sha is None:
        return None
    try:
        return run_git(ctx.root, "show", "-s", "--format=%cs", sha).decode().strip() or None
    except GitError:
        return None


def _days(since: str | None, until: str | None) -> int | None:
    if not since or not until:
        return None
    try:
        return (date.fromisoformat(until) - date.fromisoformat(since)).days
    except ValueError:
        return None


def _number(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def point(e: "EvidenceEntry") -> Point:
    tok = e.metrics.get("output_tok_per_s") if isinstance(e.metrics, dict) else None
    median = _number(tok.get("median")) if isinstance(tok, dict) else None
    peer = next((p for p in e.peers or [] if isinstance(p, dict) and _number(p.get("ratio")) is not None), None)
    complete = peer.get("complete") if peer is not None and isinstance(peer.get("complete"), bool) else None
    return Point(
        date=e.date,
        name=e.name,
        path=e.path,
        tok_s=median,
        peer_ratio=_number(peer.get("ratio")) if peer else None,
        peer_complete=complete,
        row=e.row,
    )


def _series(ctx: "LintContext", report: Report) -> list[Series]:
    try:
        store = ctx.get_evidence()
    except (GitError, OSError) as exc:
        report.notes.append(f"evidence could not be read: {exc}")
        return []
    return [Series(name, tuple(point(e) for e in entries)) for name, entries in sorted(store.by_series.items())]


def _rows(ctx: "LintContext", series: list[Series]) -> list[RowInfo]:
    # the canonical cell wins; otherwise the first cell in path/line order
    cells = sorted(state_cells(ctx), key=lambda c: (not c.canonical, c.cell.path, c.cell.line))
    newest: dict[str, list[tuple[str, bool, str]]] = {}
    for s in series:
        for p in s.points:
            if p.row:
                newest.setdefault(p.row, []).append((p.date or "", p.peer_ratio is None, s.name))
    rows: dict[str, RowInfo] = {}
    for c in cells:
        if c.row_id in rows:
            continue
        # newest entry first; on the same day our runs compared with a peer first, then by series name
        named = sorted(sorted(set(newest.get(c.row_id, []))), key=lambda k: k[0], reverse=True)
        ordered = tuple(dict.fromkeys(name for _, _, name in named))
        rows[c.row_id] = RowInfo(c.row_id, c.state, c.cell.path, c.cell.line, c.canonical, ordered)
    return sorted(rows.values(), key=lambda r: (r.path, r.line))


def _findings_by_location(findings: list[Finding]) -> dict[tuple[str, int], list[Finding]]:
    """Every location a finding names (its own and its related surfaces) -> the findings."""
    out: dict[tuple[str, int], list[Finding]] = {}
    for f in findings:
        for loc in {(f.path, f.line), *((r.path, r.line) for r in f.related)}:
            out.setdefault(loc, []).append(f)
    return out


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def _as_of(ctx: "LintContext", st: Any, report: Report) -> tuple[str | None, str]:
    try:
        news = news_for(ctx, st)
    except GitError as exc:
        note = f"directive ages are unknown: {exc}"
        if note not in report.notes:
            report.notes.append(note)
        return None, "unknown"
    return news.date, news.describe()


def _directives(
    ctx: "LintContext", report: Report, by_location: dict[tuple[str, int], list[Finding]]
) -> list[DirectiveInfo]:
    out: list[DirectiveInfo] = []
    for rf in ctx.records:
        fences = fenced_lines(rf)
        for st in rf.statements:
            text = st.directive_text or st.text
            if (
                not st.directive
                or st.historical
                or st.line in fences
                or text.strip().strip("*_`").lower() in EMPTY_CELL
            ):
                continue
            here = by_location.get((st.path, st.line), [])
            stale = sorted(
                {f.code for f in here if f.code in STALE_CODES}
                | {c for f in here for e in f.evidence for c in e.get("reasons", ()) if c in STALE_CODES}
            )
            closed = sorted({f.code for f in here if f.code == "RL401"})
            verdict = "stale" if stale else "row closed" if closed else "current"
            as_of, source = _as_of(ctx, st, report)
            out.append(
                DirectiveInfo(
                    row_id=st.row_id,
                    path=st.path,
                    line=st.line,
                    where=describe(st),
                    text=_short(text),
                    as_of=as_of,
                    as_of_source=source,
                    age_days=_days(as_of, report.head_date),
                    verdict=verdict,
                    codes=tuple(stale or closed),
                )
            )
    return out


def _claims(ctx: "LintContext", report: Report, by_location: dict[tuple[str, int], list[Finding]]) -> list[ClaimInfo]:
    out: list[ClaimInfo] = []
    closed = ctx.config.closed_state_set
    for c in claims(ctx):
        if c.shape == "file" and not is_active(c, closed):
            continue  # a closed claim file records the claim, it does not list it
        st = c.st
        found = [f for f in by_location.get((st.path, c.line), []) if f.code == "RL402" and f.path == st.path]
        status = (
            "closed, still listed"
            if any(f.severity == "error" for f in found)
            else "idle past TTL"
            if found
            else "active"
            if is_active(c, closed)
            else (c.state or "").lower()
        )
        since = c.since
        if since is None:
            since, _ = _as_of(ctx, st, report)
        where = section_name(st) if st.section else st.path
        out.append(
            ClaimInfo(c.key, st.path, c.line, where, since, _days(since, report.head_date), status, _short(c.text))
        )
    return out


def _reconciliation(f: Finding) -> Reconciliation:
    surfaces = [Surface(f.path, f.line, "reported here")] + [Surface(r.path, r.line, r.message) for r in f.related]
    commits = tuple(
        (e.get("sha", ""), e.get("date") or "", e.get("subject") or "") for e in f.evidence if e.get("kind") == "commit"
    )
    evidence = tuple(
        (e["path"] if e.get("kind") == "evidence" else f"{e.get('path')}:{e.get('line')}", e.get("date") or "")
        for e in f.evidence
        if e.get("kind") in ("evidence", "statement")
    )
    return Reconciliation(
        code=f.code,
        name=f.name,
        severity=f.severity,
        title=f.message,
        record_id=f.record_id,
        surfaces=tuple(surfaces),
        commits=commits,
        evidence=evidence,
        fix=f.fix or "",
        fingerprint=f.fingerprint,
    )

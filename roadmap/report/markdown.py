"""The report as Markdown, for a CI job summary (`roadmap report -o "$GITHUB_STEP_SUMMARY"`) or a file in the tree.

Everything that comes from the records, the history or the evidence is untrusted and goes out through
roadmap/markup.py (`_t` as text, `code` spans), so no record can inject HTML, a heading or a table cell into the
summary; only this module's own words are markup. The only links are the report's own (roadmap/report/links.py):
paths when the report is a file inside the work tree, commits when `commit_url` is configured.
"""

from __future__ import annotations

from dataclasses import dataclass

from roadmap import markup
from roadmap.report import text as t
from roadmap.report.actions import act_on, info_count
from roadmap.report.links import Links
from roadmap.report.model import Reconciliation, Report

_t = markup.text


@dataclass(frozen=True)
class _Refs:
    """Code spans for paths and commits, linked where `links` allows."""

    links: Links

    def at(self, path: str, line: int | None = None, in_table: bool = True, shown: str | None = None) -> str:
        span = markup.code(shown or (f"{path}:{line}" if line is not None else path), in_table)
        return f"[{span}](<{self.links.path(path, line)}>)" if self.links.in_tree else span

    def where(self, text: str) -> str:
        span = markup.code(text)
        return f"[{span}](<{self.links.location(text)}>)" if self.links.in_tree else span

    def commit(self, sha: str) -> str:
        span, url = markup.code(sha[:12]), self.links.commit(sha)
        return f"[{span}](<{url}>)" if url else span


def render_markdown(report: Report, links: Links | None = None) -> str:
    refs = _Refs(links or Links())
    out = [f"# {_t(t.title(report))}", "", _t(t.summary(report)), ""]
    out += [f"> {_t(n)}" for n in report.notes] + ([""] if report.notes else [])
    out += _act_on(report, refs) + _rows(report, refs) + _series(report, refs) + _directives(report, refs)
    out += _claims(report, refs) + _reconciliations(report, refs)
    return "\n".join(out).rstrip("\n") + "\n"


def _act_on(report: Report, refs: _Refs) -> list[str]:
    out = ["## Act on", ""]
    groups, info = act_on(report), info_count(report)
    if not groups:
        more = f" ({info} info findings under Reconciliations)" if info else ""
        return out + [f"Nothing to act on: `roadmap lint` reports no errors or warnings{more}.", ""]
    out += ["| Row, claim or file | Errors | Warnings | What to do |", "|---|---|---|---|"]
    for g in groups:
        key = _t(g.key) + (f" ({_t(g.state)})" if g.state else "") + ("" if g.kind == "row" else f" ({g.kind})")
        items = [
            f"{r.severity} #{n} {r.code} {r.name}: {_t(t.clip(r.title))}"
            + (f" ({refs.at(r.surfaces[0].path, r.surfaces[0].line)})" if r.surfaces else "")
            for n, r in g.items
        ]
        out.append(f"| {key} | {g.errors} | {g.warnings} | {'<br>'.join(items)} |")
    return out + [""]


def _rows(report: Report, refs: _Refs) -> list[str]:
    out = ["## Rows", ""]
    if not report.rows:
        return out + ["No row states found (no `State`/`Status` column in the records).", ""]
    series = report.series_by_name()
    out += ["| Row | State | Evidence series, newest first |", "|---|---|---|"]
    for r in report.rows:
        state = f"{_t(r.state)} ({refs.at(r.path, r.line)}{'' if r.canonical else ', not canonical'})"
        lines = [_t(t.row_evidence(series[name])) for name in r.series[: t.MAX_ROW_SERIES]]
        if len(r.series) > t.MAX_ROW_SERIES:
            lines.append(f"and {len(r.series) - t.MAX_ROW_SERIES} more (see Evidence series)")
        out.append(f"| {_t(r.row_id)} | {state} | {'<br>'.join(lines) or '—'} |")
    return out + [""]


def _series(report: Report, refs: _Refs) -> list[str]:
    out = ["## Evidence series", ""]
    if not report.series:
        return out + ["No evidence entries.", ""]
    out += ["| Series | Row | Entries | Newest | Output | vs peer | Trend |", "|---|---|---|---|---|---|---|"]
    for s in report.series:
        p = t.newest_figure(s)
        row = _t(s.latest.row) if s.latest.row else "—"
        out.append(
            f"| {_t(s.name)} | {row} | {len(s.points)} | {refs.at(p.path, shown=p.name)} | "
            f"{t.tok_s(p.tok_s)} | {_t(t.ratio(p))} | {_t(t.trend(s))} |"
        )
    return out + [""]


def _directives(report: Report, refs: _Refs) -> list[str]:
    out = ["## Open directives", ""]
    if not report.directives:
        return out + ["No open directives.", ""]
    out += ["| Verdict | Age | Row | Where | Directive |", "|---|---|---|---|---|"]
    for d in sorted(report.directives, key=lambda d: (d.verdict == "current", d.path, d.line)):
        verdict = d.verdict + (f" ({', '.join(d.codes)})" if d.codes else "")
        age = t.days(d.age_days) + (f" since {d.as_of}" if d.as_of else "")
        out.append(
            f"| {_t(verdict)} | {_t(age)} | {_t(d.row_id) if d.row_id else '—'} | "
            f"{refs.at(d.path, d.line)} {_t(d.where)} | {_t(d.text)} |"
        )
    return out + [""]


def _claims(report: Report, refs: _Refs) -> list[str]:
    out = ["## Claims", ""]
    if not report.claims:
        return out + ["No active claims.", ""]
    out += [f"| Claim | Status | Idle (TTL {report.claims_ttl_days} days) | Where |", "|---|---|---|---|"]
    for c in report.claims:
        idle = t.days(c.idle_days) + (f" since {c.since}" if c.since else "")
        out.append(f"| {_t(c.claim_id)} | {_t(c.status)} | {_t(idle)} | {refs.at(c.path, c.line)} ({_t(c.section)}) |")
    return out + [""]


def _reconciliations(report: Report, refs: _Refs) -> list[str]:
    out = ["## Reconciliations", ""]
    if not report.reconciliations:
        return out + ["Nothing to reconcile: `roadmap lint` reports no findings.", ""]
    for n, r in enumerate(report.reconciliations, 1):
        out += _one(n, r, refs)
    return out


def _one(n: int, r: Reconciliation, refs: _Refs) -> list[str]:
    row = f" ({_t(r.record_id)})" if r.record_id else ""
    out = [f"### #{n}. {_t(r.code)} {_t(r.name)}{row}: {_t(r.severity)}", "", _t(r.title), ""]
    if r.fix:
        out += [f"**Fix:** {_t(r.fix)}", ""]
    out.append(f"**Surfaces ({len(r.surfaces)}):**")
    out += [f"- {refs.at(s.path, s.line, False)} {_t(s.note)}" for s in r.surfaces]
    if r.commits or r.evidence:
        out += ["", "**Evidence:**"]
        out += [f"- commit {refs.commit(sha)} {_t(day)} {_t(subject)}".rstrip() for sha, day, subject in r.commits]
        out += [f"- {refs.where(where)} {_t(day)}".rstrip() for where, day in r.evidence]
    out += ["", f"<sub>fingerprint {markup.code(r.fingerprint)}</sub>", ""]
    return out

"""The report as ONE self-contained HTML file for people: inline CSS, inline SVG trend plots, no scripts."""
from __future__ import annotations

from html import escape

from roadmap.report import text as t
from roadmap.report.model import Reconciliation, Report
from roadmap.report.svg import trend_svg

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#1b1f24}
h1{font-size:1.5em}h2{margin-top:2em;border-bottom:1px solid #d0d7de;padding-bottom:.2em}
table{border-collapse:collapse;width:100%;margin:.5em 0}th,td{border:1px solid #d0d7de;padding:4px 8px;
text-align:left;vertical-align:top}th{background:#f6f8fa}code{font-size:90%;background:#f6f8fa;padding:0 3px}
.stale,.error,.closed{color:#b42318;font-weight:600}.warning,.row-closed,.idle{color:#9a6700;font-weight:600}
.current,.active{color:#1a7f37}.note{background:#fff8c5;padding:.5em}.series{display:inline-block;
margin:0 1em 1em 0;vertical-align:top}.recon{border:1px solid #d0d7de;border-radius:6px;padding:.2em 1em;
margin:1em 0}.fix{background:#f6f8fa;padding:.4em}.muted{color:#57606a}
svg .plot{fill:#fbfcfd;stroke:#d0d7de}svg .grid{stroke:#eaeef2}svg .line{stroke:#0969da;stroke-width:2}
svg .dot{fill:#0969da}svg .axis{font-size:11px;fill:#57606a}
"""


def _e(s: object) -> str:
    return escape(str(s), quote=True)


def _cls(s: str) -> str:
    return s.split(",")[0].replace(" ", "-").replace("past-TTL", "").strip("-") or "current"


def render_html(report: Report) -> str:
    body = [f"<h1>{_e(t.title(report))}</h1>", f"<p>{_e(t.summary(report))}</p>"]
    body += [f'<p class="note">{_e(n)}</p>' for n in report.notes]
    body += _rows(report) + _series(report) + _directives(report) + _claims(report) + _reconciliations(report)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{_e(t.title(report))}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    out = ["<table>", "<tr>" + "".join(f"<th>{_e(h)}</th>" for h in headers) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows]
    return out + ["</table>"]


def _rows(report: Report) -> list[str]:
    out = ['<h2 id="rows">Rows</h2>']
    if not report.rows:
        return out + ["<p>No row states found (no State/Status column in the records).</p>"]
    series = report.series_by_name()
    rows = []
    for r in report.rows:
        where = f"<code>{_e(r.path)}:{r.line}</code>" + ("" if r.canonical else " (not canonical)")
        lines = [_e(t.row_evidence(series[n])) for n in r.series[:t.MAX_ROW_SERIES]]
        if len(r.series) > t.MAX_ROW_SERIES:
            lines.append(f"and {len(r.series) - t.MAX_ROW_SERIES} more (see evidence series)")
        rows.append([f"<strong>{_e(r.row_id)}</strong>", f"{_e(r.state)}<br>{where}", "<br>".join(lines) or "—"])
    return out + _table(["Row", "State", "Evidence series, newest first"], rows)


def _series(report: Report) -> list[str]:
    out = ['<h2 id="evidence">Evidence series</h2>']
    if not report.series:
        return out + ["<p>No evidence entries.</p>"]
    rows = []
    for s in report.series:
        p = t.newest_figure(s)
        rows.append([_e(s.name), _e(s.latest.row or "—"), str(len(s.points)), f"<code>{_e(p.path)}</code>",
                     _e(t.tok_s(p.tok_s)), _e(t.ratio(p)), _e(t.trend(s))])
    out += _table(["Series", "Row", "Entries", "Newest", "Output", "vs peer", "Trend"], rows)
    plots = [(s, trend_svg(s)) for s in report.series]
    for s, svg in plots:
        if svg:
            out.append(f'<figure class="series"><figcaption><strong>{_e(s.name)}</strong></figcaption>\n'
                       f"{svg}\n</figure>")
    return out


def _directives(report: Report) -> list[str]:
    out = ['<h2 id="directives">Open directives</h2>']
    if not report.directives:
        return out + ["<p>No open directives.</p>"]
    rows = []
    for d in sorted(report.directives, key=lambda d: (d.verdict == "current", d.path, d.line)):
        verdict = _e(d.verdict) + (f" ({_e(', '.join(d.codes))})" if d.codes else "")
        age = _e(t.days(d.age_days)) + (f'<br><span class="muted">{_e(d.as_of_source)}</span>' if d.as_of else "")
        rows.append([f'<span class="{_cls(d.verdict)}">{verdict}</span>', age, _e(d.row_id or "—"),
                     f"<code>{_e(d.path)}:{d.line}</code><br>{_e(d.where)}", _e(d.text)])
    return out + _table(["Verdict", "Age", "Row", "Where", "Directive"], rows)


def _claims(report: Report) -> list[str]:
    out = ['<h2 id="claims">Claims</h2>']
    if not report.claims:
        return out + ["<p>No claims listed as active.</p>"]
    rows = [[f"<strong>{_e(c.claim_id)}</strong>", f'<span class="{_cls(c.status)}">{_e(c.status)}</span>',
             _e(t.days(c.idle_days)) + (f" since {_e(c.since)}" if c.since else ""),
             f"<code>{_e(c.path)}:{c.line}</code> ({_e(c.section)})", _e(c.text)] for c in report.claims]
    return out + _table(["Claim", "Status", f"Idle (TTL {report.claims_ttl_days} days)", "Where", "Text"], rows)


def _reconciliations(report: Report) -> list[str]:
    out = ['<h2 id="reconciliations">Reconciliations</h2>']
    if not report.reconciliations:
        return out + ["<p>Nothing to reconcile: <code>roadmap lint</code> reports no findings.</p>"]
    for n, r in enumerate(report.reconciliations, 1):
        out += _one(n, r)
    return out


def _one(n: int, r: Reconciliation) -> list[str]:
    row = f" ({_e(r.record_id)})" if r.record_id else ""
    out = ['<div class="recon">', f'<h3>{n}. {_e(r.code)} {_e(r.name)}{row}: <span class="{_e(r.severity)}">'
           f"{_e(r.severity)}</span></h3>", f"<p>{_e(r.title)}</p>"]
    if r.fix:
        out.append(f'<p class="fix"><strong>Fix:</strong> {_e(r.fix)}</p>')
    out.append(f"<p><strong>Surfaces ({len(r.surfaces)}):</strong></p><ul>")
    out += [f"<li><code>{_e(s.path)}:{s.line}</code> {_e(s.note)}</li>" for s in r.surfaces]
    out.append("</ul>")
    if r.commits or r.evidence:
        out.append("<p><strong>Evidence:</strong></p><ul>")
        out += [f"<li>commit <code>{_e(sha[:12])}</code> {_e(day)} {_e(subject)}</li>" for sha, day, subject in r.commits]
        out += [f"<li><code>{_e(where)}</code> {_e(day)}</li>" for where, day in r.evidence]
        out.append("</ul>")
    out += [f'<p class="muted">fingerprint <code>{_e(r.fingerprint)}</code></p>', "</div>"]
    return out

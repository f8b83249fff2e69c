"""The report as ONE self-contained HTML file for people, rendered from templates/report.html.j2.

Inline CSS and SVG, no scripts, and a Content-Security-Policy that would block any: the page quotes records,
commit subjects and evidence names, which jinja2's autoescaping keeps as text.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2

from roadmap.report import text as t
from roadmap.report.actions import act_on, info_count
from roadmap.report.links import Links
from roadmap.report.model import Report
from roadmap.report.svg import trend_plot

TEMPLATES = Path(__file__).with_name("templates")


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_html(report: Report, links: Links | None = None) -> str:
    directives = sorted(report.directives, key=lambda d: (d.verdict == "current", d.path, d.line))
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            report=report,
            t=t,
            links=links or Links(),
            groups=act_on(report),
            info=info_count(report),
            series=report.series_by_name(),
            series_index={s.name: i for i, s in enumerate(report.series, 1)},
            plots={s.name: trend_plot(s) for s in report.series},
            directives=directives,
            state_kind=lambda s: t.state_kind(s, report.closed_states),
        )
    )

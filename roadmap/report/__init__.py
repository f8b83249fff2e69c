"""`roadmap report`: the coordination report (docs/report.md), built from the facts and findings of `roadmap lint`."""

from __future__ import annotations

from roadmap.report.build import build_report
from roadmap.report.links import Links, links_for
from roadmap.report.model import Report

FORMATS = ("markdown", "html")


def render_report(report: Report, fmt: str, links: Links | None = None) -> str:
    """`links`: where paths and commits point (roadmap/report/links.py); default repository-relative paths."""
    if fmt == "html":
        from roadmap.report.html import render_html

        return render_html(report, links)
    from roadmap.report.markdown import render_markdown

    return render_markdown(report, links)


__all__ = ["FORMATS", "Links", "Report", "build_report", "links_for", "render_report"]

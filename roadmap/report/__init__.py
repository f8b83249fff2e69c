"""`roadmap report`: the coordination report (docs/report.md), built from the facts and findings of `roadmap lint`."""
from __future__ import annotations

from roadmap.report.build import build_report
from roadmap.report.model import Report

FORMATS = ("markdown", "html")


def render_report(report: Report, fmt: str) -> str:
    if fmt == "html":
        from roadmap.report.html import render_html

        return render_html(report)
    from roadmap.report.markdown import render_markdown

    return render_markdown(report)


__all__ = ["FORMATS", "Report", "build_report", "render_report"]

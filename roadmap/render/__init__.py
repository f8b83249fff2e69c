"""Renderers: LintResult -> text for one output format. They never decide anything, only present."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from roadmap.lint import LintResult

FORMATS = ("text", "json", "sarif", "github", "markdown")


def renderer(fmt: str) -> Callable[..., str]:
    """`render(result, color=False) -> str` for `fmt`, one of FORMATS."""
    if fmt == "text":
        from roadmap.render.text import render
    elif fmt == "json":
        from roadmap.render.json import render
    elif fmt == "sarif":
        from roadmap.render.sarif import render
    elif fmt == "github":
        from roadmap.render.github import render
    elif fmt == "markdown":
        from roadmap.render.markdown import render
    else:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return render


def render(result: "LintResult", fmt: str = "text", color: bool = False) -> str:
    return renderer(fmt)(result, color=color)

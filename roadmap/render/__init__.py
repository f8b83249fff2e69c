"""Renderers: LintResult -> text for one output format. They never decide anything, only present.

ruff's `--output-format` names: `full` (grouped by file, with related surfaces, evidence and fixes; `text` is
its older name), `concise` (one `path:line:col: CODE message` line per finding), `json`, `sarif`, `github`
(workflow commands), `markdown` (a job summary).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from roadmap.config import OUTPUT_FORMATS

if TYPE_CHECKING:
    from roadmap.lint import LintResult

FORMATS = OUTPUT_FORMATS
HUMAN = ("full", "text", "concise")  # the formats with a summary line (--quiet drops it) and colour


def renderer(fmt: str) -> Callable[..., str]:
    """`render(result, color=False[, quiet=False]) -> str` for `fmt`, one of FORMATS (quiet: HUMAN formats)."""
    from roadmap.render import concise, github, json, markdown, sarif, text

    table: dict[str, Callable[..., str]] = {
        "full": text.render,
        "text": text.render,
        "concise": concise.render,
        "json": json.render,
        "sarif": sarif.render,
        "github": github.render,
        "markdown": markdown.render,
    }
    if fmt not in table:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return table[fmt]


def render(result: "LintResult", fmt: str = "full", color: bool = False, quiet: bool = False) -> str:
    if fmt in HUMAN:
        return renderer(fmt)(result, color=color, quiet=quiet)
    return renderer(fmt)(result, color=color)

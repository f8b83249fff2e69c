"""`--format github`: GitHub Actions workflow commands, one annotation per finding."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from roadmap.lint import LintResult

LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def _data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(s: str) -> str:
    return _data(s).replace(":", "%3A").replace(",", "%2C")


def render(result: "LintResult", color: bool = False) -> str:
    lines = []
    for f in result.findings:
        message = f.message + (f" (fix: {f.fix})" if f.fix else "")
        lines.append(
            f"::{LEVELS[f.severity]} file={_prop(f.path)},line={f.line},endLine={f.end_line},"
            f"title={_prop(f'{f.code} {f.name}')}::{_data(message)}"
        )
    return "".join(line + "\n" for line in lines)

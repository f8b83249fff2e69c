"""`--format text` (default): findings grouped by file, rich styling on a terminal, plain text otherwise."""
from __future__ import annotations

import io
from itertools import groupby
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from roadmap.lint import LintResult

STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 or word == 'info' else 's'}"


def render(result: "LintResult", color: bool = False) -> str:
    buf = io.StringIO()
    # soft_wrap: never break a line at the console width (output is read by people and by grep alike)
    console = Console(file=buf, force_terminal=color, no_color=not color, color_system="standard" if color else None,
                      highlight=False, markup=False, emoji=False, soft_wrap=True, width=200)
    for path, group in groupby(result.findings, key=lambda f: f.path):
        console.print(Text(path, style="bold underline"))
        for f in group:
            line = Text("  ")
            line.append(f"{f.line:>5}", style="dim")
            line.append("  ")
            line.append(f"{f.severity:<7}", style=STYLES[f.severity])
            line.append(f" {f.code} ", style="bold")
            line.append(f"{f.name:<20} ", style="dim")
            line.append(f.message.replace("\n", "\n" + " " * 44))
            console.print(line)
            for r in f.related:
                console.print(Text(f"{'':>16}also: {r.path}:{r.line}  {r.message}", style="dim"))
            for e in f.evidence:
                if e.get("kind") == "commit":
                    console.print(Text(f"{'':>16}commit {str(e.get('sha', ''))[:9]} {e.get('date', '')} "
                                       f"{e.get('subject', '')}", style="dim"))
                elif e.get("kind") == "evidence":
                    console.print(Text(f"{'':>16}evidence {e.get('path', '')} {e.get('date', '')}", style="dim"))
            if f.fix:
                fix = Text(f"{'':>16}fix: ", style="green")
                fix.append(f.fix + ("  [safe fix: --fix]" if f.edits else ""))
                console.print(fix)
        console.print()
    s = result.summary()
    if result.findings:
        summary = Text(f"Found {_plural(len(result.findings), 'finding')}: ", style="bold")
        summary.append(f"{_plural(s['error'], 'error')}, {_plural(s['warning'], 'warning')}, "
                       f"{_plural(s['info'], 'info')}")
        fixable = sum(1 for f in result.findings if f.edits)
        if fixable:
            summary.append(f" ({fixable} fixable with --fix)")
    else:
        summary = Text(f"No findings in {_plural(result.records, 'record file')}.", style="bold green")
    if result.suppressed:
        summary.append(f" ({result.suppressed} suppressed by comments)", style="dim")
    console.print(summary)
    return buf.getvalue()

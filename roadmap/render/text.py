"""`--output-format full` (default; `text` is its older name): findings grouped by file, with their related
surfaces, evidence and fix; rich styling on a terminal, plain text otherwise. `quiet`: no summary line."""

from __future__ import annotations

import io
from itertools import groupby
from typing import TYPE_CHECKING

from rich.text import Text

from roadmap.render.style import STYLES
from roadmap.render.style import console as make_console
from roadmap.render.style import plural as _plural

if TYPE_CHECKING:
    from roadmap.lint import LintResult


def render(result: LintResult, color: bool = False, quiet: bool = False) -> str:
    buf = io.StringIO()
    console = make_console(buf, color)
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
                    console.print(
                        Text(
                            f"{'':>16}commit {str(e.get('sha', ''))[:9]} {e.get('date', '')} {e.get('subject', '')}",
                            style="dim",
                        )
                    )
                elif e.get("kind") == "evidence":
                    console.print(Text(f"{'':>16}evidence {e.get('path', '')} {e.get('date', '')}", style="dim"))
            if f.fix:
                fix = Text(f"{'':>16}fix: ", style="green")
                fix.append(f.fix + ("  [safe fix: --fix]" if f.edits else ""))
                console.print(fix)
        console.print()
    if quiet:
        return buf.getvalue()
    s = result.summary()
    if result.findings:
        summary = Text(f"Found {_plural(len(result.findings), 'finding')}: ", style="bold")
        summary.append(
            f"{_plural(s['error'], 'error')}, {_plural(s['warning'], 'warning')}, {_plural(s['info'], 'info')}"
        )
        fixable = sum(1 for f in result.findings if f.edits)
        if fixable:
            summary.append(f" ({fixable} fixable with --fix)")
    else:
        summary = Text(f"No findings in {_plural(result.records, 'record file')}.", style="bold green")
    if result.suppressed:
        summary.append(f" ({result.suppressed} suppressed by comments)", style="dim")
    console.print(summary)
    return buf.getvalue()

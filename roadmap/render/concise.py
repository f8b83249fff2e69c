"""`--output-format concise`: one `path:line:col: CODE message` line per finding, as ruff prints them.

Editors and `grep` read it; `[*]` marks a finding `--fix` can fix. The column is 1: a finding is about a line.
Then a summary line, unless `quiet`.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from rich.text import Text

from roadmap.render.style import STYLES, plural
from roadmap.render.style import console as make_console

if TYPE_CHECKING:
    from roadmap.lint import LintResult


def render(result: LintResult, color: bool = False, quiet: bool = False) -> str:
    buf = io.StringIO()
    console = make_console(buf, color)
    for f in result.findings:
        line = Text()
        line.append(f.path, style="bold")
        line.append(f":{f.line}:1:", style="cyan")
        line.append(" ")
        line.append(f.code, style=STYLES[f.severity])
        line.append(" [*] " if f.edits else " ")
        line.append(" ".join(f.message.split()))  # one line per finding, whatever the message holds
        console.print(line)
    if not quiet:
        s = result.summary()
        if result.findings:
            fixable = sum(1 for f in result.findings if f.edits)
            console.print(
                f"Found {plural(len(result.findings), 'finding')} ({plural(s['error'], 'error')}, "
                f"{plural(s['warning'], 'warning')}, {plural(s['info'], 'info')})."
                + (f"\n[*] {fixable} fixable with `roadmap lint --fix`." if fixable else "")
            )
        else:
            console.print(f"No findings in {plural(result.records, 'record file')}.")
    return buf.getvalue()

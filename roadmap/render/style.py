"""What the human formats (full, concise) share: severity styles, the rich console, plurals."""

from __future__ import annotations

import io

from rich.console import Console

STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def console(buf: io.StringIO, color: bool) -> Console:
    # soft_wrap: never break a line at the console width (output is read by people and by grep alike)
    return Console(
        file=buf,
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=True,
        width=200,
    )


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 or word == 'info' else 's'}"

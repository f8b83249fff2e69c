"""Record text made inert for the Markdown outputs (roadmap/report/markdown.py, roadmap/render/markdown.py).

Records, commit messages and evidence names are untrusted: on a CI job summary, a record's
`&lt;img src=x onerror=...&gt;` (an `<img>` once markdown-it decodes it) must show as text, and a series named
"a|b\\n# Pwned" must neither split a table cell nor start a heading. Every piece of outside text goes out
through one of these functions; what they return is literal text in any Markdown renderer (CommonMark, GFM).
"""

from __future__ import annotations

import re

# The ASCII punctuation that starts or ends inline markup anywhere on a line (CommonMark lets a backslash
# escape any ASCII punctuation and then shows it as itself); `#`, `+`, `-`, `=` and `1.`/`1)` only matter at
# the start of a line (heading, list, setext underline), so only there are they escaped, and paths and
# names stay readable.
_ESCAPE = re.compile(r"([\\`*_\[\]<>|~&])")
_LEADING = re.compile(r"^([#+\-=])|^(\d{1,9})([.)])(?=\s|$)")


def text(s: str) -> str:
    """`s` as literal inline Markdown on one line: whitespace runs (newlines included) become one space and
    every markup character is backslash-escaped; safe inside a table cell (the `|` is escaped too)."""
    flat = _ESCAPE.sub(r"\\\1", " ".join(s.split()))
    return _LEADING.sub(lambda m: f"\\{m.group(1)}" if m.group(1) else f"{m.group(2)}\\{m.group(3)}", flat)


def code(s: str, in_table: bool = False) -> str:
    """`s` as an inline code span on one line: a fence longer than any backtick run in it, so nothing inside
    closes it early. No HTML is live in a code span; in a table cell (`in_table`) `|` is escaped, since GFM
    splits cells on it even inside code (and shows the escaped one as `|`)."""
    flat = " ".join(s.split())
    if in_table:
        flat = flat.replace("|", "\\|")
    longest = max((len(m) for m in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat.strip() else ""
    return f"{fence}{pad}{flat}{pad}{fence}"

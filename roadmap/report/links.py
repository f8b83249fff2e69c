"""Where the report's paths, commits and evidence link to.

    links = Links(base="../", commit_url="https://github.com/OWNER/REPO/commit/{sha}")
    links.path("agents/roadmap.md", 12)   # '../agents/roadmap.md#L12': relative to the report file
    links.commit("3f2a...")               # the configured URL, or None (commits are then not links)

Paths are relative to where the report is written (`base` leads from its directory to the repository's root),
so the links work in a checkout and in a published copy of the tree; `#L12` is the line anchor GitHub's
file view understands and a browser ignores on a local file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

# record and commit text is untrusted: only these schemes may come out of a configured template
_SCHEMES = ("https://", "http://")


@dataclass(frozen=True)
class Links:
    base: str = ""  # from the report's directory to the repository's root ("" or ending in "/")
    commit_url: str = ""  # config `commit_url`, with {sha}
    in_tree: bool = False  # the report is a file inside the work tree: Markdown links its paths too

    def path(self, path: str, line: int | None = None) -> str:
        href = self.base + quote(path, safe="/")
        return f"{href}#L{line}" if line else href

    def location(self, text: str) -> str:
        """`path:line` or `path` (how a finding's evidence names a statement or an evidence entry)."""
        path, _, line = text.rpartition(":")
        return self.path(path, int(line)) if path and line.isdigit() else self.path(text)

    def commit(self, sha: str) -> str | None:
        if not self.commit_url or not sha or not self.commit_url.startswith(_SCHEMES):
            return None
        if any(c in self.commit_url for c in "<>\"' \n\\"):  # it must stay one link destination in HTML and Markdown
            return None
        return self.commit_url.replace("{sha}", quote(sha, safe=""))


def links_for(root: Path, output: str | None, commit_url: str) -> Links:
    """Links for a report written to `output` (None: stdout, read from the repository's root)."""
    if not output:
        return Links("", commit_url)
    where = Path(output).resolve().parent
    rel = os.path.relpath(root.resolve(), where).replace(os.sep, "/")
    return Links("" if rel == "." else rel + "/", commit_url, where.is_relative_to(root.resolve()))

"""Did a commit change the thing a directive names in a file, or only the file?

"Wire it at the `MoeGroupedGemmNvfp4` call site (`cuda_matmul_nvfp4.cu`)" is not done by a commit that fixes a
scratch buffer elsewhere in that file. When the directive names code symbols, a commit that changed the file
counts as touching its work only when a line it added or removed names one of them.
"""

from __future__ import annotations

import re
from functools import lru_cache

from roadmap.analysis.context import LintContext
from roadmap.history.git import show_patch

MAX_DIFF_BYTES = 1 << 20


@lru_cache(maxsize=1024)
def _changed_lines(root: str, sha: str, path: str) -> str:
    """The lines `sha` added or removed in `path` (capped): a commit's diff never changes, so once per process."""
    out = show_patch(root, sha, path)
    text = out[:MAX_DIFF_BYTES].decode("utf-8", "replace")
    return "\n".join(line for line in text.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---")))


def changes_named(ctx: LintContext, sha: str, path: str, names: frozenset[str]) -> bool:
    """Did `sha` add or remove a line of `path` that names one of `names` (True when the directive names none)?"""
    if not names:
        return True
    text = _changed_lines(str(ctx.root), sha, path)
    return any(n in text and _whole(n).search(text) for n in names)


@lru_cache(maxsize=4096)
def _whole(name: str) -> re.Pattern[str]:
    """`MoeGroupedGemmNvfp4` as a whole identifier: not the start of `MoeGroupedGemmNvfp4Wmma`."""
    return re.compile(rf"(?<![\w]){re.escape(name)}(?![\w])")

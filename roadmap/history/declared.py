"""The names a commit declares in the code it adds (`+def continues(...)`, `+func (r *Runner) Step(`): what its
author called the work. Read from `git show -U0` text, or from the history pass's own patch stream, which carries
the same lines (log_stream.py), so no commit needs a `git show` of its own.

The stream's copy differs from `git show`'s only in its full blob ids on `index` lines, which hold no name and no
parenthesis; its names are kept only while its patch is within MAX_DIFF_BYTES, where `git show`'s shorter copy is
not cut either. `PATTERN_ID` names the pattern, so a cache written under another one is not read as this one's.
"""

from __future__ import annotations

import hashlib
import re

# A name the commit declares in code (a function, type or constant it adds).
DECLARED = re.compile(
    r"^\+\s*(?:export\s+|pub(?:\([a-z]+\))?\s+|static\s+|async\s+|public\s+|private\s+)*"
    r"(?:def|func|fn|function|class|struct|enum|trait|interface|type|const|let|var)\s+"
    r"(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]{3,})",
    re.M,
)
MAX_DIFF_BYTES = 1 << 20  # of a commit's patch text read for names
PATTERN_ID = hashlib.sha256(f"{DECLARED.pattern}\0{MAX_DIFF_BYTES}".encode()).hexdigest()[:12]
# DECLARED with its line start written as the newline before it: a `^` under re.M is tried at every position of
# the text, a literal "\n+" is skipped to. Searched in the text after a "\n", it finds the same names.
_AFTER_NEWLINE = re.compile("\n" + DECLARED.pattern.removeprefix("^"))


def declared_names(patch: bytes) -> frozenset[str]:
    """The names declared on the `+` lines of a `-U0` patch (its first MAX_DIFF_BYTES bytes)."""
    text = "\n" + patch[:MAX_DIFF_BYTES].decode("utf-8", "replace")
    return frozenset(m.group(1) for m in _AFTER_NEWLINE.finditer(text))

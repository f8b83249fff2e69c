"""Step labels: W0, W1, M0.7, L6, G0, W3-G, H-A name a step of one workstream, not a piece of work.

Every workstream numbers its steps from the same few letters, so "W0/W1" in a commit for one spec says nothing
about the W0 of another. A label is therefore no work term of a directive, and a commit that names a label the
directive is filed under counts as naming it only when it also names the workstream: another of the directive's
rows or claims, or the words of the record's title that the directive does not use itself.
"""

from __future__ import annotations

import re
from functools import lru_cache

from roadmap.analysis.work import terms_of
from roadmap.history.commit import Commit
from roadmap.records.model import Statement

# A letter or two and a step number ("W0", "M0.7", "L6"), in a series the text numbers ("W0 ... then W1").
_NUMBERED = re.compile(r"(?<![\w.-])([A-Z]{1,2})(\d{1,2})(?:\.\d+)?(?![\w-])")
# An id that is only a step: a letter(s)+number with a suffix ("W3-G", "L6-1") or a lettered hypothesis ("H-A").
_STEP_ID = re.compile(r"^(?:[A-Z]{1,2}\d{1,2}(?:\.\d+)?-[A-Z0-9]{1,2}|[A-Z]-[A-Z0-9]{1,2})$")


@lru_cache(maxsize=8192)
def step_terms(text: str) -> frozenset[str]:
    """The work-term forms of the step labels a text numbers in series: two or more labels with one letter."""
    found: dict[str, set[str]] = {}
    for m in _NUMBERED.finditer(text):
        found.setdefault(m.group(1), set()).add(m.group(0))
    labels = [label for group in found.values() if len(group) >= 2 for label in group]
    return terms_of(" ".join(labels)) if labels else frozenset()


def is_step_id(i: str) -> bool:
    return _STEP_ID.match(i) is not None


def names_workstream(commit: Commit, st: Statement, named: tuple[str, ...], ids: frozenset[str]) -> bool:
    """Does a commit that names only step labels of the directive (`named`) also name whose steps they are: another
    row or claim of the directive, or two words of the record's title that the directive does not use?"""
    if any(not is_step_id(i) for i in named):
        return True
    message = commit.message
    if any(i in message for i in ids if not is_step_id(i)):
        return True
    title = st.section[0] if st.section else ""
    for i in ids:
        title = title.replace(i, " ")
    # the workstream's own name: the title's words that the directive does not use for its step's work
    wanted = terms_of(title) - step_terms(title) - terms_of(st.directive_text or st.text)
    return len(wanted & terms_of(message)) >= min(2, len(wanted)) if wanted else False

"""A status line's note of work pending: "🟡 **Cart**: ... Fix pending: release the reservation ...".

A status page keeps one line per component, its state as a traffic light or a word, and for one not healthy a note
of the work under way or waiting: "Fix pending: ...", "Mitigation in progress: ...", "Pending: ...", "Corrección
pendiente: ...", "修复中：...", "対応予定：...". The note asks for that work as a "Next:" does: once the work lands,
the line is stale. It is read only as a label opening a clause (the line's start, or after a sentence's end, a
dash or a parenthesis) and followed by its work; a healthy line (🟢, ✅) has nothing pending, whatever it says
of its history ("🟢 Cart: healthy since the fix pending in March landed").
"""

from __future__ import annotations

import re

# Where a label may open a clause: the line's start past its marks, or after a sentence's end, a dash, a parenthesis.
_OPENS = r"(?:^[\W_]{0,6}|(?<=[.;!?。；！？)])\s*|\s[-–—]\s+|\(\s*)"
_WORK = (
    r"(?:fix|fixes|patch|hotfix|remediation|mitigation|rollout|roll-out|change|work|migration|upgrade|release|"
    r"deploy(?:ment)?|cleanup|clean-up|solution|workaround)"
)
_STATE = r"(?:pending|planned|in\s+progress|under\s*way|scheduled|in\s+flight|in\s+review|coming|queued|tbd)"
_LABEL = re.compile(
    _OPENS + r"\**(?P<label>"
    rf"{_WORK}\s+{_STATE}|(?:pending|planned|scheduled|upcoming|queued)\s+{_WORK}|pending|in\s+progress|"
    # Spanish, Portuguese, French, Italian, German, Dutch, Polish
    r"(?:correcci[oó]n|arreglo|soluci[oó]n|parche|correç[aã]o|solu[cç][aã]o|correctif|correction|"
    r"correzione|fix|l[oö]sung|oplossing|poprawka)\s+(?:pendiente|prevista|previsto|pendente|prévue?|en\s+cours|"
    r"in\s+corso|ausstehend|geplant|in\s+arbeit|gepland|in\s+uitvoering|w\s+toku|planowana)|"
    r"pendiente|pendente|en\s+cours|in\s+corso|in\s+arbeit|ausstehend|in\s+uitvoering|w\s+toku|"
    # Chinese, Japanese, Korean
    r"修复中|修復中|待修复|待修復|计划修复|計劃修復|处理中|處理中|对应中|対応中|対応予定|修正予定|修正中|"
    r"수정\s*예정|수정\s*중|조치\s*예정|진행\s*중"
    r")\**\s*[:：]\**\s*(?=\S)",
    re.I | re.M,
)
# A healthy line: nothing is pending on it.
_HEALTHY = re.compile(r"^[\W_]{0,4}(?:🟢|✅|✔|☑|💚|\[(?:ok|green|healthy)\])", re.I)
_NOTHING = re.compile(r"\W*(?:none|nothing|n/?a|nil|—|–|-)\W*$", re.I)


def pending_note(text: str) -> re.Match[str] | None:
    """The label of a note of pending work in `text` ("Fix pending:"), where it opens a clause and some work
    follows; None on a healthy line or when none does."""
    if _HEALTHY.match(text):
        return None
    for m in _LABEL.finditer(text):
        rest = text[m.end() :]
        cut = re.split(r"[.;。；]\s", rest, maxsplit=1)[0]
        if not _NOTHING.match(cut):
            return m
    return None

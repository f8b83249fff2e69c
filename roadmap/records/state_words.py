"""State words as records write them: the leading word of a State/Status cell or line, case-insensitively,
multi-word states ("in progress", "on hold") and status emoji (✅, 🚧) included.

Only a LEADING state word is a state: `FAILED/open at 55/124` is not OPEN, `**GATING** since 2026-07-25` is
GATING. Words are normalised to upper case with hyphens (`in progress`, `In-Progress` and `IN_PROGRESS` are
IN-PROGRESS). `leading_word` returns the label a state position starts with even when no vocabulary knows it,
so a caller can say so instead of ignoring it.
"""

from __future__ import annotations

import re

# Status emoji a team writes instead of a word.
EMOJI = {
    "✅": "DONE",
    "✔️": "DONE",
    "✔": "DONE",
    "☑️": "DONE",
    "☑": "DONE",
    "🚧": "IN-PROGRESS",
    "⏳": "IN-PROGRESS",
    "🔄": "IN-PROGRESS",
    "⏸️": "PAUSED",
    "⏸": "PAUSED",
    "🛑": "BLOCKED",
    "⛔": "BLOCKED",
    "☐": "OPEN",
    "⬜": "OPEN",
    "🔲": "OPEN",
}
_ALIASES = {"WONT-FIX": "WONTFIX", "WONT-DO": "WONTFIX", "WORK-IN-PROGRESS": "WIP"}
# Markup and punctuation that may wrap a state (`**DONE**`, `` `READY` ``, `[WIP]`, `*done*`).
_WRAP = " \t*_`[]()<>\"'~|:"
# A label token: letters (accented ones too: "Concluído", "Terminé"), inner hyphens/underscores/apostrophes
# ("ANCHOR-BACKFILL", "won't"), no digits.
_TOKEN = r"[A-Za-zÀ-ÖØ-öø-ÿ][A-Za-zÀ-ÖØ-öø-ÿ'’]*(?:[-_][A-Za-zÀ-ÖØ-öø-ÿ][A-Za-zÀ-ÖØ-öø-ÿ'’]*)*"
_LABEL = re.compile(rf"({_TOKEN})(?:[ ]({_TOKEN}))?")
# What may follow a state label that is the whole label of its cell or line: nothing, a separator, a date,
# an owner, or a preposition that starts a note ("done since 2026-07-25", "blocked on the kernel release").
_LABEL_END = re.compile(
    r"\s*(?:$|[(\[:;,.—–/|!]|-\s|@|\d{4}-\d\d-\d\d|(?:since|on|at|as|by|in|for|until|after|"
    r"with|pending|from|via|per|until|—)\b)",
    re.I,
)


# A legend pair: a status emoji and the words it stands for ("🔴 not started", "🟡 = at risk", "✅: done").
_LEGEND_PAIR = re.compile(
    r"([^\x00-\x7f\w\s·•|,;/()\[\]][\ufe0f\u200d]?)\s*[=:–—-]?\s*([A-Za-zÀ-ÖØ-öø-ÿ][A-Za-zÀ-ÖØ-öø-ÿ' -]{0,30}?)\s*"
    r"(?=$|[·•|,;/).]|\s[^\x00-\x7fÀ-ÖØ-öø-ÿ])"
)


def legend(lines: list[str]) -> dict[str, str]:
    """The emoji a record's own legend defines ("Status legend: ✅ done · 🔴 not started"), each mapped to its
    words: a line with two or more emoji-and-words pairs. A team's legend says what its marks mean; no table of
    ours can (🔴 is "not started" on one board and "off track" on another)."""
    found: dict[str, str] = {}
    for line in lines:
        if line.isascii() or line.lstrip().startswith("|"):
            continue
        pairs = _LEGEND_PAIR.findall(line)
        if len(pairs) >= 2 or pairs and "legend" in line.lower():
            for mark, words in pairs:
                found.setdefault(mark.rstrip("\ufe0f\u200d"), words.strip())
    return found


def norm(word: str) -> str:
    """`in progress` / `In_Progress` / `in-progress` -> IN-PROGRESS; `won't fix` -> WONTFIX."""
    w = re.sub(r"[\s_]+", "-", word.strip().upper().replace("’", "").replace("'", ""))
    return _ALIASES.get(w, w)


def _emoji(rest: str) -> str | None:
    if not rest or rest[0].isascii():
        return None
    return next((state for mark, state in EMOJI.items() if rest.startswith(mark)), None)


def leading_state(text: str, vocabulary: frozenset[str]) -> str | None:
    """The known state the text starts with (two words before one: "in progress" before "in"), or None."""
    rest = text.lstrip(_WRAP)
    found = _emoji(rest)
    if found:
        return found
    m = _LABEL.match(rest)
    if not m:
        return None
    if m.group(2):
        two = norm(f"{m.group(1)} {m.group(2)}")
        if two in vocabulary:
            return two
    one = norm(m.group(1))
    return one if one in vocabulary else None


def leading_word(text: str, words: int = 2) -> str | None:
    """The label a state position starts with when it is a label (up to `words` words, then nothing or a
    separator), normalised; None for prose, numbers and emoji. For reporting words the vocabulary lacks."""
    rest = text.lstrip(_WRAP)
    m = _LABEL.match(rest)
    if not m:
        return None
    if _LABEL_END.match(rest[m.end(1) :].lstrip("*_`~")):
        return norm(m.group(1))
    if words > 1 and m.group(2) and _LABEL_END.match(rest[m.end(2) :].lstrip("*_`~")):
        return norm(f"{m.group(1)} {m.group(2)}")
    return None

"""What kind of record a file is, from its path, title, preamble and status line (config KINDS).

A `template` is an example to copy from (a templates/ folder, `template` in its name). A `closed` spec or plan
records finished work: it sits in a completed/, archive/ or history/ folder, its own Status line or front-matter
status leads with a closed state, or its title says it is finished ("(DONE)", "completion summary"). A `log` is an
append-only record of what happened: its title ends with log/ledger/journal/history, its preamble says it is
append-only or newest last/first, its name says so, or it is a dated entry in a logs/ folder. A `process` record
says how to work (skills/, workflows/, rules/ folders, AGENTS.md, CONTRIBUTING.md, *-guide.md). Anything else is
`current`. Config `kinds` overrides all of this.
"""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from roadmap.records.blocks import Block
from roadmap.records.patterns import ISO_DATE
from roadmap.records.state_words import leading_state

if TYPE_CHECKING:
    from roadmap.config import Config

_MONTHS = {
    m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)
}
_MON = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_LEAD_DATE = re.compile(
    rf"^\W{{0,6}}(?:({ISO_DATE})|(\d{{1,2}})\s+({_MON})\s+(\d{{4}})|({_MON})\s+(\d{{1,2}}),?\s+(\d{{4}})"
    r"|(20\d\d)(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?:\d{4})?\b)",
    re.I,
)
# Titles (and file names) of logs: the log word ends the title's main part ("State log (append; newest last)",
# "Parity ledger"), as a noun ("Agent Log Formatting Instructions" and "How we log" are not logs).
_LOG_TITLE = re.compile(
    r"(?<!\bwe )(?<!\bto )(?<!\byou )(?<!\bhow )\b(?:log|logs|journal|ledger|diary|changelog|"
    r"worklog|history|timeline)$|\bappend[- ]only\b|\(append\b",
    re.I,
)
_TITLE_MAIN = re.compile(r"\s+[—–-]\s+|:\s|\s*\(|\s*\[")
# A preamble that says this record is append-only (at the start of a clause: "the append-only ledger" is another one).
_LOG_PREAMBLE = re.compile(
    r"(?:^|[.;:,!]\s+|\()\s*(?:append[- ]only\b|append;|(?:the )?newest (?:entr(?:y|ies) )?"
    r"(?:last|first|at the (?:top|bottom)|on top)\b|oldest first\b|reverse[- ]chronological\b)"
    r"|\bthis (?:file|log|document|doc|page|record|ledger|journal) is (?:an? )?append[- ]only\b"
    r"|\b(?:add|append) (?:new )?entries (?:at|to) the (?:top|bottom|end)\b",
    re.I,
)
NEWEST_FIRST = re.compile(
    r"\bnewest (?:entr(?:y|ies) )?(?:first|at the top|on top)\b|\breverse[- ]chronological\b"
    # German, French, Spanish, Portuguese: "Neueste Übergabe oben", "le plus récent en haut", "lo más reciente
    # arriba", "mais recente no topo"
    r"|\bneueste[nrs]?\s+(?:\w+\s+)?(?:zuerst|oben)\b|\bplus\s+récente?s?\s+(?:\w+\s+)?(?:en\s+haut|d'abord)"
    r"|\bm[áa]s\s+recientes?\s+(?:\w+\s+)?(?:arriba|primero)\b|\bmais\s+recentes?\s+(?:\w+\s+)?(?:no\s+topo|primeiro)\b",
    re.I,
)
_LOG_NAME = re.compile(
    r"(?:^|[-_.])(?:change-?log|work-?log|log|logs|journal|ledger|diary|history|timeline)"
    r"(?:[-_.]|$)",
    re.I,
)
_LOG_DIRS = frozenset(
    {
        "log",
        "logs",
        "journal",
        "journals",
        "history",
        "checkpoints",
        "handoffs",
        "sessions",
        "standups",
        "daily",
        "sync",
        "worklog",
    }
)
_CLOSED_DIRS = frozenset(
    {
        "completed",
        "complete",
        "done",
        "closed",
        "archive",
        "archived",
        "archives",
        ".archive",
        "old",
        "legacy",
        "deprecated",
        "attic",
        "retired",
        "obsolete",
        "superseded",
        "history",
    }
)
_TEMPLATE_DIRS = frozenset({"template", "templates", "_templates", ".templates"})
# How-to records: their imperatives are instructions ("2. Run the tests"), not work that can land.
_PROCESS_DIRS = frozenset(
    {
        "skills",
        "workflows",
        "rules",
        "guides",
        "setup-guides",
        "playbooks",
        "runbooks",
        "howto",
        "how-to",
        "conventions",
        "codestyles",
        "protocols",
        "processes",
        "prompts",
    }
)
# Reports are snapshots: what one was written to say on its date (its "next steps" included) nobody keeps current.
_REPORT_DIRS = frozenset({"reports", "handoffs", "handovers", "reviews", "retros"})
_PROCESS_NAME = re.compile(
    r"^(?:skill|agents|claude|gemini|copilot-instructions|contributing|workflow|protocols?|"
    r"process|conventions|guidelines|styleguide|style-guide|runbook|playbook|onboarding|"
    r"discipline)$|(?:^|[-_])(?:guide|guidelines|protocol|runbook|playbook|how-?to|prompts?)$",
    re.I,
)
_CLOSED_TITLE = re.compile(
    r"^\s*[\[(](?:done|closed|complete[d]?|archived|superseded|obsolete)[\])]|"
    r"[\[(](?:done|closed|complete[d]?|archived|superseded|obsolete)[\])]\s*$|"
    r"\b(?:completion (?:summar(?:y|ies)|reports?)|retrospectives?|post-?mortems?)\b",
    re.I,
)
# A review of what happened (a postmortem, a retrospective): finished as a story, but its action items are the
# follow-up work it hands on, tracked until done.
RETRO_TITLE = re.compile(r"\b(?:retrospectives?|post-?mortems?|incident (?:reviews?|reports?))\b", re.I)
FOLLOW_UP_SECTION = re.compile(
    r"^(?:(?:open |remaining |corrective |preventive |preventative |follow-?up )?action items?|follow-?ups?|"
    r"(?:corrective|preventive|preventative|remediation) actions?|remediation items?|next steps|open items|"
    r"to-?dos?|punch-?list|"
    # the same lists in the other languages records are kept in: "Prochaines étapes", "Nächste Schritte",
    # "Próximos pasos", "Prossimi passi", "Reste à faire", 下一步, 次のステップ, 다음 단계
    r"prochaines?\s+[ée]tapes?|(?:reste\s+)?[àa]\s+faire|suites?\s+[àa]\s+donner|n[äa]chste\s+schritte|"
    r"offene\s+punkte|zu\s+tun|pr[oó]xim[oa]s\s+(?:pasos|passos|etapas)|pendientes|por\s+hacer|a\s+fazer|"
    r"prossimi\s+passi|da\s+fare|volgende\s+stappen|nog\s+te\s+doen|następne\s+kroki|do\s+zrobienia)\b"
    r"|^(?:下一步|后续(?:工作|步骤)|待办|次のステップ|今後の(?:作業|課題)|やること|다음\s*단계|할\s*일)",
    re.I,
)
_STATUS_LINE = re.compile(r"^\W{0,4}(?:status|state)\W{0,4}[:=—–-]\s*(.*)$", re.I | re.S)
_FRONT_STATUS = re.compile(r"^\s*(?:status|state)\s*:\s*['\"]?([^'\"#\n]*)", re.I)

# Sections of a log that list what is live now.
LIVE_SECTION = re.compile(
    r"\b(?:active|open|current|live|in[- ]flight|held|outstanding)\b.*\b(?:claims?|work|items?|"
    r"tasks?|rows?|hand-?offs?|owners?)\b|^(?:claims?|hand-?off queue)$",
    re.I,
)
_NUMBERING = re.compile(r"^[\s#*_`>\[\]()]*(?:§\s*)?(?:\d+(?:\.\d+)*[.)]?|[A-Z][.)])?\s*")


# Month names of the languages records are kept in, in full and as teams abbreviate them (English is read by
# its first three letters below).
_MONTH_NAMES = {
    **dict.fromkeys(("janvier", "janv", "enero", "ene", "januar", "jän", "janeiro", "gennaio", "gen"), 1),
    **dict.fromkeys(("février", "fevrier", "févr", "fevr", "fév", "febrero", "februar", "fevereiro", "fev", "febbraio"), 2),
    **dict.fromkeys(("mars", "marzo", "märz", "maerz", "março", "marco", "mär"), 3),
    **dict.fromkeys(("avril", "avr", "abril", "abr", "aprile"), 4),
    **dict.fromkeys(("mai", "mayo", "maio", "maggio", "mag"), 5),
    **dict.fromkeys(("juin", "junio", "juni", "junho", "giugno", "giu"), 6),
    **dict.fromkeys(("juillet", "juil", "julio", "juli", "julho", "luglio", "lug"), 7),
    **dict.fromkeys(("août", "aout", "agosto", "ago"), 8),
    **dict.fromkeys(("septembre", "septiembre", "setembro", "settembre", "set"), 9),
    **dict.fromkeys(("octobre", "octubre", "oktober", "okt", "outubro", "out", "ottobre", "ott"), 10),
    **dict.fromkeys(("novembre", "noviembre", "novembro"), 11),
    **dict.fromkeys(("décembre", "decembre", "déc", "diciembre", "dic", "dezember", "dez", "dezembro", "dicembre"), 12),
}  # fmt: skip
_WORD_DATE = re.compile(
    r"^\W{0,6}(\d{1,2})(?:er|\.)?\s+(?:de\s+)?([A-Za-zÀ-ÿ]{3,10})\.?\s+(?:de\s+)?(\d{4})\b"  # 9 mars 2026, 12 de marzo de 2026
    r"|^\W{0,6}(\d{1,2})\.(\d{1,2})\.(\d{4})\b"  # 12.03.2026
    r"|^\W{0,6}(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日"  # 2026年3月12日
)


_ENGLISH_MONTHS = {
    **{m: i for i, m in enumerate(("january february march april may june july august september october november "
                                   "december").split(), 1)},
    **_MONTHS,
    "sept": 9,
}  # fmt: skip


def month_of(name: str, english: bool = False) -> int | None:
    """The month a name says, in the languages records are kept in ("März" and "mars" 3, "Mar" and "March" 3), or
    in English only (where a name of another language is an English word: "set", "mag", "out")."""
    low = name.lower().rstrip(".")
    return _ENGLISH_MONTHS.get(low) or (None if english else _MONTH_NAMES.get(low))


def _foreign_date(text: str) -> str | None:
    m = _WORD_DATE.match(text)
    if not m:
        return None
    if m.group(1):
        day, month, year = int(m.group(1)), _MONTH_NAMES.get(m.group(2).lower()), m.group(3)
    elif m.group(4):
        day, month, year = int(m.group(4)), int(m.group(5)), m.group(6)
    else:
        day, month, year = int(m.group(9)), int(m.group(8)), m.group(7)
    if not month or not 1 <= month <= 12 or not 1 <= day <= 31:
        return None
    return f"{year}-{month:02d}-{day:02d}"


def leading_date(text: str) -> str | None:
    """The ISO date a text starts with: 2026-07-25, 25 Jul 2026, July 25, 2026, 20260725[1430]; in other
    languages 9 mars 2026, 12 de marzo de 2026, 12. März 2026, 12.03.2026, 2026年3月12日."""
    m = _LEAD_DATE.match(text)
    if not m:
        return _foreign_date(text)
    if m.group(1):
        return m.group(1)
    if m.group(2):
        day, mon, year = m.group(2), m.group(3), m.group(4)
    elif m.group(5):
        mon, day, year = m.group(5), m.group(6), m.group(7)
    else:
        return f"{m.group(8)}-{m.group(9)}-{m.group(10)}"
    month = _MONTHS.get(mon[:3].lower())
    if month is None or not 1 <= int(day) <= 31:
        return None
    return f"{year}-{month:02d}-{int(day):02d}"


_TRAIL_DATE = re.compile(
    rf"^[^\n]{{1,60}}?(?:\s[—–|:-]|,|\s\(|\s)\s*(?:({ISO_DATE})|(\d{{1,2}})\.(\d{{1,2}})\.(\d{{4}}))\)?\W*$"
)


def trailing_date(text: str) -> str | None:
    """The ISO date a short title ends with: "run-047 — 2026-07-14", "Sprint 12 (2026-07-14)", "Übergabe
    12.03.2026" (a log's entries are often titled by their name first)."""
    m = _TRAIL_DATE.match(text)
    if not m:
        return None
    if m.group(1):
        return m.group(1)
    day, month = int(m.group(2)), int(m.group(3))
    return f"{m.group(4)}-{month:02d}-{day:02d}" if 1 <= month <= 12 and 1 <= day <= 31 else None


@lru_cache(maxsize=4096)
def follow_up_section(title: str) -> bool:
    """Does a heading name a list of follow-up work ("Action items", "Follow-ups", "Next steps", "TODO")?"""
    return FOLLOW_UP_SECTION.match(re.sub(r"^[^\w(\[]+", "", title_of(title))) is not None


def title_of(text: str) -> str:
    """A heading title without its numbering and markup: `## 3. History` -> `History`."""
    return _NUMBERING.sub("", text, count=1).strip(" *_`:").strip()


DATED_ENTRY = "a dated entry of "  # why a file in a folder of logs is a log: one entry of it


def file_kind(path: str, blocks: list[Block], lines: list[str], config: "Config") -> tuple[str, str, Block | None]:
    """(kind, why, the file's own status line block when that line decided the kind)."""
    configured = config.kind_of(path)
    if configured:
        return configured, f"config `kinds` makes {path} a {configured} record", None
    parts = path.lower().split("/")
    dirs, stem = parts[:-1], posixpath.splitext(parts[-1])[0]
    if _TEMPLATE_DIRS & set(dirs) or "template" in stem:
        return "template", "a template: an example to copy from, not work", None
    if _CLOSED_DIRS & set(dirs[1:] if dirs else ()):
        return "closed", f"filed under {'/'.join(parts[:-1])}/ (closed work)", None
    closed_states = config.closed_state_set
    front = _front_status(lines)
    if front and leading_state(front, config.state_set) in closed_states:
        return "closed", f"its front matter says status: {front.strip()[:40]}", None
    title = next((b for b in blocks if b.kind == "heading"), None)
    preamble = [
        b
        for b in blocks
        if not any(h.level >= 2 for h in b.headings)
        and b.kind != "heading"
        and not (b.kind == "heading" and b.heading is not None and b.heading.level >= 2)
    ][:12]
    status = _status_block(preamble, blocks)
    if status is not None:
        state = leading_state(_status_value(status.inline.text), config.state_set)
        if state in closed_states:
            return "closed", f"its status line says {state} (line {status.line})", status
    title_text = title.inline.text if title is not None else ""
    if title_text and _CLOSED_TITLE.search(title_text):
        return "closed", f"its title says the work is finished ('{title_text[:60]}')", None
    resolution = _resolution(blocks)
    if resolution is not None:
        return (
            "closed",
            f"its section '{resolution.inline.text.strip()[:60]}' (line {resolution.line}) resolves it",
            None,
        )
    main = _TITLE_MAIN.split(title_text, maxsplit=1)[0].strip(" *_`.") if title_text else ""
    if (
        title_text
        and (_LOG_TITLE.search(main) or _LOG_TITLE.search(title_text) and "append" in title_text.lower())
        and not LIVE_SECTION.search(title_text)
    ):
        return "log", f"its title says it is a log ('{title_text[:60]}')", None
    for b in preamble:
        if b.kind == "paragraph" and _LOG_PREAMBLE.search(b.inline.text):
            return "log", f"its preamble says it is append-only (line {b.line})", None
    if _LOG_NAME.search(stem):
        return "log", f"its name says it is a log ({parts[-1]})", None
    if (_REPORT_DIRS & set(dirs) or _REPORT_WORD.search(path)) and (_DATE_IN_NAME.search(path) or _dated(preamble)):
        return "closed", f"a dated report in {'/'.join(parts[:-1])}/: a snapshot of its day", None
    if (
        _LOG_DIRS & set(dirs)
        and (leading_date(stem.replace("_", "-")) or _dated(preamble))
        and not _INDEX_NAME.match(stem)
    ):
        return "log", f"{DATED_ENTRY}{'/'.join(parts[:-1])}/", None
    if _PROCESS_DIRS & set(dirs) or _PROCESS_NAME.search(stem):
        return "process", f"a how-to record ({parts[-1]}): its imperatives are instructions", None
    return "current", "", None


_DATE_IN_NAME = re.compile(r"(?<!\d)(?:20\d{2}-?[01]\d-?[0-3]\d|\d{2}[01]\d[0-3]\d)(?!\d)")
_REPORT_WORD = re.compile(r"(?:^|[/_.-])(?:reports?|handoffs?|handovers?|reviews?|retros?)(?=$|[/_.-])", re.I)
_INDEX_NAME = re.compile(r"^(?:readme|index|agents|claude)$", re.I)
_DATE_LINE = re.compile(
    r"(?:^|\s)\W{0,4}(?:[A-Za-z]+\s)?(?:date|created|written|generated|when)\W{0,4}[:=—–-]\s*\**\s*\d{4}-\d{2}-\d{2}",
    re.I,
)


# An issue or task record that says how it was resolved: a top-level "Resolution" section with something in it
# ("## ✅ Resolution (January 2025)"). Its problem, investigation and acceptance boxes above are then its history.
# ("Resolved" or "Done" are a board's columns, not this.)
_RESOLUTION_TITLE = re.compile(
    r"^\W{0,3}resolution\b(?!\s+(?:plan|options?|proposals?|steps|criteria|pending|tbd))", re.I
)


def _resolution(blocks: list[Block]) -> Block | None:
    for n, b in enumerate(blocks):
        if (
            b.kind == "heading"
            and b.heading is not None
            and b.heading.level == 2
            and _RESOLUTION_TITLE.match(b.inline.text.strip())
            and n + 1 < len(blocks)
            and blocks[n + 1].kind != "heading"
        ):
            return b
    return None


def _dated(preamble: list[Block]) -> bool:
    """Does the text under the title give the file's date ("**Date**: 2025-10-03")?"""
    return any(_DATE_LINE.search(b.inline.text) for b in preamble)


def _front_status(lines: list[str]) -> str | None:
    if not lines or lines[0].strip() != "---":
        return None
    for line in lines[1:60]:
        if line.strip() in ("---", "..."):
            return None
        m = _FRONT_STATUS.match(line)
        if m:
            return m.group(1)
    return None


def _status_block(preamble: list[Block], blocks: list[Block]) -> Block | None:
    """The file's own Status/State line: in its preamble, or the first statement of its first section."""
    candidates = preamble + [b for b in blocks[:6] if b not in preamble and b.kind in ("paragraph", "item")]
    for b in candidates:
        if b.kind in ("paragraph", "item") and _STATUS_LINE.match(b.inline.text):
            return b
    return None


def _status_value(text: str) -> str:
    m = _STATUS_LINE.match(text)
    return m.group(1) if m else ""

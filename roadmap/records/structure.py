"""What is current and what is history, decided by the shape of a record before its words.

A record file has a kind (config KINDS): a `template` is an example to copy from; a `process` record says how
to work (skills/, workflows/, rules/ folders, AGENTS.md, CONTRIBUTING.md, *-guide.md: its imperatives are
instructions, never directives, while what it references stays current); a `closed` spec or plan
records finished work (it sits in a completed/ or archive/ folder, or its own Status line says DONE/CLOSED);
a `log` is an append-only record of what happened (its title says log/ledger/journal/history, its preamble
says "append-only" or "newest last", or it is a dated entry in a logs/ folder). Config `kinds` overrides.

Inside any file, some blocks are history too:
- dated entries in sequence (headings, bullets or paragraphs that start with a date, two or more side by
  side, or any in a log): every entry but the newest is history, and in a log the newest entry too, but
  for what it asks for. A hand-off ("Next owner must") in an older entry stays current while no later
  entry is about the same row or claim;
- sections titled as history (History, Changelog, Archive, Superseded, Done, Already in, Retrospective) or
  as another project's workings (Upstream chain, How upstream works);
- a blockquote introduced as quoted text ("upstream says:", "verbatim:").
In a log everything is history but its live sections (Active claims, Handoff queue) and its newest entry.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from roadmap.records.blocks import Block
from roadmap.records.mentions import ids_in
from roadmap.records.patterns import ISO_DATE
from roadmap.records.state_words import leading_state

if TYPE_CHECKING:
    from roadmap.config import Config

_MONTHS = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                       "dec"), 1)}
_MON = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_LEAD_DATE = re.compile(rf"^\W{{0,6}}(?:({ISO_DATE})|(\d{{1,2}})\s+({_MON})\s+(\d{{4}})|({_MON})\s+(\d{{1,2}}),?\s+(\d{{4}})"
                        r"|(20\d\d)(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?:\d{4})?\b)", re.I)
_NUMBERING = re.compile(r"^[\s#*_`>\[\]()]*(?:§\s*)?(?:\d+(?:\.\d+)*[.)]?|[A-Z][.)])?\s*")

# Titles (and file names) of logs: the log word ends the title's main part ("State log (append; newest last)",
# "Parity ledger"), as a noun ("Agent Log Formatting Instructions" and "How we log" are not logs).
_LOG_TITLE = re.compile(r"(?<!\bwe )(?<!\bto )(?<!\byou )(?<!\bhow )\b(?:log|logs|journal|ledger|diary|changelog|"
                        r"worklog|history|timeline)$|\bappend[- ]only\b|\(append\b", re.I)
_TITLE_MAIN = re.compile(r"\s+[—–-]\s+|:\s|\s*\(|\s*\[")
# A preamble that says this record is append-only (at the start of a clause: "the append-only ledger" is another one).
_LOG_PREAMBLE = re.compile(r"(?:^|[.;:,!]\s+|\()\s*(?:append[- ]only\b|append;|(?:the )?newest (?:entr(?:y|ies) )?"
                           r"(?:last|first|at the (?:top|bottom)|on top)\b|oldest first\b|reverse[- ]chronological\b)"
                           r"|\bthis (?:file|log|document|doc|page|record|ledger|journal) is (?:an? )?append[- ]only\b"
                           r"|\b(?:add|append) (?:new )?entries (?:at|to) the (?:top|bottom|end)\b", re.I)
_NEWEST_FIRST = re.compile(r"\bnewest (?:entr(?:y|ies) )?(?:first|at the top|on top)\b|\breverse[- ]chronological\b",
                           re.I)
_LOG_NAME = re.compile(r"(?:^|[-_.])(?:change-?log|work-?log|log|logs|journal|ledger|diary|history|timeline)"
                       r"(?:[-_.]|$)", re.I)
_LOG_DIRS = frozenset({"log", "logs", "journal", "journals", "history", "checkpoints", "handoffs", "sessions",
                       "standups", "daily", "sync", "worklog"})
_CLOSED_DIRS = frozenset({"completed", "complete", "done", "closed", "archive", "archived", "archives", ".archive",
                          "old", "legacy", "deprecated", "attic", "retired", "obsolete", "superseded", "history"})
_TEMPLATE_DIRS = frozenset({"template", "templates", "_templates", ".templates"})
# How-to records: their imperatives are instructions ("2. Run the tests"), not work that can land.
_PROCESS_DIRS = frozenset({"skills", "workflows", "rules", "guides", "setup-guides", "playbooks", "runbooks", "howto",
                           "how-to", "conventions", "codestyles", "protocols", "processes"})
_PROCESS_NAME = re.compile(r"^(?:skill|agents|claude|gemini|copilot-instructions|contributing|workflow|protocols?|"
                           r"process|conventions|guidelines|styleguide|style-guide|runbook|playbook|onboarding|"
                           r"discipline)$|(?:^|[-_])(?:guide|guidelines|protocol|runbook|playbook|how-?to)$", re.I)
_CLOSED_TITLE = re.compile(r"^\s*[\[(](?:done|closed|complete[d]?|archived|superseded|obsolete)[\])]|"
                           r"[\[(](?:done|closed|complete[d]?|archived|superseded|obsolete)[\])]\s*$|"
                           r"\b(?:completion (?:summar(?:y|ies)|reports?)|retrospectives?|post-?mortems?)\b", re.I)
_STATUS_LINE = re.compile(r"^\W{0,4}(?:status|state)\W{0,4}[:=—–-]\s*(.*)$", re.I | re.S)
_FRONT_STATUS = re.compile(r"^\s*(?:status|state)\s*:\s*['\"]?([^'\"#\n]*)", re.I)

# Sections titled as history, or as how another project works (matched on the title without its numbering).
_DONE_NOUNS = r"(?:\s+(?:items?|work|tasks?|rows?|claims?|issues?|questions?|milestones?|deliverables?|phases?|" \
              r"specs?|plans?|so far|this (?:week|sprint|cycle)))?\s*(?:\(.*\))?$"
_HISTORY_SECTION = re.compile(
    r"^(?:(?:project |status |version |release )?history\b|archived?\b|archives\b|superseded\b|deprecated\b"
    rf"|obsolete\b|retired\b|(?:closed|done|completed?|finished|resolved|shipped|landed){_DONE_NOUNS}"
    r"|already (?:in|done|landed|merged|shipped)\b|what (?:landed|shipped|changed|was done)\b|released\b"
    r"|retrospective\b|post-?mortem\b|lessons learned\b|previous (?:attempts?|plans?|approach|design|work)\b"
    r"|old (?:plans?|notes|design)\b|past (?:work|plans?|notes|entries|decisions)\b|prior (?:art|work|attempts?)\b"
    r"|(?:our |the |starting |initial )?baseline\b)",
    re.I)
# Sections that are a log: their dated entries follow the log rules (the newest is current).
_LOG_SECTION = re.compile(r"^(?:(?:change |decision |work |activity |session |progress |status |state |hand-?off )?"
                          r"(?:log|changelog|journal|diary|timeline|worklog)s?|changes|updates)\b", re.I)
_UPSTREAM_SECTION = re.compile(r"^(?:the |complete |full )?upstream\b|^how (?:upstream|vllm|llama\.cpp|pytorch|the "
                               r"reference|the original) |\bupstream (?:chain|grounding|anatomy|inventory|semantics|"
                               r"behaviou?r|reference|design|implementation|source|code|pins?|walk-?through)\b", re.I)
_OURS = re.compile(r"\b(?:ours?|we|port(?:ed|ing)?|local|vs\.?|versus|sync|diff|gap|delta|parity|deviations?|"
                   r"compat\w*|drop-in)\b", re.I)
# Sections of a log that list what is live now.
_LIVE_SECTION = re.compile(r"\b(?:active|open|current|live|in[- ]flight|held|outstanding)\b.*\b(?:claims?|work|items?|"
                           r"tasks?|rows?|hand-?offs?|owners?)\b|^(?:claims?|hand-?off queue)$", re.I)
# A hand-off: a directive addressed to whoever comes next, which stays open until someone takes it.
HANDOFF = re.compile(r"\bnext (?:owner|agent|person|session|assignee|maintainer|shift)s? (?:must|should|needs? to|has "
                     r"to|to)\b|\bwhoever (?:picks|takes) (?:this|it) up\b|^\W*hand-?off\s*:", re.I)
_QUOTE_INTRO = re.compile(r"\b(?:upstream|verbatim|quot(?:e|ed|es|ing)|excerpt|original(?:ly)?|relocated|reads|says|"
                          r"wrote|writes|documentation of)\b[^.]*:\s*$|\bverbatim\b", re.I)


@dataclass(frozen=True)
class Structure:
    kind: str = "current"               # the file's kind (config KINDS)
    why: str = ""                       # how the kind was decided, for messages
    history: dict[int, str] = field(default_factory=dict)   # id(block) -> why its statements are history
    live: frozenset[int] = frozenset()  # id(block): a hand-off that stays current inside a history entry
    unless_asked: dict[int, str] = field(default_factory=dict)  # history unless it asks for work (a log's newest entry)


@dataclass
class _Entry:
    date: str
    blocks: list[Block]
    subjects: frozenset[str]
    order: int


def leading_date(text: str) -> str | None:
    """The ISO date a text starts with: 2026-07-25, 25 Jul 2026, July 25, 2026, 20260725[1430]."""
    m = _LEAD_DATE.match(text)
    if not m:
        return None
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


def title_of(text: str) -> str:
    """A heading title without its numbering and markup: `## 3. History` -> `History`."""
    return _NUMBERING.sub("", text, count=1).strip(" *_`:").strip()


@lru_cache(maxsize=4096)
def history_section(title: str) -> str | None:
    """Why a section with this title is history (or another project's workings), else None."""
    t = title_of(title)
    t = re.sub(r"^[^\w(\[]+", "", t)   # leading emoji
    if _HISTORY_SECTION.match(t):
        return f"section '{t[:60]}' records history"
    if _UPSTREAM_SECTION.search(t) and not _OURS.search(t):
        return f"section '{t[:60]}' describes another project"
    return None


def analyse(path: str, blocks: list[Block], lines: list[str], config: "Config") -> Structure:
    """The file's kind and the blocks that are history, with why."""
    kind, why, status_block = _file_kind(path, blocks, lines, config)
    history: dict[int, str] = {}
    live: set[int] = set()
    if kind == "process":
        return Structure(kind, why)
    if kind in ("template", "closed"):
        for b in blocks:
            if b is not status_block:
                history[id(b)] = why
        return Structure(kind, why, history, frozenset())
    is_log = kind == "log"
    quoted = _quoted_lines(blocks) if any(b.quote for b in blocks) else set()
    for b in blocks:
        reason = next((r for h in b.headings for r in [history_section(h.title)] if r), None)
        if reason is None and b.kind == "heading":
            reason = history_section(b.inline.text)
        if reason is None and b.quote in quoted:
            reason = "quoted text"
        if reason:
            history[id(b)] = reason
    newest_first = is_log and any(_NEWEST_FIRST.search(b.inline.text) for b in blocks[:8])
    current: set[int] = set()
    unless_asked: dict[int, str] = {}
    for run in _runs(blocks, is_log, config):
        newest = max(run, key=lambda e: (e.date, -e.order if newest_first else e.order))
        in_log = is_log or any(_log_section(h.title) for h in run[0].blocks[0].headings)
        for e in run:
            if e is newest:
                current.update(id(b) for b in e.blocks)
                if in_log:   # a log's newest entry still records what happened; only what it asks for is open
                    unless_asked.update((id(b), f"the newest entry ({e.date}) of a log") for b in e.blocks
                                        if id(b) not in history)
                continue
            later = [o for o in run if o is not e and (o.date, -o.order if newest_first else o.order)
                     > (e.date, -e.order if newest_first else e.order)]
            open_subject = bool(e.subjects) and not any(e.subjects & o.subjects for o in later)
            for b in e.blocks:
                if id(b) in history:
                    continue
                if open_subject and HANDOFF.search(b.inline.text):
                    live.add(id(b))
                else:
                    history[id(b)] = f"an older dated entry ({e.date}) in a sequence of entries"
    for b in blocks:
        if id(b) in history or id(b) in current or id(b) in live:
            continue
        if is_log and not _in_live_section(b):
            history[id(b)] = why
        elif not is_log and any(_log_section(h.title) for h in b.headings):
            history[id(b)] = "a log section's older content"
    return Structure(kind, why, history, frozenset(live), unless_asked)


@lru_cache(maxsize=4096)
def _log_section(title: str) -> bool:
    return _LOG_SECTION.match(re.sub(r"^[^\w(\[]+", "", title_of(title))) is not None


def _in_live_section(b: Block) -> bool:
    return any(_LIVE_SECTION.search(title_of(h.title)) for h in b.headings)


def _quoted_lines(blocks: list[Block]) -> set[int]:
    """First lines of the blockquotes introduced as quoted text (by the block before them or their first line)."""
    out: set[int] = set()
    previous = ""
    seen: set[int] = set()
    for b in blocks:
        if not b.quote:
            if b.kind != "table":
                previous = b.inline.text
            continue
        if b.quote in seen:
            continue
        seen.add(b.quote)
        if _QUOTE_INTRO.search(previous.strip()) or _QUOTE_INTRO.search(b.inline.text[:120]):
            out.add(b.quote)
        previous = ""     # the intro introduces the quote right after it, not the next one
    return out


def _file_kind(path: str, blocks: list[Block], lines: list[str], config: "Config") -> tuple[str, str, Block | None]:
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
    preamble = [b for b in blocks if not any(h.level >= 2 for h in b.headings) and b.kind != "heading"
                and not (b.kind == "heading" and b.heading is not None and b.heading.level >= 2)][:12]
    status = _status_block(preamble, blocks)
    if status is not None:
        state = leading_state(_status_value(status.inline.text), config.state_set)
        if state in closed_states:
            return "closed", f"its status line says {state} (line {status.line})", status
    title_text = title.inline.text if title is not None else ""
    if title_text and _CLOSED_TITLE.search(title_text):
        return "closed", f"its title says the work is finished ('{title_text[:60]}')", None
    main = _TITLE_MAIN.split(title_text, maxsplit=1)[0].strip(" *_`.") if title_text else ""
    if title_text and (_LOG_TITLE.search(main) or _LOG_TITLE.search(title_text) and "append" in title_text.lower()) \
            and not _LIVE_SECTION.search(title_text):
        return "log", f"its title says it is a log ('{title_text[:60]}')", None
    for b in preamble:
        if b.kind == "paragraph" and _LOG_PREAMBLE.search(b.inline.text):
            return "log", f"its preamble says it is append-only (line {b.line})", None
    if _LOG_NAME.search(stem):
        return "log", f"its name says it is a log ({parts[-1]})", None
    if _LOG_DIRS & set(dirs) and leading_date(stem.replace("_", "-")):
        return "log", f"a dated entry of {'/'.join(parts[:-1])}/", None
    if _PROCESS_DIRS & set(dirs) or _PROCESS_NAME.search(stem):
        return "process", f"a how-to record ({parts[-1]}): its imperatives are instructions", None
    return "current", "", None


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


def _subjects(text: str, config: "Config") -> frozenset[str]:
    """The rows and claims an entry is about: the ids its first 200 characters name."""
    ids, claims = ids_in(text[:200], config)
    return frozenset(i for _, _, i in ids + claims)


def _runs(blocks: list[Block], is_log: bool, config: "Config") -> list[list[_Entry]]:
    """Dated entries in sequence: sibling headings, top-level items or top-level paragraphs that start with a
    date, two or more under one parent (one is enough in a log), each with every block it holds."""
    runs: list[list[_Entry]] = []
    runs.extend(_heading_runs(blocks, is_log, config))
    groups: dict[tuple[str, int], list[_Entry]] = {}
    index = {id(b): k for k, b in enumerate(blocks)}
    children: dict[int, list[Block]] = {}
    for b in blocks:
        top = b
        while top.parent is not None:
            top = top.parent
        if top is not b:
            children.setdefault(id(top), []).append(b)
    for b in blocks:
        if b.parent is not None or b.kind not in ("item", "paragraph") or b.quote:
            continue
        date = leading_date(b.inline.text)
        if date is None:
            continue
        key = (b.kind, id(b.headings[-1]) if b.headings else 0)
        groups.setdefault(key, []).append(_Entry(date, [b, *children.get(id(b), [])], _subjects(b.inline.text, config),
                                                 index[id(b)]))
    for g in groups.values():
        first = g[0].blocks[0]
        in_log = is_log or any(_log_section(h.title) for h in first.headings)
        if len(g) >= (1 if in_log else 2):
            runs.append(g)
    return runs


def _heading_runs(blocks: list[Block], is_log: bool, config: "Config") -> list[list[_Entry]]:
    groups: dict[tuple[int, int], list[_Entry]] = {}
    heads = [(k, b) for k, b in enumerate(blocks) if b.kind == "heading" and b.heading is not None]
    for n, (k, b) in enumerate(heads):
        assert b.heading is not None
        date = leading_date(b.inline.text)
        if date is None:
            continue
        level = b.heading.level
        end = next((j for j, h in heads[n + 1:] if h.heading is not None and h.heading.level <= level), len(blocks))
        # a log's entries are one sequence even where a stray heading splits them; elsewhere, siblings only
        parent = 0 if is_log or not b.headings else id(b.headings[-1])
        groups.setdefault((parent, level), []).append(_Entry(date, blocks[k:end], _subjects(b.inline.text, config), k))
    return [g for g in groups.values()
            if len(g) >= (1 if is_log or any(_log_section(h.title) for h in g[0].blocks[0].headings) else 2)]


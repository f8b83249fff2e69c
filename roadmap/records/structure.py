"""What is current and what is history, decided by the shape of a record before its words.

The file's kind comes first (roadmap/records/kinds.py): a template or closed record is history all through, a
process record gives instructions, not directives. Inside any file, some blocks are history too:
- dated entries in sequence (headings, bullets or paragraphs that start with a date, two or more side by
  side, or any in a log): every entry but the newest is history, and in a log the newest entry too, but
  for what it asks for. A hand-off ("Next owner must", or each bullet under a "Next owner must:" of its own)
  in an older entry stays current while no later entry is about the same row or claim (or, without one,
  repeats its names: with its measurement's result, or while handing off in turn), and while a later entry
  says it is still open; so does a setting's value an older entry states ("`BATCH_GROESSE` steht auf 500")
  while no later entry names the setting, and an open checkbox (`- [ ]`) in a file that ticks its boxes;
- sections titled as history (History, Archive, Superseded, Done, Already in, Baseline, Retrospective) or as
  another project's workings (Upstream chain, How upstream works);
- a blockquote introduced as quoted text ("upstream says:", "verbatim:").
In a log everything is history but its preamble (the standing header under the title), its live sections
(Active claims, Handoff queue), its standing sections (an undated section beside dated entry sections: the
numbers it quotes, a summary table) and what its newest entry asks for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from roadmap.records.blocks import Block
from roadmap.records.kinds import (
    DATED_ENTRY,
    LIVE_SECTION,
    NEWEST_FIRST,
    RETRO_TITLE,
    file_kind,
    follow_up_section,
    leading_date,
    title_of,
    trailing_date,
)
from roadmap.records.lead_lists import introduced_items
from roadmap.regex_hints import Hinted
from roadmap.records.mentions import ids_in
from roadmap.records.setting_values import settings_valued
from roadmap.records.still_open import still_open

if TYPE_CHECKING:
    from roadmap.config import Config

# Sections titled as history, or as how another project works (matched on the title without its numbering).
_DONE_NOUNS = (
    r"(?:\s+(?:items?|work|tasks?|rows?|claims?|issues?|questions?|milestones?|deliverables?|phases?|"
    r"specs?|plans?|so far|this (?:week|sprint|cycle)))?\s*(?:\(.*\))?$"
)
_HISTORY_SECTION = re.compile(
    r"^(?:(?:project |status |version |release )?history\b|archived?\b|archives\b|superseded\b|deprecated\b"
    rf"|obsolete\b|retired\b|(?:closed|done|completed?|finished|resolved|shipped|landed){_DONE_NOUNS}"
    r"|already (?:in|done|landed|merged|shipped)\b|what (?:landed|shipped|changed|was done)\b|released\b"
    r"|retrospective\b|post-?mortem\b|lessons learned\b|previous (?:attempts?|plans?|approach|design|work)\b"
    r"|old (?:plans?|notes|design)\b|past (?:work|plans?|notes|entries|decisions)\b|prior (?:art|work|attempts?)\b"
    r"|(?:our |the |starting |initial )?baseline\b)",
    re.I,
)
# Sections that are a log: their dated entries follow the log rules (the newest is current).
_LOG_SECTION = re.compile(
    r"^(?:(?:change |decision |work |activity |session |progress |status |state |hand-?off )?"
    r"(?:log|changelog|journal|diary|timeline|worklog)s?|changes|updates)\b",
    re.I,
)
_UPSTREAM_SECTION = re.compile(
    r"^(?:the |complete |full )?upstream\b|^how (?:upstream|vllm|llama\.cpp|pytorch|the "
    r"reference|the original) |\bupstream (?:chain|grounding|anatomy|inventory|semantics|"
    r"behaviou?r|reference|design|implementation|source|code|pins?|walk-?through)\b",
    re.I,
)
_OURS = re.compile(
    r"\b(?:ours?|we|port(?:ed|ing)?|local|vs\.?|versus|sync|diff|gap|delta|parity|deviations?|"
    r"compat\w*|drop-in)\b",
    re.I,
)
# A hand-off: a directive addressed to whoever comes next, which stays open until someone takes it.
HANDOFF = re.compile(
    r"\bnext (?:owner|agent|person|session|assignee|maintainer|shift|on-?call|engineer|responder|developer|dev|"
    r"implementer|reviewer|contributor|rotation|team|worker|editor|writer)s? (?:must|should|needs? to|has "
    r"to|to)\b|\bwhoever (?:picks|takes) (?:this|it) up\b|^\W*hand-?off\s*:"
    # ... or to the next round of the work: "**Next run should** turn on ...", "The next sprint must ..."
    r"|\bnext (?:run|iteration|experiment|attempt|sprint|round|cycle|training run|release)\W{0,4} "
    r"(?:must|should|needs? to|has to)\b"
    # ... or a follow-up line by its label: "Next: rerun ...", "**Follow-up:** ...", "Next steps: ..."
    r"|^\W*(?:next(?: steps?| up)?|follow[- ]?ups?|to-?do)\W{0,3}:"
    # ... in German: "Nächste Person muss ...", "Wer übernimmt, sollte ...", "Als Nächstes: ...", "Zu tun: ..."
    r"|\bnächste[rns]?\s+(?:person|bearbeiter(?:in)?|schicht|sitzung|runde|woche|entwickler(?:in)?|"
    r"verantwortliche[r]?)\s+(?:muss|müssen|soll|sollte|sollen)\b|\bwer\s+übernimmt,?\s+(?:muss|soll|sollte)\b"
    r"|^\W*(?:als\s+nächstes|nächste\s+schritte|zu\s+tun|offene\s+punkte)\W{0,3}:"
    # ... in Dutch: "Volgende eigenaar moet ...", "Wie dit overneemt, moet ...", "Te doen: ...", "Volgende stappen: ..."
    r"|\bvolgende\s+(?:eigenaar|persoon|ontwikkelaar|beheerder|dienst|sessie|ronde|week|verantwoordelijke|collega|"
    r"ploeg|team|engineer)\s+(?:moet|moeten|zou\s+moeten|dient|mag)\b|\bwie\s+(?:dit|het)\s+overneemt,?\s+"
    r"(?:moet|zou\s+moeten|dient)\b|^\W*(?:(?:nog\s+)?te\s+doen|volgende\s+stappen|openstaande\s+punten|actiepunten)\W{0,3}:"
    # ... in Polish: "Następna osoba musi ...", "Kolejny właściciel powinien ...", "Do zrobienia: ...", "Następne kroki:"
    r"|\b(?:następn|kolejn)[aye]\s+(?:osoba|właściciel|zmiana|sesja|dyżur|dyżurny|programist(?:a|ka)|zespół|"
    r"opiekun|tydzień|sprint)\s+(?:musi|powin(?:ien|na|no)|ma)\b"
    r"|^\W*(?:do\s+zrobienia|następne\s+kroki|kolejne\s+kroki|otwarte\s+punkty)\W{0,3}:"
    # ... in French, Spanish, Portuguese, Italian, by its label: "À faire :", "Por hacer:", "Próximos passos:"
    r"|^\W*(?:(?:reste\s+)?à\s+faire|prochaines?\s+étapes?|pour\s+la\s+suite|por\s+hacer|pr[oó]xim[oa]s\s+pasos|"
    r"a\s+fazer|pr[oó]xim[oa]s\s+passos|da\s+fare|prossimi\s+passi)\s*[:：]"
    # ... in Japanese, Chinese, Korean, by its label: "次の担当者へ:", "申し送り事項:", "下一位负责人:", "다음 담당자:"
    r"|^\W*(?:次の(?:担当者?|人|方)(?:へ|に|さんへ)?|申し送り(?:事項)?|引き継ぎ事項|残タスク|"
    r"下一(?:位|个)?(?:负责人|接手人|值班)|后续事项|待办(?:事项)?|다음\s*(?:담당자|작업자)(?:에게)?|할\s*일)\W{0,3}[:：]",
    re.I,
)


def find_handoff(text: str) -> re.Match[str] | None:
    """HANDOFF.search(text)'s match (its span and text), the first one not opening after a quote mark. HANDOFF opens
    with `\\b` and is case-insensitive, so `re` tries it at every position: each of its alternatives is searched only
    in text holding a literal it needs (regex_hints.py)."""
    for m in _HANDOFF.finditer(text):
        if not (m.start() and text[m.start() - 1] in _OPENING_QUOTES):
            return m  # a phrase in quotes is named ("the items under „Next owner must“"), not used
    return None


_HANDOFF = Hinted(HANDOFF)
_OPENING_QUOTES = frozenset("\"'\u201c\u201e\u2018\u00ab\u201a")


_QUOTE_INTRO = re.compile(
    r"\b(?:upstream|verbatim|quot(?:e|ed|es|ing)|excerpt|original(?:ly)?|relocated|reads|says|"
    r"wrote|writes|documentation of)\b[^.]*:\s*$|\bverbatim\b",
    re.I,
)


@dataclass(frozen=True)
class Structure:
    kind: str = "current"  # the file's kind (config KINDS)
    why: str = ""  # how the kind was decided, for messages
    history: dict[int, str] = field(default_factory=dict)  # id(block) -> why its statements are history
    live: frozenset[int] = frozenset()  # id(block): a hand-off that stays current inside a history entry
    unless_asked: dict[int, str] = field(default_factory=dict)  # history unless it asks for work (a log's newest entry)


@dataclass
class _Entry:
    date: str
    blocks: list[Block]
    subjects: frozenset[str]
    order: int
    _names: frozenset[str] | None = None
    _hands_off: bool | None = None

    def hands_off(self) -> bool:
        """Does the entry hand anything off ("Next: ...", "Next owner must ...")?"""
        if self._hands_off is None:
            self._hands_off = any(find_handoff(x.inline.text) for x in self.blocks)
        return self._hands_off

    def names(self) -> frozenset[str]:
        """_names of the entry's whole text, once: every older hand-off of the log asks each later entry."""
        if self._names is None:
            self._names = _names(" ".join(x.inline.text for x in self.blocks))
        return self._names


@lru_cache(maxsize=4096)
def history_section(title: str) -> str | None:
    """Why a section with this title is history (or another project's workings), else None."""
    t = title_of(title)
    t = re.sub(r"^[^\w(\[]+", "", t)  # leading emoji
    if _HISTORY_SECTION.match(t):
        return f"section '{t[:60]}' records history"
    if _UPSTREAM_SECTION.search(t) and not _OURS.search(t):
        return f"section '{t[:60]}' describes another project"
    return None


def analyse(path: str, blocks: list[Block], lines: list[str], config: "Config") -> Structure:
    """The file's kind and the blocks that are history, with why."""
    kind, why, status_block = file_kind(path, blocks, lines, config)
    history: dict[int, str] = {}
    live: set[int] = set()
    if kind == "process":
        return Structure(kind, why)
    if kind in ("template", "closed"):
        follow_ups = kind == "closed" and _retrospective(blocks)
        for b in blocks:
            if b is not status_block and not (follow_ups and _follow_up(b)):
                history[id(b)] = why
        return Structure(kind, why, history, frozenset())
    is_log = kind == "log"
    listed = introduced_items(blocks, find_handoff)  # the bullets under a "Next owner must:" of its own
    quoted = _quoted_lines(blocks) if any(b.quote for b in blocks) else set()
    for b in blocks:
        reason = next((r for h in b.headings for r in [history_section(h.title)] if r), None)
        if reason is None and b.kind == "heading":
            reason = history_section(b.inline.text)
        if reason is None and b.quote in quoted:
            reason = "quoted text"
        if reason:
            history[id(b)] = reason
    newest_first = is_log and any(NEWEST_FIRST.search(b.inline.text) for b in blocks[:8])
    ticks = any(b.kind == "item" and _TICKED_BOX.match(b.raw) for b in blocks)
    current: set[int] = set()
    unless_asked: dict[int, str] = {}
    for run in _runs(blocks, is_log, config):
        newest = max(run, key=lambda e: (e.date, -e.order if newest_first else e.order))
        in_log = is_log or any(_log_section(h.title) for h in run[0].blocks[0].headings)
        for e in run:
            if e is newest:
                current.update(id(b) for b in e.blocks)
                if in_log:  # a log's newest entry still records what happened; only what it asks for is open
                    unless_asked.update(
                        (id(b), f"the newest entry ({e.date}) of a log") for b in e.blocks if id(b) not in history
                    )
                continue
            later = [
                o
                for o in run
                if o is not e
                and (o.date, -o.order if newest_first else o.order) > (e.date, -e.order if newest_first else e.order)
            ]
            for b in e.blocks:
                if id(b) in history:
                    continue
                handoff = id(b) in listed or find_handoff(b.inline.text) is not None
                if handoff and not _answered(b, e, later, config):
                    live.add(id(b))
                elif not handoff and _last_word_on_settings(b, later):
                    live.add(id(b))
                elif ticks and b.kind == "item" and _OPEN_BOX.match(b.raw):
                    live.add(id(b))  # "- [ ] rerun ..." where the file ticks its boxes: open until ticked
                else:
                    history[id(b)] = f"an older dated entry ({e.date}) in a sequence of entries"
    sectioned = any(not h.preamble for b in blocks for h in b.headings)  # a log of sections has a header above them
    standing = _standing(blocks) if is_log else frozenset()
    # a log kept in one file asks for what its "Next steps" section lists; one dated entry of a folder of logs
    # (`.agents/logs/202601062110-release.md`) asked it on its day, and the newer files answer it
    asks = is_log and not why.startswith(DATED_ENTRY)
    for b in blocks:
        if id(b) in history or id(b) in current or id(b) in live:
            continue
        if is_log and not _in_live_section(b, asks) and not (sectioned and _preamble(b)) and id(b) not in standing:
            history[id(b)] = why
        elif not is_log and any(_log_section(h.title) for h in b.headings):
            history[id(b)] = "a log section's older content"
    return Structure(kind, why, history, frozenset(live), unless_asked)


def _last_word_on_settings(b: Block, later: list["_Entry"]) -> bool:
    """Does the block state a setting's value ("Konfiguration: `BATCH_GROESSE` steht auf 500") that no later entry
    names? Then it is still the record's word on that setting: whoever reads the log takes it as the value."""
    named = settings_valued(b.raw)
    return bool(named) and not any(n in x.raw for o in later for x in o.blocks for n in named)


def _standing(blocks: list[Block]) -> frozenset[int]:
    """id(block) of the blocks in a log's standing sections: where the log's entries are dated sections, a sibling
    section whose title has no date is no entry ("## Numbers we quote" below "## 2026-05-21 · EXP-031"): what it
    holds is kept current, like the log's preamble."""
    levels = {
        b.heading.level for b in blocks if b.kind == "heading" and b.heading is not None and _dated_title(b.inline.text)
    }
    if not levels:
        return frozenset()
    out = set()
    for b in blocks:
        own = [b.heading] if b.kind == "heading" and b.heading is not None else []
        path = [h for h in (*b.headings, *own) if not h.preamble and h.level <= max(levels)]
        entry = next((h for h in path if h.level in levels), None)
        if entry is not None and not _dated_title(entry.title) and all(not _dated_title(h.title) for h in path):
            out.add(id(b))
    return frozenset(out)


def _dated_title(title: str) -> bool:
    return leading_date(title) is not None or trailing_date(title) is not None


def _retrospective(blocks: list[Block]) -> bool:
    """Is the file a postmortem or retrospective by its title?"""
    title = next((b for b in blocks if b.kind == "heading"), None)
    return title is not None and RETRO_TITLE.search(title.inline.text) is not None


def _follow_up(b: Block) -> bool:
    """Does the block sit under an action-items section (of a postmortem: the work it hands on)?"""
    return any(follow_up_section(h.title) for h in b.headings[1:])


def _preamble(b: Block) -> bool:
    """Text under the title before the first section: in a log of sections, its standing header (what to build on,
    how to append), current like any file's front matter; dated entries in it were taken as entries above. A log
    without sections is all entries, dated or not."""
    return b.kind != "heading" and all(h.preamble for h in b.headings)


@lru_cache(maxsize=4096)
def _log_section(title: str) -> bool:
    return _LOG_SECTION.match(re.sub(r"^[^\w(\[]+", "", title_of(title))) is not None


def _in_live_section(b: Block, asks: bool = False) -> bool:
    """Under a section of a log that lists what is live now (Active claims), or, with `asks`, the work it asks for
    next (a "## Next steps" / "## Prochaines étapes" section below the title, outside any dated entry)."""
    return any(LIVE_SECTION.search(title_of(h.title)) for h in b.headings) or (
        asks and any(not h.preamble and h.level >= 2 and follow_up_section(h.title) for h in b.headings)
    )


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
        previous = ""  # the intro introduces the quote right after it, not the next one
    return out


# A name a later entry would repeat if it took the hand-off up: a token with a digit, an underscore, a hyphen
# between letters, an inner capital or two capitals ("churn-logreg", "plan_type", "SpecAugment", "BPE", "2e-4"),
# with a letter in it.
_OPEN_BOX = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[ \]\s")
_TICKED_BOX = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[[xX]\]\s")
_NAME = re.compile(
    r"[\w./=-]*(?:\d|_|[A-Za-z]-[A-Za-z]|[a-z][A-Z]|[A-Z]{2})[\w./=-]*"
    r"|[\w-]+(?:/[\w-]+)*\.(?:jl|py|rs|go|c|cc|cpp|h|hpp|cu|ts|js|java|kt|rb|sh|sql|toml|yaml|yml)\b"
)  # an identifier, a version, or a code file (`bench/convergence.jl`; a folder is too broad a name)
_DATE_LIKE = re.compile(r"^\d{4}-\d{2}(?:-\d{2})?$|^\d{1,2}:\d{2}")


def _names(text: str) -> frozenset[str]:
    out = set()
    for m in _NAME.finditer(text):
        t = m.group().strip("./=-").lower()
        if len(t) >= 2 and any(ch.isalpha() for ch in t) and not _DATE_LIKE.match(t):
            out.add(t)
    return frozenset(out)


def _answered(b: Block, e: "_Entry", later: list["_Entry"], config: "Config") -> bool:
    """Did a later entry of the log take this hand-off up? It names the hand-off's ids (else its entry's); or, for
    a hand-off no id names, it repeats one of the hand-off's own names ("Next: add SpecAugment ..." and a later
    "SpecAugment W=80 helped"). A measurement asked for ("Next: rerun bench-kv-put") is answered by that: the later
    entry carries its result. Other work is answered so only while a later entry hands off in turn: the newest list
    of follow-ups is the log's open to-do list, and an entry that only reports results (one that uses the work,
    "GBM with the encoded plan_type: AUC 0.874") does not close it. A hand-off with neither is taken to be answered
    by whatever came after it. Whatever else, a later entry that says it is still open ("Luftdruck ist noch offen",
    "the retry budget is still open") carries it forward."""
    handoff = find_handoff(b.inline.text)
    work = b.inline.text[handoff.end() :] if handoff else b.inline.text
    if any(still_open(work, (x.inline.text for x in o.blocks)) for o in later):
        return False
    about = _subjects(b.inline.text, config) or e.subjects
    if about:
        return any(about & o.subjects for o in later)
    names = _names(b.inline.text)
    if not names:
        return bool(later)
    if not any(names & o.names() for o in later):
        return False
    return _measures(b.inline.text) or any(o.hands_off() for o in later)


# A follow-up that asks for a measurement or an experiment: its verb right after the hand-off's label or phrase.
_MEASURING = re.compile(
    r"^\W{0,3}(?:re-?(?:run|measure|bench(?:mark)?|profile|time|evaluate)|measure|bench(?:mark)?|profile|try|"
    r"compare|evaluate|sweep|ablate)\b",
    re.I,
)


def _measures(text: str) -> bool:
    m = find_handoff(text)
    return m is not None and _MEASURING.match(text[m.end() : m.end() + 40]) is not None


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
        groups.setdefault(key, []).append(
            _Entry(date, [b, *children.get(id(b), [])], _subjects(b.inline.text, config), index[id(b)])
        )
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
        date = leading_date(b.inline.text) or (trailing_date(b.inline.text) if is_log else None)
        if date is None:
            continue
        level = b.heading.level
        end = next((j for j, h in heads[n + 1 :] if h.heading is not None and h.heading.level <= level), len(blocks))
        # a log's entries are one sequence even where a stray heading splits them; elsewhere, siblings only
        parent = 0 if is_log or not b.headings else id(b.headings[-1])
        groups.setdefault((parent, level), []).append(_Entry(date, blocks[k:end], _subjects(b.inline.text, config), k))
    return [
        g
        for g in groups.values()
        if len(g) >= (1 if is_log or any(_log_section(h.title) for h in g[0].blocks[0].headings) else 2)
    ]

"""Is a statement a directive (asks for work), historical (never current), and what is it written as of?"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from roadmap.records import roles
from roadmap.records.language import opens_with_infinitive
from roadmap.records.mentions import ids_in
from roadmap.records.model import AsOf
from roadmap.records.patterns import ISO_DATE
from roadmap.records.plan_sections import in_plan_section
from roadmap.records.state_words import leading_word
from roadmap.records.status_notes import pending_note
from roadmap.records.structure import find_handoff

if TYPE_CHECKING:
    from roadmap.config import Config

_HIST_ANY = re.compile(
    r"\((?:historical|superseded|obsolete|outdated)\b[^)]*\)|\[(?:historical|superseded|obsolete)\]"
    r"|\bsuperseded by\b|\bformerly\b|\bno longer (?:current|applies|true|accurate)\b",
    re.I,
)
_HIST_START = re.compile(
    r"^\W{0,3}(?:\[[xX]\]|✅|✔|☑|(?:historical|historically|superseded|obsolete|formerly|previously|was|were)\b"
    r"|(?:done|landed|closed|fixed|resolved|shipped|merged|completed)\b\s*(?:[:—–(-]|(?:in|by|as|on|at|via)\b))",
    re.I,
)
_CHECKED = re.compile(r"^\W{0,3}\[[xX]\]")
# A ticked box records work done, but a clause of it in the present tense states how things are now, and stays a
# claim about the code: a default ("opt-in, off by default", "defaults to 0") or where a thing lives ("lives in
# `src/cart.ts:5-13`"). "[x] Defaulted the cache to on in v1.2" is the history of v1.2.
_PRESENT_FACT = re.compile(
    r"\b(?:opt-?in|opt-?out|(?:on|off|enabled|disabled) by default|defaults? to|is (?:on|off) unless|"
    r"(?:lives?|sits?|resides?) (?:in|at|on)|(?:is|are) (?:defined|implemented|located|kept) (?:in|at))\b",
    re.I,
)
_HIST_KEYS = re.compile("historical|superseded|obsolete|outdated|formerly|no longer")  # found in lower case
_ASOF_KEYS = re.compile("as of|as at|updated|authored|written|snapshot|reconciled|checkpoint|base|commit")
_HEX7 = re.compile(r"[0-9a-f]{7}")
_ISO_DATE = re.compile(ISO_DATE)
_LEADING_DATE = re.compile(rf"^\W{{0,3}}({ISO_DATE})(?!\d)")
_SHA_ASOF = re.compile(
    r"(?i:\b(?:base(?:\s+commit)?|based\s+on|as\s+of|as\s+at|authored\s+(?:from|at|on)|"
    r"written\s+(?:from|at|against)|at\s+commit|snapshot(?:\s+of)?)\s*[:=]?\s*"
    r"(?:(?:the\s+)?commit\s+)?)([0-9a-f]{7,40})(?![\w-])"
)
_DATE_ASOF = re.compile(
    r"(?i:\b(?:as\s+of|as\s+at|(?:last\s+)?updated(?:\s+on)?|authored(?:\s+(?:from|on|at))?|"
    r"written(?:\s+(?:from|on|at))?|snapshot(?:\s+of)?|reconciled(?:\s+on)?|checkpoint(?:\s+of)?)"
    rf"\s*[:=]?\s*(?:the\s+)?)({ISO_DATE})(?!\d)"
)
_NOT_PAST = frozenset(
    {
        "need",
        "feed",
        "speed",
        "seed",
        "breed",
        "bleed",
        "embed",
        "shed",
        "proceed",
        "succeed",
        "exceed",
        "red",
        "bed",
        "wed",
        "bred",
        "fed",
        "led",
    }
)
_IRREGULAR_PAST = frozenset(
    {
        "ran",
        "took",
        "found",
        "saw",
        "made",
        "wrote",
        "built",
        "began",
        "got",
        "did",
        "had",
        "was",
        "were",
        "kept",
        "left",
        "lost",
        "sent",
        "spent",
        "won",
        "broke",
        "chose",
        "gave",
        "grew",
        "knew",
        "rose",
        "spoke",
        "threw",
        "brought",
        "bought",
        "caught",
        "fought",
        "sought",
        "taught",
        "thought",
        "led",
        "held",
        "heard",
        "meant",
        "shot",
        "stood",
        "struck",
        "understood",
        "fed",
        "became",
        "came",
        "went",
        "drew",
        "fell",
    }
)
# What is left of a partly struck statement when the struck part was the work: how it ended
# ("~~Port X~~ Landed; see abc123", "~~Rerun 4B~~ done 2026-07-28", "~~Fix Y~~ ✅").
_STRUCK_OUTCOME = re.compile(
    r"(?:\[[xX]\]|✅|✔|☑|(?:done|landed|closed|fixed|resolved|shipped|merged|completed?|dropped|superseded|"
    r"obsolete|abandoned|cancell?ed|retired|reverted|removed|moot|rejected|wontfix|won't (?:do|fix)|"
    r"not needed|no longer needed|n/a)(?![\w-]))",
    re.I,
)
_EMPTY_VALUES = frozenset({"", "none", "n/a", "na", "nothing", "-", "—", "–", "tbd", "none.", "(none)", "nil"})
# More characters than the longest empty value that _norm() keeps (it drops only whitespace and `_-*.:`, and
# lower-casing never shortens a character): then the text is no empty value, and needs no _norm().
_LONGER_THAN_EMPTY = re.compile(rf"(?:[^\s_\-*.:][\s_\-*.:]*){{{max(map(len, _EMPTY_VALUES)) + 1}}}")
# A word, never the head of an identifier: "handle429Error()" or "add_user" opens with no verb.
_WORD = re.compile(r"[A-Za-z][A-Za-z-]*+(?![0-9_])")
# The column of a table that names a row's work (not its figures, owners, evidence or state).
# A free-text column that may carry a row's work when the table has no column of work: "| #381 | Priya | 🔴 | Add
# DualSense rumble on recoil |" under "Ticket | Owner | Status | Notes". Only a cell that opens with an imperative counts.
NOTE_COLUMN = re.compile(r"\bnotes?\b|comment|detail|remark|context", re.I)
WORK_COLUMN = re.compile(
    r"capabilit|title|item|feature|task|descri|work|what|scope|deliverable|change|summary|goal|"
    r"outcome|name|area|topic|unit|remedia|mitigat|action|finding|\bfix\b|\bbug\b|\bissue\b|request|"
    r"key result|objective|initiative|\bepic\b|\bstor(?:y|ies)\b|requirement|"
    # Spanish, Portuguese, German, French, Italian
    r"trabajo|tarea|trabalho|tarefa|aufgabe|arbeit|vorhaben|tâche|tache|travail|lavoro|compito|attivit|"
    # Dutch, Polish
    r"omschrijving|beschrijving|\btaak|\btaken\b|\bwerk\b|onderwerp|\bopis\b|zadani|prac[ae]\b",
    re.I,
)
# State words of work under way: such a row is tracked, not asked for, unless its work names code (parser.py).
_PROGRESS_STATES = frozenset(
    "in progress|in-progress|wip|doing|ongoing|started|en curso|en progreso|em andamento|em progresso|en cours|"
    "in arbeit|in bearbeitung|in corso|"
    # Dutch, Polish
    "bezig|in uitvoering|onderhanden|lopend|w toku|w trakcie|w realizacji|realizowane".split("|")
)
# State words of work not started yet (or blocked): such a row, in a table with no column of next steps, asks for its work.
# (A row in progress, partial or gating is tracked, not asked for: its progress is not its completion.)
_TODO_STATES = frozenset(
    {
        "todo",
        "to do",
        "to-do",
        "planned",
        "plan",
        "not started",
        "open",
        "new",
        "pending",
        "queued",
        "unstarted",
        "next",
        "ready",
        "proposed",
        "backlog",
        # the same in the languages records are often kept in: Spanish, Portuguese, German, French, Italian
        "pendiente",
        "no iniciado",
        "sin empezar",
        "por hacer",
        "pendente",
        "não iniciado",
        "nao iniciado",
        "a fazer",
        "offen",
        "geplant",
        "nicht begonnen",
        "à faire",
        "a faire",
        "non commencé",
        "non commence",
        "prévu",
        "da fare",
        "non iniziato",
        # Dutch, Polish
        "te doen",
        "gepland",
        "nieuw",
        "niet begonnen",
        "do zrobienia",
        "zaplanowane",
        "zaplanowany",
        "nowe",
        "nowy",
        "otwarte",
        "nierozpoczęte",
        # blocked work is work still asked for, not started or stopped until its blocker clears
        "blocked",
        "bloqueado",
        "bloqueada",
        "blockiert",
        "bloqué",
        "bloquée",
        "bloccato",
        "bloccata",
        "geblokkeerd",
        "zablokowane",
        "zablokowany",
    }
)
# Sections of rules and process: their imperatives say how to work, not what work is left.
# A section of notes kept beside the work, in the languages records are kept in: under a TODO title too, an item
# there is a directive by its own words only ("- Session TTL is 30 min by default" notes; "- Rerun X after ..." asks).
_NOTES_TITLE = re.compile(
    r"^\W*(?:\d+(?:\.\d+)*[.)]?\s+)?(?:notes?|memos?|remarks|fyi|notas|notizen|anmerkungen|hinweise|remarques)\b"
    r"|^\W*(?:メモ|備考|注記|参考|备注|笔记|筆記|메모|비고|참고)",
    re.I,
)


def _notes(sections: tuple[str, ...]) -> bool:
    """Is the innermost section (not the file's title) one of notes?"""
    return len(sections) > 1 and _NOTES_TITLE.match(sections[-1]) is not None


_PROCESS_SECTION = re.compile(
    r"\b(?:protocol|polic(?:y|ies)|rules?|conventions?|guidelines?|workflow|how[- ]to|"
    r"procedures?|process|contract|discipline|etiquette|checklist for|template|"
    r"recommendations?|principles?|style|usage|examples?|troubleshooting|known issues|"
    r"common (?:issues|errors|problems)|gotchas|lessons|faq|pitfalls|"
    # a problem write-up's sections and a runbook's checks: how to look, not work to do
    r"verification(?: steps)?|verify|diagnos[ie]s|best practices|constraints|"
    r"investigation(?: areas)?|alternatives?(?: approaches)?|expected (?:solution|outcome|"
    r"behaviou?r|results?)|rollback|contingency|(?:future|target) state|root cause|"
    r"learnings|symptoms|problem statement|background|quick ?start|getting started|installation)\b",
    re.I,
)
_BROAD_SECTIONS = frozenset({"plan", "remaining", "next up", "tasks", "next"})
# Words that open a "Label: value" line (a locator or a field), never an imperative there.
_LABELS = frozenset(
    "file files path paths location locations component components module modules target targets "
    "scope source sources test tests status owner owners date branch commit commits pr link links "
    "reference references ref refs result results output input context impact severity".split()
)
_LABEL_TAIL = re.compile(r"(?:\s+[A-Za-z]+){0,3}[*_` ]*:")
_OPEN_BOX = re.compile(r"^\s*\[ \]\s+(?=\S)")
# A line that marks its own work done: a check mark, or DONE/COMPLETE(D) written in capitals.
# (Each alternative opens with a literal, the words' `\b` written as a lookbehind after their first letter, so that
# `re` skips to candidate characters in C rather than trying every position.)
_DONE_IN_LINE = re.compile(
    r"✅|✔|☑|D(?<!\wD)ONE\b|C(?<!\wC)OMPLETED?\b|F(?<!\wF)INISHED\b|S(?<!\wS)HIPPED\b|L(?<!\wL)ANDED\b"
)


@dataclass(frozen=True)
class Verdict:
    directive: bool
    historical: bool
    directive_text: str | None

    def __post_init__(self) -> None:
        if self.directive_text:
            object.__setattr__(self, "directive_text", without_current_state(self.directive_text))


# "Paginate GET /orders with a cursor: today it returns every order and the app hangs": after a colon or a dash, a
# clause that opens with "today" / "currently" (in the languages records are written in) says how things are now,
# the reason for the work, not the work. The part that asks for work ends before it.
_CURRENT_STATE = re.compile(
    r"\s*(?::|\s[-–—])\s+(?:today|currently|right\s+now|at\s+the\s+moment|as\s+of\s+now|hoy|actualmente|ahora\s+mismo|"
    r"hoje|atualmente|heute|derzeit|aktuell|momentan|aujourd'hui|actuellement|oggi|attualmente)\b",
    re.I,
)


_OWED_SECTION = re.compile(
    r"(?<![\w])(?:known[- ]gaps|action[- ]items|follow[- ]?ups?|open[- ]items|outstanding|(?:left|still)[- ]to[- ]do)"
    r"(?![\w])",
    re.I,
)
# A blocker's label ("Blocked on:", "Waiting for:") and, after the why, the sentence naming what it waits for
# ("... so a replay would hammer the ERP API. Needs per-topic backoff in `retry/policy.go`").
_BLOCKER_LABEL = re.compile(r"^(?:blocked\s+(?:on|by)|blockers?|waiting\s+(?:on|for)):$", re.I)
_NEED = re.compile(
    r"(?:^|(?<=[.;:])\s+)(?:needs?|requires?|depends\s+on|waits?\s+(?:on|for)|waiting\s+(?:on|for)|"
    r"blocked\s+(?:on|by)|until)\b",
    re.I,
)


# A note that says, unlabelled, what its row waits for: "blocked until the export API lands (`export_api`)", "waiting
# on infra for the bucket", "bloqueado hasta que salga la API", "wartet auf das neue Schema". At the start of the
# note or of one of its clauses: "we were blocked on it" reports, and is no clause of its own.
_WAITS_FOR = re.compile(
    r"\b(?:blocked\s+(?:until|on|by)|waiting\s+(?:on|for|until)|on\s+hold\s+until|depends\s+on|"
    r"blockiert\s+(?:bis|durch|von)|wartet\s+auf|bloqueado\s+(?:hasta|por|até|pela|pelo)|esperando|aguardando|"
    r"bloqué\s+(?:par|jusqu)|en\s+attente\s+de)\b",
    re.I,
)
_WAIT_HINTS = ("block", "bloq", "wait", "hold", "depends", "esperando", "aguardando", "attente", "wartet")


def waits_for(text: str) -> str | None:
    """The clause of a note that names what its row waits for (up to the next `;`), or None."""
    low = text.lower()
    if not any(h in low for h in _WAIT_HINTS):  # most notes wait for nothing: no regex for them
        return None
    for m in _WAITS_FOR.finditer(text):
        before = text[: m.start()].rstrip()
        if before and before[-1] not in ";:,.(—–":
            continue  # "we were blocked on it": inside a clause, a report
        end = text.find(";", m.end())
        return text[m.start() : end if end >= 0 else len(text)].strip()
    return None


# What a label says when nothing is left under it: "Blocked on: Nothing.", "Next: none", "Blockers: n/a", "—".
_NOTHING_LEFT = re.compile(
    r"\W*(?:nothing|none|n/?a|nil|nobody|no\s+blockers?|not\s+blocked|—|–|-)\s*(?:$|[.;,!)(]|\s+(?:yet|so\s+far|today|now)\b)",
    re.I,
)


def _blocker_need(phrase: str, text: str) -> str:
    """A blocker's directive text: from the sentence that names what it waits for when one does, after a why
    ("we can't replay the DLQ yet: X has one global backoff ... Needs per-topic backoff"); else all of it."""
    if _BLOCKER_LABEL.match(phrase) is None:
        return text
    m = _NEED.search(text, len(phrase))
    return text[m.start() :].strip() if m is not None and m.start() > len(phrase) + 1 else text


def without_current_state(text: str) -> str:
    """`text` without a trailing clause that says how things are now (_CURRENT_STATE); whole if it opens with one."""
    m = _CURRENT_STATE.search(text)
    return text[: m.start()].rstrip() if m and m.start() > 0 else text


class Classifier:
    """Config-derived regexes, compiled once per Config."""

    def __init__(self, config: "Config"):
        d = config.directives
        self._col_cache: dict[str, bool] = {}
        self._sec_cache: dict[tuple[str, ...], bool] = {}
        self.columns = frozenset(_norm(c) for c in d.columns)
        self.verbs = frozenset(v.lower() for v in d.verbs)
        self.closed = frozenset(s.upper() for s in config.closed_states)

        def alternation(names: Iterable[str]) -> str:
            return "|".join(re.escape(s.lower()).replace(r"\-", "[- ]?").replace(r"\ ", "[- ]?") for s in names)

        # Names that mean a list of work wherever they appear in the heading path ("3. Punch-list"); the broad
        # ones ("Plan", "Remaining") only when they open the innermost heading, so a file titled "Completion
        # plan" does not make every item of it a directive.
        strong = [s for s in d.sections if s.lower() not in _BROAD_SECTIONS]
        broad = [s for s in d.sections if s.lower() in _BROAD_SECTIONS]
        self.section_re = re.compile(rf"(?<![\w])(?:{alternation(strong)})(?![\w])", re.I) if strong else None
        self.broad_section_re = (
            re.compile(rf"^\W*(?:§?\d+(?:\.\d+)*[.)]?\s+)?(?:the\s+)?(?:{alternation(broad)})(?![\w])", re.I)
            if broad
            else None
        )
        self.phrase_re = _phrase_re(d.phrases)
        idp = "|".join(f"(?:{p})" for p in (*config.id_patterns, *config.claim_patterns)) or r"(?!x)x"
        # What may precede the first real word of a directive: dates, ids, owners in parentheses, separators.
        # ... and a step number: "W2.1 Generate ...", "2.3 Add ...", "P1: Port ...", "Step 3: Wire ..."
        step = r"(?:[A-Z]{1,3}\d+(?:\.\d+)*|\d+\.\d+(?:\.\d+)*|(?i:step)\s+\d+)(?=[\s:.)])[.):]?"
        self.lead_re = re.compile(rf"^(?:\s*(?:{ISO_DATE}|{idp}|{step}|\[ \]|\([^)]{{0,80}}\)|[:—–\-*•|,.>→]))*\s*")
        # A log entry's date, time and owner lead its title too: "- 2026-03-09 13:05Z (ibis) CLAIM-X: ...".
        self.title_lead_re = re.compile(
            rf"^(?:\s*(?:§?\d+[a-z]?[.)]|{ISO_DATE}|\d{{1,2}}:\d\d(?::\d\d)?Z?|"
            rf"\([^()]{{1,40}}\)|(?i:row|claim|item)\s|[\[(#:—–-]))*\s*"
        )

    def is_directive_column(self, column: str | None) -> bool:
        if not column:
            return False
        hit = self._col_cache.get(column)
        if hit is None:
            c = _norm(column)
            hit = self._col_cache[column] = c in self.columns or any(
                c.startswith(k + " ") or c.endswith(" " + k) for k in self.columns
            )
        return hit

    def in_work_list_section(self, sections: tuple[str, ...]) -> bool:
        """Under a heading that names work owed rather than steps to take ("Known gaps", "Action items",
        "Follow-ups", "Open items"): a how-to's (a prompt's, a runbook's) "Next steps" or "Plan" are its own
        instructions to whoever runs it."""
        return any(_OWED_SECTION.search(s) for s in sections)

    def in_directive_section(self, sections: tuple[str, ...]) -> bool:
        hit = self._sec_cache.get(sections)
        if hit is None:
            hit = (
                (self.section_re is not None and any(self.section_re.search(s) for s in sections))
                or bool(sections and self.broad_section_re is not None and self.broad_section_re.match(sections[-1]))
                or in_plan_section(sections)  # "下周计划", "Future work", "Próximos pasos": records/plan_sections.py
            )
            self._sec_cache[sections] = hit
        return hit

    def is_progress_state(self, text: str) -> bool:
        """Is a State cell's value a state of work under way (in progress, WIP, en curso, em andamento, ...)?"""
        value = _norm(text.lstrip(" *_`[(").rstrip(" *_`])"))
        words = value.split()
        return bool(words) and (" ".join(words[:2]) in _PROGRESS_STATES or words[0] in _PROGRESS_STATES)

    def is_open_state(self, text: str, legend: dict[str, str] | None = None) -> bool:
        """Is a State cell's value a not-started state (todo, planned, open, ...)? A leading status emoji reads
        as the words the record's own `legend` gives it ("🔴 not started"), and so does a word the legend
        defines ("raw — not started"). Without a legend a mark is no not-started state: ☐ in a parity matrix
        means "not ours yet", not "work asked for"."""
        mark = text.lstrip(" *_`[(").rstrip(" *_`])")
        if mark and not mark[0].isascii():
            meaning = next((w for m, w in (legend or {}).items() if mark.startswith(m)), None)
            if meaning is not None:
                text = meaning
        elif legend and (word := leading_word(mark)) in legend:
            text = legend[word]
        value = _norm(text)
        if value in _EMPTY_VALUES or not value:
            return False
        words = value.split()
        return (
            value in _TODO_STATES
            or " ".join(words[:2]) in _TODO_STATES
            or words[0].strip("*_`.,;:()[]") in _TODO_STATES
        )

    def classify(
        self,
        text: str,
        kind: str,
        column: str | None,
        sections: tuple[str, ...],
        all_struck: bool,
        struck: bool = False,
    ) -> Verdict:
        """`text` has struck-through text removed; `struck`: some was, `all_struck`: all of it was."""
        if all_struck:
            return Verdict(False, True, None)
        if kind == "heading":
            return Verdict(False, _historical(text), None)
        if struck and (kind != "cell" or self.is_directive_column(column)) and self.struck_work(text):
            return Verdict(False, True, None)  # "~~Port X~~ Landed; ...": the struck part was the work
        if _CHECKED.match(text) and _PRESENT_FACT.search(text):
            return Verdict(False, False, None)  # a ticked box that says how things are now: a current claim
        if _historical(text):
            return Verdict(False, True, None)
        if _DONE_IN_LINE.search(text):
            return Verdict(False, False, None)  # "Set up error alerts ✅ COMPLETE": the line says its work is done
        phrase = self.phrase_re.search(text) if self.phrase_re else None
        box = _OPEN_BOX.match(text)
        # In a section of gates, scope, results, background or design, or on a line labelled as a gate, only a
        # request asks: an open box, a TODO/Next:, a hand-off. "Must ..." there states a criterion.
        role = (
            (roles.role_of(sections, self._is_request_section) or roles.label_role(text))
            if kind in ("item", "paragraph")
            else None
        )
        if role and not (box or phrase and phrase.group(0).lower() != "must" or find_handoff(text) or roles.asks(text)):
            return Verdict(False, False, None)
        if phrase and _NOTHING_LEFT.match(text, phrase.end()):
            return Verdict(False, False, None)  # "Blocked on: Nothing.", "Next: none": the label says there is none
        if phrase:
            return Verdict(True, False, _blocker_need(phrase.group(0), text[phrase.start() :].strip()))
        handoff = find_handoff(text) if kind in ("item", "paragraph") else None
        if handoff:  # "Next owner should ...", "**Next run should** ...": a request to whoever comes next
            return Verdict(True, False, text[handoff.start() :].strip())
        pending = pending_note(text) if kind in ("item", "paragraph", "cell") else None
        if pending:  # "🟡 Cart: ... Fix pending: release the reservation ...": records/status_notes.py
            return Verdict(True, False, text[pending.start("label") :].strip())
        if box:  # "- [ ] ...": an open task, whatever its wording
            return Verdict(True, False, text[box.end() :].strip() or None)
        rest = text[_end(self.lead_re, text) :]
        first = _WORD.match(rest)
        word = first.group(0).lower() if first else ""
        if kind in ("item", "paragraph") and not self.in_directive_section(sections) and _states_fact(rest):
            return Verdict(False, False, None)  # "Run + probe: quantized a model, ran it: PASS" reports
        if _LEADING_DATE.match(text) and _is_past(word):
            return Verdict(False, True, None)  # a dated log entry in the past tense records what happened
        if first is not None and word in _LABELS and kind != "cell" and _LABEL_TAIL.match(rest[first.end() :]):
            return Verdict(False, False, None)  # "**File**: src/x.ts" names a place; "File" is no imperative here
        meaningful = _LONGER_THAN_EMPTY.search(text) is not None or _norm(text) not in _EMPTY_VALUES
        if not meaningful:
            return Verdict(False, False, None)
        if kind == "cell":
            directive = self.is_directive_column(column)
        elif kind == "item" and self.in_directive_section(sections) and not _notes(sections):
            directive = True
        else:
            directive = (word in self.verbs or opens_with_infinitive(rest)) and not any(
                _PROCESS_SECTION.search(s) for s in sections[1:] or sections
            )
        return Verdict(directive, False, text.strip() if directive else None)

    def _is_request_section(self, title: str) -> bool:
        return self.in_directive_section((title,))

    def opens_with_imperative(self, text: str) -> bool:
        """Does the text, past its ids and lead ("#381 —", "**"), open with one of the directive verbs?"""
        first = _WORD.match(text[_end(self.lead_re, text) :])
        return first is not None and first.group(0).lower() in self.verbs

    def struck_work(self, text: str) -> bool:
        """Was the work struck through? What is left, past its ids, dates, notes in parentheses and a
        directive phrase ("Next:", "TODO"), is nothing, or says how the work ended ("Landed; ...")."""
        rest = text[_end(self.lead_re, text) :]
        phrase = self.phrase_re.match(rest) if self.phrase_re else None
        if phrase:
            rest = rest[phrase.end() :]
            rest = rest[_end(self.lead_re, rest) :]
        return not any(ch.isalnum() for ch in rest) or _STRUCK_OUTCOME.match(rest) is not None

    def title_ids(self, text: str, config: "Config") -> tuple[str | None, str | None]:
        """(row id the title names, id the title defines by starting with it) for a heading/item/paragraph."""
        title = _title(text)
        ids, claims = ids_in(title, config)
        found = sorted(ids + claims)
        if not found:
            return None, None
        start = _end(self.title_lead_re, title)
        defines = next((i for s, _, i in found if s == start), None)
        return found[0][2], defines


def _phrase_re(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    r"""The directive phrases as whole words, longest first. Each phrase's leading `(?<![\w])` is written after its
    first character (`N(?<![\w]N)ext:`: the same test), so the alternation opens with literals and `re` skips to
    their first characters in C; a lookbehind in front would be tried at every position of every statement."""
    ordered = sorted(phrases, key=len, reverse=True)
    phr = "|".join(re.escape(p) for p in ordered)
    if not phr:
        return None
    if not all(ordered):  # an empty phrase matches wherever the lookbehind holds: keep the plain form
        return re.compile(rf"(?<![\w])(?:{phr})(?!\w)")
    alts = "|".join(f"{re.escape(p[0])}(?<![\\w]{re.escape(p[0])}){re.escape(p[1:])}" for p in ordered)
    return re.compile(rf"(?:{alts})(?!\w)")


def checked(text: str) -> bool:
    """Does the item open with a ticked box ("[x] ...")?"""
    return _CHECKED.match(text) is not None


def marks_done(text: str) -> bool:
    """Does a cell say its row's work is done: a check mark, a ticked box, DONE/SHIPPED/...?"""
    return _DONE_IN_LINE.search(text) is not None or re.match(r"^\W*\[[xX]\]", text) is not None


def _states_fact(rest: str) -> bool:
    """A labelled line whose text after the label opens in the past tense, or a check recorded at a named commit
    with its verdict: a report of what happened, whatever verb its label starts with."""
    after = roles.after_label(rest)
    if after is not None:
        first = _WORD.match(after)
        if first is not None and _is_past(first.group(0).lower()):
            return True
    return roles.records_a_check(rest)


def _historical(text: str) -> bool:
    low = text.lower()
    if _HIST_KEYS.search(low) and _HIST_ANY.search(text):
        return True
    return _HIST_START.match(text) is not None


def _title(text: str) -> str:
    """The title part of an item/heading: up to the first ': ', ' — ', '. ' or ';' (at most 160 chars)."""
    cut = len(text)
    for sep in (": ", " — ", " – ", " - ", ". ", "; "):
        i = text.find(sep)
        if 0 <= i < cut:
            cut = i
    return text[: min(cut, 160)]


def _is_past(word: str) -> bool:
    if word in _IRREGULAR_PAST:
        return True
    return len(word) >= 4 and word.endswith("ed") and word not in _NOT_PAST


def _norm(s: str) -> str:
    return " ".join(s.lower().replace("_", " ").replace("-", " ").replace("*", " ").split()).strip(" .:")


def as_of_in(text: str, leading_date: bool) -> AsOf | None:
    """The base sha and/or date `text` says it was written from; a leading date counts for dated entries."""
    low = text.lower()
    keyed = _ASOF_KEYS.search(low) is not None  # both patterns need one of these words; skip the regexes without
    # ... and a sha (7 hex digits in a row) or an ISO date: cheap scans; the patterns open with a case-insensitive
    # `\b` that `re` tries at every position of the text
    sha_m = _SHA_ASOF.search(text) if keyed and _HEX7.search(text) else None
    date_m = _DATE_ASOF.search(text) if keyed and _ISO_DATE.search(text) else None
    date = date_m.group(1) if date_m else None
    if date is None and leading_date:
        lead = _LEADING_DATE.match(text)
        date = lead.group(1) if lead else None
    sha = sha_m.group(1) if sha_m else None
    if sha and not (any(c.isdigit() for c in sha) and any(c.isalpha() for c in sha)):
        sha = None
    if sha is None and date is None:
        return None
    return AsOf(sha=sha, date=date)


def _end(lead: re.Pattern[str], text: str) -> int:
    """Where a lead pattern ends in `text` (lead patterns end in `*\\s*`: they match every text)."""
    m = lead.match(text)
    assert m is not None
    return m.end()

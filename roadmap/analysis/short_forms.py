"""Short forms a directive's own words make, for a commit that writes the same thing short.

Engineers shorten a phrase in two usual ways: to its initials ("least recently used" -> LRU, "write ahead log" ->
WAL) and, for an id, a number or a count, to the first word's initial and the short last word whole ("key id" ->
kid, "process id" -> pid, "user id" -> uid, "disk io" -> dio). analysis/work.py keeps a table of well-known pairs;
these are formed from the directive's own consecutive words, so "tokens carry a key id" meets a commit that says
"put a kid header on issued tokens" without anyone listing that pair. A form is only looked for, never counted as
a term of its own: when a commit says it, the directive's words it stands for count as said (work.match).

Forms come from runs of two or three content words written next to each other (no function word, number or
punctuation between them); an initialism needs three letters, and no form may be a word of the directive itself or
a word every commit uses.

A name written as one capitalized compound (a product or brand: "DualSense", "PlayStation", "GameCube") is
shortened to the initials of its parts: three parts give a three-letter form, two parts a two-letter one that counts
only written in capitals with a generation number after it ("DS5", "PS4"; analysis/work.py marks those in commit
messages as `ds#`), since two letters alone say too little. Code in backticks is an identifier, not a name.

The other way round, a directive that writes an initialism in capitals ("Ativar CDC", "move the WAL") meets a
commit that spells it out ("enable change data capture", "terminal UI" for TUI): work.initialism_marks marks each
run of three or four content words of a commit with its initials (`^cdc`), and the initialism's form is that mark.
Two capitals ("DI", "CI") meet two content words of five letters or more ("dependency injection"): shorter words
pair up by chance too often.
A word cut to its initial before a hyphen ("i-frames": invulnerability frames) meets a commit that writes a word
with that initial leading a name of two words ("invulnerability window"): `initial_forms`, `spelled_initials`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from roadmap.analysis.stem import stem
from roadmap.analysis.work import ABBREVIATIONS, GENERIC_WORDS, INITIALISM, terms_of

_RUN = re.compile(r"[A-Za-z]+(?:[ \t]+[A-Za-z]+)*")
MAX_KEPT_WORD = 3  # a last word this short is kept whole ("id", "io", "ui"): "kid", "pid", "dio"


def short_forms(text: str) -> dict[str, frozenset[str]]:
    """{stem of a short form: the stems of the words it stands for} for `text`."""
    forms = _forms(tuple(_RUN.findall(text)))
    acronyms = _ACRONYM.findall(_CODE.sub(" ", text)) if _ACRONYM_HINT.search(text) else []
    if acronyms:
        forms = {**_acronym_forms(tuple(acronyms)), **forms}
    if _COMPOUND_HINT.search(text) is None:
        return forms
    compounds = _compound_forms(tuple(_COMPOUND.findall(_CODE.sub(" ", text))))
    return {**compounds, **forms} if compounds else forms


# An initialism the directive writes in capitals ("CDC", "WAL"): a commit that spells it out ("change data capture")
# carries its `^cdc` mark (analysis/work.initialism_marks), and the directive's term for it counts as said.
_ACRONYM_HINT = re.compile(r"[A-Z]{2}")
_ACRONYM = re.compile(r"(?<![\w-])([A-Z]{2,4})s?(?![\w-])")


@lru_cache(maxsize=1 << 12)
def _acronym_forms(acronyms: tuple[str, ...]) -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}
    for a in acronyms:
        low = a.lower()
        if len(low) == 2 and low in ABBREVIATIONS:
            continue  # a well-known one ("AI", "UI") means what the table says, not any two words with its initials
        parts = terms_of(a, False) | terms_of(a, True) | {low}
        out.setdefault(INITIALISM + low, frozenset(parts))
    return out


_CODE = re.compile(r"`[^`]*`")
_COMPOUND_HINT = re.compile(r"[a-z][A-Z]")
# A capitalized compound of two or three capitalized words of three letters or more: "DualSense", "GameCube".
_COMPOUND = re.compile(r"(?<![\w-])[A-Z][a-z]{2,}(?:[A-Z][a-z]{2,}){1,2}(?![\w-])")
NUMBERED = "#"  # a two-letter form stands only with a generation number after it: `ds#` is said by "DS5"


@lru_cache(maxsize=1 << 12)
def _compound_forms(words: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """Short forms of capitalized compounds: "DualSense" -> {"ds#": {dualsens, dual, sens}}."""
    out: dict[str, frozenset[str]] = {}
    for w in words:
        parts = re.findall(r"[A-Z][a-z]+", w)
        initials = "".join(p[0] for p in parts).lower()
        form = initials if len(parts) == 3 else initials + NUMBERED
        if initials in GENERIC_WORDS:
            continue
        out.setdefault(form, frozenset(stem(x.lower()) for x in (w, *parts)))
    return out


@lru_cache(maxsize=1 << 14)
def _forms(runs: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """short_forms of a text with these runs of words: the forms and the text's own words are read from its
    runs alone, so texts that differ only in numbers and punctuation ("stage 3", "stage 4") share one entry."""
    out: dict[str, frozenset[str]] = {}
    own = {w.lower() for run in runs for w in run.split()}  # every letter word of the text is in one run
    for run in runs:
        for form, stemmed, stands in _run_forms(run):
            if form not in own:
                out.setdefault(stemmed, stands)
    return out


@lru_cache(maxsize=1 << 15)
def _run_forms(run: str) -> tuple[tuple[str, str, frozenset[str]], ...]:
    """(form, its stem, the stems of its words) for each form one run of words makes, in order, before the text's
    own words are left out: texts that differ share most of their runs ("to the cache path"), and a stem is a
    Python call per word."""
    out = []
    words = [w.lower() for w in run.split()]
    for n in (2, 3):
        for i in range(len(words) - n + 1):
            phrase = words[i : i + n]
            if any(w in GENERIC_WORDS or len(w) < 2 for w in phrase):
                continue
            forms = []
            if n == 3:
                forms.append("".join(w[0] for w in phrase))
            if len(phrase[-1]) <= MAX_KEPT_WORD:
                forms.append("".join(w[0] for w in phrase[:-1]) + phrase[-1])
            for form in forms:
                if len(form) >= 3 and form not in GENERIC_WORDS:
                    out.append((form, stem(form), frozenset(stem(w) for w in phrase)))
    return tuple(out)


# A switch or setting named with three or more parts (`--min-base-quality`, `max_batch_tokens`): code renames it
# by cutting two or three of its parts after the first to their initials (`--min-bq`, `max_bt`). Two letters are
# enough there, because the form counts only where a commit writes the whole short name (`min-bq`), not the
# initials alone.
_IDENT = re.compile(r"(?<![\w-])-{0,2}([A-Za-z][a-z0-9]*(?:[-_][A-Za-z][a-z0-9]*){2,})")


def identifier_forms(text: str) -> tuple[tuple[str, str, frozenset[str]], ...]:
    """(short name, its initials, the stems of the parts they cut) for each multi-part name of `text`:
    `--min-base-quality` gives ("min-bq", "bq", {base, qualiti}) and ("min_bq", "bq", {base, qualiti})."""
    out: dict[str, tuple[str, frozenset[str]]] = {}
    for m in _IDENT.finditer(text):
        parts = [p.lower() for p in re.split(r"[-_]", m.group(1))]
        for i in range(1, len(parts)):
            for n in (2, 3):
                cut = parts[i : i + n]
                if len(cut) < n:
                    continue
                initials = "".join(p[0] for p in cut)
                short = parts[:i] + [initials] + parts[i + n :]
                for sep in ("-", "_"):
                    out.setdefault(sep.join(short), (initials, frozenset(stem(p) for p in cut)))
    return tuple((k, v[0], v[1]) for k, v in out.items())


# A word cut to its initial before a hyphen: "i-frames" (invulnerability frames), "k-means". Code is left out.
_HYPHEN_INITIAL = re.compile(r"(?<![\w-])([A-Za-z])-([a-z]{3,})(?![\w-])")
MIN_SPELLED = 5  # the word an initial stands for is a real one, not "in", "is", "its"


def initial_forms(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """(initial, the stems of the word written after it) for each hyphen-cut word of `text`: "give the player
    i-frames" gives ("i", {frame})."""
    if "-" not in text:
        return ()
    found = {(m.group(1).lower(), stem(m.group(2))) for m in _HYPHEN_INITIAL.finditer(_CODE.sub(" ", text))}
    return tuple((i, frozenset({s})) for i, s in sorted(found) if s not in GENERIC_WORDS)


_PAIR_RUN = re.compile(r"[a-z]{2,}(?:[ \t]+[a-z]{2,})+")


def spelled_initials(
    message: str, initials: tuple[tuple[str, frozenset[str]], ...], verbs: frozenset[str] = frozenset()
) -> dict[str, frozenset[str]]:
    """{stem of a word of `message` an initial of `initials` stands for: the stems it then says}: the word starts
    with the initial and leads a run of two content words, the way the initial leads its short form
    ("invulnerability window" for "i-frames"). A verb of work (`verbs`: "extend the belt") names no thing."""
    out: dict[str, frozenset[str]] = {}
    wanted = {i for i, _ in initials}
    for run in _PAIR_RUN.findall(_CODE.sub(" ", message)):
        words = run.split()
        for first, second in zip(words, words[1:]):
            if first[0] not in wanted or len(first) < MIN_SPELLED or first in GENERIC_WORDS or second in GENERIC_WORDS:
                continue
            s = stem(first)
            if s in _stems(verbs):
                continue
            for initial, stands in initials:
                if first[0] == initial and s not in stands:
                    out.setdefault(s, stands)
    return out


@lru_cache(maxsize=8)
def _stems(words: frozenset[str]) -> frozenset[str]:
    return frozenset(stem(w) for w in words)

"""Regexes shared by the record parser, compiled once (parsing 60k lines must take seconds, not minutes)."""

from __future__ import annotations

import re

ISO_DATE = r"(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
# The boundary lookbehind sits after the first character so `re` can skip to candidate characters in C
# (a pattern that opens with a lookbehind is tried at every position: several times slower on long text).
DATE_RE = re.compile(r"([12](?<![\w-][12])\d\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))(?!\d)")
# 7..40 lower-case hex with a digit and a letter, not inside a longer word/path; `a..b` ranges allowed.
SHA_RE = re.compile(r"[0-9a-f](?<![\w\-/:#@][0-9a-f])(?<![^.]\.[0-9a-f])[0-9a-f]{6,39}(?![\w-])")
FULL_SHA_RE = re.compile(r"^(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}$")
# VT_ASYNC_DEVICE_MIRROR (an underscore), $HOME-style is not required; or NAME= (an assignment).
ENV_RE = re.compile(r"(?<![\w.-])\$?\{?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![\w-])|(?<![\w.-])([A-Z][A-Z0-9_]{2,})(?==)")
# What every ENV_RE match holds, led by a capital letter so `re` skips to candidates in C (ENV_RE opens with a
# lookbehind and is tried at every position): no candidate, no env var; else ENV_RE runs from the first one.
_ENV_HINT = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9]|[A-Z][A-Z0-9_]{2,}=")
FULL_ENV_RE = re.compile(r"^\$?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z][A-Z0-9_]{2,}(?==))(?:=\S*)?$")
FLAG_RE = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
# Evidence names: 20260727-slug or slug-20260727 (compact date); found from the date (a cheap literal scan) and
# grown to the whole token in Python, then validated as a real date.
_EV_DATE = re.compile(r"20\d{6}")
_EV_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
PICKAXE_RE = re.compile(r"-[SG]\s*'([^']+)'|-[SG]\s*\"([^\"]+)\"")
DIGIT_RE = re.compile(r"\d")


def find_envs(text: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of every ENV_RE match. A match's name starts at or after the first _ENV_HINT, and
    the match at most two characters (`${`) before it: the scan starts there, with the same matches."""
    hint = _ENV_HINT.search(text)
    if hint is None:
        return []
    return [(m.start(), m.end(), m.group(1) or m.group(2)) for m in ENV_RE.finditer(text, max(0, hint.start() - 2))]


def find_shas(text: str) -> list[tuple[int, int, str]]:
    """(start, end, sha) for every commit-looking hex token: 7..40 lower-case hex with a digit and a letter."""
    return [
        (m.start(), m.end(), m.group(0))
        for m in SHA_RE.finditer(text)
        if not m.group(0).isdigit() and not m.group(0).isalpha()
    ]


def find_evidence(text: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of bare evidence names: `20260727-slug` or `slug-20260727`, whole-token."""
    out: list[tuple[int, int, str]] = []
    n = len(text)
    for m in _EV_DATE.finditer(text):
        s, e = m.start(), m.end()
        if not valid_compact_date(m.group(0)) or (e < n and text[e].isdigit()):
            continue
        start, end = s, e
        if e + 1 < n and text[e] == "-" and text[e + 1].isalnum():  # date first
            end = e + 1
            while end < n and text[end] in _EV_CHARS and text[end] != "/":
                end += 1
            while text[end - 1] in ".-_":
                end -= 1
        elif s >= 2 and text[s - 1] == "-" and text[s - 2].isalnum():  # date last
            if e < n and (text[e].isalnum() or text[e] in "_-"):
                continue
            start = s - 1
            while start > 0 and text[start - 1] in _EV_CHARS:
                start -= 1
            while start < s and not text[start].isalpha():
                start += 1
            if start >= s - 1:
                continue
        else:
            continue
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_/.-"):
            continue
        if out and start < out[-1][1]:
            continue
        out.append((start, end, text[start:end]))
    return out


def valid_compact_date(d: str) -> bool:
    """20260727 -> True; 20261399 -> False."""
    return len(d) == 8 and d.isdigit() and 1 <= int(d[4:6]) <= 12 and 1 <= int(d[6:8]) <= 31


def dedupe(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items)) if items else ()  # (most statements name none of a kind)


# A line that states a premise the next steps rest on ("Hypothesis: ...", "Assumption for the next sweeps: ...",
# "Root cause: ..."): in a log's newest entry it is as live as a request, since a later commit can refute it.
# A diagnosis stated as the present cause: "the pool is running out (...); that is what produces the 502s", "the
# stall is due to X", "the root cause is Y". In a log's newest entry it is what the team believes now (a later
# commit can refute it), where the entry's report of what happened is history.
PRESENT_CAUSE_RE = re.compile(
    r"\b(?:is|are)\s+(?:the\s+)?(?:cause|bottleneck|culprit|reason)\s+(?:of|for|why)\b"
    r"|\b(?:is|that's|which\s+is|this\s+is)\s+what\s+(?:\w+\s+){0,2}?(?:causes|produces|triggers|drives|explains)\b"
    r"|\b(?:is|are)\s+(?:caused\s+by|due\s+to)\b|\broot[- ]cause\s+is\b"
    # Spanish, German, French: "El origen es ...", "se debe a", "die Ursache ist", "la cause est"
    r"|\b(?:el\s+origen|la\s+causa)\s+es\b|\bse\s+debe\s+a\b|\bdie\s+Ursache\s+ist\b|\bla\s+cause\s+est\b"
    # where it comes from: "vient du relèvement du seuil", "proviene del pool", "vem do cache", "kommt vom Cache"
    r"|\b(?:pro)?vient\s+(?:d[eu]s?\b(?!\s+\w+(?:er|ir|re)\b)|d['\u2019])|\b(?:pro)?viene\s+del?\b|\bvem\s+d[eoa]s?\b"
    r"|\bkommt\s+(?:\w+\s+)?(?:vo[nm]|aus\s+de[mnr])\b",
    re.I,
)
PREMISE_LABEL_RE = re.compile(
    r"^\W*(?:working\s+)?(?:hypothes[ie]s|assumptions?|premise|theory|root[- ]cause|suspicion)\b[^:\n]{0,40}:"
    # French, Spanish, Portuguese, German: "Cause : ...", "Hipótesis: ...", "Ursache: ...", "Vermutung: ..."
    r"|^\W*(?:cause|causa|hypoth[èe]se|hip[óo]tes[ie]s?|ursache|vermutung|annahme)\s*:",
    re.I,
)

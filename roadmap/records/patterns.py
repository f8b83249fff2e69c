"""Regexes shared by the record parser, compiled once (parsing 60k lines must take seconds, not minutes)."""
from __future__ import annotations

import re

ISO_DATE = r"(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
DATE_RE = re.compile(rf"(?<![\w-])({ISO_DATE})(?!\d)")
# 7..40 lower-case hex with a digit and a letter, not inside a longer word/path; `a..b` ranges allowed.
SHA_RE = re.compile(r"(?<![\w\-/:#@])(?<![^.]\.)(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w-])")
FULL_SHA_RE = re.compile(r"^(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}$")
# VT_ASYNC_DEVICE_MIRROR (an underscore), $HOME-style is not required; or NAME= (an assignment).
ENV_RE = re.compile(r"(?<![\w.-])\$?\{?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![\w-])|(?<![\w.-])([A-Z][A-Z0-9_]{2,})(?==)")
FULL_ENV_RE = re.compile(r"^\$?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z][A-Z0-9_]{2,}(?==))(?:=\S*)?$")
FLAG_RE = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
# Evidence names: 20260727-slug or slug-20260727 (compact date), validated as a real date afterwards.
EVIDENCE_RE = re.compile(
    r"(?<![\w/.-])(?:(20\d{6})-([A-Za-z0-9](?:[\w.-]*[A-Za-z0-9])?)|([A-Za-z](?:[\w.-]*?[A-Za-z0-9])?)-(20\d{6}))(?![\w-])")
PICKAXE_RE = re.compile(r"-[SG]\s*'([^']+)'|-[SG]\s*\"([^\"]+)\"")
WORD_RE = re.compile(r"[A-Za-z][A-Za-z'-]*")


def valid_compact_date(d: str) -> bool:
    """20260727 -> True; 20261399 -> False."""
    return len(d) == 8 and d.isdigit() and 1 <= int(d[4:6]) <= 12 and 1 <= int(d[6:8]) <= 31


def compact_to_iso(d: str) -> str:
    return f"{d[:4]}-{d[4:6]}-{d[6:8]}"


def dedupe(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))

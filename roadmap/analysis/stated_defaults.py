"""Defaults a record states as a value: "`SESSION_TTL` defaults to 30 minutes", "the default is 3 (`MAX_RETRIES`)",
"セッションの有効期限は既定で 30 分（`SESSION_TTL_MINUTES`）", "`pool_size` 默认为 8", "`X` vale 4 por defecto".

A statement states a default when, in one sentence, a default word of any language the records are written in
(default, 既定, デフォルト, 默认, 기본값, por defecto, standardmäßig, par défaut, ...) stands next to a value (a
number, or a backticked word) with nothing but connecting words between them ("defaults to", "既定で", "默认为",
"기본값은"), and the phrase speaks of a setting the statement names as code (analysis/flag_binding.py). Such a
claim is written as `NAME==VALUE`: analysis/default_flips.py reads which commits changed that setting's default
away from the value (roadmap/checks/default_changed.py reports them). A directive asks for a value ("Raise the
`X` default to 60"), and a sentence that says the value is past ("no longer defaults to 30") states none.
"""

from __future__ import annotations

import re
from functools import lru_cache

from roadmap.analysis.flag_binding import bound, names
from roadmap.records.model import Statement
from roadmap.records.setting_values import ASKS, CONST_NAME, LINK, NUMBER, WAS
from roadmap.regex_hints import Hinted, fold, may_hold

_DEFAULT = (
    r"(?:\bby default\b|\bdefault(?:s|ed)?(?: value)?\b|既定値|既定|デフォルト値|デフォルト|初期値|默认值|默认|默認值|默認|"
    r"缺省值|缺省|预设|預設|기본값|기본|\bpor (?:defecto|omisi[oó]n)\b|\bpadr[aã]o\b|\bstandardm[aä](?:ss|ß)ig\b|"
    r"\bper default\b|\bstandardwert\b|\bpar d[eé]faut\b|\bdi default\b|\bpredefinit[oa]\b)"
)
# What may stand between a default word and its value: "defaults to", "default is", "default value of",
# "既定で", "デフォルトは", "默认为", "기본값은", "por defecto es", "standardmäßig auf".
_JOIN = (
    r"(?:[\s:=：`*_]|\b(?:to|is|of|at|now|es|est|ist|auf|bei|sind|de|à|di|è|é|vale|son)\b|"
    r"[ではがにの]|为|為|是|值|값은|값|은|는|으로|로)*"
)
_NUMBER = NUMBER
_WORD_VALUE = r"[A-Za-z][\w.:+-]{0,59}"  # a value only when the statement writes it as code
_AFTER = re.compile(rf"{_DEFAULT}(?P<join>{_JOIN})(?<![\w.])(?P<value>{_NUMBER}(?![\w.]*\d)|{_WORD_VALUE})", re.I)
# "30 minutes by default", "3 retries par défaut": the value first, a unit word between.
_BEFORE = re.compile(
    rf"(?:(?<![\w.])(?P<value>{_NUMBER})(?:\s*[A-Za-z\u3040-\u30ff\u4e00-\u9fff]{{1,12}})?|"
    rf"(?<![\w.:-])(?P<code>{_WORD_VALUE}))\s*"
    r"(?:by default|par d[eé]faut|por defecto|standardm[aä](?:ss|ß)ig|per default|di default)\b",
    re.I,
)
# Each searched only in a sentence holding a literal every match of it does (regex_hints.py)
_AFTER_HINTED, _BEFORE_HINTED = Hinted(_AFTER), Hinted(_BEFORE)
# The value is history: "no longer defaults to 30", "used to default to 30", "was 30 by default", "以前は".
_PAST = re.compile(
    r"\b(?:no longer|used to|previously|formerly|was|were|old|former|until)\b[^.;]{0,30}$|以前|かつて|旧|原来|以前",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
# Names the statement writes as code that are no setting: a path, a file.
_FILE = re.compile(r"/|\.[A-Za-z]{1,5}$")


def stated_defaults(st: Statement) -> frozenset[str]:
    """`NAME==VALUE` for each setting whose default the statement states as a value. The cheap tests first: most
    statements name no default, and hashing a statement for the cache costs more than they do. A constant's
    value is its default, default word or not: "keeps `BUSY_TIMEOUT_MS` at 0", "`BATCH_GROESSE` steht auf 500"."""
    if st.directive or not (st.mentions.symbols or st.mentions.env_vars):
        return frozenset()
    found = _stated_defaults(st) if _has_default_word(st.text) else frozenset()
    names = [n for n in (*st.mentions.env_vars, *st.mentions.symbols) if _CONST_NAME.fullmatch(n)]
    consts = _constant_values(st.text, tuple(names)) if names else frozenset()
    return found | consts if consts else found


# A constant (`MAX_RETRIES`, `kArenaBytes`) the statement writes as code, a linking word, then a number: "keeps
# `BUSY_TIMEOUT_MS` at 0", "`BATCH_GROESSE` steht auf 500", "`POOL_SIZE` is 8", "`X` = 30", "`X` vale 4"; or the
# words the constant spells, when the statement names it too: "Dash cooldown is 0.8 s (`DASH_COOLDOWN`)".
_CONST_NAME = CONST_NAME
_LINK = LINK


@lru_cache(maxsize=4096)
def _constant_values(text: str, names: tuple[str, ...]) -> frozenset[str]:
    out = set()
    for sent in _SENTENCE.split(" ".join(text.split())):
        low = fold(sent)
        for name in names:
            if not all(may_hold(low, w) for w in _constant_words(name)):
                continue  # no match in this sentence: its regex is not compiled for nothing (hundreds of names)
            for m in _constant_re(name).finditer(sent):
                if _WAS.search(sent[: m.start()]) or _ASKS.search(sent[: m.start()]):
                    continue
                out.add(f"{name}=={m.group('value').replace(',', '.')}")
    return frozenset(out)


@lru_cache(maxsize=4096)
def _constant_re(name: str) -> re.Pattern[str]:
    """The constant by name, or by the words it spells ("Dash cooldown is 0.8 s (`DASH_COOLDOWN` ...)"), then a
    linking word and a value; compiled once per name (re's own cache of 512 patterns was thrashed: a record names
    more constants than that, and each was compiled anew per sentence)."""
    words = _constant_words(name)
    spelled = r"[\s_-]+".join(re.escape(w) for w in words) if len(words) >= 2 else None
    said = rf"(?:{re.escape(name)}|{spelled})" if spelled else re.escape(name)
    return re.compile(rf"(?<![\w-]){said}(?![\w-]){_LINK}", re.I)


@lru_cache(maxsize=4096)
def _constant_words(name: str) -> tuple[str, ...]:
    """The words a constant's name spells (`DASH_COOLDOWN` -> DASH, COOLDOWN; `kArenaBytes` -> Arena, Bytes), or the
    name alone when it spells fewer than two: every match of _constant_re holds each of them, in some case (the
    name holds its words, and so does its spelling)."""
    words = tuple(w for w in re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", name.removeprefix("k")) if w)
    return words if len(words) >= 2 else (name,)


_WAS = WAS
_ASKS = ASKS


@lru_cache(maxsize=4096)
def _stated_defaults(st: Statement) -> frozenset[str]:
    code = [
        n
        for n in (s.split("=", 1)[0].strip().rstrip("()") for s in (*st.mentions.env_vars, *st.mentions.symbols))
        if n and not _FILE.search(n)
    ]
    if not code:
        return frozenset()
    out: set[str] = set()
    for sent in _SENTENCE.split(" ".join(st.text.split())):
        for m in [*_AFTER_HINTED.finditer(sent), *_BEFORE_HINTED.finditer(sent)]:
            if _PAST.search(sent[: m.start()]):
                continue
            group = "value" if m.groupdict().get("value") else "code"
            value = m.group(group)
            if value[0].isalpha() and value not in code:
                continue  # "defaults to off" is RL104's opt-in; a word is a value only when written as code
            at = m.span(group)
            spans = [
                (x.start(), x.end())
                for c in code
                if c != value and c in sent  # each match of _name_re(c) is c itself
                for x in _name_re(c).finditer(sent)
                if not (x.start() < at[1] and at[0] < x.end())
            ]
            for s, e in bound(sent, m.start(), m.end(), names(sent, spans, prose=False)):
                name = sent[s:e]
                if name in code and _SETTING.match(name) and _SHAPED.search(name):
                    out.add(f"{name}=={value.replace(',', '.')}")
    return frozenset(out)


_HINTS = re.compile(r"default|défaut|defecto|omisi|padr|standard|既定|デフォルト|初期値|默|缺省|预设|預設|기본", re.I)
_has_hint = Hinted(_HINTS).search  # the text lower-cased once, not each word tried in each case


# What a setting's name looks like: an identifier, maybe qualified (`Desc::priority`, `cfg.timeout`) or a flag, and
# shaped as one (a part separator, a capital, a leading dash): "fail" or "table" in backticks is a word.
_SETTING = re.compile(r"^-{0,2}[A-Za-z_][A-Za-z0-9_-]*(?:(?:::|\.)[A-Za-z_][A-Za-z0-9_]*)*$")
_SHAPED = re.compile(r"[_.:A-Z]|^-")


def _has_default_word(text: str) -> bool:
    return _has_hint(text)


@lru_cache(maxsize=4096)
def _name_re(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")

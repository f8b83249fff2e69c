"""What work a text asks for or reports, as stemmed terms, and how well a directive and a commit meet.

A directive and the commit that did its work are written by different people, often in different words:
"Add least-recently-used eviction to the key-value block pool" and "QS-212: Add LRU evictor to the KV block
pool". Both sides become *work terms*: word stems (analysis/stem.py), camelCase and snake_case parts,
and one concept token per abbreviation whether it is written short (LRU) or long (least recently used).
A commit's message is split into what it did and what it says it did *not* do ("the prefix cache is
untouched: that is a separate ticket", "still no flush ... that's the next bit"): a directive whose
distinguishing terms sit in the second part is work the commit explicitly left, not work it landed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Set as AbstractSet
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import repeat

from roadmap.analysis.function_words import FUNCTION_WORDS
from roadmap.records.language import GENERIC as ROMANCE_GENERIC, GERMAN_GENERIC, language
from roadmap.analysis.stem import german_stem, romance_stem, stem
from roadmap.history.commit import Commit
from roadmap.regex_hints import Hinted

# Abbreviations engineering records and commit messages use for the same thing, short -> long form.
# Either form in a text yields the short form as one concept token (one term, however many words).
ABBREVIATIONS: dict[str, str] = {
    "lru": "least recently used",
    "lfu": "least frequently used",
    "fifo": "first in first out",
    "kv": "key value",
    "tp": "tensor parallel",
    "pp": "pipeline parallel",
    "dp": "data parallel",
    "ep": "expert parallel",
    "gqa": "grouped query attention",
    "mqa": "multi query attention",
    "mha": "multi head attention",
    "mla": "multi head latent attention",
    "swa": "sliding window attention",
    "rope": "rotary position embedding",
    "moe": "mixture of experts",
    "oom": "out of memory",
    "ttft": "time to first token",
    "tpot": "time per output token",
    "itl": "inter token latency",
    "e2e": "end to end",
    "ci": "continuous integration",
    "pr": "pull request",
    "wal": "write ahead log",
    "ttl": "time to live",
    "rps": "requests per second",
    "qps": "queries per second",
    "gc": "garbage collection",
    "csv": "comma separated values",
    "jwt": "json web token",
    "pvc": "persistent volume claim",
    "crd": "custom resource definition",
    "rbac": "role based access control",
    "wer": "word error rate",
    "rtf": "real time factor",
    "ssr": "server side rendering",
    "cdn": "content delivery network",
    "pq": "product quantization",
    "ann": "approximate nearest neighbor",
    "hnsw": "hierarchical navigable small world",
    "slo": "service level objective",
    "sla": "service level agreement",
    "llm": "large language model",
    "lm": "language model",
    "eos": "end of sequence",
    "bos": "beginning of sequence",
    "ckpt": "checkpoint",
    "attn": "attention",
    "impl": "implementation",
    "cfg": "configuration",
    "perf": "performance",
    "auth": "authentication",
    "repo": "repository",
    "env": "environment",
    "seq": "sequence",
    "req": "request",
    "tok": "token",
    "mem": "memory",
    "alloc": "allocation",
    "init": "initialization",
    "dedup": "deduplication",
    "prefill": "prefill",
    "gemm": "matrix multiply",
    "ipc": "inter process communication",
    "rpc": "remote procedure call",
    "fsm": "finite state machine",
    "spmd": "single program multiple data",
    "simd": "single instruction multiple data",
    "i18n": "internationalization",
    "sse": "server sent events",
    "qa": "quality assurance",
    "ux": "user experience",
    "ui": "user interface",
    "ai": "artificial intelligence",
    "ml": "machine learning",
}
# English function words, and words every piece of work uses: they say nothing about which work. (Nouns such as
# "table" or "row" stay: "a lookup table" names work; the IDF weights take care of words a history overuses.)
_GENERIC = (
    frozenset(
        """
a about above after again against all an and any are as at be because been before being below between both but
by did do does doing down during each either else etc every few for from further had has have having here how
if in into is it its itself just least less like more most much no nor not of off on one only or other our out
over own per same since so some such than that the their them then there these they this those through to too
under until up upon us very was we were what whether which who whom why will with within without would you your
add adds added remove removes removed port ports ported rerun reruns measure measures write writes publish fix
step steps work works todo note notes item items next owner owners small medium large first last exact exactly
onto also via instead handle handles handling implement implements ensure ensures allow allows
also just now instead so once then still while when only even yet again already via per each every
thing things way ways bit bits lot part parts case cases time times place kind sort sure need needs want wants
should would could must can may might let lets get gets got go goes going went gone put puts set sets use uses
make makes made do does did doing done want try tries tried new old good bad better best more less same other
feat fix fixes chore docs doc refactor perf test tests style wip nit revert merge merged pull
""".split()
    )
    | FUNCTION_WORDS
)
GENERIC_WORDS = _GENERIC
# Verbs engineers use for the same change, word -> the one term all of them become ("cap the header size" and
# "limit request headers" both say limit). Kept small: only words that mean the same in any change description.
SYNONYMS: dict[str, str] = {
    "cap": "limit",
    "bound": "limit",  # "bounded at 5,000 entries", "cap 5000"
    "deny": "reject",
    "refuse": "reject",
    "disallow": "reject",
}
_SYNONYM_STEMS: dict[str, str] = {}
# The same switch in the languages records are written in, as written (before stemming): a Portuguese plan says
# "Ativar CDC", its English commit "enable change data capture". Kept to switching a thing on or off, where the
# words mean exactly that in any record; only written forms an item or a commit uses (infinitive, 3rd person,
# participle).
_SWITCH_WORDS: dict[str, str] = {
    **dict.fromkeys(
        """ativar ativa ativado ativada activar activa activado activada habilitar habilita habilitado habilitada
        aktivieren aktiviert einschalten activer activé activée attivare attiva attivato attivata abilitare abilita
        abilitato abilitata""".split(),
        "enable",
    ),
    **dict.fromkeys(
        """desativar desativa desativado desativada desactivar desactiva desactivado desactivada deshabilitar
        deshabilita deshabilitado deshabilitada deaktivieren deaktiviert abschalten désactiver désactivé désactivée
        disattivare disattiva disattivato disattivata disabilitare disabilita disabilitato disabilitata""".split(),
        "disable",
    ),
}


def _synonym(s: str) -> str:
    if not _SYNONYM_STEMS:
        _SYNONYM_STEMS.update({stem(w): stem(to) for w, to in SYNONYMS.items()})
    return _SYNONYM_STEMS.get(s, s)


# Ticket keys (QS-212, LED-418), PR numbers (#142) and merge boilerplate name a change; they say nothing of its work.
_NOISE = re.compile(
    r"\b[A-Z][A-Z0-9]{1,9}-\d+\b|#\d+\b|^Merge (?:pull request #\d+ from \S+|branch '[^']*'"
    r"(?: of \S+)?(?: into \S+)?|remote-tracking branch '[^']*')"
)

# Latin letters with their accents (À-ÿ less × and ÷): "gelöscht" and "für" are words, not "gel", "scht", "f", "r".
_WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ][A-Za-zÀ-ÖØ-öø-ÿ0-9_]*|[0-9]+(?:\.[0-9]+)?[A-Za-z]+")
_PLURAL_ABBREVIATION = re.compile(r"[A-Z]{2,}s")
_CAMEL = re.compile(r"[A-ZÀ-ÖØ-Þ]+(?![a-zß-öø-ÿ])|[A-ZÀ-ÖØ-Þ]?[a-zß-öø-ÿ]+|[0-9]+")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)")
# Part of the work done, the rest said to remain ("only the read half", "the rest stays on the old path"): both a
# sentence of work not done (_UNDONE) and a commit that did only part of its work (_PARTIAL).
_PART_LEFT = (
    r"\bonly\s+(?:the\s+)?(?:\w+\s+)?(?:half|part|side)\b|\bthe\s+rest\s+(?:stays?|remains?|is\s+still|still)\b"
)
# A sentence of a commit message that reports work NOT done: deferred, left untouched, explicitly refused.
_UNDONE = re.compile(
    r"\buntouched\b|\bnot\s+(?:yet|done|touched|included|covered|handled|addressed|implemented|changed|doing|"
    r"part\s+of|in\s+this|going\s+to)\b|\bstill\s+(?:no|not|missing|open|needs?|grows?|fails?|drops?|loses?|lost|"
    r"broken|pending|unsupported|attends?|blocks?|waits?|runs?|uses?|only)\b|"
    r"\b(?:separate|another|later|future|follow-?up|next|subsequent)\s+(?:ticket|issue|pr|change|commit|step|bit|"
    r"patch|task|piece|round|session|pass)\b|\bthat(?:'s|\s+is)\s+(?:the\s+)?next\b|\bleft\s+for\b|"
    r"\bout\s+of\s+scope\b|\bnothing\s+to\s+do\s+with\b|\bnot\s+the\s+(?:same|point)\b|"
    r"\b(?:won't|will\s+not|do\s+not|don't|does\s+not|doesn't|did\s+not|didn't|cannot|can't)\s+(?:yet\s+)?"
    r"(?:do|touch|change|handle|cover|include|fix|address|add|implement|flush|support|ship|land)\b|"
    r"\bwe\s+are\s+not\b|\bnot\s+doing\b|\bTODO\b|\bdeferred\b|\bpostponed\b|\bdraft\b|\bexperiment(?:al)?\b|"
    # the pieces not connected yet, or left for later by name: "zsh and fish are not wired up", "leaving those open"
    r"\bnot\s+(?:yet\s+)?(?:wired|hooked|plumbed)\b|"
    r"\bleav(?:e|es|ing)\s+(?:those|these|them|it|that|both|the\s+rest|the\s+others?)(?:\s+\w+)?\s+open\b|"
    # "blocked on the PCI review", "it is not in CAPTURED_TABLES yet"
    r"\bblocked\s+(?:on|by)\b|\bnot\s+[^.;:]{0,40}\byet\b|"
    r"\bdo\s+not\s+merge\b|\bis\s+(?:a\s+)?separate\b|"
    # a target reported as not reached: "the 10 s budget still unmet", "p99 not met yet", "falls short of 27k"
    r"\bunmet\b|\bnot\s+(?:yet\s+)?(?:met|reached|achieved|there)\b|\bfalls?\s+short\b|"
    r"\bstill\s+(?:short|behind|slower|over|above|below|under|too)\b|"
    # part of the work, the rest said to remain: "only the read half", "writes still go through SettleOne",
    # "no way back to slot A yet", "the rest stays on the old path"
    + _PART_LEFT
    + r"|\bstill\s+(?:go(?:es)?|goes|happens?|live|lives|sits?|stays?|remains?|brick\w*)\b|\bno\s+[^.;:]{0,40}\byet\b|"
    # a switch or a setting said to keep its state: "use_coil_pipeline stays default off", "remains opt-in",
    # "is left disabled by default", "stays as is"
    r"\b(?:stays?|remains?|is\s+(?:left|kept)|keeps?\s+(?:it|them)?)\s+(?:(?:by\s+)?default\s+|the\s+)?"
    r"(?:off|opt[- ]?in|disabled|unchanged|untouched|as\s+is|the\s+same|behind\s+(?:a|the)\s+flag)\b"
    # Chinese, Japanese, Korean: "TP=2 还得做", "这个提交只是加了打印", "尚未支持", "まだ未対応", "아직 안 됨"
    r"|还(?:得|要|没|未|需要?)(?:做|实现|支持|完成|加)?|仍(?:需|然需要|未)|尚未|未(?:完成|实现|支持|做)|待(?:做|实现|完成)|"
    r"先不(?:用)?做|只是(?:加了|改了|做了)|后续再|下(?:次|个提交)再|まだ|未対応|未実装|今後|後で|아직|나중에",
    re.I,
)
# A commit that says it did part of a piece of work and names the rest as remaining ("This is only the read half:
# writes still go through SettleOne", "part 1 of 2", "the rest stays on the old path"): by its words alone it does
# not complete a directive (a symbol it introduces, or the directive's id in its message, still can).
_PARTIAL = re.compile(
    _PART_LEFT + r"|\b(?:first|one)\s+half\b|\bpart\s+(?:1|one|i)\s+(?:of|/)|\bpartially\b|"
    r"\bpartial\s+(?:fix|implementation|port|support|work|migration|rollout|change)\b|"
    # "The TODO item stays open for the paired-end half", "Punkt 3 bleibt offen", "el punto sigue abierto"
    r"\b(?:item|ticket|task|todo|point|punkt|row|issue|story|card|rest|remainder|punto|tarefa|tâche)\b[^.;]{0,30}?"
    r"\b(?:stays?|remains?|is\s+still|bleibt|sigue|reste|continua|fica)\s+(?:open|offen|abiert[oa]|ouverte?|abert[oa])\b|"
    r"\bthe\s+[\w-]+\s+half\b",
    re.I,
)
# What a commit says is not there yet, by name: "No forward yet (W3 throws a stub)", "the loader is still a stub",
# "eviction is not yet wired". Its words say that piece of work is still to do even where the same words come up
# elsewhere in the message as work done (a declaration `Model::Forward` is not the forward pass).
_NOT_THERE = re.compile(
    r"\bno\s+((?:[\w/+-]+\s+){0,3}?[\w/+-]+)\s+yet\b|"
    r"\b((?:[\w/+-]+\s+){0,2}?[\w/+-]+)\s+(?:is|are)\s+(?:still\s+)?(?:not\s+yet|missing|a\s+stub|stubbed)\b",
    re.I,
)


def _not_there(text: str) -> set[str]:
    out: set[str] = set()
    low = text.lower()
    if "yet" not in low and "stub" not in low and "missing" not in low:
        return out
    for m in _NOT_THERE.finditer(text):
        out.update(terms_of(m.group(1) or m.group(2)))
    return out


# Each alternative of _UNDONE is searched only in a sentence holding a literal it needs (regex_hints.py): its
# word-bounded alternatives are tried at every position of every sentence of every commit (a third of commit_work
# on the 10,000-commit benchmark repository).
_says_undone = Hinted(_UNDONE).search
# A sentence that reports what was there before the commit ("✅ /api/audit endpoint exists with pagination",
# "correlation ids (already supported)") lists work the commit did not do; a condition ("skip it if the bucket
# already exists") describes new behaviour and stays done.
_EXISTED = re.compile(
    r"\b(?:already|previously)\s+(?:supported|implemented|existed|exists|existing|present|in\s+place|available|"
    r"there|wired|covered|handled|done)\b|\bexist(?:s|ed)\s+(?:already|with|since)\b|"
    # "works with the thread-MPI build we already have": what the commit builds on, not what it built
    r"\b(?:we|you|it|they|one)\s+already\s+(?:have|has|had|use|uses|used|ship|ships|run|runs)\b",
    re.I,
)
_CONDITION = re.compile(r"\b(?:if|when|whenever|unless|whether|once)\b", re.I)
# bool(_EXISTED.search(text)), bool(_PARTIAL.search(text)), each alternative searched only where a literal it
# needs is (regex_hints.py): asked of every sentence, and every message, of every commit
_says_existed = Hinted(_EXISTED).search
_says_partial = Hinted(_PARTIAL).search
_LONG_FORMS: dict[tuple[str, ...], str] = {}
_LONG_FIRSTS: set[str] = set()  # the first stems of the long forms: only a text with one can hold a long form


def _long_forms() -> dict[tuple[str, ...], str]:
    if not _LONG_FORMS:
        for short, long in ABBREVIATIONS.items():
            words = tuple(stem(w) for w in long.split())
            if len(words) > 1:
                _LONG_FORMS[words] = short
                _LONG_FIRSTS.add(words[0])
    return _LONG_FORMS


# A size written in full ("seq 32768", "8192 tokens") is the word its short form is ("32k", "8k"): binary
# multiples of 1024 first, then decimal thousands.
_SIZE_NUMBER = re.compile(r"(?<![\w.,])(\d{4,7})(?![\w.,])")
_FOUR_DIGITS = re.compile(r"\d{4}")


def _size_word(n: int) -> str | None:
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024}k"
    if n >= 1000 and n % 1000 == 0:
        return f"{n // 1000}k"
    return None


def _raw_words(text: str) -> list[str]:
    """Words in text order; identifiers (snake_case, camelCase with two or more real parts) are kept whole and
    split into their parts. "YaRN" and "RoPE" are words, "PVCs" is the plural of an abbreviation. A run of CJK
    characters gives its character bigrams (_cjk_bigrams). A size written in full gives its short form (32768:
    "32k"), after the words."""
    out: list[str] = []
    clean = _NOISE.sub(" ", text)
    sizes = [_size_word(int(n)) for n in _SIZE_NUMBER.findall(clean)] if _FOUR_DIGITS.search(clean) else []
    if clean.isascii():
        for w in _WORD.findall(clean):
            out.extend(_word_parts(w))
        return out + [w for w in sizes if w]
    for m in _WORD_OR_CJK.finditer(clean):
        w = m.group(0)
        out.extend(_cjk_bigrams(w) if _CJK.match(w) else _word_parts(w))
    return out + [w for w in sizes if w]


# Chinese and Japanese write no spaces between words (and Korean attaches its particles): the terms of such text are
# the character bigrams of each run of Han, kana or Hangul, less those holding a function character (的, 了, の,
# は, ...). "粗排特征读取加本地缓存" and "粗排特征读取加 Caffeine 本地缓存" share 粗排, 特征, 读取, 本地, 缓存.
_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK = re.compile(f"[{_CJK_CHARS}]")
_WORD_OR_CJK = re.compile(f"[{_CJK_CHARS}]+|" + _WORD.pattern)
CJK_FUNCTION_CHARS = frozenset(
    "的了是在和与及或把被让都也就从对为给将又再并而个这那要会能没不别每之其所于但若则吗呢吧啊们得着过"
    "のはがをにでともへやかな"
)


@lru_cache(maxsize=1 << 15)
def _cjk_bigrams(run: str) -> tuple[str, ...]:
    pairs = (run[i : i + 2] for i in range(len(run) - 1))
    return tuple(p for p in pairs if not (p[0] in CJK_FUNCTION_CHARS or p[1] in CJK_FUNCTION_CHARS))


def term_count(terms: AbstractSet[str]) -> int:
    """How many words `terms` stand for: a CJK run of n characters gives n - 1 bigrams for about n / 2 words, so
    its bigrams count half (a Japanese directive is no longer than its English twin for being written without
    spaces); every other term counts one."""
    cjk = sum(1 for t in terms if not t.isascii() and _CJK.match(t))
    return len(terms) - cjk + (cjk + 1) // 2


@lru_cache(maxsize=1 << 17)
def _word_parts(w: str) -> tuple[str, ...]:
    """One word of _raw_words as the words it stands for (a project's texts repeat a few thousand words)."""
    low = w.lower()
    if _PLURAL_ABBREVIATION.fullmatch(w):
        return (low[:-1],)
    parts = [p for chunk in w.split("_") for p in _CAMEL.findall(chunk)] if ("_" in w or not w.islower()) else []
    if "_" in w and len([p for p in parts if p]) > 1:
        return (low, *(p.lower() for p in parts if len(p) >= 2))
    if len(parts) > 1 and sum(len(p) >= 3 for p in parts) >= 2:
        return (low, *(p.lower() for p in parts if len(p) >= 3))  # the identifier itself, as written, then its parts
    return (low,)


_STEMMERS = {"es": romance_stem, "de": german_stem}


@lru_cache(maxsize=1 << 17)
def _word_term(w: str, lang: str = "en") -> tuple[str, str | None]:
    """(stem, the work term it gives or None) of one raw word of a text in `lang` (records/language.py)."""
    if not w.isascii() and _CJK.match(w):
        return w, w  # a CJK bigram: no stem, no function word (those are left out already)
    s = _STEMMERS.get(lang, stem)(w) if w.isalpha() else w
    switch = _SWITCH_WORDS.get(w)
    if switch is not None:
        return s, stem(switch)
    if lang == "es" and w in ROMANCE_GENERIC or lang == "de" and w in GERMAN_GENERIC:
        return s, None
    if w in ABBREVIATIONS:
        return s, w
    if len(w) < 2 or w in _GENERIC or w.isdigit():
        return s, None
    return s, _synonym(s)


@lru_cache(maxsize=1 << 16)
def terms_of(text: str, lang: str | bool | None = None) -> frozenset[str]:
    """The work terms of `text`: stems of its content words, identifier parts, one token per abbreviation.
    Stems are those of `lang` ("es", "de", "en"; True is "es", False "en"), or of the language the text's own
    words say (None)."""
    words = tuple(_raw_words(text))
    if lang is None:
        lang = language(words)
    elif isinstance(lang, bool):
        lang = "es" if lang else "en"
    return _terms_of_words(words, lang)


@lru_cache(maxsize=1 << 16)
def _terms_of_words(words: tuple[str, ...], lang: str = "en") -> frozenset[str]:
    """terms_of a text with these raw words: texts that differ only in what is no word (a bare number, an
    issue key, punctuation) share one entry. A long form ("least recently used") is one term, its abbreviation's
    (lru), and its words are no terms of their own: "a least-recently-used cache" and "an LRU" name the same thing
    with the same terms, and the words "recently" and "used" there say nothing else."""
    stems: list[str] = []
    terms: list[str | None] = []
    for w in words:
        s, term = _word_term(w, lang)
        stems.append(s)
        terms.append(term)
    longs = _long_forms()
    starts = [i for i, s in enumerate(stems) if s in _LONG_FIRSTS]  # most texts have none
    if not starts:
        return frozenset(t for t in terms if t is not None)
    shorts: set[str] = set()
    covered: set[int] = set()
    for n in (5, 4, 3, 2):
        for i in starts:
            if i + n <= len(stems) and covered.isdisjoint(range(i, i + n)):
                hit = longs.get(tuple(stems[i : i + n]))
                if hit:
                    shorts.add(hit)
                    covered.update(range(i, i + n))
    return frozenset(t for k, t in enumerate(terms) if t is not None and k not in covered) | shorts


# What a commit message quotes is someone else's words: a bot's bump with its upstream release notes, an
# HTML <details> block, a "> " quote. Only the committer's own words say what the commit did.
_BOT_SUBJECT = re.compile(
    r"^(?:build|chore|deps)\(deps(?:-dev)?\)|^bump\s+\S+\s+from\b|^\[snyk\]|"
    r"^update dependency\b|^\S+\[bot\]",
    re.I,
)
_QUOTED = re.compile(r"<details>.*?</details>|<[A-Za-z/][^>\n]{0,80}>|^[ \t]*>.*$", re.S | re.M)


@lru_cache(maxsize=1 << 15)
def own_words(c: Commit) -> tuple[str, str]:
    """(subject, body) as the committer wrote them; both empty for an automated dependency bump."""
    if _BOT_SUBJECT.search(c.subject):
        return "", ""
    return c.subject, _QUOTED.sub(" ", c.body)


# A "> " quote is its lines only: what the committer writes after it is theirs (_QUOTED's `.*$` under re.S runs to
# the end of the message, dropping every word after the first quoted line).
_QUOTED_LINES = re.compile(r"<details>.*?</details>|<[A-Za-z/][^>\n]{0,80}>|^[ \t]*>[^\n]*$", re.S | re.M)


@lru_cache(maxsize=1 << 15)
def own_lines(c: Commit) -> tuple[str, str]:
    """own_words, with the committer's words after a "> " quote kept (RL103 reads a refutation written below the
    premise it quotes)."""
    if _BOT_SUBJECT.search(c.subject):
        return "", ""
    return c.subject, _QUOTED_LINES.sub(" ", c.body)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


@dataclass(frozen=True)
class CommitWork:
    """A commit message as work: what it says it did, what it says it did not do, and its subject's terms."""

    done: frozenset[str]
    undone: frozenset[str]
    subject: frozenset[str]
    partial: bool = False  # it says it did only part of its work (_PARTIAL)
    absent: frozenset[str] = frozenset()  # terms of what it says is not there yet (_NOT_THERE), not its subject's


# Two capitals and a generation number ("DS5", "PS4"): the short form of a two-word capitalized name (a product:
# DualSense, PlayStation), marked `ds#` in a commit's terms for analysis/short_forms.py to meet.
_NUMBERED_SHORT = re.compile(r"(?<![\w-])([A-Z]{2})[0-9](?![\w-])")


def _message_terms(text: str, lang: str) -> frozenset[str]:
    """terms_of(text, lang), with a `ds#` mark for each "DS5" it writes and a `^cdc` mark for the initials of
    each run of three or four content words ("change data capture", "terminal UI"): a directive that writes the
    initialism ("Ativar CDC") meets the commit that spells it out (analysis/short_forms.py)."""
    terms = terms_of(text, lang)
    marks = {m.lower() + "#" for m in _NUMBERED_SHORT.findall(text)} | initialism_marks(text)
    return terms | marks if marks else terms


_LOWER_RUN = re.compile(r"[a-z]{2,}(?:[ \t]+[a-z]{2,})+")
# One or two lower-case words, then an abbreviation in capitals that ends the name: "terminal UI", "admin API".
_ABBREVIATED_TAIL = re.compile(r"(?<![\w-])((?:[a-z]{2,}[ \t]+){1,2})([A-Z]{2,3})(?![\w-])")
INITIALISM = "^"


@lru_cache(maxsize=1 << 15)
def initialism_marks(text: str) -> frozenset[str]:
    """`^` and the initials of each run of three or four lower-case content words written next to each other, and
    of one or two such words before an abbreviation, which an initialism keeps whole ("terminal UI" -> `^tui`)."""
    out: set[str] = set()
    for run in _LOWER_RUN.findall(text):
        words = run.split()
        if len(words) < 3:
            continue
        # the initials of the run, a NUL for each generic word: the windows of content words are those of the
        # pieces between the NULs (a window test per word, not per word of every window)
        for piece in "".join("\0" if w in _GENERIC else w[0] for w in words).split("\0"):
            for n in (3, 4):
                for i in range(len(piece) - n + 1):
                    out.add(INITIALISM + piece[i : i + n])
    # two long content words side by side ("dependency injection", "continuous integration"): a two-letter
    # initialism ("DI", "CI"); words of fewer than five letters make too many chance pairs to count
    for a, b in _LONG_PAIR.findall(text) if _LONG_PAIR_HINT.search(text) else ():
        if a not in _GENERIC and b not in _GENERIC:
            out.add(INITIALISM + a[0] + b[0])
    for m in _ABBREVIATED_TAIL.finditer(text) if _TWO_CAPITALS.search(text) else ():
        words, tail = m.group(1).split(), m.group(2).lower()
        for i in range(len(words)):
            window = words[i:]
            if not any(w in _GENERIC for w in window) and len(window) + len(tail) <= 4:
                out.add(INITIALISM + "".join(w[0] for w in window) + tail)
    return frozenset(out)


_TWO_CAPITALS = re.compile(r"[A-Z]{2}")
# Two lower-case words of five letters or more next to each other (a lookahead, so that pairs overlap).
_LONG_PAIR = re.compile(r"(?<![\w-])(?=([a-z]{5,})[ \t]+([a-z]{5,})(?![\w-]))")
_LONG_PAIR_HINT = re.compile(r"[a-z]{5}[ \t]+[a-z]{5}")


@lru_cache(maxsize=1 << 15)
def text_language(text: str) -> str:
    """The language `text` is written in, as records/language.py tells it: "es", "de" or "en". Its terms are
    stemmed so."""
    return language(_raw_words(text))


@lru_cache(maxsize=1 << 15)
def message_language(c: Commit) -> str:
    """The language of the commit's message. One language for the whole message: a short sentence of a Spanish
    or German commit has too few words to tell."""
    subject_text, body = own_words(c)
    return text_language(subject_text + "\n" + body) if subject_text or body else "en"


_COMMIT_WORK: dict[Commit, CommitWork] = {}  # by sha (Commit's equality): what commit_work read of each message
_COMMIT_WORK_MAX = 1 << 16


def commit_work(c: Commit) -> CommitWork:
    """The work a commit's message says it did (and did not), once per commit."""
    got = _COMMIT_WORK.get(c)
    if got is None:
        if len(_COMMIT_WORK) >= _COMMIT_WORK_MAX:
            _COMMIT_WORK.clear()  # a long-lived process (a test session) linting many histories stays bounded
        got = _COMMIT_WORK[c] = _commit_work(c)
    return got


def remember_commit_work(known: Mapping[Commit, CommitWork]) -> None:
    """Take commit_work's results computed elsewhere (the history pass's forked child reads half the messages)."""
    if len(_COMMIT_WORK) + len(known) > _COMMIT_WORK_MAX:
        _COMMIT_WORK.clear()
    _COMMIT_WORK.update(known)


def _commit_work(c: Commit) -> CommitWork:
    subject_text, body = own_words(c)
    lang = message_language(c)
    subject = _message_terms(subject_text, lang)
    done: set[str] = set(subject) if not _says_undone(subject_text) else set()
    undone: set[str] = set() if done else set(subject)
    for sent in sentences(body):
        existed = _says_existed(sent) and not _CONDITION.search(sent)
        (undone if existed or _says_undone(sent) else done).update(_message_terms(sent, lang))
    partial = _says_partial(subject_text) or _says_partial(body)
    absent = frozenset(_not_there(body) - subject)
    return CommitWork(frozenset(done), frozenset(undone - done), subject, partial, absent)


@dataclass
class WorkWeights:
    """Inverse document frequency of work terms over the history's commit messages: a term most commits use
    ("kernel" in a kernel library's history) says little about which commit did a piece of work."""

    docs: int
    df: dict[str, int]
    postings: dict[str, list[Commit]]  # term -> commits whose message has it (newest first)
    commits: list[Commit] = field(default_factory=list)  # the commits weighed, in order
    words: dict[str, frozenset[str]] = field(default_factory=dict)  # sha -> the terms its postings hold it under
    _pairs: dict[tuple[str, str], list[Commit]] | None = field(default=None, repr=False, compare=False)
    _subjects: dict[str, tuple[Commit, frozenset[str]]] = field(default_factory=dict, repr=False, compare=False)
    _idf: tuple[dict[str, float], float] | None = field(default=None, repr=False, compare=False)
    _position: dict[str, int] | None = field(default=None, repr=False, compare=False)
    _order_keys: tuple[dict[str, tuple[float, str]], dict[str, float], float] | None = field(
        default=None, repr=False, compare=False
    )

    @classmethod
    def of(cls, commits: Iterable[Commit]) -> "WorkWeights":
        df: dict[str, int] = {}
        postings: dict[str, list[Commit]] = {}
        seen: list[Commit] = []
        words: dict[str, frozenset[str]] = {}
        n = 0
        for c in commits:
            n += 1
            seen.append(c)
            cw = commit_work(c)
            words[c.sha] = cw.done | cw.undone
            for t in words[c.sha]:
                df[t] = df.get(t, 0) + 1
                postings.setdefault(t, []).append(c)
        return cls(n, df, postings, seen, words)

    def subject_pairs(self) -> dict[tuple[str, str], list[Commit]]:
        """(a, b), a < b -> the commits whose subject says both terms; built on first use."""
        if self._pairs is None:
            self._pairs = {}
            for c in self.commits:
                self._subjects[c.sha] = (c, commit_work(c).subject)
                words = sorted(commit_work(c).subject)
                for i, a in enumerate(words):
                    for b in words[i + 1 :]:
                        self._pairs.setdefault((a, b), []).append(c)
        return self._pairs

    def idf(self, term: str) -> float:
        return math.log((self.docs + 1) / (self.df.get(term, 0) + 1)) + 1.0

    def idf_sum(self, terms: Iterable[str]) -> float:
        """The sum of self.idf(t) over terms, without a call per term: match() asks it of millions of terms on a
        long history, which has a few thousand. Summed exactly (math.fsum), so the float does not depend on the
        order of the terms: a set of strings iterates in an order Python's string hashing picks anew each run,
        and a plain sum in that order made two equally good candidates compare differently from run to run."""
        table, stranger = self.idf_table()
        return math.fsum(map(table.get, terms, repeat(stranger)))

    def term_order(self) -> tuple[dict[str, tuple[float, str]], dict[str, float], float]:
        """Per term of the history: its sort key in match() (rarest first, then by name) and its chance factor
        (the share of commits that use it, of at least MIN_DOCS), with the factor of a term it never uses;
        computed once (match() asked them of each matched term of each candidate, millions on a long history)."""
        if self._order_keys is None:
            table, _ = self.idf_table()
            docs = max(self.docs, MIN_DOCS)  # a short history gives few chances for a coincidence, not many
            self._order_keys = (
                {t: (-v, t) for t, v in table.items()},
                {t: min(1.0, max(n, 1) / docs) for t, n in self.df.items()},
                min(1.0, 1 / docs),
            )
        return self._order_keys

    def idf_table(self) -> tuple[dict[str, float], float]:
        """({term: idf} for every term of the history, the idf of a term it never uses), computed once."""
        if self._idf is None:
            self._idf = ({t: self.idf(t) for t in self.df}, self.idf(""))
        return self._idf

    def said_in_subject(self, terms: frozenset[str], ranked: list[str], among: AbstractSet[str] | None) -> list[Commit]:
        """The commits whose subject says at least two of `terms`, whose postings hold one of `ranked`, and whose
        sha is in `among` (when given), in history order. Found through whichever is smallest for these terms:
        the commits of the pairs of subject terms, the postings of the ranked terms, or `among` itself (the news
        of a directive written lately is a few dozen commits, where its common terms' pairs are thousands)."""
        pairs = self.subject_pairs()
        by_postings = sum(self.df[t] for t in ranked)
        rare = set(ranked)
        # looking up every pair of terms is work too: news smaller than that count is read without it
        if among is not None and len(among) < min(by_postings, len(terms) * (len(terms) - 1) // 2):
            lists: list[list[Commit]] = []
            by_pairs = len(among) + 1
        else:
            words = sorted(terms)
            lists = [got for i, a in enumerate(words) for b in words[i + 1 :] if (got := pairs.get((a, b)))]
            by_pairs = sum(map(len, lists))
        if among is not None and len(among) < min(by_pairs, by_postings):
            subjects = self._subjects
            hits = [
                subjects[sha]
                for sha in among
                if sha in subjects and len(subjects[sha][1] & terms) >= 2 and not rare.isdisjoint(self.words[sha])
            ]
            order = self._order()
            return [c for c, _ in sorted(hits, key=lambda h: order[h[0].sha])]
        if by_pairs <= by_postings:
            found: dict[str, Commit] = {}
            for commits in lists:
                for c in commits:
                    found[c.sha] = c
            # in a ranked term's postings: the terms it is filed under (by sha: hashing a Commit is a Python call)
            return [
                c
                for sha, c in found.items()
                if (among is None or sha in among) and not rare.isdisjoint(self.words[sha])
            ]
        seen: set[str] = set()
        out = []
        for t in ranked:
            for c in self.postings[t]:
                if c.sha not in seen and (among is None or c.sha in among):
                    seen.add(c.sha)
                    if len(self._subjects[c.sha][1] & terms) >= 2:
                        out.append(c)
        return out

    def _order(self) -> dict[str, int]:
        if self._position is None:
            self._position = {c.sha: i for i, c in enumerate(self.commits)}
        return self._position


MIN_DOCS = 50


@dataclass(frozen=True)
class WorkMatch:
    """How a commit's reported work covers a directive's terms."""

    matched: tuple[str, ...]  # directive terms the commit says it did
    total: int  # the directive's terms
    ratio: float  # IDF-weighted share of the directive's terms matched
    in_subject: int  # matched terms that are in the commit's subject
    refused: tuple[str, ...]  # directive terms the commit names only where it says what it did NOT do
    refused_ratio: float  # IDF-weighted share of the unmatched terms that it refused
    chance: float = 1.0  # how often a commit of this history says all the matched terms (independence)
    partial: bool = False  # the commit says it did only part of its work
    absent: tuple[str, ...] = ()  # directive terms the commit says are not there yet

    def describe(self, limit: int = 6) -> str:
        shown = ", ".join(self.matched[:limit]) + (", ..." if len(self.matched) > limit else "")
        return f"work terms {len(self.matched)}/{self.total}, weighted {self.ratio:.2f}: {shown}"


def match(
    terms: frozenset[str],
    cw: CommitWork,
    weights: WorkWeights,
    forms: Mapping[str, frozenset[str]] | None = None,
    total: float | None = None,
) -> WorkMatch:
    """How `cw` covers `terms`. `forms` (analysis/short_forms.py) are short forms of the directive's words: a
    commit that says one has said the words it stands for ("kid" for "key id"). `total`: `weights.idf_sum(terms)
    or 1.0` when the caller matches the same `terms` against many commits."""
    done, subject = _said_with(terms, cw, forms)
    if _switched_the_other_way(terms, done):
        return WorkMatch((), len(terms), 0.0, 0, (), 0.0, 1.0, cw.partial, ())
    matched = terms & done
    missing = terms - done
    refused = missing & cw.undone
    if total is None:
        total = weights.idf_sum(terms) or 1.0
    # nothing refused (most candidates) refuses a share of 0.0 whatever the missing terms weigh
    refused_ratio = weights.idf_sum(refused) / (weights.idf_sum(missing) or 1.0) if refused else 0.0
    keys, odds, stranger_odds = weights.term_order()
    try:
        ranked = tuple(sorted(matched, key=keys.__getitem__))
    except KeyError:  # a term the history never uses (said through a short form)
        table, stranger = weights.idf_table()
        ranked = tuple(sorted(matched, key=lambda t: (-table.get(t, stranger), t)))
    chance = 1.0
    for t in ranked:  # in one order every run (a set's changes with the string hashing): the same float product
        chance *= odds.get(t, stranger_odds)
    return WorkMatch(
        ranked,
        len(terms),
        weights.idf_sum(matched) / total if matched else 0.0,
        len(matched & subject),
        tuple(sorted(refused)),
        refused_ratio,
        chance,
        cw.partial,
        tuple(sorted(terms & cw.absent)) if cw.absent else (),
    )


def _said_with(
    terms: frozenset[str], cw: CommitWork, forms: Mapping[str, frozenset[str]] | None
) -> tuple[frozenset[str], frozenset[str]]:
    """The commit's done and subject terms, with the directive's terms a short form of `forms` it says stands for."""
    done, subject = cw.done, cw.subject
    if forms:
        said = {t for f, parts in forms.items() if f in cw.done and f not in terms for t in parts & terms}
        if said:
            in_subject = {t for f, parts in forms.items() if f in cw.subject and f not in terms for t in parts & terms}
            done, subject = done | said, subject | in_subject
    return done, subject


def may_match(
    terms: frozenset[str],
    cw: CommitWork,
    forms: Mapping[str, frozenset[str]] | None,
    matched: int,
    in_subject: int,
) -> bool:
    """False when match(terms, cw, ..., forms) cannot have `matched` terms matched, `in_subject` of them in the
    subject: set sizes only, no weights, before the match itself (most symbol introductions a directive is
    weighed against share a word or two with it)."""
    done, subject = _said_with(terms, cw, forms)
    said = terms & done
    return len(said) >= matched and len(said & subject) >= in_subject


_ON, _OFF = stem("enable"), stem("disable")


def _switched_the_other_way(terms: frozenset[str], done: AbstractSet[str]) -> bool:
    """A directive to switch a thing on (off) is not done by a commit that switched it off (on) and not on (off)."""
    if _ON in terms and _OFF not in terms:
        return _OFF in done and _ON not in done
    if _OFF in terms and _ON not in terms:
        return _ON in done and _OFF not in done
    return False


def said_in_subject(
    terms: frozenset[str], weights: WorkWeights, among: AbstractSet[str] | None = None, rarest: int = 5
) -> list[Commit]:
    """The commits of `candidates(terms, weights, rarest)` whose subject says at least two of `terms` (and whose
    sha is in `among`, when given). Testing every commit that shares a common term, per directive, was most of a
    lint of tools/bench_history.py's 10,000-commit repository; then walking every pair of its terms per directive
    was (WorkWeights.said_in_subject picks the smallest of three ways)."""
    ranked = _rarest(terms, weights, rarest)
    return weights.said_in_subject(terms, ranked, among) if ranked else []


def _rarest(terms: frozenset[str], weights: WorkWeights, rarest: int) -> list[str]:
    return sorted((t for t in terms if t in weights.df), key=lambda t: (weights.df[t], t))[:rarest]


def candidates(terms: frozenset[str], weights: WorkWeights, rarest: int = 5) -> set[Commit]:
    """Commits that share at least one of the directive's rarest terms (the only ones that can match it)."""
    ranked = _rarest(terms, weights, rarest)
    out: set[Commit] = set()
    for t in ranked:
        out.update(weights.postings.get(t, ()))
    return out

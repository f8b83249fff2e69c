"""RL104 default-changed: a statement calls a flag or feature opt-in, and a later commit turned it on by default."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Iterator

from roadmap.analysis.asof import commits_matching, news_shas, news_subset
from roadmap.analysis.commit_text import MAX_COMMITS, message_tokens
from roadmap.analysis.context import LintContext
from roadmap.analysis.default_flips import default_flips
from roadmap.analysis.work import GENERIC_WORDS, own_words
from roadmap.analysis.facts import Flip, News, Reason
from roadmap.analysis.landing import reverts
from roadmap.analysis.flag_binding import bound, names
from roadmap.analysis.reconciled import flip_reconciled
from roadmap.analysis.stale import hits_for
from roadmap.analysis.stated_defaults import stated_defaults
from roadmap.analysis.surfaces import subject_ids
from roadmap.analysis.terms import distinctive_terms, id_parts, is_distinctive, overlap_tokens, tokens
from roadmap.findings import Hit
from roadmap.history.commit import Commit
from roadmap.regex_hints import Hinted, fold, may_hold
from roadmap.records.model import Statement

OPT_IN = re.compile(
    r"\bopt-?in\b|\b(?:off|disabled) by default\b|\bdefault(?:s|ed)?(?: to| is)?[ :=]+"
    r"(?:off|0(?![.,]\d)|false|disabled)\b|\bexperimental\b|\bnot (?:on|enabled) by default\b|"
    r"\b(?:is|are|stays?|remains?)\s+(?:off|disabled)\b|\boff\s+unless\b|"
    r"\bbehind (?:a|the|an) (?:flag|switch|env(?:ironment)? var(?:iable)?)\b"
    # the same in the languages records are often kept in: Spanish, German, French
    r"|\b(?:desactivad|apagad)[oa]s? por defecto\b|\bpor defecto (?:está |están |viene )?(?:desactivad|apagad)"
    r"|\bstandardmäßig (?:deaktiviert|aus|abgeschaltet)\b|\bper default (?:deaktiviert|aus)\b"
    r"|\bdésactivée?s? par défaut\b|\bpar défaut,? (?:il |elle )?(?:est )?désactivée?\b"
    # Portuguese, Italian; Chinese, Japanese, Korean
    r"|\b(?:desligad|desativad|desabilitad)[oa]s? por padr[ãa]o\b|\bpor padr[ãa]o,? (?:fica |está |vem )?"
    r"(?:desligad|desativad|desabilitad)|\b(?:disattivat|disabilitat|spent)[oaie] (?:di default|per default|"
    r"per impostazione predefinita)\b|默认(?:为)?(?:关闭|禁用|不启用|不开启)|默認(?:關閉|停用)|"
    r"デフォルトで(?:は)?(?:無効|オフ)|既定で(?:は)?(?:無効|オフ)|기본(?:적으로|값으로)? ?(?:꺼져|비활성)",
    re.I,
)
FLIPPED = re.compile(
    r"(?<!not )\b(?:on|enabled|true) by default\b|\bdefault(?:s|ed)?(?: to| is| is now| now)?"
    r"[ :=]+(?:on|1(?![.,]\d)|true|enabled)\b|\b(?:turn(?:s|ed)?|switch(?:es|ed)?|flip(?:s|ped)?)\b[^.;]{0,40}"
    r"\bon by default\b|\benabl(?:e|es|ed|ing)\b[^.;]{0,60}\bby default\b|"
    r"\bmak(?:e|es|ing)\b[^.;]{0,60}\bthe default\b|\b(?:is|are)\s+now\s+(?:on|enabled)\b|"
    r"\bon\s+unless\b|\bas the default\b"
    r"|\b(?:activad|encendid|habilitad)[oa]s? por defecto\b|\bpor defecto (?:está |están )?(?:activad|encendid)"
    r"|\bstandardmäßig (?:aktiviert|an|ein|eingeschaltet)\b|\bper default (?:aktiviert|an)\b"
    r"|(?<![\w-])activée?s? par défaut\b"
    r"|\b(?:ligad|ativad|habilitad)[oa]s? por padr[ãa]o\b|\bpor padr[ãa]o,? (?:fica |está |vem )?(?:ligad|ativad)"
    r"|\b(?:attivat|abilitat)[oaie] (?:di default|per default|per impostazione predefinita)\b"
    r"|默认(?:为)?(?:开启|启用|打开)|默認(?:開啟|啟用)|デフォルトで(?:は)?(?:有効|オン)|既定で(?:は)?(?:有効|オン)"
    r"|기본(?:적으로|값으로)? ?(?:켜져|활성)",
    re.I,
)
# A sentence that also says the thing stays off is no flip ("ships DEFAULT OFF, X=1 to opt in", even when it
# quotes someone else's "default ON").
_STAYS_OFF = re.compile(
    r"\bdefault\s+off\b|\boff\s+by\s+default\b|\bopt-?in\b|\bto\s+opt\s+in\b|\bships?\s+off\b|"
    r"\bkeeps?\s+(?:it\s+)?off\b|\bstays?\s+off\b",
    re.I,
)
# "is not enabled by default", "won't be the default": a flip phrase, negated.
_NEGATED = re.compile(
    r"\b(?:not|isn't|aren't|never|no\s+longer|won't|wasn't)\s+(?:\w+\s+){0,2}"
    r"(?:on|enabled?|turned\s+on|the\s+default|default)\b",
    re.I,
)
# bool(OPT_IN.search(text)), bool(FLIPPED.search(text)): each alternative searched only in text holding a literal
# it needs (regex_hints.py); FLIPPED is asked of every commit message, OPT_IN of every statement
_OPT_IN = Hinted(OPT_IN)
says_opt_in = _OPT_IN.search
says_flipped = Hinted(FLIPPED).search
_SENTENCE = re.compile(r"(?<=[.!?:;])\s+")
_FULL_STOP = re.compile(r"(?<=[.!?])\s+")
# What names a switch: a --flag (Go's one-dash `-pprof` too), an ENV_VAR, or a snake_case setting (`use_fused_adam`, `split_kv`).
# Or a dotted config key whose last part is such a setting (`wal.group_commit`).
_FLAG = re.compile(
    r"^(?:--[a-z0-9][\w-]+|-[A-Z][a-z][a-z0-9]*(?:-[a-z0-9]+)+|-[a-z][a-z0-9]{2,}(?:[-_][a-z0-9]+)*|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|(?:[a-z][a-z0-9]*\.)*[a-z][a-z0-9]*(?:_[a-z0-9]+)+)$"
)


# A bare state ("is off", "stays disabled") under a condition is no default: "`expand_nk`, which is off when
# quant compute is available".
_CONDITION = re.compile(r"^\s*(?:when|if|while|whenever|during|on|for|in|once|where)\b", re.I)
_DEFAULT_WORD = re.compile(r"default|opt|exper|behind|unless", re.I)


def _flags(st: Statement) -> set[str]:
    """The switches a statement names; `use_fused_adam=True` names `use_fused_adam`."""
    written = (s.split("=", 1)[0].strip() for s in (*st.mentions.env_vars, *st.mentions.symbols))
    return {f for s in written for f in (s, _member(s)) if f and _FLAG.match(f)}


def _member(name: str) -> str | None:
    """The constant a qualified name reads (`FeatureFlags.NOVO_CHECKOUT`, `Config::MAX_BATCH`), else None."""
    last = re.split(r"\.|::", name)[-1]
    return last if last != name and _CONST.fullmatch(last) else None


_CONST = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


# A one-word setting set as code (`oversampling`, `hiss`): a switch when the statement calls it off by default.
# Only its code's diffs are read for it: a commit's prose says such a word of anything.
_WORD_SETTING = re.compile(r"^[a-z][a-z0-9]{2,39}$")
_NOT_SETTINGS = frozenset("true false none null nil nullptr nullopt undefined off yes enabled disabled default".split())


@lru_cache(maxsize=4096)
def _word_settings(st: Statement) -> frozenset[str]:
    """The one-word settings the statement sets as code and calls off by default or opt-in ("Oversampling is off
    by default (the `oversampling` choice starts at 1x)")."""
    words = {
        n
        for n in _names_of(st)
        if _WORD_SETTING.match(n) and n not in _NOT_SETTINGS and n not in GENERIC_WORDS and not _FLAG.match(n)
    }
    if not words:
        return frozenset()
    code = _names_of(st)
    return frozenset(
        w for sent, m in _default_claims(st.text) for w in _named_in(sent, words, m.start(), m.end(), code)
    )


def _default_claims(text: str) -> Iterator[tuple[str, re.Match[str]]]:
    """(sentence, phrase) for each phrase of `text` that calls something off by default or opt-in."""
    for sent in _FULL_STOP.split(" ".join(text.split())):
        for m in _OPT_IN.finditer(sent):
            if not _DEFAULT_WORD.search(m.group(0)) and _CONDITION.match(sent[m.end() :]):
                continue
            yield sent, m


def _named_in(sent: str, flags: Iterable[str], start: int, end: int, code: Iterable[str] | None = None) -> set[str]:
    """The flags (of `flags`) that the phrase at [start, end) of `sent` speaks of. The other names it may speak
    of instead: the `code` names a record set as code; without them (commit prose), any word shaped like code."""
    low = fold(sent)
    where = {f: [(m.start(), m.end()) for m in _flag_matches(f, sent, low)] for f in flags}
    extra = [p for ps in where.values() for p in ps]
    extra += [(m.start(), m.end()) for o in code or () if o not in where for m in _flag_matches(o, sent, low)]
    spans = bound(sent, start, end, names(sent, extra, prose=code is None))
    return {f for f, ps in where.items() for p in ps if any(p[0] < b[1] and b[0] < p[1] for b in spans)}


def _names_of(st: Statement) -> list[str]:
    """Every name the statement sets as code or as an environment variable (switches or not)."""
    return [
        n for n in (s.split("=", 1)[0].strip().rstrip("()") for s in (*st.mentions.env_vars, *st.mentions.symbols)) if n
    ]


@lru_cache(maxsize=4096)
def _claimed(st: Statement) -> tuple[frozenset[str], frozenset[str]]:
    """(the flags the statement calls off by default or opt-in, distinctive words right around such a phrase
    that speaks of no flag: 'an opt-in mirror' -> {'mirror'})."""
    flags = _flags(st)
    code = _names_of(st)
    claimed: set[str] = set()
    words: set[str] = set()
    for sent, m in _default_claims(st.text):
        named = _named_in(sent, flags, m.start(), m.end(), code) if flags else set()
        if named:
            claimed |= named
            continue
        low = fold(sent)
        spans = [(x.start(), x.end()) for c in code for x in _flag_matches(c, sent, low)]
        if bound(sent, m.start(), m.end(), names(sent, spans, prose=False)):
            continue  # about a name that is no switch of the statement's
        before = [t for t in tokens(sent[max(0, m.start() - 40) : m.start()]) if is_distinctive(t)][-2:]
        after = [t for t in tokens(sent[m.end() : m.end() + 30]) if is_distinctive(t)][:2]
        words.update(before + after)
    return frozenset(claimed), frozenset(words - {"opt"})


# A value a setting is opted into with (`--jit-regalloc=graph`, `CACHE_POLICY=lru`): a word, not on/off.
_CHOICE = re.compile(r"[A-Za-z][\w.+-]{0,39}")
_ON_OFF = re.compile(r"(?i:true|false|on|off|yes|no|enabled?|disabled?|none|null)")


def _opted(st: Statement) -> frozenset[str]:
    """The claimed switches the statement opts into with one of their values, as `flag=value`: such a setting
    is turned on by default when the code makes that value its default ("linear" -> "graph")."""
    claimed = _claimed(st)[0]
    out = set()
    for s in (*st.mentions.env_vars, *st.mentions.symbols):
        name, sep, value = s.partition("=")
        value = value.strip().strip("\"'")
        if sep and name.strip() in claimed and _CHOICE.fullmatch(value) and not _ON_OFF.fullmatch(value):
            out.add(f"{name.strip()}={value}")
    return frozenset(out)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(" ".join(text.split())) if s.strip()]


def applies(st: Statement) -> bool:
    return says_opt_in(st.text) or bool(stated_defaults(st))


COMMIT_TESTS = (("flips-default", says_flipped, True),)  # what prepare asks of every commit message


def prelude(ctx: LintContext, statements: list[Statement]) -> None:
    """The switches prepare follows through the code's history (what it works out before it starts git)."""
    if any(_claimed(st)[0] or _word_settings(st) or stated_defaults(st) for st in statements):
        _all_flags(ctx, statements)


def prepare(ctx: LintContext, statements: list[Statement]) -> None:
    """The flips of every switch some statement calls opt-in (one pass over the code's history), and the commits
    saying they turned a default on."""
    if any(_claimed(st)[0] or _word_settings(st) or stated_defaults(st) for st in statements):
        default_flips(ctx, _all_flags(ctx, statements))
    commits_matching(ctx, "flips-default", says_flipped, merges=True)


def detect(ctx: LintContext, st: Statement, news: News) -> Reason | None:
    reason = _from_code(ctx, st, news) or _from_message(ctx, st, news)
    if reason is not None and flip_reconciled(ctx, st, sorted(_flags(st))):
        return None  # a later section or the header of the same record already says it is on
    return reason


def _from_code(ctx: LintContext, st: Statement, news: News) -> Reason | None:
    """A news commit whose diff turned on the default of a switch the statement names (and no later one turned
    it back off)."""
    flags = _claimed(st)[0] | _opted(st) | _word_settings(st)
    stated = stated_defaults(st)
    if not (flags or stated) or not news.commits:
        return None
    fresh = news_shas(ctx, news)
    history = ctx.get_history()
    for claim in sorted(stated):
        reason = _changed_value(
            ctx, news, claim, [f for f in default_flips(ctx, _all_flags(ctx)).get(claim, ()) if f.sha in fresh]
        )
        if reason is not None:
            return reason
    for flag in sorted(flags):
        flips = [f for f in default_flips(ctx, _all_flags(ctx)).get(flag, ()) if f.sha in fresh]
        on = [f for f in flips if f.on]
        if not on or flips[-1] is not on[-1] and not flips[-1].on:
            continue  # never turned on since, or turned back off last
        flip = on[0]
        c = history.by_sha(flip.sha)
        if c is None:
            continue
        phrase = (
            f"calls `{flag}` opt-in, but {c.short} ({c.day}) turned it on by default in {flip.path}: "
            f"`{_short(flip.before)}` became `{_short(flip.after)}`"
        )
        fix = f"say `{flag}` is on by default since {c.short} and name its rollback switch instead of the opt-in"
        return Reason("RL104", "error", phrase, fix, commits=[(c, "default flipped")], news=news)
    return None


def _changed_value(ctx: LintContext, news: News, claim: str, flips: list[Flip]) -> Reason | None:
    """A default the statement states as a value (`NAME==30`) that a news commit's diff changed, and no later one
    changed back."""
    if not flips or flips[-1].on:
        return None  # never changed since, or back to the stated value last
    flip = next(f for f in flips if not f.on)
    c = ctx.get_history().by_sha(flip.sha)
    if c is None:
        return None
    name, _, value = claim.partition("==")
    phrase = (
        f"says `{name}` defaults to {value}, but {c.short} ({c.day}) changed its default in {flip.path}: "
        f"`{_short(flip.before)}` became `{_short(flip.after)}`"
    )
    fix = f"give the default `{name}` has had since {c.short} ({_short(flips[-1].after)})"
    return Reason("RL104", "error", phrase, fix, commits=[(c, "default changed")], news=news)


def _all_flags(ctx: LintContext, live: list[Statement] | None = None) -> set[str]:
    """Every switch that some live statement calls opt-in: their code history is read in one pass. `live`: the
    live statements this rule applies to, when the caller has them (prepare: analysis/stale.py picked them)."""
    if ctx.facts.opt_in_flags is None:
        if live is None:
            live = [st for st in ctx.statements() if not st.historical and applies(st)]
        ctx.facts.opt_in_flags = frozenset(
            f for st in live for f in _claimed(st)[0] | _opted(st) | _word_settings(st) | stated_defaults(st)
        )
    return set(ctx.facts.opt_in_flags)


def _short(line: str) -> str:
    return line if len(line) <= 70 else line[:67] + "..."


def _from_message(ctx: LintContext, st: Statement, news: News) -> Reason | None:
    flags, feature = _claimed(st)
    terms = distinctive_terms(st.text, exclude=id_parts(subject_ids(st)))
    flipping = commits_matching(ctx, "flips-default", says_flipped, merges=True)
    taken_out = reverts(ctx)
    for c in news_subset(ctx, "flips-default", lambda: flipping, news):
        if taken_out.undone(c):
            continue  # reverted since, or a revert quoting the flip's subject: the default did not change
        best: tuple[int, str, str, list[str]] | None = None  # (rank, what, sentence, flags named)
        for sent, before, spans in _flip_sentences(c):
            # the flag the sentence turns on, not one it names beside that ("default ON in the `X` build")
            named = sorted({f for s, e in spans for f in _named_in(sent, flags, s, e)}) if flags else []
            near = [t for t in before if t in feature]
            if named:
                cand = (0, f"`{named[0]}`", sent, named)
            elif near:
                ratio = overlap_tokens(terms, message_tokens(c)).ratio
                if ratio < 0.3:
                    continue
                cand = (1 if ratio >= 0.5 else 2, f"the {near[-1]}", sent, [])
            else:
                continue
            if best is None or cand[0] < best[0]:
                best = cand
        if best is None or _reverted(ctx, news, c, best[3]):
            continue
        rank, what, sent, _ = best
        quote = sent if len(sent) <= 140 else sent[:137] + "..."
        phrase = f"calls {what} opt-in, but {c.short} ({c.day}) turned it on by default: \u201c{quote}\u201d"
        fix = f"say {what} is on by default since {c.short} and name its rollback switch instead of the opt-in"
        return Reason(
            "RL104", "error" if rank < 2 else "warning", phrase, fix, commits=[(c, "default flipped")], news=news
        )
    return None


def _reverted(ctx: LintContext, news: News, flip: Commit, flags: list[str]) -> bool:
    """A later news commit that turns the same flag back off (and names it) cancels the flip."""
    for c in news_subset(ctx, "opt-in", lambda: commits_matching(ctx, "opt-in", says_opt_in), news):
        if ctx.get_history().rank(c) <= ctx.get_history().rank(flip):  # graph order, not commit dates
            continue
        for sent in _turned_off(c):
            if not flags or any(_flag_re(f).search(sent) for f in flags):
                return True
    return False


@lru_cache(maxsize=MAX_COMMITS)
def _flip_sentences(c: Commit) -> tuple[tuple[str, tuple[str, ...], tuple[tuple[int, int], ...]], ...]:
    """(sentence, tokens of the 30 characters before its phrase, the spans of its phrases) for each sentence
    of the commit (subject, then body) that turns something on by default and does not also say it stays off:
    once per commit."""
    out = []
    subject, body = own_words(c)
    for sent in [subject] + _sentences(body):
        found = list(FLIPPED.finditer(sent))
        if found and not _STAYS_OFF.search(sent) and not _NEGATED.search(sent):
            m = found[0]
            spans = tuple((f.start(), f.end()) for f in found)
            out.append((sent, tuple(tokens(sent[max(0, m.start() - 30) : m.start()])), spans))
    return tuple(out)


@lru_cache(maxsize=MAX_COMMITS)
def _turned_off(c: Commit) -> tuple[str, ...]:
    """The commit's sentences that call something opt-in again (and flip nothing on)."""
    return tuple(s for s in _sentences(c.message) if OPT_IN.search(s) and not FLIPPED.search(s))


@lru_cache(maxsize=4096)
def _flag_re(flag: str) -> re.Pattern[str]:
    """A switch as prose writes it: `split_kv`, split-KV and split kv are one; `--split-kv` matches split-kv."""
    return re.compile(r"(?<![\w-])(?:--?)?" + r"[-_ ]?".join(map(re.escape, _flag_parts(flag))) + r"(?![\w-])", re.I)


def _flag_parts(flag: str) -> list[str]:
    """The words of a switch's name, each of which every match of _flag_re holds (in some case)."""
    return [p for p in re.split(r"[-_ ]+", flag.lstrip("-")) if p]


def _flag_matches(flag: str, sent: str, low: str) -> Iterator[re.Match[str]]:
    """_flag_re(flag).finditer(sent); `low` is fold(sent). A record's sentence names few of the statement's names:
    a sentence missing a word of the name has no match, and is not searched (nor the name's regex compiled, a
    thousand distinct names on vllm.cpp)."""
    if all(may_hold(low, p) for p in _flag_parts(flag)):
        yield from _flag_re(flag).finditer(sent)


def default_changed(ctx: LintContext) -> list[Hit]:
    """What it does:
    Flags a statement that calls a flag or feature opt-in ("opt-in", "off by default", "experimental",
    "defaults to 0") when a commit made after the statement was written turned it on by default ("enabled
    by default", "defaults to 1", "mirror default ON") and names the same flag or env var (or, weaker, the
    same feature word in a commit about the same work), or whose diff made the value the statement opts in with
    (`--regalloc=graph`) the setting's default. A default given as a choice index or an enum value is a default
    like a boolean: on a line naming the setting, a value after its name going from 0, false, "off" or none to
    another value turns it on (`Choice("oversampling", {"1x", "2x"}, 0)` -> `..., 1)`); a version going from 1
    to 2 says nothing. A one-word setting the statement sets as code and calls off (`oversampling`) is read
    from the code's diffs only. A default the statement states as a value, in any language the records are kept
    in ("`SESSION_TTL` defaults to 30", "既定で 30 分（`SESSION_TTL_MINUTES`）", "`pool` 默认为 8", "standardmäßig
    8"), is stale once a diff changed the literal of that setting's line from the value to another (`= 30` ->
    `= 60`, `8u << 20` -> `16u << 20`; or an attribute over the setting, `default_value_t = Format::Table`) and
    no later diff changed it back; a constant written with its value counts as its default, default word or not
    ("keeps `BUSY_TIMEOUT_MS` at 0", "`BATCH_GROESSE` steht auf 500"; not "raise `X` to 8", "`X` was 2"); in a
    log, such a value stated in an older entry counts while no later entry names the setting. Only
    names shaped as settings are followed, and not one the code uses in more than a dozen files (a concept, not
    a setting). A later commit turning it back off cancels it, as does a later
    revert of the flipping commit (git's `This reverts commit <sha>.`, a `revert:` subject naming it), and so
    does the same record saying so itself: its header or a later dated or result section naming the switch
    and its flip to on.

    Why:
    Readers of the record will think the feature is off unless they ask for it; the rollback switch,
    not the opt-in, is what they need to know.

    Example:
    "Port ... as an opt-in mirror (`VT_ASYNC_DEVICE_MIRROR`, off by default)" while a later commit says
    "VT_ASYNC_DEVICE_MIRROR defaults to 1 and VT_ASYNC_DEVICE_MIRROR=0 is the rollback".

    Fix:
    Records only: say the feature is on by default since that commit and name the rollback switch.
    """
    return list(hits_for(ctx, "RL104"))

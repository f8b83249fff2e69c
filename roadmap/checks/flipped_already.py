"""RL101 by a default: a directive asks to flip a flag's default, and a commit's diff flipped it that way.

"- flip `-http2` default to true once all the lbs are on envoy 1.30" and a later commit "edged: turn on h2c" whose
diff changes `flag.Bool("http2", false, ...)` to `flag.Bool("http2", true, ...)`: the message says nothing of a
default, the code did the work. A directive asks for a flip when a sentence of it opens with a verb asking for one
("flip", "enable", "make", "default", "activer", "activar", "ativar", or German's verb last: "... standardmäßig
aktivieren"), says "default" in its language and names the flag as code (`-http2`, `--http2`, `http2`,
`HTTP2_ENABLED`); the direction is the value it asks for ("to true", "on by default", "the default"; "to false",
"disable ... by default"). The flips are read from the code's diffs (analysis/default_flips.py: Go's `flag.Bool`,
argparse's `default=`, clap's `default_value_t`, an env default `== "1"` -> `!= "0"`, a config file's `x: true`). A
flip the other way, a change of the help text only, or a flip turned back by a later commit is no landing; what the
directive waits for ("once all the lbs are on envoy 1.30") does not hold the finding back: the work landed.
"""

from __future__ import annotations

import re
from functools import lru_cache

from roadmap.analysis.asof import news_shas
from roadmap.analysis.context import LintContext
from roadmap.analysis.default_flips import default_flips
from roadmap.analysis.facts import Flip, News, Reason
from roadmap.records.model import Statement

# A sentence that opens with a verb asking to change a default (after a list mark, an open box, emphasis).
_LEAD = r"^\W{0,4}(?:\[\s\]\s*)?[*_]{0,2}"
_ASK = re.compile(
    _LEAD + r"(?:flip|switch|change|set|make|turn|default|enable|disable|activate|deactivate|"
    r"activer|activez|désactiver|desactiver|passer|mettre|basculer|"
    r"activar|activa|desactivar|cambiar|poner|ativar|ative|desativar|mudar|"
    r"attivare|disattivare|impostare|abilitare|disabilitare|"
    r"aktivieren|deaktivieren|einschalten|ausschalten|umstellen|setzen|schalte)\b",
    re.I,
)
# German writes the verb last: "`-http2` standardmäßig aktivieren".
_ASK_LAST = re.compile(r"\b(?:aktivieren|deaktivieren|einschalten|ausschalten|umstellen|setzen)\W{0,3}$", re.I)
# Chinese, Japanese, Korean: "默认开启 `x`", "`x` をデフォルトで有効にする", "`x` 기본값으로 활성화".
_ASK_CJK_ON = re.compile(
    r"(?:默认|默認)(?:为)?(?:开启|启用|打开|開啟|啟用)|(?:デフォルト|既定)で(?:は)?(?:有効|オン)に|기본(?:값)?(?:으로)?\s*활성"
)
_ASK_CJK_OFF = re.compile(
    r"(?:默认|默認)(?:为)?(?:关闭|禁用|關閉|停用)|(?:デフォルト|既定)で(?:は)?(?:無効|オフ)に|기본(?:값)?(?:으로)?\s*비활성"
)
_DEFAULT = re.compile(
    r"\bdefault|\bdéfaut\b|\bdefecto\b|\bpadr[ãa]o\b|\bstandardm[äa]ßig\b|\bstandard\b|\bvoreingestellt|"
    r"\bpredefinit[oa]\b|\bdi default\b",
    re.I,
)
# What it asks the default to become: the value after "to"/"à"/"auf"/"a", or the verb itself.
_TO_ON = re.compile(
    r"\b(?:to|à|a|auf|para|su|=)\s*[`\"']?(?:true|on|enabled|yes|1|activ[ée]e?|activado|ativado|aktiviert|an|ein)\b"
    r"|\bon by default\b|\bmak(?:e|ing)\b[^.;]{0,60}\bthe default\b",
    re.I,
)
_TO_OFF = re.compile(
    r"\b(?:to|à|a|auf|para|su|=)\s*[`\"']?(?:false|off|disabled|no|0|désactiv[ée]e?|desactivado|desativado|"
    r"deaktiviert|aus)\b|\boff by default\b",
    re.I,
)
_ON_VERB = re.compile(
    _LEAD + r"(?:enable|activate|activer|activez|activar|activa|ativar|ative|attivare|abilitare|aktivieren|"
    r"einschalten|turn\s+on|switch\s+on)\b|\b(?:aktivieren|einschalten)\W{0,3}$",
    re.I,
)
_OFF_VERB = re.compile(
    _LEAD + r"(?:disable|deactivate|désactiver|desactiver|desactivar|desativar|disattivare|disabilitare|"
    r"deaktivieren|ausschalten|turn\s+off|switch\s+off)\b|\b(?:deaktivieren|ausschalten)\W{0,3}$",
    re.I,
)
# "do not flip it", "never make it the default", "ne pas activer", "nicht aktivieren": asks for nothing.
_NEGATED = re.compile(r"\b(?:do\s+not|don't|never|not|ne\s+pas|jamais|nicht|nie|no|nunca|não|non)\b", re.I)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
# A flag as code: `--http2`, `-http2`, `http2`, `enable_http2`, `HTTP2_ENABLED`, `wal.group_commit`.
_FLAG = re.compile(r"^-{0,2}[A-Za-z][\w.-]{2,60}$")


def flip_asks(text: str, names: tuple[str, ...]) -> list[tuple[str, bool]]:
    """(flag, on) for each flag of `names` a sentence of `text` asks to flip the default of, and which way."""
    out: list[tuple[str, bool]] = []
    for sent in _SENTENCE.split(" ".join(text.split())):
        on: bool | None = None
        if _ASK_CJK_ON.search(sent):
            on = True
        elif _ASK_CJK_OFF.search(sent):
            on = False
        elif (_ASK.match(sent) or _ASK_LAST.search(sent)) and _DEFAULT.search(sent) and not _NEGATED.search(sent):
            on = _direction(sent)
        if on is None:
            continue
        for name in names:
            if _FLAG.match(name) and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", sent):
                out.append((name, on))
    return out


def _direction(sent: str) -> bool | None:
    to_on, to_off = _TO_ON.search(sent) is not None, _TO_OFF.search(sent) is not None
    if to_on != to_off:
        return to_on
    verb_on, verb_off = _ON_VERB.search(sent) is not None, _OFF_VERB.search(sent) is not None
    if verb_on != verb_off:
        return verb_on
    return None


@lru_cache(maxsize=4096)
def _asks(st: Statement) -> tuple[tuple[str, bool], ...]:
    names = tuple(dict.fromkeys(s.split("=", 1)[0].strip() for s in (*st.mentions.symbols, *st.mentions.env_vars)))
    return tuple(flip_asks(st.text, names)) if names and _DEFAULT.search(st.text) or _ASK_CJK_ON.search(st.text) else ()


def flipped_already(ctx: LintContext, st: Statement, news: News) -> Reason | None:
    """A news commit whose diff flipped the default of a flag the directive asks to flip, the way it asks (and no
    later one flipped it back)."""
    if not st.directive or not news.commits:
        return None
    asks = _asks(st)
    if not asks:
        return None
    fresh = news_shas(ctx, news)
    flips_of = default_flips(ctx, {flag for flag, _ in asks})
    history = ctx.get_history()
    for flag, on in asks:
        flips = [f for f in flips_of.get(flag, ()) if f.sha in fresh]
        wanted: list[Flip] = [f for f in flips if f.on == on]
        if not wanted or flips[-1].on != on:
            continue  # never flipped that way since, or flipped back last
        flip = wanted[0]
        c = history.by_sha(flip.sha)
        if c is None:
            continue
        state = "on" if on else "off"
        phrase = (
            f"asks to turn `{flag}` {state} by default, which {c.short} ({c.day}) did in {flip.path}: "
            f"`{_short(flip.before)}` became `{_short(flip.after)}`"
        )
        fix = f"strike the directive: `{flag}` is {state} by default since {c.short}; name its rollback switch"
        return Reason("RL101", "error", phrase, fix, commits=[(c, "default flipped")], news=news)
    return None


def _short(line: str) -> str:
    return line if len(line) <= 70 else line[:67] + "..."

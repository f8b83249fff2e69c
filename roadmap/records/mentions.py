"""What a statement names: ids, claims, code symbols, env vars, shas, dates, figures, paths, evidence."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from roadmap.records import patterns as P
from roadmap.records.figures import find_figures, is_figure
from roadmap.records.inline import Inline
from roadmap.records.model import Mentions, PathRef, built
from roadmap.records.paths import find_paths, link_ref, link_symbol

if TYPE_CHECKING:
    from roadmap.config import Config


_HYPHEN_TOKEN = re.compile(r"[A-Z0-9]-[A-Z0-9]")
_PLAIN = re.compile(r"[^\d/._=\-:#]*")
_NOTHING = Mentions()
_SPACE = re.compile(r"\s")


_last_ids: list[Any] = [None, None, (), ()]  # ids_in's last (text, config, ids, claims)


def ids_in(text: str, config: "Config") -> tuple[list[tuple[int, int, str]], list[tuple[int, int, str]]]:
    """(row ids, claim ids) found whole-token in `text`, each as (start, end, id); states are not ids."""
    if config.hyphenated_ids and _HYPHEN_TOKEN.search(text) is None:
        return [], []  # the default patterns need "X-Y"; most statements have none
    last = _last_ids
    if last[0] == text and last[1] is config:  # a table's id cell is read for its row id, then for its mentions
        return list(last[2]), list(last[3])
    ids, claims = _ids_in(text, config)
    last[:] = [text, config, tuple(ids), tuple(claims)]
    return ids, claims


def _ids_in(text: str, config: "Config") -> tuple[list[tuple[int, int, str]], list[tuple[int, int, str]]]:
    claims = [(m.start(), m.end(), m.group(0)) for m in config.claim_re.finditer(text)]
    ids = [
        (m.start(), m.end(), m.group(0))
        for m in config.id_re.finditer(text)
        if m.group(0) not in config.state_set and not config.claim_re.fullmatch(m.group(0))
    ]
    return ids, claims


def _classify_code(content: str, config: "Config") -> tuple[str, str] | None:
    """("symbol", name) | ("env", name) for a code span; None when it is a sha, id, path, date or figure."""
    return _code_kind(content, config.id_re, config.claim_re)


@lru_cache(maxsize=1 << 16)
def _code_kind(content: str, id_re: re.Pattern[str], claim_re: re.Pattern[str]) -> tuple[str, str] | None:
    # Cached by content: records quote the same code spans (`src/x.py`, `--flag`, a symbol) over and over.
    c = content.strip()
    if not c or len(c) > 200:
        return None
    env = P.FULL_ENV_RE.match(c)
    if env:
        return ("env", env.group(1))
    if P.FULL_SHA_RE.match(c) or id_re.fullmatch(c) or claim_re.fullmatch(c) or P.DATE_RE.fullmatch(c) or is_figure(c):
        return None
    refs, _ = find_paths(c, [], [])
    if refs and refs[0].text == c.rstrip(".,;:!?"):  # `src/x.py.`: a path and the sentence's full stop
        return None
    if c.endswith("()"):
        c = c[:-2]
    return ("symbol", c)


def _symbols_in_command(content: str) -> list[str]:
    """`engine bench --async-scheduling` -> ["--async-scheduling"]; `git log -S'Foo'` -> ["Foo"]."""
    out = [m.group(1) or m.group(2) for m in P.PICKAXE_RE.finditer(content)]
    out.extend(m.group(0) for m in P.FLAG_RE.finditer(content))
    return out


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with `spans` blanked (same length, so offsets still hold)."""
    if not spans:
        return text
    parts, pos = [], 0
    for s, e in sorted(spans):
        s = max(s, pos)
        if e <= s:
            continue
        parts.append(text[pos:s])
        parts.append(" " * (e - s))
        pos = e
    parts.append(text[pos:])
    return "".join(parts)


def extract(
    inline: Inline, config: "Config", record_path: str, header: str | None = None, comma: bool = False
) -> Mentions:
    """What the inline text names. `comma`: its file writes decimals with a comma (records/figures.decimal_comma)."""
    text = inline.text
    if not inline.code and not inline.links and _PLAIN.fullmatch(text):
        return _NOTHING  # no digit, path, id, flag or env-var character: nothing to find (most short cells)
    # Paths: markdown links first (resolved against the record), then references written in text.
    paths: list[PathRef] = []
    link_spans = []
    for s, e, href in inline.links:
        ref = link_ref(href, text[s:e], record_path)
        if ref is not None:
            if ref.line is not None:
                symbol = link_symbol(text, s, e, inline.code)
                if symbol and symbol != ref.path.rsplit("/", 1)[-1].split(".", 1)[0]:  # not the file's own name
                    ref = replace(ref, symbol=symbol)
            paths.append(ref)
            link_spans.append((s, e))
    text_refs, path_spans = find_paths(text, inline.code, link_spans)
    paths.extend(text_refs)
    masked = _mask(text, path_spans)

    has_digit = P.DIGIT_RE.search(masked) is not None
    has_dash = "-" in masked
    ids, claims = ids_in(masked, config) if has_dash else ([], [])
    shas = P.find_shas(masked) if has_digit else []
    dates = [(m.start(), m.end(), m.group(1)) for m in P.DATE_RE.finditer(masked)] if has_dash and has_digit else []
    evidence = []
    if has_dash and "20" in masked:
        evidence = P.find_evidence(masked)
    root = config.evidence.root.strip("/") + "/"
    for ref in paths:
        if ref.path.startswith(root):
            evidence.append((0, 0, ref.path[len(root) :].split("/", 1)[0]))
    envs = []
    if "_" in masked or "=" in masked:
        envs = P.find_envs(masked)

    symbols: list[str] = []
    code_spans = []
    for s, e, content in inline.code:
        code_spans.append((s, e))
        kind = _classify_code(content, config)
        if kind is None:
            continue
        if kind[0] == "env":
            envs.append((s, e, kind[1]))
        elif _SPACE.search(kind[1]):  # a command, not a name (`\s` is str.isspace(), found in C)
            symbols.extend(_symbols_in_command(kind[1]))
        else:
            symbols.append(kind[1])
    if "--" in masked:
        symbols.extend(m.group(0) for m in P.FLAG_RE.finditer(_mask(masked, code_spans)))

    figures = []
    if has_digit:
        noise = [(s, e) for s, e, _ in (*ids, *claims, *shas, *dates, *evidence, *envs) if e > s]
        figures = find_figures(_mask(masked, noise + code_spans), header, comma)
    if not (paths or ids or claims or symbols or envs or shas or dates or figures or evidence):
        return _NOTHING  # found nothing after all ("stage 14": a count): the empty mentions every such cell shares
    envs.sort()
    return built(  # Mentions(...), made faster (model.built)
        Mentions,
        {
            "ids": P.dedupe([i for _, _, i in ids]),
            "claims": P.dedupe([c for _, _, c in claims]),
            "symbols": P.dedupe(symbols),
            "env_vars": P.dedupe([v for _, _, v in envs]),
            "shas": P.dedupe([s for _, _, s in shas]),
            "dates": P.dedupe([d for _, _, d in dates]),
            "figures": tuple(figures),
            "paths": tuple(dict.fromkeys(paths)),
            "evidence": P.dedupe([v for _, _, v in evidence]),
        },
    )

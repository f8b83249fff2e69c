"""OpenAI's response shapes (vLLM's where OpenAI is silent): envelopes, choices, logprobs, usage, SSE frames.

A stream's chunks are its hot path (one per generated token and request): `Frames` builds the bytes around the text
once per response, so a plain chunk costs one json.dumps of the new text; chunks that carry more (a finish reason,
logprobs, several choices) go through the general path.
"""

from __future__ import annotations

import json
import math
import time
from typing import Any

from engine.model.tokenizer import Tokenizer
from engine.outputs import Logprobs

MIN_LOGPROB = -9999.0  # -inf is not JSON; vLLM sends this instead
_TOKEN_CACHE_SIZE = 1 << 16


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def sse(payload: Any) -> bytes:
    return f"data: {payload if isinstance(payload, str) else dumps(payload)}\n\n".encode()


def usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


class TokenTexts:
    """A token id's text as logprobs show it: decoded alone, special tokens kept. A token that is part of a UTF-8
    character (it decodes to U+FFFD) shows its vocabulary entry instead (byte-level BPE's "Ã©"), so distinct tokens
    never share a key of `top_logprobs`; its `bytes` are its real bytes. Without a tokenizer: `token_id:N`, as
    vLLM's return_tokens_as_token_ids."""

    def __init__(self, tokenizer: Tokenizer | None) -> None:
        self.tokenizer = tokenizer
        self._cache: dict[int, tuple[str, list[int]]] = {}

    def __call__(self, token_id: int) -> str:
        return self._entry(token_id)[0]

    def bytes(self, token_id: int) -> list[int]:
        return self._entry(token_id)[1]

    def _entry(self, token_id: int) -> tuple[str, list[int]]:
        entry = self._cache.get(token_id)
        if entry is None:
            entry = self._make(token_id)
            if len(self._cache) < _TOKEN_CACHE_SIZE:
                self._cache[token_id] = entry
        return entry

    def _make(self, token_id: int) -> tuple[str, list[int]]:
        if self.tokenizer is None:
            text = f"token_id:{token_id}"
            return text, list(text.encode())
        text = self.tokenizer.decode([token_id], skip_special_tokens=False)
        if "\ufffd" not in text:
            return text, list(text.encode("utf-8"))
        piece = self.tokenizer.backend.id_to_token(token_id) or text
        raw = [_BYTE_OF.get(ch) for ch in piece]
        return piece, (list(text.encode("utf-8")) if None in raw else raw)


def _byte_level_alphabet() -> dict[str, int]:
    """GPT-2's byte-level BPE alphabet, inverted: the character that stands for each byte -> the byte."""
    chars = {b: chr(b) for b in (*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100))}
    for b in range(256):
        if b not in chars:
            chars[b] = chr(256 + len(chars) - (0x7E - 0x21 + 1) - (0xAD - 0xA1) - (0x100 - 0xAE))
    return {c: b for b, c in chars.items()}


_BYTE_OF = _byte_level_alphabet()


def _lp(x: float) -> float:
    return x if math.isfinite(x) else MIN_LOGPROB


class CompletionLogprobs:
    """The legacy completions `logprobs` object: tokens, token_logprobs, top_logprobs, text_offset."""

    def __init__(self, texts: TokenTexts, num_top: int) -> None:
        self.texts = texts
        self.num_top = num_top
        self.offset = 0  # characters of the choice's text before the next token

    def block(self, entries: list[Logprobs | None], token_ids: list[int]) -> dict[str, Any]:
        tokens, token_lps, tops, offsets = [], [], [], []
        for tid, e in zip(token_ids, entries):
            text = self.texts(tid)
            tokens.append(text)
            offsets.append(self.offset)
            self.offset += len(text)
            if e is None:  # the first prompt token: nothing precedes it
                token_lps.append(None)
                tops.append(None)
                continue
            token_lps.append(_lp(e.logprobs[0]))
            top = {self.texts(t): _lp(v) for t, v in zip(e.token_ids[1 : 1 + self.num_top], e.logprobs[1:])}
            top.setdefault(text, _lp(e.logprobs[0]))
            tops.append(top)
        return {"tokens": tokens, "token_logprobs": token_lps, "top_logprobs": tops, "text_offset": offsets}


def chat_logprobs(texts: TokenTexts, num_top: int, entries: list[Logprobs]) -> dict[str, Any]:
    """The chat `logprobs` object: {"content": [{token, logprob, bytes, top_logprobs: [...]}, ...]}."""

    def item(tid: int, lp: float) -> dict[str, Any]:
        text = texts(tid)
        return {"token": text, "logprob": _lp(lp), "bytes": texts.bytes(tid)}

    return {
        "content": [
            {
                **item(e.token_ids[0], e.logprobs[0]),
                "top_logprobs": [item(t, v) for t, v in zip(e.token_ids[1 : 1 + num_top], e.logprobs[1:])],
            }
            for e in entries
        ]
    }


class Envelope:
    """The fields every body and chunk of one response share."""

    def __init__(self, kind: str, request_id: str, model: str) -> None:
        chat = kind == "chat"
        self.id = f"{'chatcmpl' if chat else 'cmpl'}-{request_id}"
        self.obj = "chat.completion" if chat else "text_completion"
        self.chunk_obj = "chat.completion.chunk" if chat else "text_completion"
        self.model = model
        self.created = int(time.time())

    def body(self, choices: list[dict[str, Any]], chunk: bool = False) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": self.chunk_obj if chunk else self.obj,
            "created": self.created,
            "model": self.model,
            "choices": choices,
        }


class Frames:
    """Prebuilt bytes of a plain chunk (one choice, new text only), around the json-encoded text."""

    def __init__(self, env: Envelope, chat: bool, index: int, include_usage: bool) -> None:
        head = dumps(env.body([], chunk=True))[:-2]  # drop the empty choices' "]}"
        field = '"delta":{"content":' if chat else '"text":'
        tail = ',"logprobs":null,"finish_reason":null,"stop_reason":null}]'
        self.prefix = f'data: {head}{{"index":{index},{field}'.encode()
        self.suffix = (("}" if chat else "") + tail + (',"usage":null' if include_usage else "") + "}\n\n").encode()

    def plain(self, text: str) -> bytes:
        return self.prefix + json.dumps(text, ensure_ascii=False).encode() + self.suffix

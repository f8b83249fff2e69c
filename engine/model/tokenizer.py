"""Tokenizer: a `tokenizers.Tokenizer` plus what generation needs around it — stop ids, the chat template (rendered
with Jinja the way transformers does) and incremental detokenisation for streaming. No transformers at run time.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import jinja2
import jinja2.ext
import jinja2.sandbox
import tokenizers

from engine.errors import EngineError


class Tokenizer:
    def __init__(
        self,
        backend: tokenizers.Tokenizer,
        *,
        name: str,
        eos_token_ids: Iterable[int],
        chat_template: str | None = None,
        special_tokens: dict[str, str | None] | None = None,
    ) -> None:
        self.backend = backend
        self.name = name
        self.eos_token_ids: set[int] = set(eos_token_ids)
        self.chat_template = chat_template
        # bos_token / eos_token / unk_token / pad_token strings, visible to chat templates as transformers does.
        self.special_tokens: dict[str, str | None] = dict(special_tokens or {})
        self._template: jinja2.Template | None = None
        self._max_token_chars: int | None = None

    @property
    def vocab_size(self) -> int:
        return self.backend.get_vocab_size(with_added_tokens=True)

    @property
    def bos_token_id(self) -> int | None:
        tok = self.special_tokens.get("bos_token")
        return None if tok is None else self.backend.token_to_id(tok)

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        return self.backend.encode(text, add_special_tokens=add_special_tokens).ids

    def encode_batch(self, texts: list[str], add_special_tokens: bool = True) -> list[list[int]]:
        """encode() of each text, through the backend's batch path, which releases the GIL while it works (encode()
        holds it: a 1.8M-character prompt stalled every other thread 4 s here)."""
        return [e.ids for e in self.backend.encode_batch(texts, add_special_tokens=add_special_tokens)]

    @property
    def max_token_chars(self) -> int:
        """The most characters one vocabulary entry spells: a text of C characters has at least C / this tokens."""
        if self._max_token_chars is None:
            self._max_token_chars = max((len(t) for t in self.backend.get_vocab(with_added_tokens=True)), default=1)
        return self._max_token_chars

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        return self.backend.decode(list(ids), skip_special_tokens=skip_special_tokens)

    def incremental(self, prompt_ids: Sequence[int] = (), skip_special_tokens: bool = True) -> IncrementalDetokenizer:
        return IncrementalDetokenizer(self, prompt_ids, skip_special_tokens)

    def with_chat_template(self, chat_template: str) -> Tokenizer:
        """A copy that renders chat messages with `chat_template` (`engine serve --chat-template`)."""
        jinja2.sandbox.ImmutableSandboxedEnvironment().parse(chat_template)  # a syntax error fails here, not later
        copy = Tokenizer(
            self.backend,
            name=self.name,
            eos_token_ids=self.eos_token_ids,
            chat_template=chat_template,
            special_tokens=self.special_tokens,
        )
        copy._max_token_chars = self._max_token_chars
        return copy

    def apply_chat_template(
        self, messages: list[dict[str, Any]], add_generation_prompt: bool = True, **kwargs: Any
    ) -> str:
        """The prompt string for `messages` ([{"role", "content"}, ...]); extra kwargs reach the template
        (e.g. enable_thinking=False for Qwen3)."""
        if self.chat_template is None:
            raise EngineError(f"{self.name} has no chat template; pass a plain prompt instead of chat messages")
        if self._template is None:
            self._template = _jinja_env().from_string(self.chat_template)
        context = {k: v for k, v in self.special_tokens.items() if v is not None}
        try:
            return self._template.render(
                messages=messages, add_generation_prompt=add_generation_prompt, **context, **kwargs
            )
        except jinja2.TemplateError as e:
            raise EngineError(f"chat template of {self.name} failed: {e}") from None

    @classmethod
    def from_hf_dir(cls, path: Path, eos_token_ids: Iterable[int] = ()) -> Tokenizer | None:
        """tokenizer.json + tokenizer_config.json (+ chat_template.jinja, generation_config.json); None if the
        directory has no tokenizer.json (the model then takes token ids only)."""
        if not (path / "tokenizer.json").is_file():
            return None
        backend = tokenizers.Tokenizer.from_file(str(path / "tokenizer.json"))
        tok_cfg = _read_json(path / "tokenizer_config.json")
        special = {k: _token_text(tok_cfg.get(k)) for k in ("bos_token", "eos_token", "unk_token", "pad_token")}
        eos = set(eos_token_ids)
        eos_id = backend.token_to_id(special["eos_token"]) if special["eos_token"] else None
        if eos_id is not None:
            eos.add(eos_id)
        gen_eos = _read_json(path / "generation_config.json").get("eos_token_id")
        eos.update(gen_eos if isinstance(gen_eos, list) else [gen_eos] if gen_eos is not None else [])
        template = _chat_template(tok_cfg.get("chat_template"))
        if template is None and (path / "chat_template.jinja").is_file():
            template = (path / "chat_template.jinja").read_text()
        return cls(backend, name=str(path), eos_token_ids=eos, chat_template=template, special_tokens=special)


class IncrementalDetokenizer:
    """Streaming text: `add(ids)` returns the new text since the last call, holding back a trailing incomplete
    UTF-8 sequence (vLLM's prefix/read offsets). A few prompt tokens seed the context so a decoder that strips a
    leading space (sentencepiece) does not eat the first generated space."""

    def __init__(self, tokenizer: Tokenizer, prompt_ids: Sequence[int] = (), skip_special_tokens: bool = True) -> None:
        self.tokenizer = tokenizer
        self.skip_special_tokens = skip_special_tokens
        self.ids: list[int] = list(prompt_ids[-6:])
        self.prefix_offset = max(len(self.ids) - 5, 0)
        self.read_offset = len(self.ids)

    def add(self, new_ids: Sequence[int]) -> str:
        self.ids.extend(new_ids)
        decode = self.tokenizer.decode
        prefix = decode(self.ids[self.prefix_offset : self.read_offset], self.skip_special_tokens)
        text = decode(self.ids[self.prefix_offset :], self.skip_special_tokens)
        if len(text) <= len(prefix) or text.endswith("\ufffd"):
            return ""
        self.prefix_offset, self.read_offset = self.read_offset, len(self.ids)
        return text[len(prefix) :]

    def flush(self) -> str:
        """Whatever is still held back (an incomplete character at the end of the stream)."""
        prefix = self.tokenizer.decode(self.ids[self.prefix_offset : self.read_offset], self.skip_special_tokens)
        text = self.tokenizer.decode(self.ids[self.prefix_offset :], self.skip_special_tokens)
        self.prefix_offset = self.read_offset = len(self.ids)
        return text[len(prefix) :] if text.startswith(prefix) else ""


def _jinja_env() -> jinja2.sandbox.ImmutableSandboxedEnvironment:
    """The environment transformers renders chat templates in (sandboxed, trim/lstrip blocks, loop controls)."""

    def raise_exception(message: str) -> None:
        raise jinja2.TemplateError(message)

    def tojson(
        x: Any, ensure_ascii: bool = False, indent: int | None = None, separators: Any = None, sort_keys: bool = False
    ) -> str:
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    return env


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise EngineError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None
    return data if isinstance(data, dict) else {}


def _token_text(value: Any) -> str | None:
    """tokenizer_config.json spells a special token as a string or as {"content": ...}."""
    if isinstance(value, dict):
        return value.get("content")
    return value if isinstance(value, str) else None


def _chat_template(value: Any) -> str | None:
    """A template string, or the "default" entry of a list of named templates."""
    if isinstance(value, list):
        named = {t.get("name"): t.get("template") for t in value if isinstance(t, dict)}
        return named.get("default")
    return value if isinstance(value, str) else None

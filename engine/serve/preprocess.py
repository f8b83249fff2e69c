"""Prompts -> token ids, with the checks that bound the work first: a text's characters before it is tokenised (a
token spells at most `Tokenizer.max_token_chars` characters, so a longer text cannot fit the context), chat contents
before the template renders them, then the tokens against the vocabulary and the context.

Rendering and tokenising run in a worker thread; tokenising goes through the tokenizer's batch path, which releases
the GIL (engine/model/tokenizer.py), so /health and every stream keep their pace while a long prompt is encoded.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from engine.model.tokenizer import Tokenizer
from engine.serve.errors import ApiError, bad
from engine.serve.info import CoreInfo
from engine.serve.protocol import ChatMessage

T = TypeVar("T")


@dataclass
class Prompt:
    text: str | None  # None when the client sent token ids
    ids: list[int]


class Preprocessor:
    def __init__(self, info: CoreInfo, tokenizer: Tokenizer | None, workers: int = 2) -> None:
        self.vocab_size = info.vocab_size
        self.max_model_len = info.max_model_len
        self.tokenizer = tokenizer
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tokenize")

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    # ---- text -> ids --------------------------------------------------------------------------------
    def require_tokenizer(self, field: str, instead: str) -> Tokenizer:
        if self.tokenizer is None:
            raise bad(field, f"this model has no tokenizer; {instead}")
        return self.tokenizer

    def char_limit(self, tok: Tokenizer) -> int:
        return self.max_model_len * tok.max_token_chars

    def _check_chars(self, tok: Tokenizer, n: int, field: str, what: str) -> None:
        if n > self.char_limit(tok):
            raise bad(
                field,
                f"{what} has {n} characters; the context holds {self.max_model_len} tokens "
                f"(--max-model-len) and a token of this model spells at most {tok.max_token_chars}, "
                f"so it cannot fit; shorten it",
            )

    async def encode(self, texts: list[str], field: str, add_special_tokens: bool = True) -> list[list[int]]:
        tok = self.require_tokenizer(field, "send the prompt as a list of token ids")
        for text in texts:
            self._check_chars(tok, len(text), field, "the prompt")
        return await self.run(tok.encode_batch, texts, add_special_tokens)

    async def render_chat(
        self,
        messages: list[ChatMessage],
        conversation: list[dict[str, Any]],
        add_generation_prompt: bool,
        kwargs: dict[str, Any],
    ) -> Prompt:
        tok = self.require_tokenizer("messages", "use /v1/completions with a list of token ids instead")
        if tok.chat_template is None:
            raise bad(
                "messages",
                "this model has no chat template; use /v1/completions with a prompt instead, "
                "or start the server with --chat-template FILE",
            )
        self._check_chars(tok, sum(len(m.content or "") for m in messages), "messages", "the conversation")
        text = await self.run(_render, tok, conversation, add_generation_prompt, kwargs)
        self._check_chars(tok, len(text), "messages", "the rendered conversation")
        # The template wrote the special tokens itself (BOS included): encode without adding more.
        ids = (await self.run(tok.encode_batch, [text], False))[0]
        return Prompt(text, ids)

    # ---- the model's bounds -----------------------------------------------------------------------------
    def check(self, ids: list[int], field: str, max_tokens: int | None, tokens_field: str) -> None:
        vocab, ctx = self.vocab_size, self.max_model_len
        if not ids:
            raise bad(field, "the prompt is empty; it needs at least one token")
        if max(ids) >= vocab:
            pos = next(i for i, t in enumerate(ids) if t >= vocab)
            raise bad(field, f"token id {ids[pos]} at position {pos} is outside the vocabulary [0, {vocab})")
        if len(ids) >= ctx:
            raise bad(
                field,
                f"the prompt has {len(ids)} tokens and the context holds {ctx} (--max-model-len), "
                f"leaving no room to generate; shorten the prompt",
            )
        if max_tokens is not None and len(ids) + max_tokens > ctx:
            raise bad(
                tokens_field,
                f"the context holds {ctx} tokens and the prompt has {len(ids)}, so at most "
                f"{ctx - len(ids)} can be generated; lower {tokens_field} to that",
            )

    def check_sampling(self, top_k: int, stop_token_ids: list[int]) -> None:
        if top_k > self.vocab_size:
            raise bad(
                "top_k", f"must be at most the vocabulary size {self.vocab_size} (or 0 / -1 to disable), got {top_k}"
            )
        over = next((t for t in stop_token_ids if t >= self.vocab_size), None)
        if over is not None:
            raise bad("stop_token_ids", f"{over} is outside the vocabulary [0, {self.vocab_size})")

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def _render(
    tok: Tokenizer, conversation: list[dict[str, Any]], add_generation_prompt: bool, kwargs: dict[str, Any]
) -> str:
    try:
        return tok.apply_chat_template(conversation, add_generation_prompt=add_generation_prompt, **kwargs)
    except Exception as e:  # the template is data: whatever it raises is about these messages
        raise ApiError(
            400, f"messages: the chat template could not render them: {type(e).__name__}: {e}", param="messages"
        ) from None

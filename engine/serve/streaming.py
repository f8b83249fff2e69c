"""Server-sent events for /v1/completions and /v1/chat/completions with "stream": true.

One `data: {...}` event per output of each choice (several tokens in one when the client reads slower than the
engine steps), then, with `stream_options.include_usage`, a last chunk with empty `choices` and the usage, then
`data: [DONE]`. A request that fails after the headers are sent gets an `error` event before [DONE] (vLLM does the
same). A plain chunk (one choice, text only) is prebuilt bytes around the new text (engine/serve/responses.py).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiohttp import web

from engine.serve.async_engine import RequestFailed, RequestStream, StreamOutput
from engine.serve.errors import ApiError
from engine.serve.plan import Choice, Plan, prompt_text
from engine.serve.responses import CompletionLogprobs, Frames, chat_logprobs, sse, usage
from engine.serve.server_state import ServerState

log = logging.getLogger("engine.serve")
SSE_HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "Connection": "keep-alive"}
DONE = b"data: [DONE]\n\n"


class _Emitter:
    """Turns one choice's outputs into its chunks."""

    def __init__(self, state: ServerState, plan: Plan, choice: Choice) -> None:
        self.state, self.plan, self.choice = state, plan, choice
        self.frames = Frames(plan.env, plan.chat, choice.index, plan.include_usage)
        self.first = True
        self.completion_lps = (
            CompletionLogprobs(state.texts, plan.num_top) if plan.num_top is not None and not plan.chat else None
        )

    def chunk(self, out: StreamOutput) -> bytes | None:
        self.choice.add(out)
        plan = self.plan
        if plan.echo_only and out.finish_reason is None:
            return None  # the prompt alone is the answer, sent with the finish
        if not (self.first and (plan.echo or plan.chat)) and out.finish_reason is None and plan.num_top is None:
            self.first = False
            return self.frames.plain(out.text)
        return sse(self._general(out))

    def _general(self, out: StreamOutput) -> dict[str, Any]:
        plan, c = self.plan, self.choice
        text = "" if plan.echo_only else out.text
        ids = [] if plan.echo_only else out.token_ids
        entries: list[Any] = [] if plan.echo_only else list(out.logprobs or [])
        if self.first and plan.echo:
            text = prompt_text(self.state, c.prompt) + text
            ids = c.prompt.ids + ids
            entries = list(c.prompt_logprobs or [None] * len(c.prompt.ids)) + entries
        choice: dict[str, Any] = {"index": c.index}
        if plan.chat:
            choice["delta"] = {"role": "assistant", "content": text} if self.first else {"content": text}
            choice["logprobs"] = (
                chat_logprobs(self.state.texts, plan.num_top, entries) if plan.num_top is not None else None
            )
        else:
            choice["text"] = text
            choice["logprobs"] = self.completion_lps.block(entries, ids) if self.completion_lps else None
        choice["finish_reason"] = "length" if plan.echo_only and out.finish_reason else out.finish_reason
        choice["stop_reason"] = None if plan.echo_only else out.stop_reason
        self.first = False
        chunk = plan.env.body([choice], chunk=True)
        if plan.include_usage:
            chunk["usage"] = None
        return chunk


async def stream(
    request: web.Request, state: ServerState, plan: Plan, streams: list[RequestStream]
) -> web.StreamResponse:
    resp = web.StreamResponse(headers=SSE_HEADERS)
    try:
        await resp.prepare(request)
        try:
            if len(streams) == 1:
                await _one(resp, _Emitter(state, plan, plan.choices[0]), streams[0])
            else:
                await _many(resp, [_Emitter(state, plan, c) for c in plan.choices], streams)
        except RequestFailed as e:  # headers are gone: the error travels as a data event
            await resp.write(sse(ApiError(e.status, e.message).body()))
        else:
            if plan.include_usage:
                final = plan.env.body([], chunk=True)
                generated = 0 if plan.echo_only else sum(len(c.token_ids) for c in plan.choices)
                final["usage"] = usage(plan.num_prompt_tokens, generated)
                await resp.write(sse(final))
        await resp.write(DONE)
        await resp.write_eof()
    except ConnectionResetError:  # the client left while we wrote; leaving the admissions aborts its requests
        log.info("client of %s hung up mid-stream", plan.env.id)
    return resp


async def _one(resp: web.StreamResponse, emitter: _Emitter, s: RequestStream) -> None:
    async for out in s:
        data = emitter.chunk(out)
        if data is not None:
            await resp.write(data)


async def _many(resp: web.StreamResponse, emitters: list[_Emitter], streams: list[RequestStream]) -> None:
    """Every choice's chunks as they come, in one event stream; the first failure ends them all."""
    queue: asyncio.Queue[tuple[int, StreamOutput | RequestFailed | None]] = asyncio.Queue()

    async def pump(i: int, s: RequestStream) -> None:
        try:
            async for out in s:
                queue.put_nowait((i, out))
        except RequestFailed as e:
            queue.put_nowait((i, e))
            return
        queue.put_nowait((i, None))

    tasks = [asyncio.ensure_future(pump(i, s)) for i, s in enumerate(streams)]
    try:
        remaining = len(streams)
        while remaining:
            i, item = await queue.get()
            if item is None:
                remaining -= 1
            elif isinstance(item, RequestFailed):
                raise item
            else:
                data = emitters[i].chunk(item)
                if data is not None:
                    await resp.write(data)
    finally:
        for t in tasks:
            t.cancel()

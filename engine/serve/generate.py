"""POST /v1/completions and /v1/chat/completions: body -> prompts -> one engine request per choice -> the answer.

A request of P prompts with `n` (or `best_of`) completions each runs P x n engine requests, admitted together or
refused together (503 past the queue bound); choice `i * n + j` is prompt i's j-th. With a seed, choice j samples
with seed + j (vLLM's rule), so choices differ and a request is reproducible. `best_of > n` runs best_of and keeps
the n with the highest cumulative logprob. `echo` puts the prompt (and its logprobs) before the completion; with
`max_tokens: 0` only the prompt is scored (lm-eval's loglikelihood requests): the engine computes one token, which
is not returned.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from aiohttp import web

from engine.errors import EngineError
from engine.outputs import Logprobs
from engine.sampling_params import SamplingParams
from engine.serve import access
from engine.serve.async_engine import QueueFullError, RequestFailed
from engine.serve.errors import ApiError
from engine.serve.preprocess import Prompt
from engine.serve.protocol import ChatCompletionRequest, CompletionRequest
from engine.serve.responses import CompletionLogprobs, Envelope, chat_logprobs, dumps, usage
from engine.serve.server_state import STATE_KEY, ServerState
from engine.serve.plan import Choice, Plan, prompt_text
from engine.serve.streaming import stream

_SEED_SPAN = 2**64


def _seed(seed: int | None, j: int) -> int | None:
    """seed + j, wrapped into int64 (the engine's type) for a seed near its end."""
    return None if seed is None else (seed + j + 2**63) % _SEED_SPAN - 2**63


def _params(
    state: ServerState,
    req: CompletionRequest | ChatCompletionRequest,
    max_tokens: int | None,
    logprobs: int | None,
    prompt_logprobs: int | None,
    j: int,
) -> SamplingParams:
    try:
        return req.to_sampling_params(
            max_tokens, state.engine.info.vocab_size, logprobs, prompt_logprobs, _seed(req.seed, j)
        )
    except EngineError as e:  # a combination the fields' own bounds let through
        raise ApiError(400, str(e)) from None


async def completions(request: web.Request) -> web.StreamResponse:
    state = request.app[STATE_KEY]
    req = await state.read(request, CompletionRequest)
    state.check_model(req.model)
    texts = [p for p in req.prompt if isinstance(p, str)]
    encoded = iter(await state.pre.encode(texts, "prompt", req.add_special_tokens) if texts else [])
    prompts = [Prompt(p, next(encoded)) if isinstance(p, str) else Prompt(None, p) for p in req.prompt]
    echo_only = req.echo and req.max_tokens == 0
    max_tokens = 1 if echo_only else req.max_tokens
    for i, p in enumerate(prompts):
        state.pre.check(p.ids, "prompt" if len(prompts) == 1 else f"prompt[{i}]", max_tokens, "max_tokens")
    state.pre.check_sampling(req.top_k, req.stop_token_ids)
    runs = req.best_of or req.n
    # best_of needs each choice's cumulative logprob: the sampled tokens' logprobs, computed but not returned.
    logprobs = req.logprobs if req.logprobs is not None else (0 if runs > req.n else None)
    prompt_logprobs = req.prompt_logprobs
    if req.echo and req.logprobs is not None:
        prompt_logprobs = max(prompt_logprobs or 0, req.logprobs)
    choices = [
        Choice(i * runs + j, i, p, _params(state, req, max_tokens, logprobs, prompt_logprobs, j))
        for i, p in enumerate(prompts)
        for j in range(runs)
    ]
    plan = Plan(
        False,
        Envelope("completion", request[access.REQUEST_ID], state.served_model_name),
        choices,
        req.n,
        req.stream,
        req.include_usage,
        req.logprobs,
        req.echo,
        echo_only,
    )
    return await run(request, state, plan)


async def chat_completions(request: web.Request) -> web.StreamResponse:
    state = request.app[STATE_KEY]
    req = await state.read(request, ChatCompletionRequest)
    state.check_model(req.model)
    prompt = await state.pre.render_chat(
        req.messages, req.conversation(), req.add_generation_prompt, req.chat_template_kwargs
    )
    field_name = "max_completion_tokens" if req.max_completion_tokens is not None else "max_tokens"
    max_tokens = req.max_completion_tokens if req.max_completion_tokens is not None else req.max_tokens
    state.pre.check(prompt.ids, "messages", max_tokens, field_name)
    state.pre.check_sampling(req.top_k, req.stop_token_ids)
    num_top = (req.top_logprobs or 0) if req.logprobs else None
    choices = [Choice(j, 0, prompt, _params(state, req, max_tokens, num_top, None, j)) for j in range(req.n)]
    plan = Plan(
        True,
        Envelope("chat", request[access.REQUEST_ID], state.served_model_name),
        choices,
        req.n,
        req.stream,
        req.include_usage,
        num_top,
    )
    return await run(request, state, plan)


async def run(request: web.Request, state: ServerState, plan: Plan) -> web.StreamResponse:
    engine = state.engine
    try:
        engine.check_admission(len(plan.choices))  # admitted whole or refused, before any byte is sent
    except QueueFullError as e:
        raise ApiError(503, str(e)) from None
    except RequestFailed as e:
        raise ApiError(e.status, e.message) from None
    async with contextlib.AsyncExitStack() as stack:
        streams = [
            await stack.enter_async_context(engine.open(c.prompt.ids, c.params, f"{plan.env.id}-{c.index}"))
            for c in plan.choices
        ]
        if plan.stream:
            return await stream(request, state, plan, streams)
        await _collect(plan, streams)
    return web.json_response(body(state, plan), dumps=dumps)


async def _collect(plan: Plan, streams: list[Any]) -> None:
    async def one(choice: Choice, s: Any) -> None:
        async for out in s:
            choice.add(out)

    tasks = [asyncio.ensure_future(one(c, s)) for c, s in zip(plan.choices, streams)]
    try:
        await asyncio.gather(*tasks)
    except RequestFailed as e:
        raise ApiError(e.status, e.message) from None
    finally:
        for t in tasks:
            t.cancel()


def returned(plan: Plan) -> list[Choice]:
    """The choices the answer shows: per prompt the first n, or with best_of the n of highest cumulative logprob."""
    by_prompt: dict[int, list[Choice]] = {}
    for c in plan.choices:
        by_prompt.setdefault(c.prompt_index, []).append(c)
    out = []
    for runs in by_prompt.values():
        if len(runs) > plan.n:
            runs = sorted(runs, key=lambda c: -c.cumulative_logprob)[: plan.n]
        out += runs
    return out


def choice_body(state: ServerState, plan: Plan, c: Choice, index: int) -> dict[str, Any]:
    text = "" if plan.echo_only else "".join(c.texts)
    ids = [] if plan.echo_only else c.token_ids
    entries: list[Logprobs | None] = [] if plan.echo_only else list(c.logprobs)
    if plan.echo:
        text = prompt_text(state, c.prompt) + text
        ids = c.prompt.ids + ids
        if plan.num_top is not None:
            entries = list(c.prompt_logprobs or [None] * len(c.prompt.ids)) + entries
    finish = "length" if plan.echo_only else c.finish_reason
    stop = None if plan.echo_only else c.stop_reason
    if plan.chat:
        lps = chat_logprobs(state.texts, plan.num_top, c.logprobs) if plan.num_top is not None else None
        return {
            "index": index,
            "message": {"role": "assistant", "content": text},
            "logprobs": lps,
            "finish_reason": finish,
            "stop_reason": stop,
        }
    lps = CompletionLogprobs(state.texts, plan.num_top).block(entries, ids) if plan.num_top is not None else None
    out: dict[str, Any] = {"index": index, "text": text, "logprobs": lps, "finish_reason": finish, "stop_reason": stop}
    if c.prompt_logprobs is not None and not plan.echo:
        out["prompt_logprobs"] = [
            None if e is None else {str(t): v for t, v in zip(e.token_ids, e.logprobs)} for e in c.prompt_logprobs
        ]
    return out


def body(state: ServerState, plan: Plan) -> dict[str, Any]:
    shown = returned(plan)
    choices = [choice_body(state, plan, c, i) for i, c in enumerate(shown)]
    result = plan.env.body(choices)
    generated = 0 if plan.echo_only else sum(len(c.token_ids) for c in plan.choices)
    result["usage"] = usage(plan.num_prompt_tokens, generated)
    return result

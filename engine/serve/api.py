"""The OpenAI-compatible HTTP API (aiohttp): /health, /v1/models, /v1/completions, /v1/chat/completions, and
/v1/engine (what the server runs: model, settings, machine, commit; see engine/serve/info.py).

Responses have OpenAI's shapes (vLLM's where OpenAI is silent): `cmpl-`/`chatcmpl-` ids, `usage`, SSE chunks ending
in `data: [DONE]`, `stream_options.include_usage` as a last chunk with empty `choices`. Errors are OpenAI's JSON
error body with the HTTP status: 400 bad input, 404 unknown model, 503 queue full, 500 engine failure.
"""
from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from aiohttp import web

from engine.provenance.commit import Provenance
from engine.serve.async_engine import AsyncEngine, QueueFullError, RequestFailed, StreamOutput
from engine.serve.info import engine_info
from engine.serve.protocol import ApiError, GenerateRequest, parse_chat, parse_completion

log = logging.getLogger("engine.serve")
ENGINE_KEY = web.AppKey("engine", AsyncEngine)
MODEL_KEY = web.AppKey("served_model_name", str)
PROVENANCE_KEY = web.AppKey("provenance", Provenance)
INFO_KEY = web.AppKey("engine_info", dict)
SSE_HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "Connection": "keep-alive"}


def create_app(engine: AsyncEngine, served_model_name: str, provenance: Provenance | None = None
               ) -> web.Application:
    """The application; its startup starts the engine thread and its shutdown stops it. `provenance` is the code
    it runs, reported by /v1/engine (unknown when None)."""
    app = web.Application(middlewares=[_errors], client_max_size=16 * 2**20)
    app[ENGINE_KEY] = engine
    app[MODEL_KEY] = served_model_name
    app[PROVENANCE_KEY] = provenance or Provenance()
    app[INFO_KEY] = {}   # filled on the first GET /v1/engine (a started app's state must not be reassigned)
    app.router.add_get("/health", health)
    app.router.add_get("/v1/models", models)
    app.router.add_get("/v1/engine", engine_card)
    app.router.add_post("/v1/completions", completions)
    app.router.add_post("/v1/chat/completions", chat_completions)

    async def start(app: web.Application) -> None:
        engine.start()

    async def stop(app: web.Application) -> None:
        await engine.shutdown()

    app.on_startup.append(start)
    app.on_shutdown.append(stop)
    return app


def error_response(err: ApiError) -> web.Response:
    headers = {"Retry-After": "1"} if err.status == 503 else None
    return web.json_response(err.body(), status=err.status, headers=headers)


@web.middleware
async def _errors(request: web.Request, handler: Callable) -> web.StreamResponse:
    """Every failure leaves as OpenAI's JSON error body; a bug is logged with its traceback, never sent."""
    try:
        return await handler(request)
    except ApiError as e:
        return error_response(e)
    except web.HTTPException as e:
        if e.status >= 400:
            return error_response(ApiError(e.status, f"{request.method} {request.path}: {e.reason}"))
        raise
    except Exception:
        log.exception("unhandled error on %s %s", request.method, request.path)
        return error_response(ApiError(500, "internal server error (logged on the server)"))


async def health(request: web.Request) -> web.Response:
    return web.Response(status=200)


async def models(request: web.Request) -> web.Response:
    engine = request.app[ENGINE_KEY]
    card = {"id": request.app[MODEL_KEY], "object": "model", "created": int(time.time()), "owned_by": "engine",
            "root": engine.core.loaded.name, "max_model_len": engine.core.config.max_model_len}
    return web.json_response({"object": "list", "data": [card]})


async def engine_card(request: web.Request) -> web.Response:
    """Built once (machine_info asks nvidia-smi); every setting in it is fixed once the engine is built."""
    cache = request.app[INFO_KEY]
    if not cache:
        engine = request.app[ENGINE_KEY]
        cache.update(engine_info(engine.core, request.app[PROVENANCE_KEY], request.app[MODEL_KEY],
                                 engine.capacity - engine.core.config.max_num_seqs))
    return web.json_response(cache)


async def _body(request: web.Request) -> Any:
    try:
        return await request.json(loads=json.loads)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ApiError(400, f"the request body is not valid JSON ({e}); send a JSON object with "
                            f"Content-Type: application/json") from None


def _parse(request: web.Request, body: Any, parser: Callable[..., GenerateRequest]) -> GenerateRequest:
    engine = request.app[ENGINE_KEY]
    return parser(body, request.app[MODEL_KEY], engine.tokenizer, engine.core.vocab_size,
                  engine.core.config.max_model_len)


async def completions(request: web.Request) -> web.StreamResponse:
    req = _parse(request, await _body(request), parse_completion)
    return await _serve(request, req, _CompletionShape(req.model))


async def chat_completions(request: web.Request) -> web.StreamResponse:
    req = _parse(request, await _body(request), parse_chat)
    return await _serve(request, req, _ChatShape(req.model))


class _CompletionShape:
    prefix, obj, chunk_obj = "cmpl", "text_completion", "text_completion"

    def __init__(self, model: str) -> None:
        self.model = model
        self.id = f"{self.prefix}-{uuid.uuid4().hex}"
        self.created = int(time.time())

    def envelope(self, obj: str, choices: list[dict[str, Any]]) -> dict[str, Any]:
        return {"id": self.id, "object": obj, "created": self.created, "model": self.model, "choices": choices}

    def final_choice(self, text: str, finish: str | None, stop_reason: Any) -> dict[str, Any]:
        return {"index": 0, "text": text, "logprobs": None, "finish_reason": finish, "stop_reason": stop_reason}

    def chunk_choices(self, out: StreamOutput, first: bool) -> list[dict[str, Any]]:
        return [self.final_choice(out.text, out.finish_reason, out.stop_reason)]


class _ChatShape(_CompletionShape):
    prefix, obj, chunk_obj = "chatcmpl", "chat.completion", "chat.completion.chunk"

    def final_choice(self, text: str, finish: str | None, stop_reason: Any) -> dict[str, Any]:
        return {"index": 0, "message": {"role": "assistant", "content": text}, "logprobs": None,
                "finish_reason": finish, "stop_reason": stop_reason}

    def chunk_choices(self, out: StreamOutput, first: bool) -> list[dict[str, Any]]:
        delta: dict[str, Any] = {"role": "assistant", "content": out.text} if first else {"content": out.text}
        return [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": out.finish_reason,
                 "stop_reason": out.stop_reason}]


def _usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens}


def _open(request: web.Request, req: GenerateRequest):
    engine = request.app[ENGINE_KEY]
    try:
        return engine.open(req.prompt_token_ids, req.params, prompt=req.prompt)
    except QueueFullError as e:
        raise ApiError(503, str(e)) from None
    except RequestFailed as e:
        raise ApiError(e.status, e.message) from None


async def _serve(request: web.Request, req: GenerateRequest, shape: _CompletionShape) -> web.StreamResponse:
    admission = _open(request, req)   # admitted or refused before any byte of the answer is sent
    if req.stream:
        return await _stream(request, req, shape, admission)
    texts: list[str] = []
    last: StreamOutput | None = None
    async with admission as stream:
        try:
            async for out in stream:
                texts.append(out.text)
                last = out
        except RequestFailed as e:
            raise ApiError(e.status, e.message) from None
    assert last is not None and last.finish_reason is not None
    body = shape.envelope(shape.obj, [shape.final_choice("".join(texts), last.finish_reason, last.stop_reason)])
    body["usage"] = _usage(last.num_prompt_tokens, last.num_output_tokens)
    return web.json_response(body)


async def _stream(request: web.Request, req: GenerateRequest, shape: _CompletionShape,
                  admission) -> web.StreamResponse:
    resp = web.StreamResponse(headers=SSE_HEADERS)
    try:
        return await _write_events(request, req, shape, admission, resp)
    except ConnectionResetError:   # the client left while we wrote; leaving the admission aborted its request
        log.info("client of %s hung up mid-stream", shape.id)
        return resp


async def _write_events(request: web.Request, req: GenerateRequest, shape: _CompletionShape, admission,
                        resp: web.StreamResponse) -> web.StreamResponse:
    async with admission as stream:
        await resp.prepare(request)

        async def send(payload: Any) -> None:
            data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
            await resp.write(f"data: {data}\n\n".encode())

        first, last = True, None
        try:
            async for out in stream:
                chunk = shape.envelope(shape.chunk_obj, shape.chunk_choices(out, first))
                if req.include_usage:
                    chunk["usage"] = None
                await send(chunk)
                first, last = False, out
        except RequestFailed as e:   # headers are gone: the error travels as a data event (vLLM does the same)
            await send(ApiError(e.status, e.message).body())
        else:
            if req.include_usage and last is not None:
                final = shape.envelope(shape.chunk_obj, [])
                final["usage"] = _usage(last.num_prompt_tokens, last.num_output_tokens)
                await send(final)
        await send("[DONE]")
    await resp.write_eof()
    return resp

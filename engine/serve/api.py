"""The OpenAI-compatible HTTP API (aiohttp): the app, its middlewares, and the endpoints that are not generation.

Endpoints: /health, /version, /metrics, /v1/models, /v1/models/{model}, /v1/engine (what the server runs, for
evidence: engine/serve/info.py), /tokenize, /detokenize, and /v1/completions, /v1/chat/completions
(engine/serve/generate.py). Every error is OpenAI's JSON error body with the HTTP status: 400 bad input, 401 no or
wrong API key, 403 a refused origin or Host, 404 unknown model or path, 408 a body too slow, 413 a body too large,
503 queue full or shutting down, 500 an engine failure.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import Any

from aiohttp import web

from engine.errors import EngineError
from engine.provenance.commit import Provenance
from engine.provenance.version import engine_version
from engine.serve import access, generate
from engine.serve.async_engine import AsyncEngine
from engine.serve.errors import ApiError, bad
from engine.serve.info import engine_info
from engine.serve.limits import MAX_BODY_BYTES, Timeouts
from engine.serve.metrics import CONTENT_TYPE, Metrics
from engine.serve.preprocess import Preprocessor
from engine.serve.protocol import DetokenizeRequest, TokenizeRequest
from engine.serve.responses import TokenTexts, dumps
from engine.serve.security import Guard
from engine.serve.server_state import STATE_KEY, ServerState

log = logging.getLogger("engine.serve")
METRICS_KEY = web.AppKey("metrics", Metrics)
DEFAULT_DRAIN_TIMEOUT = 30.0


def create_app(
    engine: AsyncEngine,
    served_model_name: str,
    provenance: Provenance | None = None,
    *,
    api_key: str | None = None,
    allowed_origins: Iterable[str] = (),
    allowed_hosts: Iterable[str] | None = None,
    chat_template: str | None = None,
    timeouts: Timeouts | None = None,
    drain_timeout: float = DEFAULT_DRAIN_TIMEOUT,
    max_body_bytes: int = MAX_BODY_BYTES,
) -> web.Application:
    """The application; its startup starts the engine and its shutdown drains and stops it. `provenance` is the
    code it runs, reported by /v1/engine (unknown when None); `allowed_hosts` None: no Host check."""
    tokenizer = engine.tokenizer
    if chat_template is not None:
        if tokenizer is None:
            raise EngineError("--chat-template needs a tokenizer and this model has none")
        try:
            tokenizer = tokenizer.with_chat_template(chat_template)
        except Exception as e:
            raise EngineError(f"--chat-template: the template does not parse: {e}") from None
    guard = Guard(api_key, allowed_origins, allowed_hosts)
    app = web.Application(middlewares=[access.request_id, _errors, guard.middleware], client_max_size=max_body_bytes)
    app[STATE_KEY] = ServerState(
        engine,
        served_model_name,
        Preprocessor(engine.info, tokenizer),
        TokenTexts(tokenizer),
        provenance or Provenance(),
        timeouts or Timeouts(),
    )
    app[METRICS_KEY] = metrics = Metrics(engine, served_model_name)
    engine.observer = metrics
    app.on_response_prepare.append(access.id_header)
    app.on_response_prepare.append(guard.cors_headers)
    for path, handler in (
        ("/health", health),
        ("/version", version),
        ("/metrics", metrics_text),
        ("/v1/models", models),
        ("/v1/models/{model:.+}", model_card),
        ("/v1/engine", engine_card),
    ):
        app.router.add_get(path, handler)
    for path, handler in (
        ("/tokenize", tokenize),
        ("/detokenize", detokenize),
        ("/v1/completions", generate.completions),
        ("/v1/chat/completions", generate.chat_completions),
    ):
        app.router.add_post(path, handler)

    async def start(app: web.Application) -> None:
        engine.start()

    async def stop(app: web.Application) -> None:
        """New requests get 503; those in flight may finish for up to drain_timeout seconds, then end."""
        if engine.num_in_flight:
            log.info("draining %d requests in flight (up to %g s)", engine.num_in_flight, drain_timeout)
        await engine.drain(drain_timeout)
        await engine.shutdown()
        app[STATE_KEY].pre.close()

    app.on_startup.append(start)
    app.on_shutdown.append(stop)
    return app


def error_response(err: ApiError) -> web.Response:
    headers = {"Retry-After": "1"} if err.status == 503 else None
    resp = web.json_response(err.body(), status=err.status, headers=headers)
    if err.close:
        resp.force_close()
    return resp


@web.middleware
async def _errors(request: web.Request, handler: Any) -> web.StreamResponse:
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
        log.exception(
            "unhandled error on %s %s (request %s)", request.method, request.path, request.get(access.REQUEST_ID)
        )
        return error_response(ApiError(500, "internal server error (logged on the server)"))


async def health(request: web.Request) -> web.Response:
    """200 while the server takes requests; 503 while it drains or after its engine stopped."""
    engine = request.app[STATE_KEY].engine
    return web.Response(status=200 if engine.accepting else 503)


async def version(request: web.Request) -> web.Response:
    return web.json_response({"version": engine_version()})


async def metrics_text(request: web.Request) -> web.Response:
    return web.Response(body=request.app[METRICS_KEY].render(), headers={"Content-Type": CONTENT_TYPE})


def _card(state: ServerState) -> dict[str, Any]:
    info = state.engine.info
    return {
        "id": state.served_model_name,
        "object": "model",
        "created": int(time.time()),
        "owned_by": "engine",
        "root": info.model_name,
        "max_model_len": info.max_model_len,
    }


async def models(request: web.Request) -> web.Response:
    return web.json_response({"object": "list", "data": [_card(request.app[STATE_KEY])]})


async def model_card(request: web.Request) -> web.Response:
    state = request.app[STATE_KEY]
    state.check_model(request.match_info["model"])
    return web.json_response(_card(state))


async def engine_card(request: web.Request) -> web.Response:
    """Built once (machine_info asks nvidia-smi); every setting in it is fixed once the engine is built."""
    state = request.app[STATE_KEY]
    if not state.engine_card:
        engine = state.engine
        state.engine_card.update(
            engine_info(engine.info, state.provenance, state.served_model_name, engine.max_queued_requests)
        )
    return web.json_response(state.engine_card)


async def tokenize(request: web.Request) -> web.Response:
    """vLLM's /tokenize: {"count", "max_model_len", "tokens"} for a prompt, or for chat messages as templated."""
    state = request.app[STATE_KEY]
    req = await state.read(request, TokenizeRequest)
    state.check_model(req.model)
    if req.messages is not None:
        conversation = [{**m.model_dump(), "content": m.content or ""} for m in req.messages]
        ids = (
            await state.pre.render_chat(req.messages, conversation, req.add_generation_prompt, req.chat_template_kwargs)
        ).ids
    else:
        assert req.prompt is not None
        ids = (await state.pre.encode([req.prompt], "prompt", req.add_special_tokens))[0]
    return web.json_response(
        {"count": len(ids), "max_model_len": state.engine.info.max_model_len, "tokens": ids}, dumps=dumps
    )


async def detokenize(request: web.Request) -> web.Response:
    state = request.app[STATE_KEY]
    req = await state.read(request, DetokenizeRequest)
    state.check_model(req.model)
    tok = state.pre.require_tokenizer("tokens", "token ids are all this model takes")
    vocab = state.engine.info.vocab_size
    over = next((i for i, t in enumerate(req.tokens) if not 0 <= t < vocab), None)
    if over is not None:
        raise bad("tokens", f"token id {req.tokens[over]} at position {over} is outside the vocabulary [0, {vocab})")
    text = await state.pre.run(lambda: tok.backend.decode_batch([req.tokens], skip_special_tokens=False)[0])
    return web.json_response({"prompt": text}, dumps=dumps)

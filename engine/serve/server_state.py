"""ServerState: what every handler of one app shares (the engine, the preprocessor, the served name, limits), and the
one way a handler reads its JSON body: bounded in size and time, parsed by a pydantic model, mistakes as 400s."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, TypeVar

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestPayloadError
from pydantic import BaseModel, ValidationError

from engine.provenance.commit import Provenance
from engine.serve.async_engine import AsyncEngine
from engine.serve.errors import ApiError, from_validation
from engine.serve.limits import Timeouts
from engine.serve.preprocess import Preprocessor
from engine.serve.responses import TokenTexts

M = TypeVar("M", bound=BaseModel)
INLINE_PARSE_BYTES = 256 * 1024  # larger bodies are parsed in a worker thread


@dataclass
class ServerState:
    engine: AsyncEngine
    served_model_name: str
    pre: Preprocessor
    texts: TokenTexts
    provenance: Provenance
    timeouts: Timeouts = field(default_factory=Timeouts)
    engine_card: dict[str, Any] = field(default_factory=dict)  # GET /v1/engine, built once

    async def read(self, request: web.Request, model: type[M]) -> M:
        try:
            raw = await asyncio.wait_for(request.read(), self.timeouts.body)
        except asyncio.TimeoutError:
            raise ApiError(
                408,
                f"the request body did not arrive within {self.timeouts.body:g} s; send it whole, "
                f"or with Content-Length",
                close=True,
            ) from None
        except web.HTTPRequestEntityTooLarge:
            raise ApiError(
                413,
                f"the request body is larger than {request.app._client_max_size} bytes, this "
                f"server's limit; send a shorter prompt or fewer prompts per request",
            ) from None
        except (HttpProcessingError, RequestPayloadError) as e:  # e.g. not the Content-Encoding it names
            detail = " ".join(str(getattr(e, "message", None) or e).split()).removeprefix("400, message: ")
            raise ApiError(
                400,
                f"the request body could not be read ({detail}); send it as plain JSON, or "
                f"encoded as its Content-Encoding says",
                close=True,
            ) from None
        try:
            if len(raw) > INLINE_PARSE_BYTES:
                return await self.pre.run(model.model_validate_json, raw)
            return model.model_validate_json(raw)
        except ValidationError as e:
            raise from_validation(e) from None

    def check_model(self, model: str | None) -> None:
        if model is not None and model != self.served_model_name:
            raise ApiError(
                404,
                f"model: the model {model!r} does not exist here; this server serves "
                f"{self.served_model_name!r} (see GET /v1/models)",
                param="model",
            )


STATE_KEY = web.AppKey("server_state", ServerState)

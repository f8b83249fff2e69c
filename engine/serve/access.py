"""Request ids and the access log: one line per request, written when its answer is complete (a stream's too).

The id is the client's `X-Request-Id` when it is a short token (letters, digits, `._:-`), otherwise a fresh one; it
comes back in the `X-Request-Id` header, names the response (`cmpl-ID`, `chatcmpl-ID`) and the engine requests
(`cmpl-ID-0`, ...), so a log line, an answer and an engine message can be matched.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

HEADER = "X-Request-Id"
REQUEST_ID = web.RequestKey("request_id", str)
_CLIENT_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def request_id(request: web.Request, handler: Handler) -> web.StreamResponse:
    given = request.headers.get(HEADER, "")
    request[REQUEST_ID] = given if _CLIENT_ID.fullmatch(given) else uuid.uuid4().hex
    return await handler(request)


async def id_header(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: every answer names its request id."""
    rid = request.get(REQUEST_ID)
    if rid is not None:
        response.headers[HEADER] = rid


class AccessLogger(AbstractAccessLogger):
    """`127.0.0.1 "POST /v1/completions HTTP/1.1" 200 1234B 0.512s id=... "user agent"`"""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        agent = request.headers.get("User-Agent", "-").replace('"', "'")[:120]
        self.logger.info(
            '%s "%s %s HTTP/%d.%d" %d %dB %.3fs id=%s "%s"',
            request.remote,
            request.method,
            request.path_qs[:200],
            request.version.major,
            request.version.minor,
            response.status,
            response.body_length,
            time,
            request.get(REQUEST_ID, "-"),
            agent,
        )

"""Who may call the server: an API key, the browser origins allowed (CORS), and the Host names a local server answers.

- `--api-key` (or ENGINE_API_KEY): every request but /health and /version needs `Authorization: Bearer KEY`,
  compared in constant time; otherwise 401.
- `--allowed-origins`: none by default. A request that carries an Origin header (a browser's) not in the list is
  refused with 403 before its body is read, so a web page cannot make a visitor's browser call a local server
  (a cross-origin text/plain POST needs no preflight). An allowed origin gets the CORS headers and its preflights.
- Host checking: a server bound to a loopback address answers only Host names that mean this machine
  (localhost, 127.0.0.1, [::1]): a DNS-rebinding page that renamed 127.0.0.1 as its own host is refused with 403.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable, Iterable

from aiohttp import web

from engine.serve.errors import ApiError

OPEN_PATHS = frozenset({"/health", "/version"})
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _hostname(header: str) -> str:
    """The name in a Host header, without its port ("[::1]:8000" -> "::1")."""
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class Guard:
    def __init__(
        self,
        api_key: str | None = None,
        allowed_origins: Iterable[str] = (),
        allowed_hosts: Iterable[str] | None = None,
    ) -> None:
        self.api_key = api_key.encode() if api_key else None
        self.origins = frozenset(o.rstrip("/") for o in allowed_origins)
        self.any_origin = "*" in self.origins
        self.hosts = None if allowed_hosts is None else frozenset(h.lower() for h in allowed_hosts)

    def origin_allowed(self, origin: str) -> bool:
        return self.any_origin or origin.rstrip("/") in self.origins

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if self.hosts is not None:
            host = _hostname(request.headers.get("Host", "")).lower()
            if host not in self.hosts:
                raise ApiError(
                    403,
                    f"Host {host!r} is not a name of this server (it answers "
                    f"{', '.join(sorted(self.hosts))}); connect by one of those, or start it with "
                    f"--host set to the address clients use",
                )
        origin = request.headers.get("Origin")
        if origin is not None and not self.origin_allowed(origin):
            raise ApiError(
                403,
                f"cross-origin requests from {origin!r} are not allowed; start the server with "
                f"--allowed-origins {origin} to allow them",
            )
        if request.method == "OPTIONS" and origin is not None:  # an allowed origin's preflight
            return web.Response(
                status=204,
                headers={
                    "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
                    "Access-Control-Allow-Headers": request.headers.get(
                        "Access-Control-Request-Headers", "Authorization, Content-Type"
                    ),
                    "Access-Control-Max-Age": "600",
                },
            )
        if self.api_key is not None and request.path not in OPEN_PATHS:
            scheme, _, token = request.headers.get("Authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(token.strip().encode(), self.api_key):
                raise ApiError(
                    401,
                    'missing or wrong API key: send the header "Authorization: Bearer KEY" with the '
                    "key the server was started with (--api-key or ENGINE_API_KEY)",
                )
        return await handler(request)

    async def cors_headers(self, request: web.Request, response: web.StreamResponse) -> None:
        """on_response_prepare: an allowed origin's response carries the CORS headers (streams included)."""
        origin = request.headers.get("Origin")
        if origin is not None and self.origin_allowed(origin):
            response.headers["Access-Control-Allow-Origin"] = "*" if self.any_origin else origin
            response.headers["Vary"] = "Origin"

"""ApiError: an HTTP error with OpenAI's error body, and how a pydantic ValidationError becomes one (400, the field
in `param`, the rule in the message, never the request echoed back whole)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

TYPES = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    408: "RequestTimeoutError",
    413: "RequestTooLargeError",
    500: "InternalServerError",
    503: "ServiceUnavailableError",
}
EXAMPLE = '{"prompt": "Hello", "max_tokens": 16}'


class ApiError(Exception):
    def __init__(
        self, status: int, message: str, param: str | None = None, type_: str | None = None, close: bool = False
    ) -> None:
        super().__init__(message)
        self.close = close  # the connection ends after the answer: what is left of its body cannot be trusted
        self.status = status
        self.message = message
        self.param = param
        self.type = type_ or TYPES.get(status, "Error")

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.status}}


def bad(field: str, message: str) -> ApiError:
    return ApiError(400, f"{field}: {message}", param=field)


def from_validation(err: ValidationError) -> ApiError:
    """The first problem pydantic found, as `field: rule (got value)`."""
    e = err.errors(include_url=False)[0]
    if e["type"] == "json_invalid":
        detail = e.get("ctx", {}).get("error", e["msg"])
        hint = " (a lone UTF-16 surrogate like \\ud800 is not a character)" if "hex escape" in str(detail) else ""
        return ApiError(
            400,
            f"the request body is not valid JSON ({detail}){hint}; send a JSON object with "
            f"Content-Type: application/json",
        )
    cause = e.get("ctx", {}).get("error")
    field_of = getattr(cause, "field", None)  # engine/serve/protocol.py's FieldError: a whole-body check
    if field_of is not None:
        return bad(field_of, str(cause))
    loc = [str(p) for p in e["loc"]]
    if not loc:
        return ApiError(400, f"the request body must be a JSON object, e.g. {EXAMPLE}")
    field = loc[0] + "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in loc[1:])
    if e["type"] == "missing":
        return bad(field, "is required")
    got = f" (got {_short(e.get('input'))})"
    msg = e["msg"].removeprefix("Value error, ")
    return bad(field, msg[0].lower() + msg[1:] + got)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."

"""Request bodies read strictly, in one place: the limits the contract states ("Request bodies").

A body is refused (4xx with the contract's error body, before anything is stored) when it is
larger than MAX_BODY_BYTES (413), not `application/json` in UTF-8 (415), not strict UTF-8, not
one JSON value, nested deeper than MAX_DEPTH, holds an object with a key twice, or holds a string
that is not valid Unicode (a lone surrogate escape such as "\\ud800") (422 VALIDATION). A JSON
number with no fraction (11578.0) is read as the integer it is; strings are never coerced.
"""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from typing import Any

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from livecert.reference.errors import ApiError, validation

MAX_BODY_BYTES = 65_536
MAX_DEPTH = 32
_EXACT_INTEGER_DIGITS = 15  # an integral number of more digits stays a float (never money)


def too_large(size: int | str) -> ApiError:
    return ApiError(
        413, "BODY_TOO_LARGE", f"the body has {size} bytes; at most {MAX_BODY_BYTES} are taken"
    )


class BodyLimit:
    """Pure ASGI middleware: a body over MAX_BODY_BYTES is refused (413) before it is read whole.

    The declared Content-Length is judged first; the bytes actually sent are counted as they
    arrive, so a chunked body is cut off at the limit too. The body read is replayed to the app.
    """

    def __init__(self, app: ASGIApp, *, enabled: bool = True) -> None:
        self.app = app
        self.enabled = enabled

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.enabled:
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            await _refuse(send, too_large(declared.decode()))
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, _replay([message], receive), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                await _refuse(send, too_large(f"more than {MAX_BODY_BYTES}"))
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        whole: Message = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, _replay([whole], receive), send)


def _replay(messages: list[Message], receive: Receive) -> Receive:
    async def replayed() -> Message:
        return messages.pop(0) if messages else await receive()

    return replayed


async def _refuse(send: Send, error: ApiError) -> None:
    payload = json.dumps(error.body()).encode()
    await send(
        {
            "type": "http.response.start",
            "status": error.status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are all different; a key given twice makes the object ambiguous."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"the key {key!r} appears twice in one object")
        found[key] = value
    return found


def _number(text: str) -> int | float:
    """A JSON number with a fraction or exponent: the integer it equals when it has no fraction
    (11578.0, 1e3), else a float (a float is never money: amounts are strings)."""
    try:
        exact = Decimal(text)
    except InvalidOperation:  # cannot happen for JSON's number grammar; kept as a guard
        raise ValueError(f"{text} is not a number") from None
    integral = exact.is_finite() and exact == exact.to_integral_value()
    if integral and exact.adjusted() < _EXACT_INTEGER_DIGITS:
        return int(exact)
    return float(text)


def _checked(value: Any) -> None:
    """Refuse nesting deeper than MAX_DEPTH and strings (or keys) that are not valid Unicode."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _unicode(item)
        elif isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                raise validation(f"the body is nested deeper than {MAX_DEPTH} levels")
            children = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in children:
                if isinstance(key, str):
                    _unicode(key)
                stack.append((child, depth + 1))


def _unicode(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise validation(
            "the body holds a string that is not valid Unicode (a lone surrogate escape)"
        ) from None


def parse_json(raw: bytes, *, lax: bool = False) -> Any:
    """One JSON value from strict UTF-8, checked as the module says; 422 VALIDATION otherwise.

    `lax` is the lax-body-reader fault: any Unicode encoding json detects, the last of duplicate
    keys kept (depth and lone surrogates are still refused, so the fault never answers 500).
    """
    try:
        if lax:  # FAULT lax-body-reader: json.loads detects UTF-16/32; duplicate keys: last wins
            value = json.loads(raw, parse_constant=_reject_constant)
        else:
            value = json.loads(
                raw.decode("utf-8"),
                object_pairs_hook=_unique_keys,
                parse_constant=_reject_constant,
                parse_float=_number,
            )
    except UnicodeDecodeError as exc:
        raise validation(f"the body is not UTF-8: {exc.reason} at byte {exc.start}") from None
    except RecursionError:
        raise validation(f"the body is nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        raise validation(f"the body is not valid JSON: {exc}") from None
    _checked(value)
    return value


def _media_type_refusal(header: str, lax: bool) -> ApiError | None:
    """415 unless the body is `application/json`, its charset (if named) UTF-8."""
    media, _, params = header.partition(";")
    media = media.strip().lower()
    if lax and media.startswith("application/") and media.endswith("+json"):
        return None  # FAULT lax-body-reader: any +json type taken
    if media != "application/json":
        return ApiError(
            415,
            "UNSUPPORTED_MEDIA_TYPE",
            f"the body must be application/json, not {media or 'untyped'}",
        )
    for param in params.split(";"):
        name, _, value = param.partition("=")
        charset = value.strip().strip('"').lower()
        if name.strip().lower() == "charset" and charset not in ("utf-8", "utf8") and not lax:
            return ApiError(
                415, "UNSUPPORTED_MEDIA_TYPE", f"the body must be UTF-8, not charset {charset}"
            )
    return None


async def read_json(request: Request, *, optional: bool = False, lax: bool = False) -> Any:
    """The request's JSON body; 415 for a wrong content type, 422 VALIDATION for a bad body.

    An empty body is `{}` where the body is optional, and refused where it is required.
    """
    raw = await request.body()
    if not raw.strip():
        if optional:
            return {}
        raise validation("a JSON request body is required")
    refusal = _media_type_refusal(request.headers.get("content-type", ""), lax)
    if refusal is not None:
        raise refusal
    return parse_json(raw, lax=lax)

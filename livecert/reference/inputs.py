"""Checks every request body shares: a JSON object, strings within their lengths, a reason."""

from __future__ import annotations

from typing import Any

from livecert.reference.errors import validation
from livecert.reference.views import Json

# the longest strings taken (the contract's maxLength): a name, a reason or note, a selection
MAX_NAME, MAX_TEXT, MAX_SELECTION, MAX_STAKE = 100, 500, 64, 32


def _object(body: Any, what: str) -> Json:
    if not isinstance(body, dict):
        raise validation(f"the {what} body must be a JSON object")
    return body


def _optional_string(body: Json, name: str, longest: int = MAX_TEXT) -> str | None:
    """The field's string, None where it is absent; null or another type is refused."""
    if name not in body:
        return None
    value = body[name]
    if not isinstance(value, str):
        raise validation(f"`{name}` must be a string (or left out)")
    return _within(value, name, longest)


def _within(value: str, name: str, longest: int) -> str:
    if len(value) > longest:
        raise validation(f"`{name}` is {len(value)} characters long; at most {longest} are taken")
    return value


def _reason(body: Any) -> str:
    body = _object(body, "request")
    reason = body.get("reason")
    if not isinstance(reason, str) or not reason:
        raise validation("`reason` is required: a non-empty string")
    return _within(reason, "reason", MAX_TEXT)

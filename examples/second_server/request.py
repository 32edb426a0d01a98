"""A request as the handlers see it (its JSON body read strictly), and the refusals they raise."""

import json
from dataclasses import dataclass


class Refusal(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def invalid(message: str) -> Refusal:
    return Refusal(422, "VALIDATION", message)


def state_refusal(message: str) -> Refusal:
    return Refusal(409, "ROUND_STATE", message)


def not_found(message: str) -> Refusal:
    return Refusal(404, "NOT_FOUND", message)


@dataclass
class Request:
    """One HTTP request as the handlers see it."""

    role: str | None  # operator, dealer, player, or None without valid credentials
    player_id: str | None
    params: dict[str, str]
    query: dict[str, str]
    headers: dict[str, str]
    raw: bytes

    def json(self, required: bool = True) -> dict:
        if not self.raw.strip():
            if required:
                raise invalid("a JSON body is required")
            return {}
        kind = self.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise Refusal(415, "UNSUPPORTED_MEDIA_TYPE", "the body must be application/json")
        try:
            body = json.loads(
                self.raw.decode("utf-8"), parse_constant=_no_constants, object_pairs_hook=_once
            )
        except ValueError as error:
            raise invalid(f"the body is not valid JSON: {error}") from None
        if not isinstance(body, dict):
            raise invalid("the body must be a JSON object")
        return body


def _no_constants(name: str) -> None:
    raise ValueError(f"{name} is not allowed")


def _once(pairs: list[tuple[str, object]]) -> dict:
    """An object naming each key once: a slip with its stake twice is ambiguous, so refused."""
    keys = [key for key, _ in pairs]
    twice = sorted({key for key in keys if keys.count(key) > 1})
    if twice:
        raise ValueError(f"the key(s) {', '.join(twice)} appear more than once")
    return dict(pairs)

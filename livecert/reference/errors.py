"""The refusal every endpoint raises: an HTTP status, a contract error code and a message."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A 4xx refusal, rendered as `{"error": {"code", "message", "details"?}}`; changes nothing."""

    def __init__(self, status: int, code: str, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details is not None:
            error["details"] = self.details
        return {"error": error}


def unauthorized(message: str = "a valid bearer token is required") -> ApiError:
    return ApiError(401, "UNAUTHORIZED", message)


def forbidden(message: str) -> ApiError:
    return ApiError(403, "FORBIDDEN", message)


def not_found(message: str) -> ApiError:
    return ApiError(404, "NOT_FOUND", message)


def validation(message: str, details: Any = None) -> ApiError:
    return ApiError(422, "VALIDATION", message, details)


def round_state(message: str) -> ApiError:
    return ApiError(409, "ROUND_STATE", message)

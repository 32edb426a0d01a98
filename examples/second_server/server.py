"""A bare ASGI application over the Casino: routing, authentication, JSON answers, one lock."""

import json
import re
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

from .casino import Casino, Refusal, Request

ID = r"[^/]+"
ROUTES: list[tuple[re.Pattern[str], dict[str, str]]] = [
    (re.compile(p), methods)
    for p, methods in (
        (r"/v1/info", {"GET": "info"}),
        (r"/v1/whoami", {"GET": "whoami"}),
        (r"/v1/players", {"POST": "create_player"}),
        (r"/v1/tables", {"POST": "create_table"}),
        (rf"/v1/tables/(?P<table_id>{ID})/rounds", {"POST": "open_round"}),
        (rf"/v1/tables/(?P<table_id>{ID})/statistics", {"GET": "statistics"}),
        (rf"/v1/rounds/(?P<round_id>{ID})", {"GET": "get_round"}),
        (rf"/v1/rounds/(?P<round_id>{ID})/close", {"POST": "close"}),
        (rf"/v1/rounds/(?P<round_id>{ID})/reshakes", {"POST": "reshake"}),
        (rf"/v1/rounds/(?P<round_id>{ID})/events", {"POST": "event"}),
        (rf"/v1/rounds/(?P<round_id>{ID})/result", {"POST": "result"}),
        (rf"/v1/rounds/(?P<round_id>{ID})/pause", {"POST": "pause"}),
        (rf"/v1/rounds/(?P<round_id>{ID})/resume", {"POST": "resume"}),
        (rf"/v1/rounds/(?P<round_id>{ID})/cancel", {"POST": "cancel"}),
        (rf"/v1/rounds/(?P<round_id>{ID})/void", {"POST": "void"}),
        (rf"/v1/rounds/(?P<round_id>{ID})/bets", {"POST": "place_bets"}),
        (rf"/v1/bets/(?P<bet_id>{ID})", {"DELETE": "withdraw"}),
        (r"/v1/player", {"GET": "me"}),
        (r"/v1/player/bets", {"GET": "record"}),
        (r"/v1/player/connect", {"POST": "connect"}),
        (r"/v1/player/disconnect", {"POST": "disconnect"}),
    )
]
MAX_BODY = 65_536  # the contract's x-max-body-bytes


def error(status: int, code: str, message: str) -> tuple[int, Any]:
    return status, {"error": {"code": code, "message": message}}


class App:
    def __init__(self, casino: Casino) -> None:
        self.casino = casino
        self.lock = threading.Lock()

    def route(self, method: str, path: str) -> tuple[Callable | None, dict[str, str], int]:
        for pattern, methods in ROUTES:
            found = pattern.fullmatch(path)
            if found:
                name = methods.get(method)
                if name is None:
                    return None, {}, 405
                return getattr(self.casino, name), found.groupdict(), 200
        return None, {}, 404

    def handle(self, method: str, path: str, query: str, headers: dict, raw: bytes):
        handler, params, found = self.route(method, path)
        if handler is None:
            if found == 405:
                return error(405, "METHOD_NOT_ALLOWED", f"{method} is not allowed on {path}")
            return error(404, "NOT_FOUND", f"no such path {path}")
        with self.lock:  # every state change is atomic
            role, player_id = self.casino.identify(headers.get("authorization"))
            request = Request(role, player_id, params, dict(parse_qsl(query)), headers, raw)
            try:
                return handler(request)
            except Refusal as refusal:
                return error(refusal.status, refusal.code, refusal.message)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            chunks.append(chunk)
            more = message.get("more_body", False)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if size > MAX_BODY:
            status, answer = error(413, "BODY_TOO_LARGE", f"the body is over {MAX_BODY} bytes")
        else:
            try:
                status, answer = self.handle(
                    scope["method"],
                    scope["path"],
                    scope.get("query_string", b"").decode("latin-1"),
                    headers,
                    b"".join(chunks),
                )
            except Exception as crash:  # an answer, never a dropped connection
                status, answer = error(500, "INTERNAL", f"{type(crash).__name__}: {crash}")
        payload = json.dumps(answer, separators=(",", ":")).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})

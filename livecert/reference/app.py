"""The HTTP layer: `create_app(config)` serves the certification contract over a Service.

Bodies are read and checked by hand (body.py, not pydantic models) so every refusal carries the
contract's error codes; FastAPI's own errors (404, 405, validation) are mapped onto them too.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from livecert.reference import __version__
from livecert.reference.body import BodyLimit, parse_json, read_json
from livecert.reference.config import Config
from livecert.reference.errors import ApiError, unauthorized, validation
from livecert.reference.service import Identity, Service
from livecert.reference.store import Store

LENIENT_SLIP_FAULTS = frozenset(
    {"slip-content-type-ignored", "stake-number-accepted", "empty-or-garbled-slip-accepted"}
)


async def read_slip_leniently(request: Request, faults: frozenset[str]) -> Any:
    """A bet slip read the way a careless server does, one seeded fault at a time; None stands
    for a slip the empty-or-garbled fault swallows."""
    lax = "lax-body-reader" in faults
    if "slip-content-type-ignored" not in faults:
        try:
            body = await read_json(request, lax=lax)
        except ApiError as refused:
            if "empty-or-garbled-slip-accepted" in faults and refused.code == "VALIDATION":
                return None  # FAULT empty-or-garbled-slip-accepted: unreadable JSON swallowed
            raise
    else:
        raw = await request.body()  # FAULT slip-content-type-ignored: any content type parsed
        body = parse_json(raw, lax=lax)
    if "stake-number-accepted" in faults and isinstance(body, dict):
        for bet in body.get("bets") or []:
            if isinstance(bet, dict) and isinstance(bet.get("stake"), int | float):
                bet["stake"] = f"{bet['stake']:.2f}"  # FAULT stake-number-accepted
    return body


def _one_header(request: Request, name: str) -> str | None:
    """The request's `name` header, sent at most once: two credentials (or two keys) in one
    request leave which of them acts to the server's parser, so neither is taken."""
    values = request.headers.getlist(name)
    if len(values) > 1:
        message = f"the request carries {len(values)} {name} headers: send one"
        raise unauthorized(message) if name == "Authorization" else validation(message)
    return values[0] if values else None


def _bearer(request: Request) -> str | None:
    header = _one_header(request, "Authorization")
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer":
        raise unauthorized("the Authorization header must be `Bearer <token>`")
    return token.strip() or None


class ServerTiming:
    """Pure ASGI middleware adding `Server-Timing: app;dur=<ms>` (cheap, measures the server)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()

        async def timed_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                elapsed = (time.perf_counter() - start) * 1000
                headers = list(message.get("headers", []))
                headers.append((b"server-timing", f"app;dur={elapsed:.3f}".encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, timed_send)


def create_app(config: Config | None = None) -> FastAPI:
    """Build the FastAPI app for one configuration (one database, one set of faults)."""
    config = config or Config()
    store = Store(config.db_path)
    service = Service(config, store)
    app = FastAPI(
        title="livecert reference server",
        version=__version__,
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        redirect_slashes=False,
    )
    app.state.service = service
    app.state.store = store
    lax = "lax-body-reader" in config.faults  # FAULT lax-body-reader: no size limit either
    app.add_middleware(BodyLimit, enabled=not lax)
    app.add_middleware(ServerTiming)

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(exc.body(), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for error in exc.errors():
            where = ".".join(str(p) for p in error.get("loc", ()))
            parts.append(f"{where}: {error.get('msg', 'invalid')}")
        err = validation("; ".join(parts) or "the request is invalid")
        return JSONResponse(err.body(), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404:
            code, message = "NOT_FOUND", f"no such path {request.url.path}"
        elif exc.status_code == 405:
            code = "METHOD_NOT_ALLOWED"
            message = f"{request.method} is not an operation on this path"
        elif 400 <= exc.status_code < 500:
            code, message = "VALIDATION", str(exc.detail)
        else:
            code, message = "INTERNAL", str(exc.detail)
        return JSONResponse(
            {"error": {"code": code, "message": message}},
            status_code=exc.status_code,
            headers=exc.headers,
        )

    @app.exception_handler(Exception)
    async def _internal(_request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(
            {"error": {"code": "INTERNAL", "message": type(exc).__name__}}, status_code=500
        )

    async def json_body(request: Request, optional: bool = False) -> Any:
        return await read_json(request, optional=optional, lax=lax)

    def who(request: Request) -> Identity:
        return service.identify(_bearer(request))

    def ok(payload: Any, status: int = 200) -> JSONResponse:
        return JSONResponse(payload, status_code=status)

    @app.get("/v1/info")
    async def get_info() -> JSONResponse:
        return ok(service.info())

    @app.get("/v1/whoami")
    async def whoami(request: Request) -> JSONResponse:
        return ok(service.whoami(who(request)))

    @app.post("/v1/players")
    async def create_player(request: Request) -> JSONResponse:
        ident = who(request)
        service.require(ident, "operator")
        return ok(service.create_player(ident, await json_body(request)), 201)

    @app.post("/v1/tables")
    async def create_table(request: Request) -> JSONResponse:
        ident = who(request)
        service.require(ident, "operator")
        return ok(service.create_table(ident, await json_body(request)), 201)

    # one route for both methods, so that a 405 there names both in `Allow`
    @app.api_route("/v1/tables/{table_id}/rounds", methods=["GET", "POST"])
    async def table_rounds(request: Request, table_id: str) -> JSONResponse:
        if request.method == "GET":  # the table's round history (capability round-history)
            query = request.query_params
            page = service.round_history(
                who(request), table_id, query.getlist("after"), query.getlist("limit")
            )
            return ok(page)
        ident = who(request)  # the dealer opens a round
        service.require(ident, "dealer")
        body = await json_body(request, optional=True)
        created = 200 if "open-round-answers-200" in config.faults else 201  # FAULT open-round-...
        return ok(service.open_round(ident, table_id, body), created)

    @app.get("/v1/tables/{table_id}/statistics")
    async def statistics(request: Request, table_id: str) -> JSONResponse:
        return ok(service.statistics(who(request), table_id))

    @app.get("/v1/rounds/{round_id}")
    async def get_round(request: Request, round_id: str) -> JSONResponse:
        view = service.get_round(who(request), round_id)
        if "round-state-in-capitals" in config.faults:
            view["state"] = view["state"].upper()  # FAULT round-state-in-capitals
        return ok(view)

    @app.post("/v1/rounds/{round_id}/close")
    async def close(request: Request, round_id: str) -> JSONResponse:
        return ok(service.close(who(request), round_id))

    @app.post("/v1/rounds/{round_id}/reshakes")
    async def reshake(request: Request, round_id: str) -> JSONResponse:
        ident = who(request)
        service.require(ident, "dealer")
        return ok(service.reshake(ident, round_id, await json_body(request)))

    @app.post("/v1/rounds/{round_id}/events")
    async def event(request: Request, round_id: str) -> JSONResponse:
        ident = who(request)
        service.require(ident, "dealer")
        return ok(service.event(ident, round_id, await json_body(request)))

    @app.post("/v1/rounds/{round_id}/result")
    async def result(request: Request, round_id: str) -> JSONResponse:
        ident = who(request)
        service.require(ident, "dealer")
        return ok(service.enter_result(ident, round_id, await json_body(request)))

    @app.post("/v1/rounds/{round_id}/pause")
    async def pause(request: Request, round_id: str) -> JSONResponse:
        ident = who(request)
        service.require(ident, "dealer")
        return ok(service.pause(ident, round_id, await json_body(request)))

    @app.post("/v1/rounds/{round_id}/resume")
    async def resume(request: Request, round_id: str) -> JSONResponse:
        return ok(service.resume(who(request), round_id))

    @app.post("/v1/rounds/{round_id}/cancel")
    async def cancel(request: Request, round_id: str) -> JSONResponse:
        ident = who(request)
        service.require(ident, "dealer")
        return ok(service.refund_round(ident, round_id, await json_body(request), "cancelled"))

    @app.post("/v1/rounds/{round_id}/void")
    async def void(request: Request, round_id: str) -> JSONResponse:
        ident = who(request)
        service.require(ident, "dealer")
        return ok(service.refund_round(ident, round_id, await json_body(request), "void"))

    @app.post("/v1/rounds/{round_id}/bets")
    async def place_bets(request: Request, round_id: str) -> JSONResponse:
        ident = who(request)
        service.require(ident, "player")
        lenient = LENIENT_SLIP_FAULTS & config.faults
        body = await (
            read_slip_leniently(request, config.faults) if lenient else json_body(request)
        )
        swallow = "empty-or-garbled-slip-accepted" in config.faults
        if swallow and (body is None or body == {"bets": []}):
            # FAULT empty-or-garbled-slip-accepted: nothing placed, answered as if accepted
            balance = service.get_player(ident)["balance"]
            return ok({"bets": [], "balance": balance}, 201)
        key = _one_header(request, "Idempotency-Key")
        late = [] if "idempotency-key-recorded-late" in config.faults else None
        if late is not None:
            # FAULT idempotency-key-recorded-late: the slip is placed at once, its key recorded
            # only after a slow step (the event loop serves a re-send in between, placed again)
            status, answer = service.place_bets(ident, round_id, body, key, late_keys=late)
            if late:
                await asyncio.sleep(config.fault_delay_ms / 1000)
                service.remember_late(late)
            return ok(answer, status)
        if "lost-update-under-concurrency" not in config.faults:
            status, answer = service.place_bets(ident, round_id, body, key)
            return ok(answer, status)
        # FAULT lost-update-under-concurrency: the balance read in the slip's transaction is
        # written back 5 ms later, outside it, so concurrent slips of one player overwrite
        # each other's debit (the event loop serves the other request during the sleep).
        deferred: list[tuple[str, int]] = []
        status, answer = service.place_bets(ident, round_id, body, key, deferred)
        if deferred:
            await asyncio.sleep(0.005)
            for pid, balance in deferred:
                service.debit_later(pid, balance)
        return ok(answer, status)

    @app.delete("/v1/bets/{bet_id}")
    async def withdraw(request: Request, bet_id: str) -> JSONResponse:
        # always refused (409 BET_FINAL) unless a withdrawal fault is seeded
        return ok(service.withdraw(who(request), bet_id))

    @app.get("/v1/player")
    async def player(request: Request) -> JSONResponse:
        view = service.get_player(who(request))
        if "balance-as-number" in config.faults:
            view["balance"] = float(view["balance"])  # FAULT balance-as-number
        return ok(view)

    @app.get("/v1/player/bets")
    async def bet_record(request: Request) -> JSONResponse:
        return ok(service.bet_record(who(request), request.query_params.get("round_id")))

    @app.post("/v1/player/connect")
    async def connect(request: Request) -> JSONResponse:
        return ok(service.set_connected(who(request), True))

    @app.post("/v1/player/disconnect")
    async def disconnect(request: Request) -> JSONResponse:
        return ok(service.set_connected(who(request), False))

    return app

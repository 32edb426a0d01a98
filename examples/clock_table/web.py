"""The clock table on one port: a plain WebSocket (`/ws`) for the table's pushes and the bets,
plain HTTP for the login, the wallet, the player's own history and the lab's test hooks."""

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from examples.clock_table.tables import TABLES, ClockTables, Socket, possible
from examples.second_server.casino import Request
from examples.second_server.money import fmt


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"ok": False, "code": code, "message": message}, status_code=status)


def _bearer(request: HttpRequest) -> str | None:
    header = request.headers.get("authorization", "")
    return header[7:] if header.startswith("Bearer ") else None


async def _body(request: HttpRequest) -> dict:
    try:
        body = await request.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def app(tables: ClockTables) -> Starlette:
    """The Starlette application: its routes, and the tables' timers run with it."""

    def admin(request: HttpRequest) -> bool:
        return request.headers.get("x-admin-token") == tables.admin_token

    async def login(request: HttpRequest) -> JSONResponse:
        body = await _body(request)
        found = tables.login(body.get("user"), body.get("password"))
        if found is None:
            return _error(401, "BAD_LOGIN", "wrong user or password")
        player, token = found
        return JSONResponse({"token": token, "player": {"id": player, "name": body["user"]}})

    async def wallet(request: HttpRequest) -> JSONResponse:
        player = tables.player(_bearer(request))
        if player is None:
            return _error(401, "NO_SESSION", "log in first")
        return JSONResponse({"balance": fmt(tables.casino.players[player].balance)})

    async def history(request: HttpRequest) -> JSONResponse:
        """The caller's own bets (of one round with `?round=`): no player named anywhere."""
        player = tables.player(_bearer(request))
        if player is None:
            return _error(401, "NO_SESSION", "log in first")
        asked = Request("player", player, {}, {}, {}, b"")
        if "round" in request.query_params:
            asked.query["round_id"] = request.query_params["round"]
        _, record = tables.casino.record(asked)
        bets = [{"id": b["bet_id"], "round": b["round_id"], "selection": b["selection"],
                 "amount": b["stake"], "status": b["status"], "outcome": b["outcome"],
                 "returned": b["returned"]} for b in record["bets"]]  # fmt: skip
        rounds = [{"round": r["round_id"], "game": r["game"], "state": r["state"],
                   "result": r["result"], "staked": r["staked"], "returned": r["returned"],
                   "balance_before": r["balance_before"], "balance_after": r["balance_after"]}
                  for r in record["rounds"]]  # fmt: skip
        return JSONResponse({"bets": bets, "rounds": rounds})

    async def bet(request: HttpRequest) -> JSONResponse:
        """The socket's bet over HTTP, as `{round, selection, amount}` or a slip of one
        `{round, bets: [{selection, amount}]}`: the same one-object answer."""
        player = tables.player(_bearer(request))
        if player is None:
            return _error(401, "NO_SESSION", "log in first")
        data = await _body(request)
        if "bets" in data:
            slip = data["bets"]
            if not isinstance(slip, list) or len(slip) != 1 or not isinstance(slip[0], dict):
                return _error(422, "ONE_BET", "bets is a list of one bet {selection, amount}")
            data = {"round": data.get("round"), **slip[0]}
        ack = await tables.bet(player, data)
        await tables.after_bet(player, data, ack)
        return JSONResponse(ack, status_code=200 if ack["ok"] else 409)

    async def force(request: HttpRequest) -> JSONResponse:
        """A test hook: the outcome of the table's next round, or of a round not drawn yet."""
        if not admin(request):
            return _error(401, "NO_ADMIN", "admin token required")
        body = await _body(request)
        table, outcome = body.get("table"), body.get("dice") or body.get("tokens")
        key = table
        if body.get("round") is not None:
            key = str(body["round"])
            rnd = tables.casino.rounds.get(key)
            if rnd is None:
                return _error(404, "NO_ROUND", f"no round {key}")
            if key in tables.clock.drawn:
                return _error(409, "DRAWN", f"round {key} is drawn")
            if table is not None and table != rnd.table_id:
                return _error(422, "OTHER_TABLE", f"round {key} is not at table {table}")
            table = rnd.table_id
        if table not in TABLES or not possible(TABLES[table], outcome):
            return _error(422, "BAD_OUTCOME", "{table | round, dice | tokens}")
        tables.clock.forced[key] = outcome
        return JSONResponse({"table": table, "round": body.get("round"), "next": outcome})

    async def deal(request: HttpRequest) -> JSONResponse:
        """A test hook: the lab forces no outcome for the table's round not yet revealed (so it
        is revealed at once after its close, unless a bet is taken on it after this)."""
        if not admin(request):
            return _error(401, "NO_ADMIN", "admin token required")
        table = (await _body(request)).get("table")
        if table not in TABLES:
            return _error(422, "NO_TABLE", "{table}")
        unrevealed = tables.clock.unrevealed.get(table)
        if unrevealed is not None:
            tables.clock.dealt.add(unrevealed)
        return JSONResponse({"table": table, "dealt": unrevealed})

    async def drop(request: HttpRequest) -> JSONResponse:
        """A test hook: every connection of a player dropped by the server (a network cut)."""
        if not admin(request):
            return _error(401, "NO_ADMIN", "admin token required")
        player = (await _body(request)).get("player")
        dropped = [s for s in tables.clock.sockets if s.player == player]
        for socket in dropped:
            if socket.close is not None:
                await socket.close()
        return JSONResponse({"player": player, "dropped": len(dropped)})

    async def table_list(_: HttpRequest) -> JSONResponse:
        return JSONResponse([{"table": t, "game": g} for t, g in TABLES.items()])

    async def stream(websocket: WebSocket) -> None:
        await _serve(tables, websocket)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        tables.start()
        try:
            yield
        finally:
            await tables.stop()

    return Starlette(
        routes=[
            Route("/api/login", login, methods=["POST"]),
            Route("/api/wallet", wallet, methods=["GET"]),
            Route("/api/me/history", history, methods=["GET"]),
            Route("/api/bet", bet, methods=["POST"]),
            Route("/api/test/next-outcome", force, methods=["POST"]),
            Route("/api/test/deal", deal, methods=["POST"]),
            Route("/api/test/drop", drop, methods=["POST"]),
            Route("/api/tables", table_list, methods=["GET"]),
            WebSocketRoute("/ws", stream),
        ],
        lifespan=lifespan,
    )


async def _serve(tables: ClockTables, websocket: WebSocket) -> None:
    """One connection: `?token=` (or a first `{type: auth, token}` frame) makes it a player's,
    none a spectator's; then `join` and `bet` frames, each answered by one frame."""
    token = websocket.query_params.get("token")
    player = tables.player(token) if token else None
    if token and player is None:
        await websocket.close(code=4401, reason="not a player's token")
        return
    await websocket.accept()
    lock = asyncio.Lock()

    async def send(message: dict) -> None:
        async with lock:
            await websocket.send_text(json.dumps(message))

    socket = Socket(send, player, close=websocket.close)
    tables.clock.sockets.append(socket)
    try:
        while True:
            try:
                data = json.loads(await websocket.receive_text())
            except ValueError:
                await send({"type": "error", "code": "BAD_FRAME", "message": "frames are JSON"})
                continue
            kind = data.get("type") if isinstance(data, dict) else None
            if kind == "auth" and socket.player is None:
                socket.player = tables.player(str(data.get("token")))
                answer = {"type": "auth", "ok": socket.player is not None}
                await send(answer)
            elif kind == "join":
                await send(tables.join(socket, data.get("table")))
            elif kind == "bet":
                ack = await tables.bet(socket.player, data)
                if not tables.no_ack:
                    await send(ack)
                elif not ack["ok"]:  # --no-ack: a bet taken gets no reply; a refusal an error
                    await send({"type": "error", "code": ack["code"], "message": ack["message"]})
                if socket.player is not None:
                    await tables.after_bet(socket.player, data, ack)
            else:
                await send({"type": "error", "code": "BAD_FRAME", "message": f"no {kind!r}"})
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        tables.gone(socket)

"""A live table that pushes its rounds over Socket.IO, on the example engine (second_server).

Shaped like the public Tai Xiu / Xoc Dia servers: each table plays rounds on a timer whatever its
players do; every client of the namespace `/live` that joined a table is pushed `round:open`,
`round:close`, `round:result`, and each player its own `bet:settled` and `wallet` messages. A bet
is an emitted `bet` event (one bet, or a slip: `bets`); its acknowledgement is the answer (the
slip taken or refused whole). Amounts are
integer cents. Accounts, the wallet, the bet record and the test hooks (the next outcome, a
round's reveal without one, a player's connections dropped) are plain HTTP.

Seeded faults (`--fault`), each breaking one clause a stream shows:
- `late-ack`: a bet sent while betting is open is acknowledged (and taken) after the close
  message went out (SB-RND-01 / XD-RND-01, REG-COMMIT-01).
- `settlement-pays-wrong`: the pushed settlement of a winning bet shows one cent more than the
  wallet is credited (REG-SETTLE-01, and the selection's paytable row; REG-MONEY-01 too: the
  wallet is then not the start less the stakes plus the returns the player was told of).
- `result-before-close`: the result is pushed before the close message (REG-COMMIT-01).
- `disconnected-settlement-lost`: a player not connected when the round settles is never
  credited nor told (REG-MONEY-01, TBL-DISC-02).
- `result-never-pushed`: rounds settle, but their result is never pushed (a broken stream: a
  wait for it ends at its deadline, naming the round, and the run is incomplete).
"""

import asyncio
import contextlib
import json
import random
import secrets
import traceback
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import socketio
from starlette.applications import Starlette
from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse
from starlette.routing import Route

from examples.second_server.casino import Casino, Refusal, Request
from examples.second_server.entities import Round
from examples.second_server.money import fmt, parse_cents

NAMESPACE = "/live"
FAULTS = (
    "late-ack",
    "settlement-pays-wrong",
    "result-before-close",
    "disconnected-settlement-lost",
    "result-never-pushed",
)
TABLES = {"sicbo-1": "sicbo", "xocdia-1": "xocdia"}


@dataclass
class Timing:
    betting_ms: int = 200  # how long a round takes bets
    settle_ms: int = 1000  # a round with bets waits this long for the lab's outcome
    pause_ms: int = 50  # from one round's result to the next round


@dataclass
class LiveState:
    """What the pushes need beside the engine: who is connected, what is forced next."""

    sids: dict[str, str] = field(default_factory=dict)  # socket id -> player id
    forced: dict[str, list] = field(default_factory=dict)  # table, or round -> its outcome
    drawn: set[str] = field(default_factory=set)  # rounds whose outcome is drawn already
    current: dict[str, str] = field(default_factory=dict)  # table -> the round taking bets
    unrevealed: dict[str, str] = field(default_factory=dict)  # table -> round not yet revealed
    dealt: set[str] = field(default_factory=set)  # rounds the lab lets the dealer reveal


def _request(role: str | None, player: str | None = None, body: Any = None, **params: str):
    raw = b"" if body is None else json.dumps(body).encode("utf-8")
    headers = {"content-type": "application/json"}
    return Request(role, player, params, {}, headers, raw)


def _possible(game: str, outcome: object) -> bool:
    """An outcome the table can show: three dice 1-6, or four tokens r/w (a test hook's input
    checked here, so a wrong one is refused rather than ending the table's timer)."""
    if game == "sicbo":
        return (
            isinstance(outcome, list)
            and len(outcome) == 3
            and all(type(d) is int and 1 <= d <= 6 for d in outcome)
        )
    return isinstance(outcome, list) and len(outcome) == 4 and all(t in ("r", "w") for t in outcome)


class LiveTables:
    """The engine, its tables played on a timer, and the Socket.IO server that pushes them."""

    def __init__(
        self, operator_token: str, timing: Timing, faults: frozenset[str], seed: int | None
    ) -> None:
        self.casino = Casino(operator_token, secrets.token_urlsafe(16))
        self.operator_token, self.timing, self.faults = operator_token, timing, faults
        self.random = random.Random(seed)
        self.state = LiveState()
        self.sio = socketio.AsyncServer(async_mode="asgi", cors_allowed_origins=[])
        for table, game in TABLES.items():
            _, made = self.casino.create_table(
                _request("operator", body={"game": game, "name": table})
            )
            self.casino.tables[table] = self.casino.tables.pop(made["table_id"])
            self.casino.tables[table].id = table
        self._register()
        self._tasks: list[asyncio.Task] = []

    # -- the Socket.IO side ---------------------------------------------------------------------

    def _register(self) -> None:
        sio = self.sio

        @sio.on("connect", namespace=NAMESPACE)
        async def connect(sid: str, environ: dict, auth: Any) -> bool:
            token = auth.get("token") if isinstance(auth, dict) else None
            if not token:
                return True  # a spectator: pushed the table's rounds, never a bet
            role, player = self.casino.identify(f"Bearer {token}")
            if role != "player" or player is None:
                raise socketio.exceptions.ConnectionRefusedError("not a player's token")
            self.state.sids[sid] = player
            self.casino.players[player].connected = True
            return True

        @sio.on("disconnect", namespace=NAMESPACE)
        async def disconnect(sid: str, *_: Any) -> None:
            player = self.state.sids.pop(sid, None)
            if player and player not in self.state.sids.values():
                self.casino.players[player].connected = False

        @sio.on("join", namespace=NAMESPACE)
        async def join(sid: str, data: Any) -> dict:
            table = data.get("table") if isinstance(data, dict) else None
            if table not in TABLES:
                return {"ok": False, "code": "NO_TABLE", "message": f"no table {table!r}"}
            await sio.enter_room(sid, table, namespace=NAMESPACE)
            return {"ok": True, "table": table, "game": TABLES[table],
                    "round": self.state.current.get(table)}  # fmt: skip

        @sio.on("bet", namespace=NAMESPACE)
        async def bet(sid: str, data: Any) -> dict:
            return await self._bet(sid, data)

    async def _bet(self, sid: str, data: Any) -> dict:
        player = self.state.sids.get(sid)
        if not isinstance(data, dict) or player is None:
            return {
                "ok": False,
                "code": "BAD_BET",
                "message": "a bet is {round, selection, amount}, from a player's connection",
            }
        items = data.get("bets") if "bets" in data else [data]  # one bet, or a slip of them
        if not isinstance(items, list) or not items or not all(isinstance(i, dict) for i in items):
            return {"ok": False, "code": "BAD_BET", "message": "bets is a list of bets"}
        if any(type(i.get("amount")) is not int or i["amount"] <= 0 for i in items):
            return {"ok": False, "code": "BAD_AMOUNT", "message": "amount is whole cents above 0"}
        late = "late-ack" in self.faults  # FAULT late-ack: answered after the close went out
        rnd = self.casino.rounds.get(str(data.get("round")))
        late = late and rnd is not None and rnd.result is None
        if late and rnd is not None:
            while self.state.current.get(rnd.table_id) == rnd.id:
                await asyncio.sleep(0.005)
            await asyncio.sleep(0.02)  # the close message is out
            late = rnd.result is None  # not yet settled: taken as if betting were still open
            if late:
                rnd.phase, rnd.ends_at = "betting", rnd.ends_at + 10**9
        slip = {"bets": [{"selection": str(i.get("selection")), "stake": fmt(i["amount"])}
                         for i in items]}  # fmt: skip
        request = _request("player", player, slip, round_id=str(data.get("round")))
        if key := data.get("key"):
            request.headers["idempotency-key"] = str(key)
        try:
            _, placed = self.casino.place_bets(request)
        except Refusal as refusal:
            return {"ok": False, "code": refusal.code, "message": refusal.message}
        finally:
            if late and rnd is not None:
                rnd.phase, rnd.ends_at = "closed", rnd.ends_at - 10**9
        self.state.dealt.discard(str(data.get("round")))  # a bet taken: it waits for the lab
        return {
            "ok": True,
            "bets": [
                {"id": b["bet_id"], "selection": b["selection"], "amount": parse_cents(b["stake"])}
                for b in placed["bets"]
            ],
            "balance": self.casino.players[player].balance,
        }

    # -- the tables' timers ---------------------------------------------------------------------

    def start(self) -> None:
        for table in TABLES:
            self._tasks.append(asyncio.get_running_loop().create_task(self._keep_playing(table)))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _draw(self, table: str, round_id: str) -> list:
        self.state.drawn.add(round_id)
        forced = self.state.forced.pop(round_id, None) or self.state.forced.pop(table, None)
        if forced is not None:
            return forced
        if TABLES[table] == "sicbo":
            return [self.random.randint(1, 6) for _ in range(3)]
        return [self.random.choice("rw") for _ in range(4)]

    async def _emit(self, event: str, data: dict, to: str) -> None:
        await self.sio.emit(event, data, to=to, namespace=NAMESPACE)

    async def _keep_playing(self, table: str) -> None:
        """A table's timer; an error is printed, never a table that silently stops."""
        try:
            await self._play(table)
        except asyncio.CancelledError:
            raise
        except Exception:
            traceback.print_exc()
            raise

    async def _play(self, table: str) -> None:
        timing, game = self.timing, TABLES[table]
        while True:
            _, opened = self.casino.open_round(
                _request("dealer", body={"countdown_ms": timing.betting_ms}, table_id=table)
            )
            rid = opened["round_id"]
            if game == "xocdia":
                self.casino.event(_request("dealer", body={"type": "shake"}, round_id=rid))
            self.state.current[table] = self.state.unrevealed[table] = rid
            await self._emit("round:open", {"table": table, "round": rid,
                                            "bettingMs": timing.betting_ms}, table)  # fmt: skip
            await asyncio.sleep(timing.betting_ms / 1000)
            key = "dice" if game == "sicbo" else "tokens"
            early = "result-before-close" in self.faults  # FAULT result-before-close
            if early:
                outcome = self._draw(table, rid)
                await self._emit(
                    "round:result", {"table": table, "round": rid, key: outcome}, table
                )
            self.casino.close(_request("dealer", round_id=rid))
            self.state.current.pop(table, None)
            await self._emit("round:close", {"table": table, "round": rid}, table)
            await self._lab_outcome(table, rid)
            self.state.unrevealed.pop(table, None)
            self.state.dealt.discard(rid)
            if not early:
                outcome = self._draw(table, rid)  # drawn after the close, as a dealer shakes then
            self.casino.result(_request("dealer", body={key: outcome}, round_id=rid))
            silent = "result-never-pushed" in self.faults  # FAULT: settled, never shown
            if not early and not silent:
                await self._emit(
                    "round:result", {"table": table, "round": rid, key: outcome}, table
                )
            await self._settle(self.casino.rounds[rid])
            await asyncio.sleep(timing.pause_ms / 1000)

    async def _lab_outcome(self, table: str, round_id: str) -> None:
        """The dealer reveals the result a moment after the close; a round with bets waits, up
        to settle-ms after its close, for the lab to force its outcome (a studio in
        certification mode) or to say it forces none (`/api/test/deal`), one without bets
        does not."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timing.settle_ms / 1000
        await asyncio.sleep(0.05)
        if not self.casino.rounds[round_id].bets:
            return
        forced, dealt = self.state.forced, self.state.dealt
        while round_id not in forced and table not in forced and round_id not in dealt:
            if loop.time() >= deadline:
                break
            await asyncio.sleep(0.005)

    async def _settle(self, rnd: Round) -> None:
        """Each bet's settlement and the wallet pushed to its player's connections."""
        for bet in rnd.bets:
            player = self.casino.players[bet.player_id]
            if "disconnected-settlement-lost" in self.faults and not player.connected:
                player.balance -= bet.returned or 0  # FAULT disconnected-settlement-lost
                continue
            shown = bet.returned or 0
            if "settlement-pays-wrong" in self.faults and bet.outcome == "win":
                shown += 1  # FAULT settlement-pays-wrong: the message, not the wallet
            message = {"round": rnd.id, "bet": bet.id, "selection": bet.selection,
                       "amount": bet.stake, "outcome": bet.outcome, "returned": shown}  # fmt: skip
            for sid, pid in list(self.state.sids.items()):
                if pid == player.id:
                    await self._emit("bet:settled", message, sid)
                    await self._emit("wallet", {"balance": player.balance}, sid)

    # -- the HTTP side --------------------------------------------------------------------------

    def http(self) -> Starlette:
        async def accounts(request: HttpRequest) -> JSONResponse:
            if request.headers.get("x-admin-token") != self.operator_token:
                return JSONResponse({"error": "admin token required"}, status_code=401)
            body = await request.json()
            cents = body.get("balance") if isinstance(body, dict) else None
            if type(cents) is not int or cents < 0:
                return JSONResponse({"error": "balance is whole cents, 0 or more"}, 422)
            status, made = self.casino.create_player(
                _request("operator", body={"balance": fmt(cents)})
            )
            return JSONResponse({"player": made["player_id"], "token": made["token"]}, status)

        async def wallet(request: HttpRequest) -> JSONResponse:
            role, player = self.casino.identify(request.headers.get("authorization"))
            if role != "player" or player is None:
                return JSONResponse({"error": "a player's token is required"}, status_code=401)
            return JSONResponse({"balance": self.casino.players[player].balance})

        async def history(request: HttpRequest) -> JSONResponse:
            """The player's bet record (of one round with `?round=`), as the engine keeps it:
            amounts there are decimal text."""
            role, player = self.casino.identify(request.headers.get("authorization"))
            if role != "player" or player is None:
                return JSONResponse({"error": "a player's token is required"}, status_code=401)
            asked = Request("player", player, {}, {}, {}, b"")
            if "round" in request.query_params:
                asked.query["round_id"] = request.query_params["round"]
            _, record = self.casino.record(asked)
            return JSONResponse(record)

        async def force(request: HttpRequest) -> JSONResponse:
            if request.headers.get("x-admin-token") != self.operator_token:
                return JSONResponse({"error": "admin token required"}, status_code=401)
            body = await request.json()
            table, outcome = body.get("table"), body.get("dice") or body.get("tokens")
            key = table
            if body.get("round") is not None:  # that round's outcome, while it is not drawn
                key = str(body["round"])
                rnd = self.casino.rounds.get(key)
                if rnd is None:
                    return JSONResponse({"error": f"no round {key}"}, status_code=404)
                if key in self.state.drawn:
                    return JSONResponse({"error": f"round {key} is drawn"}, status_code=409)
                table = rnd.table_id
            if table not in TABLES or not _possible(TABLES[table], outcome):
                return JSONResponse({"error": "{table | round, dice | tokens}"}, 422)
            self.state.forced[key] = outcome
            return JSONResponse({"table": table, "round": body.get("round"), "next": outcome})

        async def deal(request: HttpRequest) -> JSONResponse:
            """A test hook: the lab forces no outcome for the table's round not yet revealed,
            so its dealer reveals at once after the close, unless a bet is taken on it after
            this (a player who met the round as it opened); the next round waits again. A lab
            that asks for the next round while one it bet on is still unrevealed has that one
            revealed without its outcome: the harness asks once a scenario is over."""
            if request.headers.get("x-admin-token") != self.operator_token:
                return JSONResponse({"error": "admin token required"}, status_code=401)
            table = (await request.json()).get("table")
            if table not in TABLES:
                return JSONResponse({"error": "{table}"}, status_code=422)
            unrevealed = self.state.unrevealed.get(table)
            if unrevealed is not None:
                self.state.dealt.add(unrevealed)
            return JSONResponse({"table": table, "dealt": unrevealed})

        async def drop(request: HttpRequest) -> JSONResponse:
            """A test hook: the server drops every connection of a player (a network cut)."""
            if request.headers.get("x-admin-token") != self.operator_token:
                return JSONResponse({"error": "admin token required"}, status_code=401)
            player = (await request.json()).get("player")
            sids = [sid for sid, pid in self.state.sids.items() if pid == player]
            for sid in sids:
                await self.sio.disconnect(sid, namespace=NAMESPACE)
            return JSONResponse({"player": player, "dropped": len(sids)})

        async def tables(_: HttpRequest) -> JSONResponse:
            return JSONResponse([{"table": t, "game": g} for t, g in TABLES.items()])

        return Starlette(
            routes=[
                Route("/api/accounts", accounts, methods=["POST"]),
                Route("/api/wallet", wallet, methods=["GET"]),
                Route("/api/history", history, methods=["GET"]),
                Route("/api/test/next-outcome", force, methods=["POST"]),
                Route("/api/test/drop", drop, methods=["POST"]),
                Route("/api/test/deal", deal, methods=["POST"]),
                Route("/api/tables", tables, methods=["GET"]),
            ],
            lifespan=self._lifespan,
        )

    @contextlib.asynccontextmanager
    async def _lifespan(self, _: Starlette) -> AsyncIterator[None]:
        self.start()
        try:
            yield
        finally:
            await self.stop()

    def asgi(self) -> socketio.ASGIApp:
        return socketio.ASGIApp(self.sio, other_asgi_app=self.http())

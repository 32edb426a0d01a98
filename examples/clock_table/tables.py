"""The clock table's two tables on the example engine (second_server), each played on its own
timer: open, about a second of betting, close, the result, the settlements, the next round.
`web.py` puts them on HTTP and a plain WebSocket; the faults are listed in `app.py`.
"""

import asyncio
import json
import random
import secrets
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from examples.second_server.casino import Casino, Refusal, Request
from examples.second_server.entities import Round
from examples.second_server.money import fmt, parse_cents

TABLES = {"sicbo-1": "sicbo", "xocdia-1": "xocdia"}
MIN_BET, MAX_BET = 100, 500_000  # the declared table limits, in cents: 1.00 to 5,000.00
FAULTS = (
    "result-before-close",
    "double-settle-on-rejoin",
    "late-ack",
    "disconnected-bet-never-settled",
    "refund-push-misreported",
)
Send = Callable[[dict], Awaitable[None]]


@dataclass
class Timing:
    betting_ms: int = 1000  # how long a round takes bets
    settle_ms: int = 1000  # a round with bets waits this long after its close for an outcome
    pause_ms: int = 50  # from one round's settlements to the next round
    early_ms: int = 100  # result-before-close: betting still open after the result was shown


@dataclass
class Socket:
    """One WebSocket connection: its player (None: a spectator) and the table it joined."""

    send: Send
    player: str | None
    table: str | None = None
    close: Callable[[], Awaitable[None]] | None = None  # the server's own drop of it


@dataclass
class Clock:
    """What the timers and the sockets share beside the engine."""

    sockets: list[Socket] = field(default_factory=list)
    forced: dict[str, list] = field(default_factory=dict)  # table, or round -> its outcome
    drawn: set[str] = field(default_factory=set)  # rounds whose outcome is drawn
    current: dict[str, str] = field(default_factory=dict)  # table -> the round taking bets
    unrevealed: dict[str, str] = field(default_factory=dict)  # table -> round not yet revealed
    dealt: set[str] = field(default_factory=set)  # rounds the lab lets the dealer reveal
    left: set[tuple[str, str]] = field(default_factory=set)  # (player, round) left mid-round
    rejoined: set[tuple[str, str]] = field(default_factory=set)  # (player, round) back in it


def request(role: str | None, player: str | None = None, body: Any = None, **params: str):
    raw = b"" if body is None else json.dumps(body).encode("utf-8")
    return Request(role, player, params, {}, {"content-type": "application/json"}, raw)


def possible(game: str, outcome: object) -> bool:
    """An outcome the table can show: three dice 1-6, or four tokens r/w."""
    if game == "sicbo":
        return (
            isinstance(outcome, list)
            and len(outcome) == 3
            and all(type(d) is int and 1 <= d <= 6 for d in outcome)
        )
    return isinstance(outcome, list) and len(outcome) == 4 and all(t in ("r", "w") for t in outcome)


def refusal(code: str, message: str) -> dict:
    return {"type": "bet_ack", "ok": False, "code": code, "message": message}


class ClockTables:
    """The engine, its lent accounts, and the two tables' timers pushing to the sockets."""

    def __init__(
        self,
        admin_token: str,
        accounts: dict[str, str],
        balance_cents: list[int],
        timing: Timing,
        faults: frozenset[str],
        seed: int | None = None,
        no_ack: bool = False,
    ) -> None:
        self.casino = Casino(admin_token, secrets.token_urlsafe(16))
        self.admin_token, self.timing, self.faults, self.no_ack = (
            admin_token,
            timing,
            faults,
            no_ack,
        )
        self.random = random.Random(seed)
        self.clock = Clock()
        self.passwords = dict(accounts)
        self.player_of: dict[str, str] = {}  # user -> player id
        for index, user in enumerate(accounts):  # the balances given, in turn
            held = balance_cents[index % len(balance_cents)]
            _, made = self.casino.create_player(
                request("operator", body={"balance": fmt(held), "name": user})
            )
            self.player_of[user] = made["player_id"]
        for table, game in TABLES.items():
            _, made = self.casino.create_table(request("operator", body={"game": game}))
            self.casino.tables[table] = self.casino.tables.pop(made["table_id"])
            self.casino.tables[table].id = table
        self._tasks: list[asyncio.Task] = []

    # -- accounts -------------------------------------------------------------------------------

    def login(self, user: object, password: object) -> tuple[str, str] | None:
        """(player id, token) of a lent account, or None for wrong credentials."""
        if not isinstance(user, str) or self.passwords.get(user) != password:
            return None
        player = self.casino.players[self.player_of[user]]
        return player.id, player.token

    def player(self, token: str | None) -> str | None:
        role, player = self.casino.identify(f"Bearer {token}" if token else None)
        return player if role == "player" else None

    # -- the sockets ----------------------------------------------------------------------------

    def connected(self, player: str) -> bool:
        return any(s.player == player for s in self.clock.sockets)

    def join(self, socket: Socket, table: object) -> dict:
        if table not in TABLES:
            return {"type": "error", "code": "NO_TABLE", "message": f"no table {table!r}"}
        socket.table = str(table)
        for player, round_id in list(self.clock.left):
            if player == socket.player and round_id in self.clock.unrevealed.values():
                self.clock.rejoined.add((player, round_id))  # back in a round it bet on
        return {"type": "joined", "table": table, "game": TABLES[socket.table],
                "round": self.clock.current.get(socket.table)}  # fmt: skip

    def gone(self, socket: Socket) -> None:
        """A socket closed: its player, if it holds a bet in a round not yet revealed, left
        that round (and may join again before it settles)."""
        self.clock.sockets.remove(socket)
        for round_id in self.clock.unrevealed.values():
            rnd = self.casino.rounds[round_id]
            if socket.player and any(b.player_id == socket.player for b in rnd.bets):
                self.clock.left.add((socket.player, round_id))

    async def _to_table(self, table: str, message: dict) -> None:
        for socket in [s for s in self.clock.sockets if s.table == table]:
            await _quietly(socket.send, message)

    async def _to_player(self, player: str, message: dict) -> None:
        for socket in [s for s in self.clock.sockets if s.player == player]:
            await _quietly(socket.send, message)

    # -- bets -----------------------------------------------------------------------------------

    async def bet(self, player: str | None, data: object) -> dict:
        """One bet {round, selection, amount}: the one-object acknowledgement, with the
        player's wallet (and, without acknowledgements, the bets list) pushed after it."""
        if player is None:
            return refusal("NOT_PLAYER", "bets are taken from a player's connection")
        if not isinstance(data, dict):
            return refusal("BAD_BET", "a bet is {round, selection, amount}")
        cents = parse_cents(data.get("amount"))
        if not cents:
            return refusal("BAD_AMOUNT", 'amount is a decimal string above 0, like "10.00"')
        if not MIN_BET <= cents <= MAX_BET:
            return refusal("LIMIT", f"a bet is {fmt(MIN_BET)} to {fmt(MAX_BET)} at this table")
        round_id = str(data.get("round"))
        rnd = self.casino.rounds.get(round_id)
        late = "late-ack" in self.faults and rnd is not None and rnd.result is None
        if late and rnd is not None:  # FAULT late-ack: taken after the close went out
            while self.clock.current.get(rnd.table_id) == rnd.id:
                await asyncio.sleep(0.005)
            await asyncio.sleep(0.02)
            late = rnd.result is None
            if late:
                rnd.phase, rnd.ends_at = "betting", rnd.ends_at + 10**9
        slip = {"bets": [{"selection": str(data.get("selection")), "stake": fmt(cents)}]}
        try:
            _, placed = self.casino.place_bets(request("player", player, slip, round_id=round_id))
        except Refusal as refused:
            return refusal(refused.code, refused.message)
        finally:
            if late and rnd is not None:
                rnd.phase, rnd.ends_at = "closed", rnd.ends_at - 10**9
        self.clock.dealt.discard(round_id)  # a bet taken: its round waits for the lab
        [taken] = placed["bets"]
        shown = {"id": taken["bet_id"], "selection": taken["selection"], "amount": taken["stake"]}
        return {"type": "bet_ack", "ok": True, "bet": shown}

    async def after_bet(self, player: str, data: object, ack: dict) -> None:
        """What is pushed after a bet is taken: the player's bets on the round (a table that
        does not acknowledge bets) and the wallet."""
        if not ack.get("ok"):
            return
        if self.no_ack and isinstance(data, dict):
            rnd = self.casino.rounds[str(data.get("round"))]
            mine = [{"id": b.id, "selection": b.selection, "amount": fmt(b.stake)}
                    for b in rnd.bets if b.player_id == player]  # fmt: skip
            await self._to_player(player, {"type": "bets", "round": rnd.id, "bets": mine})
        await self._wallet(player)

    async def _wallet(self, player: str) -> None:
        balance = fmt(self.casino.players[player].balance)
        await self._to_player(player, {"type": "wallet", "balance": balance})

    # -- the timers -----------------------------------------------------------------------------

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks += [loop.create_task(self._keep_playing(table)) for table in TABLES]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _keep_playing(self, table: str) -> None:
        """A table's timer; an error is printed, never a table that silently stops."""
        try:
            while True:
                await self._play(table)
        except asyncio.CancelledError:
            raise
        except Exception:
            traceback.print_exc()
            raise

    def _draw(self, table: str, round_id: str) -> list:
        self.clock.drawn.add(round_id)
        forced = self.clock.forced.pop(round_id, None) or self.clock.forced.pop(table, None)
        if forced is not None:
            return forced
        if TABLES[table] == "sicbo":
            return [self.random.randint(1, 6) for _ in range(3)]
        return [self.random.choice("rw") for _ in range(4)]

    async def _play(self, table: str) -> None:
        """One round: open, betting, close, the outcome, the result, the settlements."""
        timing, game, clock = self.timing, TABLES[table], self.clock
        _, opened = self.casino.open_round(
            request("dealer", body={"countdown_ms": timing.betting_ms + 10_000}, table_id=table)
        )
        rid = opened["round_id"]
        if game == "xocdia":
            self.casino.event(request("dealer", body={"type": "shake"}, round_id=rid))
        clock.current[table] = clock.unrevealed[table] = rid
        await self._to_table(table, {"type": "round_open", "table": table, "round": rid,
                                     "betting_ms": timing.betting_ms})  # fmt: skip
        await asyncio.sleep(timing.betting_ms / 1000)
        key = "dice" if game == "sicbo" else "tokens"
        early = "result-before-close" in self.faults  # FAULT result-before-close
        if early:  # shown while bets are still taken, on the shown result too
            outcome = self._draw(table, rid)
            await self._to_table(table, {"type": "round_result", "table": table, "round": rid,
                                         key: outcome})  # fmt: skip
            await asyncio.sleep(timing.early_ms / 1000)
        self.casino.close(request("dealer", round_id=rid))
        clock.current.pop(table, None)
        await self._to_table(table, {"type": "round_close", "table": table, "round": rid})
        await self._lab_outcome(table, rid)
        clock.unrevealed.pop(table, None)
        clock.dealt.discard(rid)
        if not early:
            outcome = self._draw(table, rid)
        self.casino.result(request("dealer", body={key: outcome}, round_id=rid))
        if not early:
            await self._to_table(table, {"type": "round_result", "table": table, "round": rid,
                                         key: outcome})  # fmt: skip
        await self._settle(self.casino.rounds[rid])
        await asyncio.sleep(timing.pause_ms / 1000)

    async def _lab_outcome(self, table: str, round_id: str) -> None:
        """A round with bets waits, up to settle-ms after its close, for the lab to force its
        outcome or to say it forces none (the deal hook); one without bets does not."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timing.settle_ms / 1000
        await asyncio.sleep(0.05)
        if not self.casino.rounds[round_id].bets:
            return
        forced, dealt = self.clock.forced, self.clock.dealt
        while round_id not in forced and table not in forced and round_id not in dealt:
            if loop.time() >= deadline:
                return
            await asyncio.sleep(0.005)

    async def _settle(self, rnd: Round) -> None:
        """Each bet's settlement pushed to its player's connections, then the wallet."""
        players: list[str] = []
        for bet in rnd.bets:
            player = self.casino.players[bet.player_id]
            returned = bet.returned or 0
            if "disconnected-bet-never-settled" in self.faults and not self.connected(player.id):
                player.balance -= returned  # FAULT disconnected-bet-never-settled
                continue
            outcome, shown = bet.outcome, returned
            if "refund-push-misreported" in self.faults and bet.outcome == "refund":
                outcome, shown = "win", returned + 1  # FAULT: the push, not the wallet
            message = {"type": "bet_settled", "round": rnd.id, "bet": bet.id,
                       "selection": bet.selection, "amount": fmt(bet.stake),
                       "outcome": outcome, "returned": fmt(shown)}  # fmt: skip
            await self._to_player(player.id, message)
            if "double-settle-on-rejoin" in self.faults and (player.id, rnd.id) in (
                self.clock.rejoined
            ):
                player.balance += returned  # FAULT double-settle-on-rejoin: credited again
                await self._to_player(player.id, message)
            if player.id not in players:
                players.append(player.id)
        for player_id in players:
            await self._wallet(player_id)


async def _quietly(send: Send, message: dict) -> None:
    """A push to a socket closing meanwhile is lost, as on any table."""
    try:
        await send(message)
    except Exception:  # a closed socket: its reader forgets it
        return

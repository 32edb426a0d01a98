"""The table service: players, tables, rounds and bets in memory, one handler per operation.

Each handler receives a Request (already authenticated, body not yet parsed) and answers
(status, json). A refusal is raised as Refusal before anything changes: every handler checks
credentials, role, body shape, idempotency, the entity, selections and stakes, the round's state
and the balance, in that order, and only then mutates.
"""

import hmac
import json
import secrets
from typing import Any

from .entities import Bet, Player, Recall, Round, Table, now_ms, stamp
from .money import MINOR_UNIT, ROUNDING, fmt, parse_cents, win_cents
from .paytable import TABLE, max_rtp_percent, settle
from .request import Refusal, Request, invalid, not_found, state_refusal

INSTANCE = secrets.token_hex(8)  # this server process (its rounds live only as long)

GAMES = ("sicbo", "xocdia")
RESHAKE_REASONS = {
    "sicbo": ("dice-overlap", "die-not-flat", "too-few-tumbles"),
    "xocdia": ("items-fell", "standing-token"),
}
EVENT_TYPES = {
    "sicbo": ("shake", "rearrange"),
    "xocdia": ("shake", "rearrange", "bowl-touched-token"),
}
FINISHED = ("settled", "cancelled", "void")
DEFAULT_COUNTDOWN_MS = 15_000
MAX_COUNTDOWN_MS = 600_000
MAX_SLIP = 200
STATS_SIZE = 50


class Casino:
    def __init__(self, operator_token: str, dealer_token: str) -> None:
        self.operator_token, self.dealer_token = operator_token, dealer_token
        self.players: dict[str, Player] = {}
        self.by_token: dict[str, str] = {}
        self.tables: dict[str, Table] = {}
        self.rounds: dict[str, Round] = {}
        self.bets: dict[str, Bet] = {}
        self.recalls: dict[str, dict[str, Recall]] = {}  # player -> round -> entry
        self.replays: dict[tuple[str, str], tuple[str, dict]] = {}
        self.seq = 0

    # -- identities -------------------------------------------------------------------------

    def identify(self, authorization: str | None) -> tuple[str | None, str | None]:
        if not authorization or not authorization.startswith("Bearer "):
            return None, None
        token = authorization[len("Bearer ") :].strip()
        if not token:
            return None, None
        if hmac.compare_digest(token, self.operator_token):
            return "operator", None
        if hmac.compare_digest(token, self.dealer_token):
            return "dealer", None
        pid = self.by_token.get(token)
        return ("player", pid) if pid else (None, None)

    @staticmethod
    def allow(req: Request, *roles: str) -> None:
        if req.role is None:
            raise Refusal(401, "UNAUTHORIZED", "a valid bearer token is required")
        if roles and req.role not in roles:
            raise Refusal(403, "FORBIDDEN", f"the {req.role} may not do this")

    def _next(self, prefix: str) -> tuple[str, int]:
        self.seq += 1
        return f"{prefix}{self.seq:06d}{secrets.token_hex(3)}", self.seq

    def _round(self, rid: str) -> Round:
        found = self.rounds.get(rid)
        if found is None:
            raise not_found(f"no round {rid!r}")
        return found

    def _table(self, tid: str) -> Table:
        found = self.tables.get(tid)
        if found is None:
            raise not_found(f"no table {tid!r}")
        return found

    @staticmethod
    def _reason(body: dict) -> str:
        reason = body.get("reason")
        if not isinstance(reason, str) or not reason:
            raise invalid("`reason` must be a non-empty string")
        return reason

    # -- views ------------------------------------------------------------------------------

    def round_view(self, rnd: Round, req: Request, now: int) -> dict:
        mine = req.player_id if req.role == "player" else None
        return {
            "round_id": rnd.id,
            "table_id": rnd.table_id,
            "game": rnd.game,
            "state": rnd.state(now),
            "paused_from": rnd.paused_from,
            "opened_at": stamp(rnd.opened_at),
            "betting_ends_at": stamp(rnd.ends_at),
            "result": rnd.result,
            "reason": rnd.reason,
            "events": list(rnd.events),
            "bets": [b.view() for b in rnd.bets if mine is None or b.player_id == mine],
        }

    def player_view(self, player: Player) -> dict:
        return {
            "player_id": player.id,
            "name": player.name,
            "balance": fmt(player.balance),
            "connected": player.connected,
        }

    # -- info and operator ------------------------------------------------------------------

    def info(self, req: Request) -> tuple[int, Any]:
        return 200, {
            "implementation": {"name": "second-server", "version": "0.1.0", "vendor": "example"},
            "contract_version": "1.1.0",
            "instance": INSTANCE,  # new each start: a restart is seen by it
            "games": list(GAMES),
            "currency": "EUR",
            "minor_unit": MINOR_UNIT,
            "rounding": ROUNDING,
            "max_rtp": {game: max_rtp_percent(game) for game in GAMES},
            "capabilities": [
                "idempotency",
                "batch-bets",
                "pause",
                "statistics",
                "disconnect",
                "reshake",
            ],
            "countdown_ms": {"min": 0, "max": MAX_COUNTDOWN_MS},
        }

    def whoami(self, req: Request) -> tuple[int, Any]:
        self.allow(req)
        return 200, {"role": req.role, "player_id": req.player_id}

    def create_player(self, req: Request) -> tuple[int, Any]:
        self.allow(req, "operator")
        body = req.json()
        balance = parse_cents(body.get("balance"))
        if balance is None:
            raise invalid("`balance` must be an amount like '100.00'")
        name = body.get("name")
        if name is not None and not isinstance(name, str):
            raise invalid("`name` must be a string")
        pid, _ = self._next("pl-")
        token = secrets.token_urlsafe(24)
        player = Player(pid, token, balance, name)
        self.players[pid], self.by_token[token] = player, pid
        self.recalls[pid] = {}
        return 201, {**self.player_view(player), "token": token}

    def create_table(self, req: Request) -> tuple[int, Any]:
        self.allow(req, "operator")
        body = req.json()
        game, name = body.get("game"), body.get("name")
        if not isinstance(game, str):
            raise invalid("`game` must be a string")
        if name is not None and not isinstance(name, str):
            raise invalid("`name` must be a string")
        if game not in GAMES:
            raise Refusal(422, "GAME_NOT_OFFERED", f"this server does not offer {game!r}")
        tid, _ = self._next("tb-")
        self.tables[tid] = Table(tid, game, name)
        return 201, {"table_id": tid, "game": game, "name": name}

    def statistics(self, req: Request) -> tuple[int, Any]:
        self.allow(req)
        table = self._table(req.params["table_id"])
        newest = list(reversed(table.chart[-STATS_SIZE:]))
        return 200, {"table_id": table.id, "game": table.game, "results": newest}

    # -- dealer -----------------------------------------------------------------------------

    def open_round(self, req: Request) -> tuple[int, Any]:
        self.allow(req, "dealer")
        body = req.json(required=False)
        countdown = body.get("countdown_ms", DEFAULT_COUNTDOWN_MS)
        if type(countdown) is not int or not 0 <= countdown <= MAX_COUNTDOWN_MS:
            raise invalid(f"`countdown_ms` must be an integer from 0 to {MAX_COUNTDOWN_MS}")
        table = self._table(req.params["table_id"])
        now = now_ms()
        if table.current is not None and self.rounds[table.current].state(now) not in FINISHED:
            raise state_refusal(f"round {table.current} on this table is not finished")
        rid, _ = self._next("rd-")
        rnd = Round(rid, table.id, table.game, now, now + countdown)
        self.rounds[rid], table.current = rnd, rid
        return 201, self.round_view(rnd, req, now)

    def get_round(self, req: Request) -> tuple[int, Any]:
        self.allow(req)
        rnd = self._round(req.params["round_id"])
        return 200, self.round_view(rnd, req, now_ms())

    def _live(self, rid: str, doing: str) -> tuple[Round, str, int]:
        rnd, now = self._round(rid), now_ms()
        state = rnd.state(now)
        if state in FINISHED:
            raise state_refusal(f"round {rid} is {state}; it cannot be {doing}")
        return rnd, state, now

    def close(self, req: Request) -> tuple[int, Any]:
        self.allow(req, "dealer")
        req.json(required=False)
        rnd, state, now = self._live(req.params["round_id"], "closed")
        if state == "paused":
            raise state_refusal("the round is paused")
        if state == "betting":
            rnd.phase, rnd.ends_at = "closed", now
            rnd.log("close", now)
        return 200, self.round_view(rnd, req, now)

    def reshake(self, req: Request) -> tuple[int, Any]:
        self.allow(req, "dealer")
        reason = self._reason(req.json())
        rnd = self._round(req.params["round_id"])
        if reason not in RESHAKE_REASONS[rnd.game]:
            raise invalid(f"{reason!r} is not a {rnd.game} re-shake reason")
        rnd, state, now = self._live(rnd.id, "re-shaken")
        # Sic Bo shakes once betting ends (SB-RND-03); Xoc Dia shakes during betting (XD-RND-01),
        # so its re-shakes may come then too (docs/contract.md, "Re-shakes while betting is open")
        allowed = ("betting", "closed") if rnd.game == "xocdia" else ("closed",)
        if state not in allowed:
            raise state_refusal(f"a {rnd.game} re-shake cannot be recorded; the round is {state}")
        rnd.log("reshake", now, reason)
        return 200, self.round_view(rnd, req, now)

    def event(self, req: Request) -> tuple[int, Any]:
        self.allow(req, "dealer")
        kind = req.json().get("type")
        if not isinstance(kind, str):
            raise invalid("`type` must be a string")
        rnd = self._round(req.params["round_id"])
        if kind not in EVENT_TYPES[rnd.game]:
            raise invalid(f"{kind!r} is not a {rnd.game} dealer event")
        rnd, state, now = self._live(rnd.id, "changed")
        if kind == "shake" and rnd.game == "xocdia":
            if state != "betting":
                raise state_refusal("the bowl is shaken during betting only")
            rnd.shaken = True
        elif kind == "shake":  # Sic Bo: the dealer shakes when betting ends (SB-RND-03)
            if state not in ("betting", "closed"):
                raise state_refusal(f"the round is {state}")
        elif kind == "rearrange":
            if state != "closed":
                raise state_refusal("tokens are rearranged after betting ends only")
        elif state not in ("betting", "closed"):
            raise state_refusal(f"the round is {state}")
        rnd.log(kind, now)
        if kind == "bowl-touched-token":
            self._refund(rnd, "cancelled", "the bowl touched a token (XD-VOID-02)", now)
        return 200, self.round_view(rnd, req, now)

    def pause(self, req: Request) -> tuple[int, Any]:
        self.allow(req, "dealer")
        reason = self._reason(req.json())
        rnd, state, now = self._live(req.params["round_id"], "paused")
        if state == "paused":
            raise state_refusal("the round is already paused")
        if state == "betting":
            rnd.left_ms = rnd.ends_at - now
        rnd.phase, rnd.paused_from = "paused", state
        rnd.log("pause", now, reason)
        return 200, self.round_view(rnd, req, now)

    def resume(self, req: Request) -> tuple[int, Any]:
        self.allow(req, "dealer")
        req.json(required=False)
        rnd, state, now = self._live(req.params["round_id"], "resumed")
        if state != "paused":
            raise state_refusal(f"the round is {state}, not paused")
        back = rnd.paused_from or "closed"
        if back == "betting":
            rnd.ends_at = now + rnd.left_ms
        rnd.phase, rnd.paused_from = back, None
        rnd.log("resume", now)
        return 200, self.round_view(rnd, req, now)

    def cancel(self, req: Request) -> tuple[int, Any]:
        return self._end(req, "cancelled", "cancel")

    def void(self, req: Request) -> tuple[int, Any]:
        return self._end(req, "void", "void")

    def _end(self, req: Request, state: str, kind: str) -> tuple[int, Any]:
        self.allow(req, "dealer")
        reason = self._reason(req.json())
        rnd, _, now = self._live(req.params["round_id"], state)
        rnd.log(kind, now, reason)
        self._refund(rnd, state, reason, now)
        return 200, self.round_view(rnd, req, now)

    def result(self, req: Request) -> tuple[int, Any]:
        self.allow(req, "dealer")
        body = req.json()
        if len(body) != 1 or not isinstance(next(iter(body.values())), list):
            raise invalid("the result is {'dice': [a, b, c]} or {'tokens': [...4...]}")
        rnd = self._round(req.params["round_id"])
        key = "dice" if rnd.game == "sicbo" else "tokens"
        if key not in body:
            raise invalid(f"a {rnd.game} result is entered as {key!r}")
        values = body[key]
        if rnd.game == "sicbo":
            if len(values) != 3 or any(type(d) is not int or not 1 <= d <= 6 for d in values):
                raise Refusal(422, "INVALID_RESULT", "three dice, each an integer from 1 to 6")
            outcome: tuple = tuple(values)
            shown = {"dice": list(outcome), "total": sum(outcome)}
        else:
            if len(values) != 4 or any(t not in ("r", "w") for t in values):
                raise Refusal(422, "INVALID_RESULT", "four tokens, each 'r' or 'w'")
            outcome = tuple(values)
            red = outcome.count("r")
            shown = {"tokens": list(outcome), "red": red, "white": 4 - red}
        rnd, state, now = self._live(rnd.id, "given a result")
        if state == "paused":
            raise state_refusal("a paused round takes no result")
        if rnd.game == "sicbo" and state == "betting":
            raise state_refusal("the dice are entered after betting ends")
        rnd.result = shown
        rnd.log("result", now)
        if rnd.game == "xocdia" and state == "betting":
            self._refund(rnd, "void", "the bowl was lifted before betting ended (XD-VOID-01)", now)
        elif rnd.game == "xocdia" and not rnd.shaken:
            self._refund(rnd, "void", "the bowl was not shaken in this round (XD-VOID-01)", now)
        else:
            self._settle(rnd, outcome, now)
        return 200, self.round_view(rnd, req, now)

    # -- settling and refunding -------------------------------------------------------------

    def _settle(self, rnd: Round, outcome: tuple, now: int) -> None:
        for bet in rnd.bets:
            verdict, num, den = settle(rnd.game, bet.selection, outcome)
            win = win_cents(bet.stake, num, den) if verdict == "win" else 0
            back = {"win": bet.stake + win, "refund": bet.stake, "lose": 0}[verdict]
            bet.status, bet.outcome, bet.win, bet.returned = "settled", verdict, win, back
            bet.settled_at = now
        self._finish(rnd, "settled", now)
        self.tables[rnd.table_id].chart.append(
            {"round_id": rnd.id, "settled_at": stamp(now), "result": rnd.result}
        )

    def _refund(self, rnd: Round, state: str, reason: str, now: int) -> None:
        for bet in rnd.bets:
            bet.status, bet.outcome, bet.win, bet.returned = state, "refund", 0, bet.stake
            bet.settled_at = now
        rnd.reason = reason
        self._finish(rnd, state, now)

    def _finish(self, rnd: Round, state: str, now: int) -> None:
        rnd.phase, rnd.paused_from, rnd.finished_at = state, None, now
        credited: dict[str, int] = {}
        for bet in rnd.bets:
            credited[bet.player_id] = credited.get(bet.player_id, 0) + (bet.returned or 0)
        for pid, amount in credited.items():
            player = self.players[pid]
            player.balance += amount
            entry = self.recalls[pid][rnd.id]
            entry.returned, entry.balance_after = amount, player.balance
        table = self.tables[rnd.table_id]
        if table.current == rnd.id:
            table.current = None

    # -- players ----------------------------------------------------------------------------

    def place_bets(self, req: Request) -> tuple[int, Any]:
        self.allow(req, "player")
        body = req.json()
        slip = body.get("bets")
        if not isinstance(slip, list) or not 1 <= len(slip) <= MAX_SLIP:
            raise invalid(f"`bets` must be a list of 1 to {MAX_SLIP} bets")
        for item in slip:
            if not isinstance(item, dict):
                raise invalid("each bet is an object with `selection` and `stake`")
            if not isinstance(item.get("selection"), str) or not isinstance(item.get("stake"), str):
                raise invalid("`selection` and `stake` must be strings (stake like '10.00')")
        key = req.headers.get("idempotency-key")
        if key is not None and not 1 <= len(key) <= 128:
            raise invalid("the Idempotency-Key must be 1 to 128 characters")
        rid = req.params["round_id"]
        fingerprint = json.dumps(
            [rid, [[i["selection"], i["stake"]] for i in slip]], separators=(",", ":")
        )
        pid = req.player_id
        assert pid is not None
        if key is not None and (pid, key) in self.replays:
            first, answer = self.replays[(pid, key)]
            if first != fingerprint:
                raise Refusal(409, "IDEMPOTENCY_CONFLICT", "this key was used with another slip")
            return 200, answer
        rnd = self._round(rid)
        paytable = TABLE[rnd.game]
        stakes = []
        for item in slip:
            if item["selection"] not in paytable:
                raise Refusal(
                    422, "UNKNOWN_SELECTION", f"{item['selection']!r} is not a {rnd.game} bet"
                )
            cents = parse_cents(item["stake"])
            if not cents:
                raise Refusal(
                    422, "INVALID_STAKE", f"stake {item['stake']!r} is not a positive amount"
                )
            stakes.append(cents)
        now = now_ms()
        state = rnd.state(now)
        if state != "betting":
            raise state_refusal(f"the round is {state}; bets are taken only while betting")
        player = self.players[pid]
        total = sum(stakes)
        if total > player.balance:
            raise Refusal(
                409,
                "INSUFFICIENT_FUNDS",
                f"the slip stakes {fmt(total)} but the balance is {fmt(player.balance)}",
            )
        entry = self.recalls[pid].get(rnd.id)
        if entry is None:
            _, seq = self._next("")
            entry = self.recalls[pid][rnd.id] = Recall(seq, rnd.id, player.balance)
        placed = []
        for item, cents in zip(slip, stakes, strict=True):
            bid, seq = self._next("bt-")
            bet = Bet(bid, seq, rnd.id, rnd.table_id, pid, rnd.game, item["selection"], cents, now)
            rnd.bets.append(bet)
            self.bets[bid] = bet
            placed.append(bet)
        player.balance -= total
        entry.staked += total
        answer = {"bets": [b.view() for b in placed], "balance": fmt(player.balance)}
        if key is not None:
            self.replays[(pid, key)] = (fingerprint, answer)
        return 201, answer

    def withdraw(self, req: Request) -> tuple[int, Any]:
        self.allow(req, "player")
        bet = self.bets.get(req.params["bet_id"])
        if bet is None or bet.player_id != req.player_id:
            raise not_found(f"no bet {req.params['bet_id']!r}")
        raise Refusal(409, "BET_FINAL", "a placed bet cannot be withdrawn (SB-RND-04)")

    def me(self, req: Request) -> tuple[int, Any]:
        self.allow(req, "player")
        return 200, self.player_view(self.players[req.player_id])

    def connection(self, req: Request, online: bool) -> tuple[int, Any]:
        self.allow(req, "player")
        player = self.players[req.player_id]
        player.connected = online
        return 200, self.player_view(player)

    def connect(self, req: Request) -> tuple[int, Any]:
        return self.connection(req, True)

    def disconnect(self, req: Request) -> tuple[int, Any]:
        return self.connection(req, False)

    def record(self, req: Request) -> tuple[int, Any]:
        self.allow(req, "player")
        pid = req.player_id
        only = req.query.get("round_id")
        entries = sorted(
            (e for e in self.recalls[pid].values() if only is None or e.round_id == only),
            key=lambda e: e.seq,
            reverse=True,
        )
        now = now_ms()
        rounds, bets = [], []
        for entry in entries:
            rnd = self.rounds[entry.round_id]
            rounds.append(
                {
                    "round_id": rnd.id,
                    "table_id": rnd.table_id,
                    "game": rnd.game,
                    "state": rnd.state(now),
                    "opened_at": stamp(rnd.opened_at),
                    "finished_at": stamp(rnd.finished_at),
                    "result": rnd.result,
                    "staked": fmt(entry.staked),
                    "returned": None if entry.returned is None else fmt(entry.returned),
                    "balance_before": fmt(entry.balance_before),
                    "balance_after": None
                    if entry.balance_after is None
                    else fmt(entry.balance_after),
                }
            )
            bets += [b for b in rnd.bets if b.player_id == pid]
        bets.sort(key=lambda b: b.seq, reverse=True)
        return 200, {"player_id": pid, "bets": [b.view() for b in bets], "rounds": rounds}

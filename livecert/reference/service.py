"""The game server's behaviour, independent of HTTP: roles, the round's life, bets, settlement.

Each public method validates completely before it writes, and writes in one store transaction,
so a refusal (an ApiError) moves no money and creates nothing.
"""

from __future__ import annotations

import hmac
import json
import secrets
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from functools import lru_cache
from typing import Any

from livecert.reference import __version__
from livecert.reference.config import (
    CAPABILITIES,
    MAX_COUNTDOWN_MS,
    NO_LIMITS,
    TABLE_LIMITS,
    Config,
)
from livecert.reference.errors import (
    ApiError,
    forbidden,
    not_found,
    round_state,
    unauthorized,
    validation,
)
from livecert.reference.games import GAMES, KNOWN_GAMES
from livecert.reference.money import MoneyError, format_amount, parse_amount, round_minor
from livecert.reference.store import Row, Store

# this server process, new each start: /v1/info's `instance`, by which a restart is seen
INSTANCE = secrets.token_hex(8)

CONTRACT_VERSION = "1.1.0"
MAX_SLIP = 200
# the longest strings taken (the contract's maxLength): a name, a reason or note, a selection
MAX_NAME, MAX_TEXT, MAX_SELECTION, MAX_STAKE = 100, 500, 64, 32
STATISTICS_DEPTH = 50
FAULTY_STATISTICS_DEPTH = 30  # FAULT statistics-30-rounds
FINISHED = frozenset({"settled", "cancelled", "void"})
RESTARTED = "the server restarted"  # the reason of a round returned at start-up
XOCDIA = "xocdia"
EARLY_REVEAL = "the bowl was lifted before the betting period ended (XD-VOID-01)"
NO_SHAKE = "no shake was recorded (XD-VOID-01)"
BOWL_TOUCHED = "the bowl touched a token while it was lifted (XD-VOID-02)"
REARRANGED = "the tokens were rearranged (XD-RND-02)"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

Json = dict[str, Any]


@lru_cache(maxsize=8192)
def iso(ms: int | None) -> str | None:
    """Epoch milliseconds as ISO 8601 UTC with milliseconds: 2026-11-29T19:33:25.123Z.

    Cached: every bet of a slip shares its placed_at and every bet of a round its settled_at.
    """
    if ms is None:
        return None
    moment = _EPOCH + timedelta(milliseconds=ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


def _new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(8)}"


@dataclass(frozen=True)
class Identity:
    """Who a bearer token stands for."""

    role: str
    player_id: str | None = None


@lru_cache(maxsize=8192)
def _money(minor: int | None) -> str | None:
    """Minor units (or None while open) as a Money string; cached, stakes repeat a lot."""
    return None if minor is None else format_amount(minor)


def _bet_view(row: Row, *, hide_stake: bool = False) -> Json:
    return {
        "bet_id": row["id"],
        "round_id": row["round_id"],
        "table_id": row["table_id"],
        "player_id": row["player_id"],
        "game": row["game"],
        "selection": row["selection"],
        "stake": _money(0 if hide_stake else row["stake"]),
        "placed_at": iso(row["placed_at"]),
        "status": row["status"],
        "outcome": row["outcome"],
        "win": _money(row["win"]),
        "returned": _money(row["returned"]),
        "settled_at": iso(row["settled_at"]),
    }


def _player_view(row: Row) -> Json:
    return {
        "player_id": row["id"],
        "name": row["name"],
        "balance": format_amount(row["balance"]),
        "connected": bool(row["connected"]),
    }


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


class Service:
    """The reference game server; one instance per app, sharing one Store."""

    def __init__(self, config: Config, store: Store) -> None:
        self.config = config
        self.store = store
        self.faults = config.faults
        self.now = config.clock
        if "interrupted-round-lost" in self.faults:
            with store.transaction():
                store.delete_unfinished_rounds()  # FAULT interrupted-round-lost
        if "interrupted-bet-lost" in self.faults:
            with store.transaction():
                store.delete_last_unfinished_bets()  # FAULT interrupted-bet-lost
        if config.return_interrupted:  # the other compliant way: each stake returned at start
            with store.transaction():
                for rid in store.unfinished_round_ids():
                    self._finish_refunded(rid, "cancelled", RESTARTED, self.now())

    # -- identity ------------------------------------------------------------------------------
    def identify(self, token: str | None) -> Identity:
        """The role a bearer token stands for, or 401."""
        if not token:
            raise unauthorized()
        if hmac.compare_digest(token.encode(), self.config.operator_token.encode()):
            return Identity("operator")
        if hmac.compare_digest(token.encode(), self.config.dealer_token.encode()):
            return Identity("dealer")
        with self.store.reading():
            row = self.store.player_by_token(token)
        if row is None:
            raise unauthorized("the bearer token is not known")
        return Identity("player", row["id"])

    def require(self, ident: Identity, role: str) -> None:
        if role == "dealer" and ident.role == "player" and "player-can-deal" in self.faults:
            return  # FAULT player-can-deal
        if ident.role != role:
            raise forbidden(f"this action needs the {role} role; the token is a {ident.role}'s")

    # -- info ----------------------------------------------------------------------------------
    def info(self) -> Json:
        return {
            "implementation": {
                "name": "livecert-reference",
                "version": __version__,
                "vendor": "livecert",
            },
            "contract_version": CONTRACT_VERSION,
            "games": list(GAMES),
            "currency": self.config.currency,
            "minor_unit": 2,
            "rounding": self.config.rounding,
            "max_rtp": {name: game.max_rtp(self.faults) for name, game in GAMES.items()},
            "capabilities": [c for c in CAPABILITIES if c not in self.config.without],
            "countdown_ms": {"min": 0, "max": MAX_COUNTDOWN_MS},
            "instance": INSTANCE,
            **(
                {
                    "limits": {
                        g: {n: format_amount(v) for n, v in self.limits.items()} for g in GAMES
                    }
                }
                if self.limits
                else {}
            ),
        }

    @property
    def limits(self) -> dict[str, int]:
        """The table limits in minor units (REG-LIMIT-01), or none when told to keep none."""
        return {} if NO_LIMITS in self.config.without else TABLE_LIMITS

    @staticmethod
    def whoami(ident: Identity) -> Json:
        return {"role": ident.role, "player_id": ident.player_id}

    # -- operator ------------------------------------------------------------------------------
    def create_player(self, ident: Identity, body: Any) -> Json:
        self.require(ident, "operator")
        body = _object(body, "player")
        balance_text = body.get("balance")
        if not isinstance(balance_text, str):
            raise validation('`balance` is required: a decimal string such as "100.00"')
        try:
            balance = parse_amount(balance_text, allow_zero=True)
        except MoneyError as exc:
            raise validation(f"invalid balance: {exc}") from None
        name = _optional_string(body, "name", MAX_NAME)
        pid, token = _new_id("p"), secrets.token_urlsafe(24)
        with self.store.transaction():
            self.store.insert_player(pid, token, name, balance, self.now())
        return {
            "player_id": pid,
            "name": name,
            "balance": format_amount(balance),
            "connected": True,
            "token": token,
        }

    def create_table(self, ident: Identity, body: Any) -> Json:
        self.require(ident, "operator")
        body = _object(body, "table")
        game = body.get("game")
        if not isinstance(game, str) or game not in KNOWN_GAMES:
            raise validation(f"`game` must be one of {', '.join(KNOWN_GAMES)}")
        if game not in GAMES:
            raise ApiError(422, "GAME_NOT_OFFERED", f"this server does not offer {game}")
        name = _optional_string(body, "name", MAX_NAME)
        tid = _new_id("t")
        with self.store.transaction():
            self.store.insert_table(tid, game, name, self.now())
        return {"table_id": tid, "game": game, "name": name}

    # -- rounds: reading -----------------------------------------------------------------------
    @staticmethod
    def _state(row: Row, now: int) -> str:
        """The round's state now: a betting round whose countdown ran out is closed."""
        state = row["state"]
        if state == "betting" and now >= row["ends_at"]:
            return "closed"
        return state

    def _round(self, rid: str) -> Row:
        row = self.store.round(rid)
        if row is None:
            raise not_found(f"no round {rid!r}")
        return row

    def _round_view(self, rid: str, ident: Identity) -> Json:
        row = self._round(rid)
        game = GAMES[row["game"]]
        player_filter = ident.player_id if ident.role == "player" else None
        if "player-sees-others-bets" in self.faults:
            player_filter = None  # FAULT player-sees-others-bets
        bets = self.store.bets_of_round(rid, player_filter)
        events = []
        for event in self.store.events_of_round(rid):
            item: Json = {"type": event["type"], "reason": event["reason"], "at": iso(event["at"])}
            if event["note"] is not None:
                item["note"] = event["note"]
            events.append(item)
        result = None
        if row["result"] is not None:
            result = game.result_view(tuple(json.loads(row["result"])), self.faults)
        return {
            "round_id": row["id"],
            "table_id": row["table_id"],
            "game": row["game"],
            "state": self._state(row, self.now()),
            "paused_from": row["paused_from"],
            "opened_at": iso(row["opened_at"]),
            "betting_ends_at": iso(row["ends_at"]),
            "result": result,
            "reason": row["reason"],
            "events": events,
            "bets": [_bet_view(bet) for bet in bets],
        }

    def get_round(self, ident: Identity, rid: str) -> Json:
        with self.store.reading():
            return self._round_view(rid, ident)

    def statistics(self, ident: Identity, tid: str) -> Json:
        with self.store.reading():
            table = self.store.table(tid)
            if table is None:
                raise not_found(f"no table {tid!r}")
            game = GAMES[table["game"]]
            depth = STATISTICS_DEPTH
            if "statistics-30-rounds" in self.faults:
                depth = FAULTY_STATISTICS_DEPTH  # FAULT statistics-30-rounds
            if "statistics-includes-cancelled" in self.faults:
                # FAULT statistics-includes-cancelled: cancelled and void rounds take chart places
                finished = self.store.finished_rounds(tid, depth)
                rows = [row for row in finished if row["state"] == "settled"]
            else:
                rows = self.store.settled_rounds(tid, depth)
        if "statistics-oldest-first" in self.faults:
            rows = list(reversed(rows))  # FAULT statistics-oldest-first
        results = [
            {
                "round_id": row["id"],
                "settled_at": iso(row["settled_at"]),
                "result": game.result_view(tuple(json.loads(row["result"])), self.faults),
            }
            for row in rows
        ]
        return {"table_id": tid, "game": table["game"], "results": results}

    # -- rounds: dealer actions ----------------------------------------------------------------
    def open_round(self, ident: Identity, tid: str, body: Any) -> Json:
        self.require(ident, "dealer")
        body = _object(body, "round")
        countdown = body.get("countdown_ms", self.config.default_countdown_ms)
        if type(countdown) is not int or not 0 <= countdown <= MAX_COUNTDOWN_MS:
            raise validation(f"`countdown_ms` must be an integer from 0 to {MAX_COUNTDOWN_MS}")
        rid = _new_id("r")
        with self.store.transaction():
            table = self.store.table(tid)
            if table is None:
                raise not_found(f"no table {tid!r}")
            current = self.store.unfinished_round(tid)
            if current is not None:
                raise round_state(f"round {current['id']} on this table is not finished yet")
            now = self.now()
            self.store.insert_round(rid, tid, table["game"], now, now + countdown)
            return self._round_view(rid, ident)

    def _unfinished(self, rid: str, action: str) -> tuple[Row, str, int]:
        """Load a round for a dealer action; finished rounds refuse every action."""
        row = self._round(rid)
        now = self.now()
        state = self._state(row, now)
        if state in FINISHED:
            raise round_state(f"round {rid} is {state}; it cannot be {action}")
        return row, state, now

    def close(self, ident: Identity, rid: str) -> Json:
        self.require(ident, "dealer")
        with self.store.transaction():
            row, state, now = self._unfinished(rid, "closed")
            if state == "paused":
                raise round_state(f"round {rid} is paused; resume it first")
            if row["state"] == "betting":
                ends_at = min(now, row["ends_at"])
                self.store.update_round(rid, state="closed", ends_at=ends_at)
                if state == "betting":
                    self.store.insert_event(rid, "close", None, None, now)
            return self._round_view(rid, ident)

    def reshake(self, ident: Identity, rid: str, body: Any) -> Json:
        self.require(ident, "dealer")
        body = _object(body, "re-shake")
        reason, note = body.get("reason"), _optional_string(body, "note")
        with self.store.transaction():
            row, state, now = self._unfinished(rid, "re-shaken")
            game = GAMES[row["game"]]
            if not isinstance(reason, str) or reason not in game.RESHAKE_REASONS:
                raise validation(
                    f"`reason` must be one of {', '.join(sorted(game.RESHAKE_REASONS))}"
                )
            if state == "betting" and game.NAME != XOCDIA:
                raise round_state(
                    f"round {rid} is betting; a Sic Bo re-shake needs betting closed (the dice "
                    "are shaken when betting ends, SB-RND-03)"
                )
            if state not in ("betting", "closed"):
                raise round_state(f"round {rid} is {state}; it cannot be re-shaken")
            # Xoc Dia is shaken during betting (XD-RND-01), so it may be re-shaken then too
            # (XD-RND-03/04): betting stays open with its countdown, the bets stand.
            self._materialise_close(row, state)
            self.store.insert_event(rid, "reshake", reason, note, now)
            if game.NAME == XOCDIA and "reshake-returns-bets" in self.faults:
                self._refund_bets(rid, "void", now)  # FAULT reshake-returns-bets
            if game.NAME != XOCDIA and "sicbo-reshake-returns-bets" in self.faults:
                self._refund_bets(rid, "void", now)  # FAULT sicbo-reshake-returns-bets
            return self._round_view(rid, ident)

    def event(self, ident: Identity, rid: str, body: Any) -> Json:
        self.require(ident, "dealer")
        body = _object(body, "event")
        kind, note = body.get("type"), _optional_string(body, "note")
        with self.store.transaction():
            row, state, now = self._unfinished(rid, "given an event")
            game = GAMES[row["game"]]
            if not isinstance(kind, str) or kind not in game.EVENT_TYPES:
                raise validation(
                    f"`type` must be one of {', '.join(sorted(game.EVENT_TYPES))} for {row['game']}"
                )
            if state == "paused":
                raise round_state(f"round {rid} is paused")
            if game.NAME == XOCDIA:
                self._xocdia_event(row, state, kind, note, now)
            else:
                self.store.insert_event(rid, kind, None, note, now)
            return self._round_view(rid, ident)

    def _xocdia_event(self, row: Row, state: str, kind: str, note: str | None, now: int) -> None:
        """Xoc Dia dealer events: shake while betting (XD-RND-01), rearrange after betting
        (XD-RND-02, changes nothing), bowl-touched-token cancels the round (XD-VOID-02)."""
        rid = row["id"]
        if kind == "shake" and state != "betting":
            raise round_state(f"round {rid} is {state}; the bowl is shaken during betting")
        if kind == "rearrange" and state != "closed":
            raise round_state(f"round {rid} is {state}; tokens are rearranged after betting")
        self._materialise_close(row, state)
        self.store.insert_event(rid, kind, None, note, now)
        if kind == "rearrange" and "rearrange-voids-round" in self.faults:
            self._finish_refunded(rid, "void", REARRANGED, now)  # FAULT rearrange-voids-round
        if kind == "bowl-touched-token":
            if "bowl-touch-ignored" in self.faults:
                return  # FAULT bowl-touch-ignored
            self._finish_refunded(rid, "cancelled", BOWL_TOUCHED, now)

    def _materialise_close(self, row: Row, state: str) -> None:
        """Write down a close the countdown made (the stored state may still say betting)."""
        if row["state"] == "betting" and state == "closed":
            self.store.update_round(row["id"], state="closed")

    def pause(self, ident: Identity, rid: str, body: Any) -> Json:
        self.require(ident, "dealer")
        reason = _reason(body)
        with self.store.transaction():
            row, state, now = self._unfinished(rid, "paused")
            if state == "paused":
                raise round_state(f"round {rid} is already paused")
            remaining = max(0, row["ends_at"] - now) if state == "betting" else None
            self.store.update_round(
                rid, state="paused", paused_from=state, remaining_ms=remaining, reason=None
            )
            self.store.insert_event(rid, "pause", reason, None, now)
            return self._round_view(rid, ident)

    def resume(self, ident: Identity, rid: str) -> Json:
        self.require(ident, "dealer")
        with self.store.transaction():
            row, state, now = self._unfinished(rid, "resumed")
            if state != "paused":
                raise round_state(f"round {rid} is {state}, not paused")
            back, remaining = row["paused_from"], row["remaining_ms"]
            reopen = back == "closed" and row["game"] != XOCDIA
            if reopen and "resume-reopens-betting" in self.faults:
                # FAULT resume-reopens-betting: betting opens again with a fresh countdown
                back, remaining = "betting", self.config.default_countdown_ms
            if back == "betting":
                self.store.update_round(
                    rid,
                    state="betting",
                    paused_from=None,
                    remaining_ms=None,
                    ends_at=now + remaining,
                )
            else:
                self.store.update_round(rid, state="closed", paused_from=None, remaining_ms=None)
            self.store.insert_event(rid, "resume", None, None, now)
            if "resume-voids-bets" in self.faults:
                self._refund_bets(rid, "void", now)  # FAULT resume-voids-bets
            return self._round_view(rid, ident)

    def refund_round(self, ident: Identity, rid: str, body: Any, status: str) -> Json:
        """Cancel (status `cancelled`) or void (status `void`): every open bet's stake returned."""
        self.require(ident, "dealer")
        reason = _reason(body)
        with self.store.transaction():
            _row, _state, now = self._unfinished(rid, status)
            times = 1
            if status == "cancelled" and "cancel-refunds-nothing" in self.faults:
                times = 0  # FAULT cancel-refunds-nothing
            if status == "cancelled" and "cancel-refunds-twice" in self.faults:
                times = 2  # FAULT cancel-refunds-twice
            skip: frozenset[str] = frozenset()
            if status == "cancelled" and "cancel-skips-disconnected" in self.faults:
                skip = self._disconnected_bettors(rid)  # FAULT cancel-skips-disconnected
            self._finish_refunded(rid, status, reason, now, times=times, skip=skip)
            return self._round_view(rid, ident)

    def _disconnected_bettors(self, rid: str) -> frozenset[str]:
        """The players with open bets in the round who are disconnected now."""
        players = {bet["player_id"] for bet in self.store.open_bets(rid)}
        return frozenset(pid for pid in players if not self.store.player(pid)["connected"])

    def _refund_bets(
        self, rid: str, status: str, now: int, times: int = 1, skip: frozenset[str] = frozenset()
    ) -> None:
        """Return the stake of every open bet of the round (outcome refund, win 0).

        `times` is 1 except under the cancel faults: 0 credits nothing, 2 credits every stake twice.
        `skip` is empty except under cancel-skips-disconnected: those players' bets are left open.
        """
        keep = status == "void" and "void-keeps-stakes" in self.faults
        keep = keep and self._round(rid)["game"] == XOCDIA
        credits: dict[str, int] = defaultdict(int)
        updates = []
        for bet in self.store.open_bets(rid):
            if bet["player_id"] in skip:
                continue  # FAULT cancel-skips-disconnected: the bet stays open, its stake kept
            if keep:  # FAULT void-keeps-stakes
                updates.append((status, "refund", 0, 0, now, bet["id"]))
                continue
            if times == 0:  # FAULT cancel-refunds-nothing
                updates.append((status, "refund", 0, 0, now, bet["id"]))
                continue
            updates.append((status, "refund", 0, bet["stake"], now, bet["id"]))
            credits[bet["player_id"]] += bet["stake"] * times  # times 2: FAULT cancel-refunds-twice
        self.store.finish_bets(updates)
        self.store.credit([(amount, pid) for pid, amount in credits.items()])

    def _finish_refunded(
        self,
        rid: str,
        status: str,
        reason: str,
        now: int,
        result: str | None = None,
        times: int = 1,
        skip: frozenset[str] = frozenset(),
    ) -> None:
        """Cancel or void the round: every open bet refunded, the state and reason recorded."""
        self._refund_bets(rid, status, now, times, skip)
        fields: dict[str, Any] = {"result": result} if result is not None else {}
        self.store.update_round(
            rid,
            state=status,
            paused_from=None,
            remaining_ms=None,
            reason=reason,
            finished_at=now,
            **fields,
        )
        self.store.finish_records(rid)
        self.store.insert_event(
            rid, "cancel" if status == "cancelled" else "void", reason, None, now
        )

    def enter_result(self, ident: Identity, rid: str, body: Any) -> Json:
        self.require(ident, "dealer")
        body = _object(body, "result")
        with self.store.transaction():
            row = self._round(rid)
            game = GAMES[row["game"]]
            try:
                result = game.parse_result(body, self.faults)
            except game.ResultError as exc:
                raise ApiError(422, "INVALID_RESULT", str(exc)) from None
            if row["state"] == "settled" and "result-settles-twice" in self.faults:
                return self._settle_again(ident, rid, game, result)  # FAULT result-settles-twice
            row, state, now = self._unfinished(rid, "given a result")
            if game.NAME == XOCDIA and state in ("betting", "closed"):
                void_reason = self._xocdia_void_reason(rid, state)
                if void_reason is not None:
                    self._finish_refunded(
                        rid, "void", void_reason, now, result=json.dumps(list(result))
                    )
                    return self._round_view(rid, ident)
                state = "closed"
            if state == "paused" and "paused-round-takes-result" in self.faults:
                state = "closed"  # FAULT paused-round-takes-result
            if state != "closed":
                raise round_state(f"round {rid} is {state}; a result needs betting closed")
            self._settle(rid, game, result, now)
            self.store.update_round(
                rid,
                state="settled",
                result=json.dumps(list(result)),
                settled_at=now,
                finished_at=now,
                paused_from=None,
                remaining_ms=None,
            )
            self.store.finish_records(rid)
            self.store.insert_event(rid, "result", None, None, now)
            view = self._round_view(rid, ident)
            if "result-answers-another-round" in self.faults:
                view = {**view, "round_id": f"{rid}-x"}  # FAULT result-answers-another-round
            return view

    def _settle_again(self, ident: Identity, rid: str, game: Any, result: tuple[Any, ...]) -> Json:
        """Settle a settled round's bets again by a second result, crediting their returns once
        more (only the result-settles-twice fault)."""
        now = self.now()
        settled = [bet for bet in self.store.bets_of_round(rid) if bet["status"] == "settled"]
        self._settle(rid, game, result, now, settled)  # FAULT result-settles-twice
        self.store.update_round(
            rid, result=json.dumps(list(result)), settled_at=now, finished_at=now
        )
        self.store.finish_records(rid)
        self.store.insert_event(rid, "result", None, None, now)
        return self._round_view(rid, ident)

    def _xocdia_void_reason(self, rid: str, state: str) -> str | None:
        """Why a Xoc Dia result voids the round (XD-VOID-01), or None when it settles."""
        early = state == "betting"
        if early and "early-reveal-settled" in self.faults:  # FAULT early-reveal-settled
            early = False
        if early:
            return EARLY_REVEAL
        unshaken = all(event["type"] != "shake" for event in self.store.events_of_round(rid))
        if unshaken and "unshaken-round-settled" in self.faults:  # FAULT unshaken-round-settled
            unshaken = False
        if unshaken:
            return NO_SHAKE
        return None

    def _settle(
        self,
        rid: str,
        game: Any,
        result: tuple[Any, ...],
        now: int,
        bets: list[Row] | None = None,
    ) -> None:
        """Settle every open bet of the round by the game's paytable and credit the returns.

        `bets` is given only by the result-settles-twice fault: the settled bets, settled again.
        """
        declared = self.config.rounding
        credits: dict[str, int] = defaultdict(int)
        updates = []
        unpaid: set[str] = set()
        for bet in self.store.open_bets(rid) if bets is None else bets:
            selection, stake = bet["selection"], bet["stake"]
            outcome, odds = game.settle(selection, result, self.faults)
            if "disconnected-player-not-paid" in self.faults:
                pid = bet["player_id"]
                if pid not in unpaid and not self.store.player(pid)["connected"]:
                    unpaid.add(pid)
                if pid in unpaid:
                    outcome, odds = "lose", Fraction(0)  # FAULT disconnected-player-not-paid
            if outcome == "win":
                mode = game.rounding_mode(selection, declared, self.faults)
                win = round_minor(Fraction(stake) * odds, mode)
                returned = stake + win
                credits[bet["player_id"]] += returned
            elif outcome == "refund":  # Xoc Dia BIG/SMALL on two-two: the stake returned
                win, returned = 0, stake
                credits[bet["player_id"]] += returned
            else:
                win = returned = 0
            updates.append(("settled", outcome, win, returned, now, bet["id"]))
        self.store.finish_bets(updates)
        if "winnings-not-credited" in self.faults and game is GAMES["sicbo"]:
            return  # FAULT winnings-not-credited
        self.store.credit([(amount, pid) for pid, amount in credits.items()])

    # -- bets ----------------------------------------------------------------------------------
    def place_bets(
        self,
        ident: Identity,
        rid: str,
        body: Any,
        key: str | None,
        deferred: list[tuple[str, int]] | None = None,
        late_keys: list[tuple[str, str, str, str, int]] | None = None,
    ) -> tuple[int, Json]:
        """Place a whole slip or nothing; answers (201, accepted) or (200, the replayed answer).

        `deferred` is used only by the lost-update fault: when given, the balance write is not
        done here but appended as (player_id, new balance) for the caller to write later.
        `late_keys` likewise only by the idempotency-key-recorded-late fault: the key is not
        recorded here but appended for `remember_late`.
        """
        self.require(ident, "player")
        pid = ident.player_id
        assert pid is not None
        slip = self._slip_shape(body)
        if key is not None and not 1 <= len(key) <= 128:
            raise validation("the Idempotency-Key header must be 1 to 128 characters")
        if "idempotency-ignored" in self.faults:
            key = None  # FAULT idempotency-ignored
        fingerprint = json.dumps({"round_id": rid, "bets": slip}, sort_keys=True)
        with self.store.transaction():
            if key is not None:
                seen = self.store.idempotency(pid, key)
                if seen is not None and self._key_forgotten(rid):
                    seen = None  # FAULT idempotency-key-forgotten-at-close
                if seen is not None:
                    if seen["fingerprint"] != fingerprint:
                        raise ApiError(
                            409,
                            "IDEMPOTENCY_CONFLICT",
                            "this Idempotency-Key was used with another request",
                        )
                    return 200, json.loads(seen["response"])
            row = self._round(rid)
            game = GAMES[row["game"]]
            slip, stakes = self._validate_slip(slip, game)
            self._within_limits(stakes)
            now = self.now()
            state = self._state(row, now)
            if state != "betting" and not self._late_bet_allowed(row, state):
                raise round_state(f"round {rid} is {state}; bets are taken only while betting")
            one_slip = "one-slip-per-round" in self.faults and row["game"] == "sicbo"
            if one_slip and any(b["player_id"] == pid for b in self.store.open_bets(rid)):
                # FAULT one-slip-per-round
                raise round_state(f"player {pid} has already bet in round {rid}")
            player = self.store.player(pid)
            total = sum(stakes)
            overdraft = "negative-balance-allowed" in self.faults  # FAULT negative-balance-allowed
            if total > player["balance"] and not overdraft:
                raise ApiError(
                    409,
                    "INSUFFICIENT_FUNDS",
                    f"the slip stakes {format_amount(total)} but the balance is "
                    f"{format_amount(player['balance'])}",
                )
            balance = player["balance"] - total
            rows = [
                (_new_id("b"), rid, row["table_id"], pid, row["game"], bet["selection"], stake, now)
                for bet, stake in zip(slip, stakes, strict=True)
            ]
            self.store.insert_bets(rows)
            self.store.start_record(pid, rid, player["balance"])
            if deferred is not None and "lost-update-under-concurrency" in self.faults:
                deferred.append((pid, balance))  # FAULT lost-update-under-concurrency
            else:
                self.store.set_balance(pid, balance)
            answer = {
                "bets": [
                    {
                        "bet_id": r[0],
                        "round_id": rid,
                        "table_id": r[2],
                        "player_id": pid,
                        "game": r[4],
                        "selection": r[5],
                        "stake": format_amount(r[6]),
                        "placed_at": iso(now),
                        "status": "open",
                        "outcome": None,
                        "win": None,
                        "returned": None,
                        "settled_at": None,
                    }
                    for r in rows
                ],
                "balance": format_amount(balance),
            }
            if key is not None and late_keys is not None:
                # FAULT idempotency-key-recorded-late
                late_keys.append((pid, key, fingerprint, json.dumps(answer), now))
            elif key is not None:
                self.store.remember(pid, key, fingerprint, json.dumps(answer), now)
            return 201, answer

    def _key_forgotten(self, rid: str) -> bool:
        """Whether the keys of round `rid` are forgotten (only under the
        idempotency-key-forgotten-at-close fault, once betting is over)."""
        if "idempotency-key-forgotten-at-close" not in self.faults:
            return False
        row = self.store.round(rid)
        return row is not None and self._state(row, self.now()) != "betting"

    def remember_late(self, keys: list[tuple[str, str, str, str, int]]) -> None:
        """Record idempotency keys after their slip was placed, in a transaction of their own
        (only the idempotency-key-recorded-late fault): a re-send in between is placed again."""
        with self.store.transaction():  # FAULT idempotency-key-recorded-late
            for pid, key, fingerprint, answer, now in keys:
                if self.store.idempotency(pid, key) is None:
                    self.store.remember(pid, key, fingerprint, answer, now)

    def _late_bet_allowed(self, row: Row, state: str) -> bool:
        """Whether a seeded fault lets a round outside `betting` take a slip (never without one)."""
        sicbo = row["game"] != XOCDIA
        expired = state == "closed" and row["state"] == "betting"  # the countdown ran out
        # FAULT reshake-takes-bets: a Sic Bo round that was re-shaken takes bets again
        reshaken = sicbo and "reshake-takes-bets" in self.faults and self._reshaken(row["id"])
        allowed = {
            "bets-accepted-after-betting-closed": state == "closed" and not sicbo,  # FAULT
            "sicbo-bets-after-close-accepted": state == "closed" and sicbo,  # FAULT
            "reshake-takes-bets": state == "closed" and reshaken,  # FAULT
            "countdown-not-enforced": expired,  # FAULT
            "bets-after-result-accepted": state == "settled",  # FAULT
            "paused-round-takes-bets": state == "paused",  # FAULT
        }
        # FAULT bets-accepted-after-betting-closed / sicbo-bets-after-close-accepted /
        # reshake-takes-bets / countdown-not-enforced / bets-after-result-accepted /
        # paused-round-takes-bets
        return any(allowed[name] for name in allowed if name in self.faults)

    def _reshaken(self, rid: str) -> bool:
        """Whether a re-shake was recorded in the round (only the reshake-takes-bets fault)."""
        return any(event["type"] == "reshake" for event in self.store.events_of_round(rid))

    def debit_later(self, pid: str, balance: int) -> None:
        """Write a balance computed earlier, outside the slip's transaction.

        Only the lost-update-under-concurrency fault calls this (after a short sleep), so a
        concurrent slip of the same player that read the same balance overwrites this one.
        """
        self.store.debit_unlocked(pid, balance)  # FAULT lost-update-under-concurrency

    @staticmethod
    def _slip_shape(body: Any) -> list[Json]:
        """Check the slip's JSON shape (VALIDATION); codes and amounts are checked later."""
        body = _object(body, "bet slip")
        bets = body.get("bets")
        if not isinstance(bets, list) or not 1 <= len(bets) <= MAX_SLIP:
            raise validation(f"`bets` must be a list of 1 to {MAX_SLIP} bets")
        slip = []
        for index, bet in enumerate(bets):
            if not isinstance(bet, dict):
                raise validation(f"bets[{index}] must be an object", {"index": index})
            if not isinstance(bet.get("selection"), str):
                raise validation(f"bets[{index}].selection must be a string", {"index": index})
            _within(bet["selection"], f"bets[{index}].selection", MAX_SELECTION)
            if not isinstance(bet.get("stake"), str):
                raise validation(
                    f'bets[{index}].stake must be a decimal string such as "10.00", '
                    "not a JSON number",
                    {"index": index},
                )
            _within(bet["stake"], f"bets[{index}].stake", MAX_STAKE)
            slip.append({"selection": bet["selection"], "stake": bet["stake"]})
        return slip

    def _within_limits(self, stakes: list[int]) -> None:
        """Every stake within the table's limits per bet, the slip within its limit (422)."""
        limits = self.limits
        if not limits:
            return
        low, high = limits["min_bet"], limits["max_bet"]
        over_taken = "stake-over-limit-accepted" in self.faults  # FAULT stake-over-limit-accepted
        at_refused = "stake-at-limit-refused" in self.faults  # FAULT stake-at-limit-refused
        zero_taken = "stake-zero-accepted" in self.faults  # FAULT stake-zero-accepted
        for index, stake in enumerate(stakes):
            above = stake >= high if at_refused else stake > high
            below = stake < low and not (stake == 0 and zero_taken)
            if below or (above and not over_taken):
                raise ApiError(
                    422,
                    "INVALID_STAKE",
                    f"bets[{index}]: {format_amount(stake)} is outside the table limits of "
                    f"{format_amount(low)} to {format_amount(high)} a bet",
                    {"index": index},
                )
        total = sum(stakes)
        if total > limits["max_slip"] and not over_taken:
            raise ApiError(
                422,
                "INVALID_STAKE",
                f"the slip stakes {format_amount(total)}, above the table limit of "
                f"{format_amount(limits['max_slip'])} a slip",
            )

    def _validate_slip(self, slip: list[Json], game: Any) -> tuple[list[Json], list[int]]:
        """Every selection known and every stake valid, or the first bad one refused.

        Answers the slip's bets and their stakes in minor units (the same bets, faults aside).
        """
        allow_zero = "stake-zero-accepted" in self.faults  # FAULT stake-zero-accepted
        partial = "partial-slip-accepted" in self.faults
        kept: list[Json] = []
        stakes: list[int] = []
        first_error: ApiError | None = None
        for index, bet in enumerate(slip):
            error: ApiError | None = None
            if not game.is_selection(bet["selection"]):
                error = ApiError(
                    422,
                    "UNKNOWN_SELECTION",
                    f"bets[{index}]: {bet['selection']!r} is not a {game.NAME} selection",
                    {"index": index, "selection": bet["selection"]},
                )
            else:
                try:
                    stake = parse_amount(bet["stake"], allow_zero=allow_zero)
                except MoneyError as exc:
                    error = ApiError(
                        422,
                        "INVALID_STAKE",
                        f"bets[{index}]: {exc}",
                        {"index": index, "stake": bet["stake"]},
                    )
            if error is None:
                kept.append(bet)
                stakes.append(stake)
                continue
            if not partial:
                raise error
            first_error = first_error or error  # FAULT partial-slip-accepted: the bad bet dropped
        if not kept and first_error is not None:
            raise first_error
        return kept, stakes

    def withdraw(self, ident: Identity, bid: str) -> Json:
        """A bet is final (SB-RND-04): always refused (seeded faults aside)."""
        self.require(ident, "player")
        with self.store.transaction():
            bet = self.store.bet(bid)
            if bet is None or bet["player_id"] != ident.player_id:
                raise not_found(f"no bet {bid!r} of this player")
            row = self._round(bet["round_id"])
            now = self.now()
            state = self._state(row, now)
            allowed = (state == "betting" and "withdrawal-allowed" in self.faults) or (
                state == "closed" and "withdrawal-allowed-after-close" in self.faults
            )
            if allowed and bet["status"] == "open":
                # FAULT withdrawal-allowed / FAULT withdrawal-allowed-after-close
                self.store.finish_bets([("cancelled", "refund", 0, bet["stake"], now, bid)])
                self.store.credit([(bet["stake"], bet["player_id"])])
                return _bet_view(self.store.bet(bid))
        raise ApiError(409, "BET_FINAL", "a placed bet cannot be withdrawn or cancelled")

    # -- player --------------------------------------------------------------------------------
    def get_player(self, ident: Identity) -> Json:
        self.require(ident, "player")
        with self.store.reading():
            return _player_view(self.store.player(ident.player_id))

    def set_connected(self, ident: Identity, connected: bool) -> Json:
        self.require(ident, "player")
        with self.store.transaction():
            self.store.set_connected(ident.player_id, connected)
            if not connected and "disconnect-voids-bets" in self.faults:
                self._void_player_bets(ident.player_id)  # FAULT disconnect-voids-bets
            return _player_view(self.store.player(ident.player_id))

    def _void_player_bets(self, pid: str) -> None:
        """Refund every open bet of the player (status void); only disconnect-voids-bets."""
        now = self.now()
        bets = self.store.open_bets_of_player(pid)
        self.store.finish_bets(
            [("void", "refund", 0, bet["stake"], now, bet["id"]) for bet in bets]
        )
        self.store.credit([(sum(bet["stake"] for bet in bets), pid)])

    def bet_record(self, ident: Identity, round_id: str | None) -> Json:
        """The player's bets and, per round they bet in, the round's record (REG-RECALL-01)."""
        self.require(ident, "player")
        pid = ident.player_id
        assert pid is not None
        hide = "record-missing-stake" in self.faults  # FAULT record-missing-stake
        with self.store.reading():
            if "record-shows-other-players" in self.faults:
                rows = self.store.all_bets(round_id)  # FAULT record-shows-other-players
            else:
                rows = self.store.bets_of_player(pid, round_id)
            records = self.store.record_rounds(pid, round_id)
        now = self.now()
        rounds = []
        for rec in records:
            state = self._state(rec, now)
            finished = state in FINISHED
            result = None
            if rec["result"] is not None:
                game = GAMES[rec["game"]]
                result = game.result_view(tuple(json.loads(rec["result"])), self.faults)
            after = rec["balance_after"] if finished else None
            if after is not None and "record-balance-after-wrong" in self.faults:
                after = rec["balance_before"]  # FAULT record-balance-after-wrong
            rounds.append(
                {
                    "round_id": rec["round_id"],
                    "table_id": rec["table_id"],
                    "game": rec["game"],
                    "state": state,
                    "opened_at": iso(rec["opened_at"]),
                    "finished_at": iso(rec["finished_at"]) if finished else None,
                    "result": result,
                    "staked": _money(0 if hide else rec["staked"]),
                    "returned": _money(rec["returned"]) if finished else None,
                    "balance_before": _money(rec["balance_before"]),
                    "balance_after": _money(after),
                }
            )
        if "record-missing-balance-after" in self.faults:
            for entry in rounds:
                del entry["balance_after"]  # FAULT record-missing-balance-after
        return {
            "player_id": pid,
            "bets": [_bet_view(row, hide_stake=hide) for row in rows],
            "rounds": rounds,
        }

"""The round's life: reading a round, and the dealer's actions that open, close, re-shake,
record events on, pause and resume it."""

from __future__ import annotations

import json
from typing import Any

from livecert.reference.base import Identity, ServicePart, _new_id
from livecert.reference.config import MAX_COUNTDOWN_MS
from livecert.reference.errors import not_found, round_state, validation
from livecert.reference.games import GAMES
from livecert.reference.inputs import _object, _optional_string, _reason
from livecert.reference.store import Row
from livecert.reference.views import Json, _bet_view, iso

FINISHED = frozenset({"settled", "cancelled", "void"})
XOCDIA = "xocdia"
BOWL_TOUCHED = "the bowl touched a token while it was lifted (XD-VOID-02)"
REARRANGED = "the tokens were rearranged (XD-RND-02)"


class Rounds(ServicePart):
    """Reading rounds and the dealer's actions on them (settling and refunding: Settlement)."""

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
            if state == "closed" and "reshake-reopens-betting" in self.faults:
                # FAULT reshake-reopens-betting: betting opens again with a fresh countdown
                ends_at = now + self.config.default_countdown_ms
                self.store.update_round(rid, state="betting", ends_at=ends_at)
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

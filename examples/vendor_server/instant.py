"""The vendor's instant table: one request takes a slip, plays the round with the result the test
lab forces, and settles it.

It drives the engine's live round itself (open, shake, bet, close, result) with a wallet step of
its own in front of the engine's, the way a vendor bolts an RNG table onto a live studio; that
step is where its instant-round faults live, so a certification must find them through the
instant table alone.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from examples.second_server.paytable import TABLE

from .codes import engine_selection
from .errors import VendorError

if TYPE_CHECKING:
    from .app import Studio

INSTANT_FAULTS = {
    "instant-takes-negative-stakes": "the instant table checks only the slip's total, so a "
    "negative stake beside a positive one is taken and credits the balance (REG-INPUT-01)",
    "instant-takes-unoffered-codes": "the instant table keeps the stake of a code outside the "
    "paytable (Total 3, Total 18, unknown codes) instead of refusing it (REG-INPUT-01)",
    "instant-overdraws": "the instant table checks each bet against the balance, not the slip, "
    "so a slip over the balance is taken and the balance goes below zero (REG-BAL-01)",
    "instant-lost-update": "the instant table reads the balance, plays, and writes back the "
    "balance it read plus the round's net: concurrent rounds of one player lose updates "
    "(REG-MONEY-01)",
    "instant-unknown-ticket-plays-last-player": "a ticket the instant table does not know, or "
    "none, plays on the last player created (a demo-mode leftover) (REG-ACCESS-01)",
    "instant-replay-plays-again": "the instant table ignores the request id, so a slip sent "
    "twice is played twice (REG-IDEMP-01)",
}


@dataclass
class WriteBack:
    """A balance the faulty wallet writes after its pause: the one it read plus the net."""

    player: Any
    read: int
    net: int

    def apply(self) -> None:
        self.player.balance = self.read + self.net


def parse_slip(text: str) -> list[dict]:
    """The form's `slip`: a JSON array of {c: vendor code, a: whole cents}, shape only."""
    try:
        slip = json.loads(text)
    except ValueError:
        raise VendorError(1022, "slip must be a JSON array of {c, a}") from None
    if not isinstance(slip, list) or not all(isinstance(i, dict) for i in slip):
        raise VendorError(1022, "slip must be a JSON array of {c, a}")
    for item in slip:
        if not isinstance(item.get("c"), str) or type(item.get("a")) is not int:
            raise VendorError(1022, "each bet is {c: code, a: whole cents}")
    return slip


class InstantTable:
    """The instant table's requests, over the studio's engine calls."""

    def __init__(self, studio: "Studio") -> None:
        self.studio = studio
        self.replays: dict[tuple[str, str], tuple[str, dict]] = {}
        self.write_back: WriteBack | None = None  # set by a faulty play, applied by the App

    def fault(self, name: str) -> bool:
        return name in self.studio.faults

    def play(
        self,
        form: dict,
        ticket: str | None,
        role: str | None,
        request_id: str | None,
        place: Callable[[dict, str | None, str | None], dict],
    ) -> dict:
        """One instant round; `place` is the studio's own bet request (its checks and shapes)."""
        casino = self.studio.casino
        table = casino.tables.get(form.get("table", ""))
        if table is None:
            raise VendorError(1004, "no such table", "NOT_FOUND")
        ticket = self._ticket(ticket)
        replay = None
        if request_id and ticket and not self.fault("instant-replay-plays-again"):
            replay = (ticket, request_id)
            fingerprint = json.dumps([table.id, form.get("slip", ""), form.get("result", "")])
            if replay in self.replays:
                first, answer = self.replays[replay]
                if first != fingerprint:
                    raise VendorError(1009, "this request id was used for another slip")
                return answer
        slip = parse_slip(form.get("slip", ""))
        player = casino.players.get(casino.by_token.get(ticket, "")) if ticket else None
        kept, taken = self._split(table.game, slip) if player else (slip, [])
        read = player.balance if player else 0
        lent = self._loan(player, kept)
        try:
            answer = self._round(table, form, kept, taken, ticket, role, place)
        finally:
            if lent:
                player.balance -= lent
        if player and taken:
            player.balance -= sum(item["a"] for item in taken)  # the vendor's wallet keeps them
        if player and self.fault("instant-lost-update"):
            self.write_back = WriteBack(player, read, player.balance - read)
            player.balance = read  # not yet written: the App writes it after its pause
        if replay:
            self.replays[replay] = (fingerprint, answer)
        return answer

    def _round(self, table, form, kept, taken, ticket, role, place) -> dict:
        studio = self.studio
        outcome = studio.outcome(
            {"dice": form.get("result", "")}
            if table.game == "sicbo"
            else {"tokens": form.get("result", "")}
        )
        view = studio.engine("open_round", "dealer", None, {"table_id": table.id}, {})
        params = {"round_id": view["round_id"]}
        try:
            if table.game == "xocdia":
                studio.engine("event", "dealer", None, params, {"type": "shake"})
            if kept or not taken:
                place({"round": view["round_id"], "slip": json.dumps(kept)}, ticket, role)
            studio.engine("close", "dealer", None, params, {})
            return studio.round_out(studio.engine("result", "dealer", None, params, outcome))
        except Exception:
            studio.engine("cancel", "dealer", None, params, {"reason": "instant round refused"})
            raise

    def _ticket(self, ticket: str | None) -> str | None:
        casino = self.studio.casino
        known = ticket in casino.by_token if ticket else False
        if not known and self.fault("instant-unknown-ticket-plays-last-player") and casino.players:
            return list(casino.players.values())[-1].token
        return ticket

    def _split(self, game: str, slip: list[dict]) -> tuple[list[dict], list[dict]]:
        """The bets the engine takes, and those the faulty wallet takes itself."""
        taken = []
        total = sum(item["a"] for item in slip)
        if self.fault("instant-takes-negative-stakes") and total > 0:
            taken += [item for item in slip if item["a"] < 0]
        if self.fault("instant-takes-unoffered-codes"):
            taken += [
                item
                for item in slip
                if item["a"] > 0 and engine_selection(game, item["c"]) not in TABLE[game]
            ]
        return [item for item in slip if item not in taken], taken

    def _loan(self, player, kept: list[dict]) -> int:
        """The faulty wallet's check: each bet within the balance, not the slip; the engine is
        lent the difference, taken back after the round."""
        if not (player and self.fault("instant-overdraws")):
            return 0
        total = sum(item["a"] for item in kept)
        fits = all(0 < item["a"] <= player.balance for item in kept)
        short = total - player.balance
        if not fits or short <= 0:
            return 0
        player.balance += short
        return short

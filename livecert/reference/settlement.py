"""How a round ends: settled by its result, or cancelled or void with every stake returned."""

from __future__ import annotations

import json
from collections import defaultdict
from fractions import Fraction
from typing import Any

from livecert.reference.base import Identity, ServicePart
from livecert.reference.errors import ApiError, round_state
from livecert.reference.games import GAMES
from livecert.reference.inputs import _object, _reason
from livecert.reference.money import round_minor
from livecert.reference.rounds import XOCDIA
from livecert.reference.store import Row
from livecert.reference.views import Json

EARLY_REVEAL = "the bowl was lifted before the betting period ended (XD-VOID-01)"
NO_SHAKE = "no shake was recorded (XD-VOID-01)"


class Settlement(ServicePart):
    """Cancel, void and settle rounds, crediting what each bet returns."""

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
            uncredited = None
            if status == "cancelled" and "cancel-refund-uncredited" in self.faults:
                uncredited = self.faults.money("cancel-refund-uncredited")  # FAULT (its least)
            self._finish_refunded(
                rid, status, reason, now, times=times, skip=skip, uncredited_from=uncredited
            )
            return self._round_view(rid, ident)

    def _disconnected_bettors(self, rid: str) -> frozenset[str]:
        """The players with open bets in the round who are disconnected now."""
        players = {bet["player_id"] for bet in self.store.open_bets(rid)}
        return frozenset(pid for pid in players if not self.store.player(pid)["connected"])

    def _refund_bets(
        self,
        rid: str,
        status: str,
        now: int,
        times: int = 1,
        skip: frozenset[str] = frozenset(),
        uncredited_from: int | None = None,
    ) -> None:
        """Return the stake of every open bet of the round (outcome refund, win 0).

        `times` is 1 except under the cancel faults: 0 credits nothing, 2 credits every stake twice.
        `skip` is empty except under cancel-skips-disconnected: those players' bets are left open.
        `uncredited_from` is None except under cancel-refund-uncredited: a bet staked at least
        that is shown returned, but its stake is not credited.
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
            refund = bet["stake"] - self._cents_short(bet["stake"])
            updates.append((status, "refund", 0, refund, now, bet["id"]))
            if uncredited_from is not None and bet["stake"] >= uncredited_from:
                continue  # FAULT cancel-refund-uncredited: shown returned, never credited
            credits[bet["player_id"]] += refund * times  # times 2: FAULT cancel-refunds-twice
        self.store.finish_bets(updates)
        self.store.credit([(amount, pid) for pid, amount in credits.items()])

    def _cents_short(self, stake: int) -> int:
        """What a refund of `stake` (minor units) falls short by: nothing, but a cent under
        refund-wrong-on-cents when the stake's cents are a non-zero multiple of its N."""
        if "refund-wrong-on-cents" not in self.faults:
            return 0
        cents = stake % 100
        every = self.faults.number("refund-wrong-on-cents")
        return 1 if cents and cents % every == 0 else 0  # FAULT refund-wrong-on-cents

    def _finish_refunded(
        self,
        rid: str,
        status: str,
        reason: str,
        now: int,
        result: str | None = None,
        times: int = 1,
        skip: frozenset[str] = frozenset(),
        uncredited_from: int | None = None,
    ) -> None:
        """Cancel or void the round: every open bet refunded, the state and reason recorded."""
        self._refund_bets(rid, status, now, times, skip, uncredited_from)
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
                    if "void-pays-winners" in self.faults:
                        self._pay_void_winners(rid, game, result)  # FAULT void-pays-winners
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

    def _pay_void_winners(self, rid: str, game: Any, result: tuple[Any, ...]) -> None:
        """Credit the win of each bet of a void round staked at least the fault's amount that
        `result` wins, its stake already returned (only the void-pays-winners fault)."""
        least = self.faults.money("void-pays-winners")
        credits: dict[str, int] = defaultdict(int)
        for bet in self.store.bets_of_round(rid):
            outcome, odds = game.settle(bet["selection"], result, self.faults)
            if outcome == "win" and bet["stake"] >= least:
                mode = game.rounding_mode(bet["selection"], self.config.rounding, self.faults)
                credits[bet["player_id"]] += round_minor(Fraction(bet["stake"]) * odds, mode)
        self.store.credit([(amount, pid) for pid, amount in credits.items()])

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

    def _win_uncredited(self, game: Any, bet: Row) -> bool:
        """A Xoc Dia win of a player disconnected now, staked at least the fault's amount
        (only the disconnected-win-uncredited fault): shown, but not credited."""
        name = "disconnected-win-uncredited"
        if name not in self.faults or game.NAME != XOCDIA:
            return False
        disconnected = not self.store.player(bet["player_id"])["connected"]
        # FAULT disconnected-win-uncredited
        return disconnected and bet["stake"] >= self.faults.money(name)

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
                odds = self._high_roller_odds(selection, stake, odds)
                mode = self._rounding_from(Fraction(stake) * odds, mode, declared)
                win = round_minor(Fraction(stake) * odds, mode)
                returned = stake + win
                if not self._win_uncredited(game, bet):
                    credits[bet["player_id"]] += returned
            elif outcome == "refund":  # Xoc Dia BIG/SMALL on two-two: the stake returned
                win, returned = 0, stake
                credits[bet["player_id"]] += returned
            else:
                win = returned = 0
            if bet["id"] in self.rejoined and bets is None:
                credits[bet["player_id"]] += returned  # FAULT rejoin-settles-twice: once more
            updates.append(("settled", outcome, win, returned, now, bet["id"]))
        self.store.finish_bets(updates)
        if "winnings-not-credited" in self.faults and game is GAMES["sicbo"]:
            return  # FAULT winnings-not-credited
        self.store.credit([(amount, pid) for pid, amount in credits.items()])

    def _high_roller_odds(self, selection: str, stake: int, odds: Fraction) -> Fraction:
        """The odds a win is paid at: the paytable's, but under row-pays-wrong-from-stake
        FOUR_RED (XD-PAY-01, 14:1) pays 13:1 on a stake at or above its threshold."""
        if "row-pays-wrong-from-stake" not in self.faults or selection != "FOUR_RED":
            return odds
        if stake < self.faults.money("row-pays-wrong-from-stake"):
            return odds
        return odds - 1  # FAULT row-pays-wrong-from-stake

    def _rounding_from(self, exact: Fraction, mode: str, declared: str) -> str:
        """The rule a win of `exact` minor units is rounded by: `mode`, but under
        wins-from-an-amount-rounded-half-up a win of at least its amount is rounded half-up
        where the server declares "down" (down where it declares another rule)."""
        name = "wins-from-an-amount-rounded-half-up"
        if name not in self.faults or exact < self.faults.money(name):
            return mode
        return "half-up" if declared == "down" else "down"  # FAULT wins-from-an-amount-...

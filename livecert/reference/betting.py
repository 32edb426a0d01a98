"""Bet slips: their shape, selections, stakes and limits, taking them, and withdrawals."""

from __future__ import annotations

import json
from typing import Any

from livecert.reference.base import Identity, ServicePart, _new_id
from livecert.reference.errors import ApiError, not_found, round_state, validation
from livecert.reference.games import GAMES
from livecert.reference.inputs import MAX_SELECTION, MAX_STAKE, _object, _within
from livecert.reference.money import MoneyError, format_amount, parse_amount
from livecert.reference.rounds import XOCDIA
from livecert.reference.store import Row
from livecert.reference.views import Json, _bet_view, iso

MAX_SLIP = 200


class Betting(ServicePart):
    """Place whole slips or nothing; a placed bet is final."""

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
                seen = self.recall_key(pid, key, rid)  # the store, faults aside
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
                self.keep_key(pid, key, rid, fingerprint, json.dumps(answer), now)
            return 201, answer

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

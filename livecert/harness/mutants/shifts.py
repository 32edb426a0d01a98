"""Money a mutant paid otherwise than the target did, carried into everything read after.

A fault that pays a bet one unit more shows that unit in the player's balance from then on and in
the bet record's rounds (their return, and the balances around them). `Shifts` remembers, per
player, each round's difference in the order the rounds were first seen, and applies it to a
balance read and to a record: the alteration stays consistent, so only the clause the mutant is
aimed at has reason to fail.
"""

import threading
from dataclasses import replace
from decimal import Decimal

from livecert.adapters.model import BetRecord, BetView


class Shifts:
    """Per player and round, what the mutant added to the target's amounts."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._order: dict[str, int] = {}  # round id: when it was first seen
        self._by_bet: dict[str, Decimal] = {}  # bet id: what the mutant added to its return
        self._bets: dict[str, BetView] = {}  # bet id: the bet as the mutant showed it settled

    def saw_round(self, round_id: str) -> None:
        with self._lock:
            self._order.setdefault(round_id, len(self._order))

    def shown(self, bet_id: str) -> BetView | None:
        """The bet as the mutant showed it before, if it altered it."""
        with self._lock:
            return self._bets.get(bet_id)

    def add(self, shown: BetView, difference: Decimal) -> None:
        """`shown` is how the mutant shows a settled bet from now on, `difference` what it
        pays more (or less) than the target did; given again for a bet the target has settled
        since (its return moved), the difference is the latest."""
        with self._lock:
            self._bets.setdefault(shown.bet_id, shown)
            self._order.setdefault(shown.round_id, len(self._order))
            self._by_bet[shown.bet_id] = difference

    def _rounds(self, player_id: str) -> dict[str, Decimal]:
        """The player's differences by round (the lock held)."""
        rounds: dict[str, Decimal] = {}
        for bet_id, difference in self._by_bet.items():
            bet = self._bets[bet_id]
            if bet.player_id == player_id:
                rounds[bet.round_id] = rounds.get(bet.round_id, Decimal(0)) + difference
        return rounds

    def total(self, player_id: str) -> Decimal:
        with self._lock:
            return sum(self._rounds(player_id).values(), Decimal(0))

    def record(self, record: BetRecord) -> tuple[BetRecord, bool]:
        """The record with the shifted bets and rounds; whether anything was shifted."""
        with self._lock:
            rounds = self._rounds(record.player_id)
            order = dict(self._order)
            bets = dict(self._bets)
        if not rounds:
            return record, False
        shown_bets = tuple(bets.get(b.bet_id, b) for b in record.bets)

        def before(round_id: str) -> Decimal:
            at = order.get(round_id)
            if at is None:  # a round this run never saw (a lent account's earlier): none
                return Decimal(0)
            return sum((d for r, d in rounds.items() if order.get(r, -1) < at), Decimal(0))

        shown_rounds = []
        for row in record.rounds:
            earlier, own = before(row.round_id), rounds.get(row.round_id, Decimal(0))
            shown_rounds.append(
                replace(
                    row,
                    returned=None if row.returned is None else row.returned + own,
                    balance_before=row.balance_before + earlier,
                    balance_after=None
                    if row.balance_after is None
                    else row.balance_after + earlier + own,
                )
            )
        shown = replace(record, bets=shown_bets, rounds=tuple(shown_rounds))
        return shown, shown != record

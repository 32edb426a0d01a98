"""Refund operators: a stake the rules return kept, or a bet of a disconnected player refunded.

The bet is shown settled otherwise and the difference carried into the player's later balances
and record, as a table that really settled so would show it.
"""

from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any

from livecert.adapters.model import BetView, PlayerHandle, RoundView
from livecert.harness.mutants.families.payouts import game_of, is_paytable_row
from livecert.harness.mutants.mutation import Disconnections
from livecert.harness.mutants.registry import clauses_in, operator
from livecert.harness.mutants.settled import ShownSettled
from livecert.rules.paytable import load_paytable

# the clauses whose rounds end with every stake returned: a cancel, a bowl touching a token, a
# void (the bowl lifted early, a shake forgotten)
ENDED = ("TBL-MAL-03", "XD-VOID-02", "XD-VOID-01")
ENDED_STATES = ("cancelled", "void")
DISCONNECTION = ("TBL-DISC-01", "TBL-DISC-02")


def refund_rows() -> frozenset[str]:
    """The paytable rows that return the stake on some outcome (Xoc Dia's 2:2)."""
    return frozenset(
        s.clause
        for game in ("sicbo", "xocdia")
        for s in load_paytable(game).selections
        if s.refund_condition
    )


def refund_breaks() -> tuple[str, ...]:
    """What a table that keeps the stakes it must return breaks: every clause of a returned
    stake (a cancel, a void, a restart's refund, the rows' 2:2) and the settlement duty."""
    return (*ENDED, "REG-INTR-01", "REG-SETTLE-01", *sorted(refund_rows()))


def is_refunding(clause: str) -> bool:
    return clause in ENDED or clause in refund_rows()


def refunded(bet: BetView) -> bool:
    return bet.outcome == "refund" or (
        bet.status in ("cancelled", "void") and (bet.returned or 0) > 0
    )


class SettledOtherwise(ShownSettled):
    """A bet `wanted(bet)` shown as `settled(bet)`, wherever it shows, the difference carried."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]

    def wanted(self, bet: BetView) -> bool:
        raise NotImplementedError

    def settled(self, bet: BetView) -> BetView:
        raise NotImplementedError

    def _bet(self, bet: BetView) -> BetView:
        shown = self.shifts.shown(bet.bet_id)
        if shown is not None:  # the target may have settled it since: the latest difference
            moved = (shown.returned or Decimal(0)) - (bet.returned or Decimal(0))
            self.shifts.add(shown, moved)
            return shown
        if not self.wanted(bet):
            return bet
        shown = self.settled(bet)
        self.shifts.add(shown, (shown.returned or Decimal(0)) - (bet.returned or Decimal(0)))
        self.altered(
            f"bet {bet.bet_id} ({bet.selection}) {bet.status}/{bet.outcome} returning "
            f"{bet.returned} shown {shown.status}/{shown.outcome} returning {shown.returned}"
        )
        return shown


@operator(
    "refund-kept",
    family="refunds",
    summary="a stake the rules return (a cancelled round, a 2:2 result) kept as lost",
    # REG-INTR-01 too: a round a restart interrupted returns its stakes
    validates=lambda clause: is_refunding(clause) or clause == "REG-INTR-01",
    declares=lambda clause: refund_breaks(),
)
class RefundKept(SettledOtherwise):
    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        game = game_of(self.clause)
        self.codes = (
            {s.code for s in load_paytable(game).selections if s.clause == self.clause}
            if game is not None and is_paytable_row(self.clause)
            else None  # a cancel's or a void's refund, whatever the selection
        )

        self.placed: dict[str, list[BetView]] = {}  # round: the bets taken in it

    def bets_placed(
        self, player: PlayerHandle, round_id: str, bets: Sequence[Any], views: list[BetView]
    ) -> list[BetView]:
        with self.lock:
            self.placed.setdefault(round_id, []).extend(views)
        return views

    def round(self, operation: str, view: RoundView) -> RoundView:
        """A round that ended with its stakes returned keeps them: its bets as the table shows
        them, and those it took that the answer does not show (a player's balance shows
        them all the same)."""
        if self.codes is None and view.state in ENDED_STATES:
            with self.lock:
                placed = list(self.placed.get(view.round_id, ()))
            shown = {b.bet_id for b in view.bets}
            for bet in placed:
                if bet.bet_id not in shown:
                    self._bet(replace(bet, status=view.state, outcome="refund", win=Decimal(0),
                                      returned=bet.stake))  # fmt: skip
        return super().round(operation, view)

    def wanted(self, bet: BetView) -> bool:
        return refunded(bet) and (self.codes is None or bet.selection in self.codes)

    def settled(self, bet: BetView) -> BetView:
        return replace(bet, outcome="lose", win=Decimal(0), returned=Decimal(0))


@operator(
    "disconnected-bets-refunded",
    family="refunds",
    summary="the bets of a player who disconnected are voided and refunded, not kept",
    # a confirmed bet not kept breaks both: the round went on without it (TBL-DISC-01), and
    # it did not stay valid to be settled (TBL-DISC-02); the steps judge them together
    validates=clauses_in(*DISCONNECTION),
    declares=lambda clause: (*DISCONNECTION, "REG-MONEY-01"),  # the stakes back, unbidden
    # a table that pushes its rounds shows a disconnected player nothing of how a bet settled
    # (the balance tells, once the settlement was pushed to nobody): a refund shown in the
    # records but not in that balance is no fault a table has, so it is not aimed there
    applies=lambda clause, shape: not shape.pushes,
)
class DisconnectedBetsRefunded(SettledOtherwise, Disconnections):
    def wanted(self, bet: BetView) -> bool:
        return self.went_offline(bet.player_id) and bet.status in ("open", "settled")

    def settled(self, bet: BetView) -> BetView:
        return replace(bet, status="void", outcome="refund", win=Decimal(0), returned=bet.stake)

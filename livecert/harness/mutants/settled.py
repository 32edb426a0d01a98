"""A mutation that shows bets settled otherwise than the target did, the difference carried.

Payouts (a win a unit more, another row's odds) and refunds (a stake kept, a disconnected
player's bets refunded) alter a bet wherever it shows and carry what they changed into the
player's later balances and bet record (`Shifts`): each subclass says only how a bet is shown.
"""

from dataclasses import replace
from decimal import Decimal

from livecert.adapters.model import BetRecord, BetView, PlayerHandle, RoundView
from livecert.harness.mutants.mutation import Mutation, with_bets
from livecert.harness.mutants.shifts import Shifts


class ShownSettled(Mutation):
    """Every bet through `_bet`; the balances and records shifted by what it changed."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.shifts = Shifts()

    def _bet(self, bet: BetView) -> BetView:
        """The bet as the mutant shows it (`self.shifts.add` what it changed)."""
        raise NotImplementedError

    def round(self, operation: str, view: RoundView) -> RoundView:
        self.shifts.saw_round(view.round_id)
        bets = [self._bet(b) for b in view.bets]
        return view if bets == list(view.bets) else with_bets(view, bets)

    def balance(self, player: PlayerHandle, amount: Decimal) -> Decimal:
        extra = self.shifts.total(player.player_id)
        if extra:
            self.altered(f"{player.player_id}'s balance {amount} shown as {amount + extra}")
        return amount + extra

    def record(self, player: PlayerHandle, record: BetRecord) -> BetRecord:
        record = replace(record, bets=tuple(self._bet(b) for b in record.bets))
        shown, changed = self.shifts.record(record)
        if changed:
            self.altered(f"{player.player_id}'s bet record shows the bets as the mutant settled")
        return shown


class StakesTaken(Mutation):
    """Bets the mutant shows taken that the target did not take: their stakes leave the
    player's balance from then on (`took`)."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.staked: dict[str, Decimal] = {}  # player: what the bets shown taken took

    def took(self, player_id: str, bets: list[BetView]) -> None:
        with self.lock:
            total = sum((v.stake for v in bets), Decimal(0))
            self.staked[player_id] = self.staked.get(player_id, Decimal(0)) + total

    def balance(self, player: PlayerHandle, amount: Decimal) -> Decimal:
        with self.lock:
            staked = self.staked.get(player.player_id, Decimal(0))
        if staked:
            self.altered(f"{player.player_id}'s balance {amount} shown as {amount - staked}")
        return amount - staked

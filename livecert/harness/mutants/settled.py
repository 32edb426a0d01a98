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


class BetsGone(Mutation):
    """Bets the target took that the mutant shows gone (refused, withdrawn, dropped): in no
    round or bet record from then on, and their stakes back in the player's balance less what
    the target returned on them since (`forget` them; `gone_as` says how, in the evidence)."""

    gone_as = "gone"

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.gone: dict[str, BetView] = {}  # bet id: the bet as the table last showed it

    def forget(self, bets: list[BetView]) -> None:
        with self.lock:
            for bet in bets:
                self.gone.setdefault(bet.bet_id, bet)

    def round(self, operation: str, view: RoundView) -> RoundView:
        with self.lock:
            for bet in view.bets:  # the latest the table showed of each bet gone
                if bet.bet_id in self.gone:
                    self.gone[bet.bet_id] = bet
            kept = [b for b in view.bets if b.bet_id not in self.gone]
        if len(kept) == len(view.bets):
            return view
        self.altered(f"round {view.round_id} ({operation}) shown without the bet(s) {self.gone_as}")
        return with_bets(view, kept)

    def balance(self, player: PlayerHandle, amount: Decimal) -> Decimal:
        with self.lock:
            moved = sum(
                (b.stake - (b.returned or Decimal(0)) for b in self.gone.values()
                 if b.player_id == player.player_id),
                Decimal(0),
            )  # fmt: skip
        if moved:
            self.altered(f"{player.player_id}'s balance {amount} shown as {amount + moved}")
        return amount + moved

    def record(self, player: PlayerHandle, record: BetRecord) -> BetRecord:
        with self.lock:
            kept = tuple(b for b in record.bets if b.bet_id not in self.gone)
        if len(kept) == len(record.bets):
            return record
        self.altered(f"{player.player_id}'s bet record shown without the bet(s) {self.gone_as}")
        return replace(record, bets=kept)

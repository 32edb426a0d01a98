"""Balance operators: a balance read that lags a settlement, is a unit off, or is below zero.

These stand for a wallet that answers wrong, not for a game paid wrong: only the balance read is
altered, never a bet or a round, so the checks that compare a balance with the rounds played are
the ones that must see it.
"""

from decimal import Decimal

from livecert.adapters.model import PlayerHandle
from livecert.harness.mutants.mutation import Disconnections, Mutation
from livecert.harness.mutants.registry import clauses_in, operator

# the clause that compares every balance with the stakes and returns of the rounds played
MONEY = ("REG-MONEY-01",)
# the clauses whose checks judge a balance read after an action: a wallet that reads wrong
# breaks each of them wherever the scenarios of REG-MONEY-01 meet it (nothing moved by a
# refusal, a late bet, a re-sent slip, a withdrawal refused; the stakes back after a cancel, a
# void, a restart; the bets kept through a Sic Bo shake; the record's balances against the
# wallet's)
BALANCE_JUDGED = (
    "REG-MONEY-01", "REG-COMMIT-01", "REG-INPUT-01", "REG-IDEMP-01", "REG-INTR-01",
    "REG-RECALL-01", "SB-RND-01", "XD-RND-01", "TBL-MAL-01", "TBL-MAL-03", "XD-VOID-01",
    "XD-VOID-02", "TBL-DISC-02", "SB-RND-03", "SB-RND-04",
)  # fmt: skip


@operator(
    "balance-lag",
    family="balances",
    summary="a balance read shows the amount before the latest change (a settlement missed)",
    validates=clauses_in(*MONEY),
    declares=lambda clause: BALANCE_JUDGED,
)
class BalanceLag(Mutation):
    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.read: dict[str, list[Decimal]] = {}  # player: the distinct amounts read, in order

    def balance(self, player: PlayerHandle, amount: Decimal) -> Decimal:
        with self.lock:
            amounts = self.read.setdefault(player.player_id, [])
            if not amounts or amounts[-1] != amount:
                amounts.append(amount)
            shown = amounts[-2] if len(amounts) > 1 else amount
        if shown != amount:
            self.altered(f"{player.player_id}'s balance {amount} shown as {shown}, as before")
        return shown


@operator(
    "balance-unit-off",
    family="balances",
    summary="every balance read after the first is one minor unit more than the wallet holds",
    validates=clauses_in(*MONEY),
    declares=lambda clause: BALANCE_JUDGED,
)
class BalanceUnitOff(Mutation):
    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.seen: set[str] = set()

    def balance(self, player: PlayerHandle, amount: Decimal) -> Decimal:
        with self.lock:
            first = player.player_id not in self.seen
            self.seen.add(player.player_id)
        if first:
            return amount
        self.altered(f"{player.player_id}'s balance {amount} shown as {amount + self.unit}")
        return amount + self.unit


@operator(
    "balance-below-zero",
    family="balances",
    summary="a balance read below zero (a wallet that let a stake take it under nothing)",
    validates=clauses_in("REG-BAL-01"),
    # a balance read below zero is no balance the rounds played leave: a wallet that reads
    # wrong, so every duty judged on a balance read (REG-INPUT-01's "nothing moved" where a
    # clock table's REG-BAL-01 scenarios meet a refused stake)
    declares=lambda clause: ("REG-BAL-01", *BALANCE_JUDGED),
)
class BalanceBelowZero(Mutation):
    def balance(self, player: PlayerHandle, amount: Decimal) -> Decimal:
        # below zero in what the account holds: a lent account's surplus (held beyond the
        # balance shown) taken off too, or the check on the account would rightly hold
        surplus = self.surplus(player)
        held = amount + surplus
        shown = (-self.unit if held == 0 else -held) - surplus
        self.altered(f"{player.player_id}'s balance {amount} shown as {shown}")
        return shown


@operator(
    "disconnected-balance-short",
    family="balances",
    summary="a player who disconnected reads a minor unit less from then on (a settlement of "
    "their confirmed bets credited short)",
    # TBL-DISC-02: confirmed bets stay valid and are settled; where a player who stayed
    # connected holds the same bets right, the offline player's shortfall is the
    # disconnection's (steps/common.py), and a balance read wrong is every balance duty's
    validates=clauses_in("TBL-DISC-02"),
    declares=lambda clause: BALANCE_JUDGED,
)
class DisconnectedBalanceShort(Disconnections):
    def balance(self, player: PlayerHandle, amount: Decimal) -> Decimal:
        if not self.went_offline(player.player_id):
            return amount
        self.altered(f"{player.player_id}'s balance {amount} shown as {amount - self.unit}")
        return amount - self.unit

"""Stakes inside the limits a table declares: a feature's stake kept, or its twin bet instead.

The features write their stakes from the rules documents (0.01 shows that the smallest unit
settles exactly; 0.07 at 0.96:1 wins 0.0672, between two minor units). A table that declares a
minimum of 1.00 refuses them, and that refusal is no finding: the rules and the table's own
declaration agree that it may. So where a stake lies outside the declared bet limits the harness
bets its *twin* instead: the nearest stake inside them that exercises the same rule, on the same
selection, with the same remainder modulo the paytable's *step* (the least amount at which every
row's odds pay a whole number of minor units). A win that falls between minor units then falls
there the same way (0.01 and 1.01 at 3:2 both leave half a cent), so the rounding rule is judged
as the feature meant it. Every amount the feature quotes is still checked against the oracle at
the stake written; the target is checked against the oracle at the stake bet, and the evidence
says which was bet and why. A stake with no twin inside the limits is not testable there.

`LimitGuard` wraps the adapter the steps use, so that no stake outside the declared limits is
ever sent by a scenario that did not mean to: one that would be is not testable there, with the
reason (REG-LIMIT-01's own probes and the bad-input stakes are sent beyond them on purpose).
"""

import contextlib
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from livecert.adapters.errors import Unsupported
from livecert.adapters.model import TableLimits
from livecert.rules.paytable import Paytable


def paytable_step(table: Paytable, minor_unit: int) -> Decimal:
    """The least stake, a whole number of minor units, on which every row of `table` wins a
    whole number of minor units: the lowest common multiple of the odds' denominators."""
    step = 1
    for selection in table.selections:
        for odds in selection.odds_by_count.values():
            step = math.lcm(step, odds.denominator)
    return Decimal(step).scaleb(-minor_unit)


@dataclass(frozen=True)
class StakeFit:
    """The stakes a game's table takes, and each written stake's twin inside them."""

    limits: TableLimits | None
    step: Decimal  # paytable_step: a twin differs from its stake by a multiple of it

    @property
    def low(self) -> Decimal | None:
        return self.limits.min_bet if self.limits else None

    @property
    def high(self) -> Decimal | None:
        return self.limits.max_bet if self.limits else None

    def within(self, stake: Decimal) -> bool:
        """`stake` is one the table declares it takes as a bet."""
        return (self.low is None or stake >= self.low) and (self.high is None or stake <= self.high)

    def twin(self, stake: Decimal) -> Decimal | None:
        """`stake` itself where the limits take it; else the nearest stake inside them with the
        same remainder modulo the step; None where there is none."""
        if self.within(stake):
            return stake
        if self.low is not None and stake < self.low:
            twin = stake + math.ceil((self.low - stake) / self.step) * self.step
        else:
            assert self.high is not None
            twin = stake - math.ceil((stake - self.high) / self.step) * self.step
        return twin if twin > 0 and self.within(twin) else None

    def declared(self) -> str:
        """The bet limits, as a lab reads them."""
        low = "no minimum" if self.low is None else f"a minimum of {self.low}"
        high = "no maximum" if self.high is None else f"a maximum of {self.high}"
        return f"{low} and {high} a bet"

    def why_twin(self, stake: Decimal, twin: Decimal) -> str:
        return (
            f"the stake {stake} is outside the declared limits ({self.declared()}): {twin} was "
            f"bet instead, the same selection with the same remainder modulo {self.step} (the "
            "step at which every odds pays whole minor units), so the same rule is exercised; the "
            f"feature's amounts are checked against the oracle at {stake}, the target's at {twin}"
        )

    def why_not(self, stake: Decimal) -> str:
        return (
            f"the stake {stake} is outside the declared limits ({self.declared()}) and no stake "
            f"inside them has its remainder modulo {self.step}: a bet of it would be refused by "
            "the table's own declaration"
        )


def stake_fit(limits: TableLimits | None, table: Paytable, minor_unit: int) -> StakeFit:
    return StakeFit(
        limits if limits and limits.declared() else None, paytable_step(table, minor_unit)
    )


class LimitGuard:
    """The adapter the steps use, refusing to send a stake outside the declared bet limits
    (`Unsupported`: not testable there) except inside `beyond_limits()`."""

    def __init__(self, adapter: Any, limits: dict[str, TableLimits]) -> None:
        self._adapter = adapter
        self._limits = {g: lim for g, lim in limits.items() if lim.declared()}
        self._games: dict[str, str] = {}  # table id or round id -> its game
        self._beyond = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._adapter, name)

    def __repr__(self) -> str:
        return f"LimitGuard({self._adapter!r})"

    @contextlib.contextmanager
    def beyond_limits(self) -> Iterator[None]:
        """Stakes sent on purpose outside the limits (REG-LIMIT-01's probes, bad input)."""
        self._beyond += 1
        try:
            yield
        finally:
            self._beyond -= 1

    def create_table(self, game: str) -> str:
        table_id = self._adapter.create_table(game)
        self._games[table_id] = game
        return table_id

    def open_round(self, table_id: str, countdown_ms: int | None = None) -> Any:
        view = self._adapter.open_round(table_id, countdown_ms=countdown_ms)
        self._games[view.round_id] = view.game or self._games.get(table_id, "")
        return view

    def place_bets(
        self,
        player: Any,
        round_id: str,
        bets: Sequence[Any],
        idempotency_key: str | None = None,
    ) -> Any:
        self._check(self._games.get(round_id), bets, f"bet on round {round_id}")
        return self._adapter.place_bets(player, round_id, bets, idempotency_key=idempotency_key)

    @property
    def play_round(self) -> Any:
        """The inner adapter's instant round, its stakes kept inside the limits; absent
        (AttributeError, so `hasattr` says no) where the inner adapter has none."""
        inner = self._adapter.play_round  # AttributeError where it has none

        def play(player: Any, table_id: str, bets: Sequence[Any], *args, **kwargs) -> Any:
            self._check(self._games.get(table_id), bets, f"play a round at table {table_id}")
            return inner(player, table_id, bets, *args, **kwargs)

        return play

    def _check(self, game: str | None, bets: Sequence[Any], doing: str) -> None:
        limits = self._limits.get(game or "")
        if limits is None or self._beyond:
            return
        fit = StakeFit(limits, Decimal(1))
        stakes = [stake for _code, stake in bets if isinstance(stake, Decimal)]
        for stake in stakes:
            if not fit.within(stake):
                raise Unsupported(doing, _beyond(f"the stake {stake}", game, fit.declared()))
        total = sum(stakes, Decimal(0))
        if stakes and limits.max_slip is not None and total > limits.max_slip:
            raise Unsupported(doing, _beyond(f"a slip of {total}", game, f"{limits.max_slip}"))
        if stakes and limits.min_slip is not None and total < limits.min_slip:
            raise Unsupported(doing, _beyond(f"a slip of {total}", game, f"{limits.min_slip}"))


def _beyond(what: str, game: str | None, declared: str) -> str:
    return (
        f"{what} is outside the declared limits of {game} ({declared}), which the scenario does "
        "not probe: the table may refuse it by its own declaration"
    )

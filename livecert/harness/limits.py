"""Declared table limits (REG-LIMIT-01): the slips that probe them.

Where a table declares the smallest and largest stake of a bet or of a slip, a slip at each limit
must be taken and one just beyond it refused. Each probe names the limit it tries and whether the
rules want it taken. Where nothing is declared, no rule demands limits: the duty is not
applicable, and the probes only try the extremes of the range a target takes (a cent and a very
large stake), so a payout that changes with the size of the stake is still found.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from livecert.adapters.model import TableLimits

LIMIT_DUTY = "REG-LIMIT-01"
LARGE_STAKE = Decimal("1000000.00")  # tried where no maximum is declared
NOT_APPLICABLE = (
    "not applicable: the target declares no table limits for {game} (no rule demands them; "
    "the duty applies to limits a table declares)"
)


@dataclass(frozen=True)
class Probe:
    """One slip that tries a limit: taken when `take`, else refused."""

    limit: str  # "min_bet", ..., or "" where no limit is declared
    slip: tuple[tuple[str, Decimal], ...]
    take: bool

    @property
    def total(self) -> Decimal:
        return sum((stake for _, stake in self.slip), Decimal(0))

    def describe(self) -> str:
        slip = " + ".join(f"{stake} on {code}" for code, stake in self.slip)
        if not self.limit:
            return f"a slip of {slip} (no limit declared)"
        where = "at" if self.take else "beyond"
        return f"a slip of {slip}, {where} the declared {self.limit.replace('_', ' ')}"


def _split(total: Decimal, low: Decimal, high: Decimal, codes: Sequence[str]) -> list | None:
    """`total` as bets on distinct codes, each from `low` to `high`; None when it cannot be."""
    bets, left = [], total
    for code in codes:
        if left <= 0:
            break
        stake = min(high, left)
        if left - stake and left - stake < low:  # leave enough for a last bet of the minimum
            stake = left - low
        if stake < low:
            return None
        bets.append((code, stake))
        left -= stake
    return bets if left == 0 else None


def plan_probes(
    limits: TableLimits | None, unit: Decimal, codes: Sequence[str], several: bool
) -> list[Probe]:
    """The probes of `limits` (one unit is the smallest amount the currency writes); `several`:
    the target takes several bets in one slip (without, the slip limits cannot be probed)."""
    if limits is None or not limits.declared():
        return [Probe("", ((codes[0], unit),), True), Probe("", ((codes[0], LARGE_STAKE),), True)]
    low = limits.min_bet or unit
    high = limits.max_bet or max(LARGE_STAKE, limits.max_slip or LARGE_STAKE)
    one = codes[0]
    probes = []
    if limits.min_bet is not None:
        probes.append(Probe("min_bet", ((one, limits.min_bet),), True))
        if limits.min_bet - unit > 0:
            probes.append(Probe("min_bet", ((one, limits.min_bet - unit),), False))
    if limits.max_bet is not None:
        probes.append(Probe("max_bet", ((one, limits.max_bet),), True))
        probes.append(Probe("max_bet", ((one, limits.max_bet + unit),), False))
    for name, step in (("max_slip", unit), ("min_slip", -unit)):
        bound = getattr(limits, name)
        if bound is None:
            continue
        at = _split(bound, low, high, codes) if several or bound <= high else None
        beyond = _split(bound + step, low, high, codes) if several or bound <= high else None
        if at and (several or len(at) == 1):
            probes.append(Probe(name, tuple(at), True))
        if beyond and (several or len(beyond) == 1) and bound + step > 0:
            probes.append(Probe(name, tuple(beyond), False))
    return probes


def balance_for(probes: Sequence[Probe]) -> Decimal:
    """Enough for every probe the rules want taken, and for the largest one refused (so that a
    refusal is for the limit, never for the balance)."""
    taken = sum((p.total for p in probes if p.take), Decimal(0))
    refused = max((p.total for p in probes if not p.take), default=Decimal(0))
    return taken + refused

"""Stakes drawn from the whole range a table takes, not the few the features write.

A duty checked at a handful of stakes misses a target that goes wrong only elsewhere: a
paytable row paid a wrong rate from some stake up (a "high-roller" rate), a refund short on some
cent amounts, a bet record wrong on an earlier round or above a stake. So the harness draws
(seeded, printed, replayable):

- for every paytable row (a clause and its odds: SB-PAY-08 at 60:1 is one, at 6:1 another) one
  of its selections and an outcome on which it WINS at that odds, bet twice in the round: at the
  table's maximum (a rate that changes from any stake up shows there) and at a stake drawn near
  it (its cents, hence the fraction of a minor unit won, drawn);
- refund stakes whose whole units are drawn over the whole range and whose cents are a drawn
  window of consecutive cent values, long enough to hold a non-zero multiple of every N up to
  `CENT_WINDOW // 2` (a refund wrong on a cent pattern cannot slip between them).

Where the table declares no maximum the range ends at `DEFAULT_MAX` (docs/contract.md, "Table
limits"); where it declares no minimum it starts at one minor unit. Rows are drawn, not
enumerated: one selection and one outcome per row, several rows sharing a round's outcome.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from livecert.adapters.model import TableLimits
from livecert.rules import all_outcomes
from livecert.rules.conditions import Outcome
from livecert.rules.paytable import Paytable
from livecert.rules.settlement import settle

DEFAULT_MAX = Decimal("10000.00")  # the top of the range where a table declares no maximum
NEAR_MAX = 10  # a stake "near the maximum" lies in the top tenth of the range
CENT_WINDOW = 20  # consecutive cent values per refund round: every N <= 10 has a multiple


def stake_bounds(limits: TableLimits | None, minor_unit: int) -> tuple[int, int]:
    """The least and the most a bet may stake, in minor units: the declared limits, else one
    minor unit and DEFAULT_MAX."""
    least, most = 1, int(DEFAULT_MAX.scaleb(minor_unit))
    if limits is not None and limits.min_bet is not None:
        least = max(least, int(limits.min_bet.scaleb(minor_unit)))
    if limits is not None and limits.max_bet is not None:
        most = int(limits.max_bet.scaleb(minor_unit))
    return least, max(least, most)


@dataclass(frozen=True)
class PaytableRow:
    """One row of a paytable: a clause at one odds, and the selections paid at it."""

    clause: str
    odds: Fraction
    codes: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.clause} at {self.odds}:1"


def paytable_rows(table: Paytable) -> list[PaytableRow]:
    """Every (clause, odds) of the paytable, with the selections that win at it."""
    rows: dict[tuple[str, Fraction], list[str]] = {}
    for selection in table.selections:
        for odds in dict.fromkeys(selection.odds_by_count.values()):
            rows.setdefault((selection.clause, odds), []).append(selection.code)
    return [PaytableRow(c, o, tuple(codes)) for (c, o), codes in rows.items()]


@dataclass
class HighStakeRound:
    """One round of the high stakes: its outcome and, per row it covers, the selection bet."""

    outcome: Outcome
    rows: list[tuple[PaytableRow, str]] = field(default_factory=list)


def _wins_at(table: Paytable, code: str, outcome: Outcome, odds: Fraction) -> bool:
    ruling = settle(table, code, outcome)
    return ruling.outcome == "win" and ruling.odds == odds


def plan_high_stakes(table: Paytable, rng: random.Random) -> list[HighStakeRound]:
    """Rounds in which every row of `table` wins once: a row not yet covered draws one of its
    selections and an outcome on which that selection wins at the row's odds; every other row
    not yet covered that one of its selections wins on the same outcome (at its odds) rides
    along, with such a selection drawn."""
    outcomes = [tuple(o) for o in all_outcomes(table)]
    pending = paytable_rows(table)
    rounds: list[HighStakeRound] = []
    while pending:
        row = pending[0]
        choices = [(c, o) for c in row.codes for o in outcomes if _wins_at(table, c, o, row.odds)]
        if not choices:  # a row that never wins (no outcome pays it): nothing to bet on
            pending.pop(0)
            continue
        _code, outcome = rng.choice(choices)
        planned = HighStakeRound(outcome)
        for other in list(pending):
            winners = [c for c in other.codes if _wins_at(table, c, outcome, other.odds)]
            if winners:
                planned.rows.append((other, rng.choice(winners)))
                pending.remove(other)
        rounds.append(planned)
    return rounds


def near_max(rng: random.Random, least: int, most: int) -> int:
    """A stake (minor units) drawn in the top tenth of the range."""
    return rng.randint(max(least, most - (most - least) // NEAR_MAX), most)


def refund_stakes(rng: random.Random, least: int, most: int, minor_unit: int) -> list[int]:
    """CENT_WINDOW stakes (minor units) for one refunded round: whole units drawn over the whole
    range, the cents a window of consecutive non-zero cent values starting at a drawn one (so a
    refund wrong on the stakes whose cents are a multiple of N, for any N up to half the window,
    meets one); a stake outside the range is moved into it by whole units, its cents kept. A
    currency with no minor unit (the dong) draws the pattern on a stake's last two digits."""
    cents_per_unit = 10**minor_unit if minor_unit else 100
    start = rng.randrange(1, cents_per_unit)
    stakes = []
    for index in range(CENT_WINDOW):
        cents = (start - 1 + index) % (cents_per_unit - 1) + 1  # 1..99, wrapping past 00
        units = rng.randrange(0, max(1, most // cents_per_unit))
        stake = units * cents_per_unit + cents
        while stake > most and stake - cents_per_unit >= least:
            stake -= cents_per_unit
        while stake < least:
            stake += cents_per_unit
        stakes.append(stake)
    return stakes


def slips(bets: list[tuple[str, Decimal]], limits: TableLimits | None, batch: bool) -> list[list]:
    """The bets of one player in one round cut into slips the table takes: each within the
    declared slip maximum, one bet a slip where the target takes no batches."""
    if not batch:
        return [[bet] for bet in bets]
    top = limits.max_slip if limits is not None else None
    out: list[list[tuple[str, Decimal]]] = []
    for bet in bets:
        last = out[-1] if out else None
        if last is not None and (top is None or sum(s for _c, s in last) + bet[1] <= top):
            last.append(bet)
        else:
            out.append([bet])
    return out

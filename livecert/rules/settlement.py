"""Settle any selection on any outcome from the paytable, exactly.

The oracle the harness checks targets with. It knows nothing of HTTP or of any implementation:
given a paytable, a selection code and an outcome it answers win, lose or refund, the odds as an
exact fraction, and the clauses that decided it, so that a mismatch names the broken clause.
"""

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import cache

from livecert.rules.conditions import CONDITIONS, Outcome, is_triple
from livecert.rules.money import round_to_minor
from livecert.rules.paytable import Paytable


class OutcomeError(ValueError):
    """An outcome is not a possible result of the game."""


@dataclass(frozen=True)
class Settlement:
    """What the rules say of one bet on one outcome."""

    outcome: str  # "win", "lose" or "refund"
    odds: Fraction  # x of x:1 when it wins, else 0
    clauses: tuple[str, ...]  # the clauses that decided it


@dataclass(frozen=True)
class ExpectedSettlement:
    """A settlement in money: what a target must credit for a stake under its rounding rule."""

    code: str
    stake: Decimal
    outcome: str
    exact_win: Fraction
    win: Decimal
    returned: Decimal
    clauses: tuple[str, ...]


def check_outcome(paytable: Paytable, outcome: Outcome) -> Outcome:
    """Refuse an outcome the game cannot produce (SB-GEN-01: three dice, each 1 to 6;
    XD-GEN-01: four tokens, each red or white face up)."""
    if paytable.outcome == "dice":
        ok = len(outcome) == 3 and all(type(d) is int and 1 <= d <= 6 for d in outcome)
        if not ok:
            raise OutcomeError(f"outcome={outcome!r} is not three dice of 1 to 6")
        return tuple(outcome)
    if paytable.outcome == "tokens":
        if len(outcome) != 4 or not all(t in ("r", "w") for t in outcome):
            raise OutcomeError(f"outcome={outcome!r} is not four tokens of 'r' or 'w'")
        return tuple(outcome)
    raise OutcomeError(f"game={paytable.game!r} outcome kind {paytable.outcome!r} is unknown")


def settle(paytable: Paytable, code: str, outcome: Outcome) -> Settlement:
    """Settle one selection on one outcome by the paytable. The dice and the tokens are not
    told apart (every condition counts faces), so a ruling is kept for the outcome in order."""
    result = check_outcome(paytable, outcome)
    key = (code, tuple(sorted(result)))
    ruling = paytable.rulings.get(key)
    if ruling is None:
        ruling = paytable.rulings[key] = _settle(paytable, code, result)
    return ruling


def _settle(paytable: Paytable, code: str, result: Outcome) -> Settlement:
    selection = paytable.selection(code)
    if selection.loses_on_triple and is_triple(result):
        return Settlement("lose", Fraction(0), (paytable.triple_loss_clause or selection.clause,))
    if selection.refund_condition and CONDITIONS[selection.refund_condition](
        result, selection.refund_params
    ):
        return Settlement("refund", Fraction(0), (selection.clause,))
    count = CONDITIONS[selection.condition](result, selection.params)
    odds = selection.odds_by_count.get(count) if count else None
    if odds is None:
        return Settlement("lose", Fraction(0), (selection.clause,))
    return Settlement("win", odds, (selection.clause,))


def expected_settlement(
    paytable: Paytable,
    code: str,
    outcome: Outcome,
    stake: Decimal,
    minor_unit: int,
    rounding: str,
) -> ExpectedSettlement:
    """The exact amounts a target must credit for `stake` on `code` under its declared rule."""
    ruling = settle(paytable, code, outcome)
    if ruling.outcome == "win":
        exact_win = Fraction(stake) * ruling.odds
        win = round_to_minor(exact_win, minor_unit, rounding)
        returned = stake + win
    else:  # nothing won: the sweep's most frequent case, kept free of fraction arithmetic
        exact_win, zero = Fraction(0), _zero(minor_unit, rounding)
        win, returned = zero, (stake if ruling.outcome == "refund" else zero)
    return ExpectedSettlement(code, stake, ruling.outcome, exact_win, win, returned, ruling.clauses)


@cache
def _zero(minor_unit: int, rounding: str) -> Decimal:
    """Nothing, in the minor unit (`0.00`); the rounding rule is checked as for any amount."""
    return round_to_minor(Fraction(0), minor_unit, rounding)

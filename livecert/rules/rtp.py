"""Theoretical return to player, by enumerating every equally likely outcome.

Sic Bo has 216 ordered rolls of three dice, Xoc Dia 16 ordered results of four tokens. The
return of a selection is the mean total credited per unit staked over all of them, kept as an
exact fraction.
"""

from collections.abc import Iterator
from decimal import Decimal
from fractions import Fraction
from itertools import product

from livecert.rules.conditions import Outcome
from livecert.rules.paytable import Paytable
from livecert.rules.settlement import settle


def all_outcomes(paytable: Paytable) -> Iterator[Outcome]:
    """Every ordered outcome of the game, each equally likely."""
    if paytable.outcome == "dice":
        yield from product(range(1, 7), repeat=3)
    elif paytable.outcome == "tokens":
        yield from product("rw", repeat=4)
    else:
        raise ValueError(f"outcome kind {paytable.outcome!r} is unknown")


def unit_return(paytable: Paytable, code: str, outcome: Outcome) -> Fraction:
    """Total credited for a stake of 1 (1 + odds on a win, 1 on a refund, 0 on a loss)."""
    ruling = settle(paytable, code, outcome)
    if ruling.outcome == "win":
        return 1 + ruling.odds
    return Fraction(1) if ruling.outcome == "refund" else Fraction(0)


def theoretical_rtp(paytable: Paytable, code: str) -> Fraction:
    outcomes = list(all_outcomes(paytable))
    return sum((unit_return(paytable, code, o) for o in outcomes), Fraction(0)) / len(outcomes)


def theoretical_rtps(paytable: Paytable) -> dict[str, Fraction]:
    return {s.code: theoretical_rtp(paytable, s.code) for s in paytable.selections}


def as_percent(rtp: Fraction, places: int) -> Decimal:
    """An RTP fraction as a percentage with `places` decimals, rounded half-up ("97.22")."""
    scaled = rtp * 100 * 10**places
    whole, remainder = divmod(scaled.numerator, scaled.denominator)
    whole += int(2 * remainder >= scaled.denominator)
    return Decimal(whole).scaleb(-places)

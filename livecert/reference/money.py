"""Money as integer minor units: parsing stake strings, formatting, rounding fractional wins.

Floats never touch money here: amounts are ints in minor units, exact payouts are Fractions, and
strings are parsed through a strict regex plus Decimal so "1e3", " 1", "+1" and "1.001" are refused.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

MINOR_UNIT = 2
SCALE = 10**MINOR_UNIT
MAX_AMOUNT = 1_000_000_000 * SCALE  # 1,000,000,000.00 in minor units
ROUNDING_MODES = ("down", "up", "half-up", "half-even")

_AMOUNT = re.compile(r"(0|[1-9][0-9]{0,14})(?:\.([0-9]+))?")


class MoneyError(ValueError):
    """An amount string that is not an acceptable amount; the message says why."""


def parse_amount(text: object, *, allow_zero: bool = False) -> int:
    """Parse a decimal string in the major unit into minor units, or raise MoneyError."""
    if not isinstance(text, str):
        raise MoneyError('an amount must be a decimal string such as "10.00"')
    return _parse_text(text, allow_zero)


@lru_cache(maxsize=4096)
def _parse_text(text: str, allow_zero: bool) -> int:
    """parse_amount for a string; cached because a slip repeats the same few stakes."""
    if text.startswith("-"):
        raise MoneyError(f"amount {text!r} is negative")
    match = _AMOUNT.fullmatch(text)
    if match is None:
        raise MoneyError(f'amount {text!r} is not a plain decimal string such as "10.00"')
    decimals = match.group(2)
    if decimals is not None and len(decimals) > MINOR_UNIT:
        raise MoneyError(f"amount {text!r} has more than {MINOR_UNIT} decimals")
    minor = Decimal(text).scaleb(MINOR_UNIT)
    if minor != minor.to_integral_value():  # cannot happen after the regex; kept as a guard
        raise MoneyError(f"amount {text!r} is not a whole number of minor units")
    value = int(minor)
    if value == 0 and not allow_zero:
        raise MoneyError(f"amount {text!r} is zero")
    if value > MAX_AMOUNT:
        raise MoneyError(f"amount {text!r} is above the maximum {format_amount(MAX_AMOUNT)}")
    return value


def format_amount(minor: int) -> str:
    """Format minor units as a decimal string in the major unit ("10.00")."""
    sign = "-" if minor < 0 else ""
    whole, frac = divmod(abs(minor), SCALE)
    return f"{sign}{whole}.{frac:0{MINOR_UNIT}d}"


def round_minor(amount: Fraction, mode: str) -> int:
    """Round an exact amount of minor units to an integer by the declared rounding rule.

    `down` is towards zero, `up` away from zero, `half-up` nearest with ties away from zero,
    `half-even` nearest with ties to even. Wins are never negative, but the sign is honoured.
    """
    if amount < 0:
        return -round_minor(-amount, mode)
    floor = amount.numerator // amount.denominator
    rest = amount - floor
    if rest == 0:
        return floor
    if mode == "down":
        return floor
    if mode == "up":
        return floor + 1
    half = Fraction(1, 2)
    if rest > half:
        return floor + 1
    if rest < half:
        return floor
    if mode == "half-up":
        return floor + 1
    if mode == "half-even":
        return floor if floor % 2 == 0 else floor + 1
    raise ValueError(f"unknown rounding mode {mode!r}")


def opposite_rounding(mode: str) -> str:
    """The rounding that errs the other way (used only by the seeded rounding fault)."""
    return "up" if mode == "down" else "down"

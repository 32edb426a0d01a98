"""Exact money for the oracle: decimal strings in, exact fractions inside, declared rounding out.

Amounts never pass through float. A win that falls between minor units (a 3:2 win on 0.01 is
0.015) is rounded to the minor unit by the rule the target declares, and the oracle checks the
target did exactly that.
"""

import re
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

ROUNDING_MODES = ("down", "up", "half-up", "half-even")
_MONEY = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")  # the whole amount: fullmatch


class MoneyError(ValueError):
    """An amount is not a decimal string of the contract's shape."""


def parse_money(text: object) -> Decimal:
    """Parse a contract money string ("10.00") into a Decimal; anything else is an error."""
    if not isinstance(text, str):
        raise MoneyError(f"amount={text!r} is not a decimal string like '10.00'")
    return _read_kept(text) if len(text) <= _KEPT_LENGTH else _read(text)


def _read(text: str) -> Decimal:
    if not _MONEY.fullmatch(text):
        raise MoneyError(f"amount={text!r} is not a decimal string like '10.00'")
    return Decimal(text)


# The same few amounts come back thousands of times (a round of 110 bets of 1.00, each winning
# 0.00 or a few odds): read once each, if short (a target's long strings pin no memory). A
# Decimal is immutable, so one may be shared; a refusal raises, which is never kept.
_KEPT_LENGTH = 32
_read_kept = lru_cache(maxsize=4096)(_read)


def round_to_minor(amount: Fraction, minor_unit: int, mode: str) -> Decimal:
    """Round an exact amount to `minor_unit` decimals by a declared rounding rule."""
    if mode not in ROUNDING_MODES:
        raise MoneyError(f"rounding={mode!r} is unknown; expected one of {ROUNDING_MODES}")
    sign = -1 if amount < 0 else 1
    scaled = abs(amount) * 10**minor_unit
    whole, remainder = divmod(scaled.numerator, scaled.denominator)
    if remainder:
        twice, denominator = 2 * remainder, scaled.denominator
        tie_goes_up = whole % 2 == 1 if mode == "half-even" else mode == "half-up"
        round_up = mode == "up" or (
            mode != "down" and (twice > denominator or (twice == denominator and tie_goes_up))
        )
        whole += int(round_up)
    return Decimal(sign * whole).scaleb(-minor_unit).quantize(Decimal(1).scaleb(-minor_unit))


def format_money(amount: Decimal, minor_unit: int) -> str:
    """Show an amount with exactly `minor_unit` decimals ("10.00")."""
    return str(amount.quantize(Decimal(1).scaleb(-minor_unit)))

"""Money as integer cents: strict parsing of stake strings, formatting, half-even rounding."""

import re

MINOR_UNIT = 2
ROUNDING = "half-even"
_STAKE = re.compile(r"(0|[1-9][0-9]{0,13})(\.[0-9]{1,2})?")


def parse_cents(text: object) -> int | None:
    """'10.5' -> 1050; None for anything that is not a plain non-negative amount of at most
    two decimals (no sign, no exponent, no leading zeros, at most 14 integer digits)."""
    if not isinstance(text, str) or not _STAKE.fullmatch(text):
        return None
    whole, _, fraction = text.partition(".")
    return int(whole) * 100 + int(fraction.ljust(2, "0") or 0)


def fmt(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}{whole}.{part:02d}"


def win_cents(stake: int, numerator: int, denominator: int) -> int:
    """stake × numerator / denominator, rounded to a whole cent, ties to the even cent."""
    quotient, remainder = divmod(stake * numerator, denominator)
    twice = 2 * remainder
    if twice > denominator or (twice == denominator and quotient % 2 == 1):
        quotient += 1
    return quotient

"""Money: strict stake parsing, formatting, and the four rounding rules (verified by hand)."""

from fractions import Fraction

import pytest

from livecert.reference.money import MoneyError, format_amount, parse_amount, round_minor


@pytest.mark.parametrize(
    ("text", "minor"),
    [
        ("10.00", 1000),
        ("10", 1000),
        ("0.01", 1),
        ("12.3", 1230),
        ("1000000000.00", 100_000_000_000),
        ("0.10", 10),
    ],
)
def test_parse_accepts(text: str, minor: int) -> None:
    assert parse_amount(text) == minor


@pytest.mark.parametrize(
    "text",
    [
        "0",
        "0.00",
        "-1.00",
        "-0.01",
        "abc",
        "",
        " 1.00",
        "1.00 ",
        "+1",
        "1e3",
        "1E3",
        "1.001",
        "1.000",
        "01.00",
        ".5",
        "5.",
        "1,00",
        "NaN",
        "Infinity",
        "1000000000.01",
        "99999999999999999",
        "１",
        "1_000",
    ],
)
def test_parse_refuses(text: str) -> None:
    with pytest.raises(MoneyError):
        parse_amount(text)


@pytest.mark.parametrize("value", [10, 10.0, None, True, ["1.00"]])
def test_parse_refuses_non_strings(value: object) -> None:
    with pytest.raises(MoneyError):
        parse_amount(value)


def test_zero_allowed_for_balances() -> None:
    assert parse_amount("0.00", allow_zero=True) == 0


def test_format() -> None:
    assert format_amount(0) == "0.00"
    assert format_amount(1) == "0.01"
    assert format_amount(1852) == "18.52"
    assert format_amount(100_000) == "1000.00"
    assert format_amount(-5) == "-0.05"


# A 3:2 win: 0.01 -> 1.5 minor units, 0.03 -> 4.5, 12.35 -> 1852.5 (all exact ties).
@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("down", (1, 4, 1852)),
        ("up", (2, 5, 1853)),
        ("half-up", (2, 5, 1853)),
        ("half-even", (2, 4, 1852)),
    ],
)
def test_rounding_three_to_two(mode: str, expected: tuple[int, int, int]) -> None:
    got = tuple(round_minor(Fraction(stake) * Fraction(3, 2), mode) for stake in (1, 3, 1235))
    assert got == expected


@pytest.mark.parametrize(
    ("amount", "down", "up", "half_up", "half_even"),
    [
        (Fraction(7, 3), 2, 3, 2, 2),
        (Fraction(8, 3), 2, 3, 3, 3),
        (Fraction(5), 5, 5, 5, 5),
        (Fraction(11, 2), 5, 6, 6, 6),
    ],
)
def test_rounding_non_ties(
    amount: Fraction, down: int, up: int, half_up: int, half_even: int
) -> None:
    assert round_minor(amount, "down") == down
    assert round_minor(amount, "up") == up
    assert round_minor(amount, "half-up") == half_up
    assert round_minor(amount, "half-even") == half_even

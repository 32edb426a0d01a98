"""Sic Bo selection codes and settlement against the hand tables and RULES.md section D."""

from fractions import Fraction
from itertools import product

import pytest
from hand_tables import sicbo_hand_table

from livecert.reference import sicbo

ROLLS = list(product(range(1, 7), repeat=3))
NONE: frozenset[str] = frozenset()


def test_exactly_110_selections_matching_the_hand_table() -> None:
    codes = sicbo.all_selections()
    assert len(codes) == len(set(codes)) == 110
    assert set(codes) == set(sicbo_hand_table())
    assert all(sicbo.is_selection(code) for code in codes)


@pytest.mark.parametrize(
    "code",
    [
        "TOTAL_3",
        "TOTAL_18",
        "DOUBLE_2_2",
        "DOUBLE_2_1",
        "TRIPLE_7",
        "NUMBER_0",
        "NUMBER_7",
        "THREE_SINGLES_1_1_2",
        "THREE_SINGLES_3_2_1",
        "DOUBLE_SINGLE_2_2_2",
        "DOUBLE_SINGLE_2_3_3",
        "FOUR_NUMBERS_1_2_3_5",
        "FOUR_NUMBERS_4_3_2_1",
        "small",
        "Small",
        " SMALL",
        "SMALL ",
        "TOTAL_04",
        "TOTAL_4 ",
        "PAIR_",
        "ANY",
        "",
        "DOUBLE_1_2_3",
        "TRIPLE_1_1",
        "BIG\n",
    ],
)
def test_unknown_selections(code: str) -> None:
    assert not sicbo.is_selection(code)


@pytest.mark.parametrize("code", sorted(sicbo_hand_table()))
def test_settlement_over_216_rolls_matches_hand_table(code: str) -> None:
    wins, returned = 0, Fraction(0)
    for dice in ROLLS:
        outcome, odds = sicbo.settle(code, dice, NONE)
        if outcome == "win":
            wins += 1
            returned += 1 + odds
        else:
            assert outcome == "lose" and odds == 0
    assert (wins, returned) == sicbo_hand_table()[code]


def test_max_rtp_is_small_big_odd_even() -> None:
    best = max(ret for _wins, ret in sicbo_hand_table().values()) / 216
    assert best == Fraction(210, 216)
    assert sicbo.max_rtp(NONE) == "97.22"


def _wins(dice: tuple[int, int, int]) -> dict[str, Fraction]:
    out = {}
    for code in sicbo.all_selections():
        outcome, odds = sicbo.settle(code, dice, NONE)
        if outcome == "win":
            out[code] = odds
    return out


def test_reading_three_threes() -> None:
    assert _wins((3, 3, 3)) == {
        "TOTAL_9": 7,
        "PAIR_3": 10,
        "NUMBER_3": 3,
        "ALL_ODD": 6,
        "ANY_TRIPLE": 30,
        "TRIPLE_3": 180,
    }


def test_reading_one_one_two() -> None:
    wins = _wins((1, 1, 2))
    assert wins["DOUBLE_1_2"] == 5  # once, not twice
    assert wins["PAIR_1"] == 10
    assert wins["DOUBLE_SINGLE_1_1_2"] == 60
    assert wins["NUMBER_1"] == 2 and wins["NUMBER_2"] == 1
    assert wins["TOTAL_4"] == 60 and wins["SMALL"] == 1 and wins["EVEN"] == 1
    assert wins["TWO_ODD_ONE_EVEN"] == Fraction(3, 2)
    assert "FOUR_NUMBERS_1_2_3_4" not in wins  # repeats do not count
    assert not any(code.startswith("THREE_SINGLES") for code in wins)


def test_four_numbers_needs_three_different_numbers() -> None:
    assert sicbo.settle("FOUR_NUMBERS_1_2_3_4", (1, 2, 3), NONE) == ("win", 7)
    assert sicbo.settle("FOUR_NUMBERS_1_2_3_4", (4, 1, 3), NONE) == ("win", 7)
    assert sicbo.settle("FOUR_NUMBERS_1_2_3_4", (1, 1, 2), NONE)[0] == "lose"
    assert sicbo.settle("FOUR_NUMBERS_1_2_3_4", (2, 2, 2), NONE)[0] == "lose"
    assert sicbo.settle("FOUR_NUMBERS_1_2_3_4", (1, 2, 5), NONE)[0] == "lose"


@pytest.mark.parametrize("code", ["SMALL", "BIG", "ODD", "EVEN"])
@pytest.mark.parametrize("n", range(1, 7))
def test_even_money_bets_lose_on_every_triple(code: str, n: int) -> None:
    assert sicbo.settle(code, (n, n, n), NONE)[0] == "lose"


def test_pair_wins_on_its_triple() -> None:
    for n in range(1, 7):
        assert sicbo.settle(f"PAIR_{n}", (n, n, n), NONE) == ("win", 10)


def test_three_singles_any_order() -> None:
    assert sicbo.settle("THREE_SINGLES_1_3_4", (4, 1, 3), NONE) == ("win", 30)


def test_result_parsing() -> None:
    assert sicbo.parse_result({"dice": [6, 1, 3]}, NONE) == (6, 1, 3)
    bad = [
        [0, 1, 2],
        [1, 2, 7],
        [1, 2],
        [1, 2, 3, 4],
        [1.0, 2, 3],
        ["1", 2, 3],
        [True, 2, 3],
        None,
        "123",
    ]
    for dice in bad:
        with pytest.raises(sicbo.ResultError):
            sicbo.parse_result({"dice": dice}, NONE)
    with pytest.raises(sicbo.ResultError):
        sicbo.parse_result({"tokens": ["r", "r", "w", "w"]}, NONE)
    assert sicbo.result_view((6, 1, 3), NONE) == {"dice": [6, 1, 3], "total": 10}

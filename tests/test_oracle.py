"""The oracle against the hand-computed tables: wins and returns per selection over 216 rolls."""

from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from itertools import permutations

import pytest
from hand_tables import (
    ROLLS,
    SICBO_DECLARED_MAX_RTP_PERCENT,
    SICBO_MAX_RTP,
    XOCDIA_DECLARED_MAX_RTP_PERCENT,
    XOCDIA_MAX_RTP,
    XOCDIA_OUTCOMES,
    XOCDIA_TABLE,
    sicbo_hand_table,
)

from livecert.rules import (
    OutcomeError,
    PaytableError,
    Settlement,
    all_outcomes,
    as_percent,
    expected_settlement,
    load_paytable,
    round_to_minor,
    settle,
    theoretical_rtp,
)
from livecert.rules.money import MoneyError, parse_money
from livecert.rules.rtp import unit_return
from livecert.rules.settlement import _settle

PAYTABLE = load_paytable("sicbo")
HAND = sicbo_hand_table()


def test_the_paytable_has_exactly_the_110_selections_of_the_hand_table() -> None:
    assert {s.code for s in PAYTABLE.selections} == set(HAND)
    assert len(PAYTABLE.selections) == 110 == len(HAND)


def test_there_are_216_equally_likely_rolls() -> None:
    rolls = list(all_outcomes(PAYTABLE))
    assert len(rolls) == ROLLS == len(set(rolls))


@pytest.mark.parametrize("code", sorted(HAND))
def test_wins_and_return_over_216_rolls_match_the_hand_table(code: str) -> None:
    wins = sum(
        1 for roll in all_outcomes(PAYTABLE) if settle(PAYTABLE, code, roll).outcome == "win"
    )
    returned = sum(
        (unit_return(PAYTABLE, code, roll) for roll in all_outcomes(PAYTABLE)), Fraction()
    )
    assert (wins, returned) == HAND[code]
    assert theoretical_rtp(PAYTABLE, code) == HAND[code][1] / ROLLS


def test_the_maximum_rtp_is_97_22_percent_on_the_even_money_bets() -> None:
    rtps = {s.code: theoretical_rtp(PAYTABLE, s.code) for s in PAYTABLE.selections}
    assert max(rtps.values()) == SICBO_MAX_RTP == Fraction(35, 36)
    assert {c for c, r in rtps.items() if r == SICBO_MAX_RTP} == {"SMALL", "BIG", "ODD", "EVEN"}
    assert str(as_percent(SICBO_MAX_RTP, 2)) == SICBO_DECLARED_MAX_RTP_PERCENT
    assert PAYTABLE.declared_max_rtp_percent == SICBO_DECLARED_MAX_RTP_PERCENT


@pytest.mark.parametrize(
    ("code", "dice", "outcome", "odds", "clauses"),
    [
        ("SMALL", (3, 3, 3), "lose", 0, ("SB-PAY-16",)),
        ("BIG", (5, 5, 5), "lose", 0, ("SB-PAY-16",)),
        ("ODD", (1, 1, 1), "lose", 0, ("SB-PAY-16",)),
        ("EVEN", (2, 2, 2), "lose", 0, ("SB-PAY-16",)),
        ("TOTAL_9", (3, 3, 3), "win", 7, ("SB-PAY-08",)),
        ("PAIR_3", (3, 3, 3), "win", 10, ("SB-PAY-10",)),
        ("NUMBER_3", (3, 3, 3), "win", 3, ("SB-PAY-05",)),
        ("ALL_ODD", (3, 3, 3), "win", 6, ("SB-PAY-11",)),
        ("ANY_TRIPLE", (3, 3, 3), "win", 30, ("SB-PAY-07",)),
        ("TRIPLE_3", (3, 3, 3), "win", 180, ("SB-PAY-06",)),
        ("FOUR_NUMBERS_1_2_3_4", (1, 1, 2), "lose", 0, ("SB-PAY-15",)),
        ("DOUBLE_1_2", (1, 1, 2), "win", 5, ("SB-PAY-09",)),
        ("TWO_ODD_ONE_EVEN", (1, 3, 2), "win", Fraction(3, 2), ("SB-PAY-12",)),
        ("DOUBLE_SINGLE_6_6_3", (6, 3, 6), "win", 60, ("SB-PAY-14",)),
        ("THREE_SINGLES_1_3_4", (4, 1, 3), "win", 30, ("SB-PAY-13",)),
    ],
)
def test_the_readings_of_section_d(code, dice, outcome, odds, clauses) -> None:
    assert settle(PAYTABLE, code, dice) == Settlement(outcome, Fraction(odds), clauses)


@pytest.mark.parametrize(
    ("amount", "mode", "expected"),
    [
        ("0.015", "down", "0.01"),
        ("0.015", "up", "0.02"),
        ("0.015", "half-up", "0.02"),
        ("0.015", "half-even", "0.02"),
        ("0.045", "down", "0.04"),
        ("0.045", "up", "0.05"),
        ("0.045", "half-up", "0.05"),
        ("0.045", "half-even", "0.04"),
        ("18.525", "down", "18.52"),
        ("18.525", "up", "18.53"),
        ("18.525", "half-up", "18.53"),
        ("18.525", "half-even", "18.52"),
        ("1.1808", "down", "1.18"),
        ("1.1808", "half-up", "1.18"),
        ("1.1808", "up", "1.19"),
        ("15", "down", "15.00"),
        ("0", "up", "0.00"),
    ],
)
def test_rounding_rules_on_exact_amounts(amount: str, mode: str, expected: str) -> None:
    rounded = round_to_minor(Fraction(amount), 2, mode)
    assert str(rounded) == expected


@pytest.mark.parametrize(
    "text", ["1.00\n", " 1.00", "1e5", "NaN", "+1.00", "1.", ".5", "01.00", "１.00"]
)
def test_an_amount_not_of_the_contracts_shape_is_refused(text: str) -> None:
    """Decimal itself takes a surrounding newline, an exponent, NaN and other digits; the
    contract's money is `-?(0|[1-9][0-9]*)(\\.[0-9]+)?` and nothing around it, each time
    (a refusal is never remembered as an amount)."""
    for _ in range(2):
        with pytest.raises(MoneyError, match="is not a decimal string"):
            parse_money(text)


@pytest.mark.parametrize(
    ("text", "amount"),
    [("0", "0"), ("-0.50", "-0.50"), ("10.00", "10.00"), ("1" * 40 + ".25", "1" * 40 + ".25")],
)
def test_an_amount_of_the_contracts_shape_is_read_exactly(text: str, amount: str) -> None:
    assert parse_money(text) == Decimal(amount)
    assert str(parse_money(text)) == amount


def test_an_expected_settlement_in_money() -> None:
    e = expected_settlement(PAYTABLE, "TWO_EVEN_ONE_ODD", (2, 4, 1), Decimal("12.35"), 2, "down")
    assert (e.outcome, e.exact_win, e.win, e.returned) == (
        "win",
        Fraction("18.525"),
        Decimal("18.52"),
        Decimal("30.87"),
    )
    lost = expected_settlement(PAYTABLE, "SMALL", (6, 6, 6), Decimal("5.00"), 2, "down")
    assert (lost.outcome, lost.win, lost.returned) == ("lose", Decimal("0.00"), Decimal("0.00"))


@pytest.mark.parametrize("dice", [(0, 1, 2), (1, 2, 7), (1, 2), (1, 2, 3, 4), (1.0, 2, 3)])
def test_an_impossible_roll_is_refused_by_name(dice) -> None:
    with pytest.raises(OutcomeError, match="three dice of 1 to 6"):
        settle(PAYTABLE, "SMALL", dice)


@pytest.mark.parametrize("game", ["sicbo", "xocdia"])
def test_a_ruling_kept_for_one_order_is_the_rulings_of_every_order(game: str) -> None:
    """`settle` keeps a ruling per result in order; each order ruled afresh must agree."""
    paytable = load_paytable(game)
    for result in all_outcomes(paytable):
        for order in set(permutations(result)):
            for selection in paytable.selections:
                assert settle(paytable, selection.code, order) == _settle(
                    paytable, selection.code, order
                ), (selection.code, order)


def test_a_profiled_paytable_keeps_its_own_rulings() -> None:
    """A profile's table pays otherwise: it must never answer from the documents' rulings."""
    documents = load_paytable("sicbo")
    settle(documents, "TRIPLE_1", (1, 1, 1))
    profiled = replace(documents, selections=documents.selections, by_code={})
    assert profiled.rulings == {} and documents.rulings


def test_an_unknown_selection_is_refused_with_an_example() -> None:
    with pytest.raises(PaytableError, match=r"TOTAL_3.*e\.g\. 'SMALL'"):
        settle(PAYTABLE, "TOTAL_3", (1, 1, 1))


# -- Xoc Dia --------------------------------------------------------------------------------------

XOCDIA = load_paytable("xocdia")


def test_xocdia_has_16_equally_likely_results_and_10_selections() -> None:
    results = list(all_outcomes(XOCDIA))
    assert len(results) == XOCDIA_OUTCOMES == len(set(results))
    assert {s.code for s in XOCDIA.selections} == set(XOCDIA_TABLE)


@pytest.mark.parametrize("code", sorted(XOCDIA_TABLE))
def test_xocdia_wins_refunds_and_return_match_the_hand_table(code: str) -> None:
    rulings = [settle(XOCDIA, code, tokens).outcome for tokens in all_outcomes(XOCDIA)]
    returned = sum((unit_return(XOCDIA, code, t) for t in all_outcomes(XOCDIA)), Fraction())
    assert (rulings.count("win"), rulings.count("refund"), returned) == XOCDIA_TABLE[code]


def test_xocdia_maximum_rtp_is_98_75_percent_on_big_and_small() -> None:
    rtps = {s.code: theoretical_rtp(XOCDIA, s.code) for s in XOCDIA.selections}
    assert max(rtps.values()) == XOCDIA_MAX_RTP
    assert {c for c, r in rtps.items() if r == XOCDIA_MAX_RTP} == {"BIG", "SMALL"}
    assert str(as_percent(XOCDIA_MAX_RTP, 2)) == XOCDIA_DECLARED_MAX_RTP_PERCENT
    assert XOCDIA.declared_max_rtp_percent == XOCDIA_DECLARED_MAX_RTP_PERCENT


@pytest.mark.parametrize(
    ("code", "tokens", "outcome", "odds"),
    [
        ("BIG", "wwrr", "refund", 0),
        ("SMALL", "rwrw", "refund", 0),
        ("BIG", "wrrr", "win", Fraction("0.96")),
        ("SMALL", "wwwr", "win", Fraction("0.96")),
        ("BIG", "wwww", "lose", 0),
        ("EVEN", "wwrr", "win", Fraction("0.96")),
        ("ODD", "rrrw", "win", Fraction("0.96")),
        ("FOUR_OF_A_COLOUR", "rrrr", "win", Fraction("6.5")),
        ("FOUR_OF_A_COLOUR", "rrrw", "lose", 0),
        ("ONE_WHITE_THREE_RED", "rwrr", "win", Fraction("2.8")),
        ("THREE_WHITE_ONE_RED", "rwrr", "lose", 0),
    ],
)
def test_xocdia_rulings(code: str, tokens: str, outcome: str, odds) -> None:
    ruling = settle(XOCDIA, code, tuple(tokens))
    assert (ruling.outcome, ruling.odds) == (outcome, Fraction(odds))


@pytest.mark.parametrize(
    "tokens", [("r", "w", "r"), ("r",) * 5, ("r", "w", "x", "r"), ("R", "w", "r", "r"), ()]
)
def test_an_impossible_token_result_is_refused(tokens) -> None:
    with pytest.raises(OutcomeError, match="four tokens"):
        settle(XOCDIA, "BIG", tokens)


def test_a_refund_returns_the_stake_exactly() -> None:
    e = expected_settlement(XOCDIA, "BIG", tuple("wwrr"), Decimal("12.35"), 2, "down")
    assert (e.outcome, e.win, e.returned) == ("refund", Decimal("0.00"), Decimal("12.35"))
    won = expected_settlement(XOCDIA, "ODD", tuple("wrrr"), Decimal("1.23"), 2, "down")
    assert (won.exact_win, won.win, won.returned) == (
        Fraction("1.1808"),
        Decimal("1.18"),
        Decimal("2.41"),
    )

"""Settlements a casino writes per bet as texts in a list, each with the multiple of the stake
it paid: `["small (Won x1)", "big (Lost)"]` (livecert/adapters/mapping/reading.py, views.py).

The shape of a real PHP casino: no round or bet ids, the texts in the slip's order (`match:
order`), so a slip holding a code twice, or a negative stake beside a positive one, still reads
bet by bet without the balance's change.
"""

from decimal import Decimal
from pathlib import Path

import pytest
from test_mapping import a_round, adapter_for, load_problems, scripted
from test_mapping_instant import PLAYER

from livecert.adapters.errors import MappingAnswerError
from livecert.adapters.mapping.views import multiplied
from livecert.harness.settlement_check import check_bet
from livecert.rules import load_paytable


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_API_KEY", "s3cret-key")


TEXT = r"(?P<code>\w+) \((?P<result>Won|Lost|Push)(?: x(?P<times>\d+(?:[.,]\d+)?))?\)"


def _listed(data: dict, times: str = "win_multiplier", match: str | None = "order") -> None:
    """An instant Sic Bo table answering each bet's result as a text of a JSON list."""
    for name in ("open_round", "close_betting", "place_bets", "get_round", "enter_result"):
        data["operations"].pop(name)
    data["declares"]["capabilities"] = ["instant-round", "batch-bets"]
    data["selections"]["sicbo"].update({"SMALL": "small", "BIG": "big"})
    data["values"] = {**data.get("values", {}), "said": {"Won": "win", "Lost": "lose"}}
    data["values"]["said"]["Push"] = "refund"
    data["shapes"]["said_bet"] = {
        "selection": {"path": "code", "as": "selection"},
        "outcome": {"path": "result", "values": "said"},
        times: {"path": "times", "default": "0"},
    }
    bets = {"path": "said", "pattern": TEXT, "shape": "said_bet"}
    data["shapes"]["said_round"] = {
        **data["shapes"]["round"],
        "bets": {**bets, **({"match": match} if match else {})},
    }
    data["operations"]["play_round"] = {
        "role": "player",
        "request": {"method": "POST", "path": "/play", "json": {"bets": "${bets}"}},
        "answer": {"shape": "said_round"},
    }


def _played(tmp_path: Path, said: list, slip: list, change=_listed, dice=(1, 2, 3)):
    answer = a_round("settled", dice=list(dice), said=said)
    with scripted(lambda _: (200, {}, answer)) as (url, _):
        adapter = adapter_for(tmp_path, url, change)
        return adapter.play_round(PLAYER, "t1", slip, dice).bets


def test_each_text_of_the_list_settles_the_slips_bet_in_its_place(tmp_path: Path) -> None:
    """Small wins at x1 (net): 10.00 more; Big loses; the stakes are the slip's, in order."""
    small, big = _played(
        tmp_path,
        ["small (Won x1)", "big (Lost)"],
        [("SMALL", Decimal("10.00")), ("BIG", Decimal("5.00"))],
    )
    assert (small.selection, small.stake, small.outcome, small.win, small.returned) == (
        "SMALL",
        Decimal("10.00"),
        "win",
        Decimal("10.00"),
        Decimal("20.00"),
    )
    # the texts say no status: each bet is as settled as its round
    assert (small.status, big.status) == ("settled", "settled")
    assert (big.selection, big.stake, big.outcome, big.win, big.returned) == (
        "BIG",
        Decimal("5.00"),
        "lose",
        Decimal(0),
        Decimal(0),
    )


def test_a_code_twice_and_a_negative_stake_read_bet_by_bet_in_order(tmp_path: Path) -> None:
    """Two bets on Big (stakes 60.00 and 40.01) and a negative stake on Small: matched by
    position, each keeps its own stake, and the negative one's win is as negative as its
    stake (the balance it takes below zero is the money duties' to judge)."""
    first, second, small = _played(
        tmp_path,
        ["big (Lost)", "big (Lost)", "small (Won x1)"],
        [("BIG", Decimal("60.00")), ("BIG", Decimal("40.01")), ("SMALL", "-60.00")],
    )
    assert (first.stake, second.stake) == (Decimal("60.00"), Decimal("40.01"))
    assert (small.stake, small.win, small.returned) == (
        Decimal("-60.00"),
        Decimal("-60.00"),
        Decimal("-120.00"),
    )


def test_matched_by_code_a_code_twice_takes_one_stake(tmp_path: Path) -> None:
    """Without `match: order` a text names its bet by code: the slip's stake on that code
    (what a slip holding each code once needs, and all it can say)."""
    bets = _played(
        tmp_path,
        ["small (Won x1)", "big (Lost)"],
        [("SMALL", Decimal("3.00")), ("BIG", Decimal("4.00"))],
        change=lambda d: _listed(d, match=None),
    )
    assert [(b.selection, b.stake, b.returned) for b in bets] == [
        ("SMALL", Decimal("3.00"), Decimal("6.00")),
        ("BIG", Decimal("4.00"), Decimal(0)),
    ]


@pytest.mark.parametrize(
    ("times", "written", "stake", "win", "returned"),
    [
        # a net multiple: the win is the stake times it, in whole cents by the declared
        # rounding (down), the return the stake and the win
        ("win_multiplier", "0.96", "0.01", "0.00", "0.01"),
        ("win_multiplier", "0,96", "10.07", "9.66", "19.73"),
        ("win_multiplier", "6", "2.50", "15.00", "17.50"),
        # a gross multiple: the return is the stake times it
        ("return_multiplier", "1.96", "10.07", "9.66", "19.73"),
        ("return_multiplier", "7", "2.50", "15.00", "17.50"),
    ],
)
def test_a_multiple_of_the_stake_is_the_amount_under_the_declared_rounding(
    tmp_path: Path, times: str, written: str, stake: str, win: str, returned: str
) -> None:
    (bet,) = _played(
        tmp_path,
        [f"small (Won x{written})"],
        [("SMALL", Decimal(stake))],
        change=lambda d: _listed(d, times=times),
    )
    assert (bet.outcome, bet.win, bet.returned) == ("win", Decimal(win), Decimal(returned))


def test_the_declared_rounding_turns_a_multiple_into_whole_minor_units() -> None:
    """Hand-computed: 10.07 x 0.96 = 9.6672; 0.05 x 0.96 = 0.048; 0.25 x 1.5 = 0.375."""
    cases = [
        ("10.07", "0.96", "down", "9.66"),
        ("10.07", "0.96", "up", "9.67"),
        ("10.07", "0.96", "half-up", "9.67"),
        ("0.05", "0.96", "half-even", "0.05"),
        ("0.25", "1.5", "half-even", "0.38"),
        ("0.25", "1.5", "down", "0.37"),
    ]
    for stake, times, rounding, amount in cases:
        got = multiplied(Decimal(stake), Decimal(times), 2, rounding)
        assert got == Decimal(amount), (stake, times, rounding, got)


def test_a_list_entry_that_is_not_a_text_is_a_mapping_answer_error(tmp_path: Path) -> None:
    with pytest.raises(MappingAnswerError, match=r"said\[1\] with a pattern: 7 is not a text"):
        _played(tmp_path, ["small (Won x1)", 7], [("SMALL", Decimal(1)), ("BIG", Decimal(1))])


def test_a_multiplier_that_is_no_number_is_a_mapping_answer_error(tmp_path: Path) -> None:
    def lettered(data: dict) -> None:
        _listed(data)
        data["shapes"]["said_round"]["bets"]["pattern"] = (
            r"(?P<code>\w+) \((?P<result>Won|Lost)(?: x(?P<times>\S+))?\)"
        )

    with pytest.raises(MappingAnswerError, match="needs a multiplier"):
        _played(tmp_path, ["small (Won xone)"], [("SMALL", Decimal(1))], change=lettered)


def test_matching_by_order_belongs_on_a_rounds_bets_read_with_a_shape(tmp_path: Path) -> None:
    def misplaced(data: dict) -> None:
        _listed(data)
        data["shapes"]["said_round"]["state"] = {"path": "state", "match": "order"}

    problems = load_problems(tmp_path, misplaced)
    assert any("said_round.state.match: says how a round's bets meet" in p for p in problems)


def test_a_constant_multiplier_is_refused_at_load(tmp_path: Path) -> None:
    def constant(data: dict) -> None:
        _listed(data)
        data["shapes"]["said_bet"]["win_multiplier"] = {"const": "1"}

    problems = load_problems(tmp_path, constant)
    assert any("a constant win_multiplier would make" in p for p in problems), problems


def test_texts_out_of_the_slips_order_are_the_mappings_error_not_a_finding(
    tmp_path: Path,
) -> None:
    """`match: order` assumes the slip's order: a text naming another selection than the bet
    at its place, or another number of texts than bets, stops as a mapping answer error (the
    stakes would be swapped, and blamed on the target)."""
    slip = [("SMALL", Decimal("10.00")), ("BIG", Decimal("5.00"))]
    with pytest.raises(MappingAnswerError, match="not in the slip's order"):
        _played(tmp_path, ["big (Lost)", "small (Won x1)"], slip)
    with pytest.raises(MappingAnswerError, match="lists 1 for a slip of 2 bet"):
        _played(tmp_path, ["small (Won x1)"], slip)


def test_a_multiple_between_minor_units_is_judged_on_its_odds_alone(tmp_path: Path) -> None:
    """0.07 at x0.96 wins 0.0672 exactly: the bet carries that exact win (its rounding is the
    balance's to show), and the settlement check compares the odds, not an amount the
    declared rounding made: Odd's 0.96:1 matches, 0.95:1 does not."""
    table = load_paytable("xocdia")
    outcome = ("r", "w", "w", "w")  # one red: Odd wins

    def xocdia(data: dict) -> None:
        _listed(data)
        data["selections"]["xocdia"]["ODD"] = "odd"

    for times, matches in (("0.96", True), ("0.95", False)):
        answer = {
            "id": "r1", "table": "t1", "game": "xocdia", "state": "settled", "bets": [],
            "dice": None, "tokens": ["r", "w", "w", "w"], "said": [f"odd (Won x{times})"],
        }  # fmt: skip
        with scripted(lambda _, a=answer: (200, {}, a)) as (url, _):
            adapter = adapter_for(tmp_path, url, xocdia)
            (bet,) = adapter.play_round(PLAYER, "t1", [("ODD", Decimal("0.07"))], outcome).bets
        assert bet.exact_win == Decimal("0.07") * Decimal(times)
        assert bet.win == Decimal("0.06")  # the declared rounding (down), for the evidence
        assert check_bet(table, bet, outcome, 2, "down").matches is matches, times


def test_a_negative_stakes_multiple_rounds_by_magnitude_as_the_rules_do() -> None:
    """-0.07 x 0.96 = -0.0672: down is toward zero (-0.06), as rules/money.py rounds."""
    assert multiplied(Decimal("-0.07"), Decimal("0.96"), 2, "down") == Decimal("-0.06")
    assert multiplied(Decimal("-0.07"), Decimal("0.96"), 2, "up") == Decimal("-0.07")


def test_a_live_rounds_bet_that_says_no_status_stays_unread(tmp_path: Path) -> None:
    """Only an instant round's bets are as settled as their round (the one request played
    and settled them): a live round read with bets that say only what was placed keeps their
    settlement unshown, to be judged where it shows, never assumed."""

    def placed_only(data: dict) -> None:
        data["shapes"]["bet"] = {
            "bet_id": "id",
            "selection": {"path": "pick", "as": "selection"},
            "stake": {"path": "amount", "as": "money"},
        }

    bet = {"id": "b1", "pick": "big", "amount": 1}
    answer = a_round("done", dice=[6, 5, 4], bets=[bet])
    with scripted(lambda _: (200, {}, answer)) as (url, _):
        adapter = adapter_for(tmp_path, url, placed_only)
        (read,) = adapter.get_round("r1").bets
    assert (read.status, read.outcome, read.returned) == (None, None, None)
    assert read.settlement_unshown

"""Each seeded Xoc Dia fault changes behaviour as its catalogue entry says, and nothing else."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

import pytest
from reference_support import DEALER

from livecert.reference import faults, xocdia

NONE: frozenset[str] = frozenset()
RESULTS = [tuple(t) for t in product("rw", repeat=4)]
POINT_96 = Fraction(96, 100)
LOSS = ("lose", Fraction(0))
REFUND = ("refund", Fraction(0))


def _differences(fault: str) -> dict[tuple[str, tuple[str, ...]], tuple[Any, Any]]:
    """Every (selection, result) whose settlement the fault changes: (correct, faulty)."""
    out = {}
    with_fault = frozenset({fault})
    for code in xocdia.all_selections():
        for tokens in RESULTS:
            good, bad = xocdia.settle(code, tokens, NONE), xocdia.settle(code, tokens, with_fault)
            if good != bad:
                out[(code, tokens)] = (good, bad)
    return out


def _red(tokens: tuple[str, ...]) -> int:
    return tokens.count("r")


def test_xocdia_faults_are_catalogued_with_xd_clauses() -> None:
    names = list(faults.FAULTS)[20:40]
    assert len(names) == 20
    # but the rounding fault: a win rounded the other way breaks the rounding duty alone
    rounding = {"point-ninety-six-rounds-the-wrong-way": ("REG-SETTLE-01",)}
    assert all(
        any(c.startswith("XD-") for c in faults.FAULTS[n].clauses)
        or faults.FAULTS[n].clauses == rounding.get(n)
        for n in names
    )


def test_big_loses_on_two_two() -> None:
    diff = _differences("big-loses-on-two-two")
    assert len(diff) == 6 and {code for code, _ in diff} == {"BIG"}
    assert all(_red(t) == 2 and v == (REFUND, LOSS) for (_, t), v in diff.items())


def test_big_paid_on_two_two() -> None:
    diff = _differences("big-paid-on-two-two")
    assert len(diff) == 6 and {code for code, _ in diff} == {"BIG"}
    assert set(diff.values()) == {(REFUND, ("win", POINT_96))}


def test_small_loses_on_two_two() -> None:
    diff = _differences("small-loses-on-two-two")
    assert len(diff) == 6 and {code for code, _ in diff} == {"SMALL"}
    assert set(diff.values()) == {(REFUND, LOSS)}


def test_odd_even_pay_1_to_1() -> None:
    diff = _differences("odd-even-pay-1-to-1")
    assert len(diff) == 16 and {code for code, _ in diff} == {"ODD", "EVEN"}
    assert set(diff.values()) == {(("win", POINT_96), ("win", 1))}


def test_one_white_three_red_paid_as_three_white_one_red() -> None:
    diff = _differences("one-white-three-red-paid-as-three-white-one-red")
    assert len(diff) == 8 and {code for code, _ in diff} == {"ONE_WHITE_THREE_RED"}
    for (_, tokens), (good, bad) in diff.items():
        if _red(tokens) == 3:
            assert (good, bad) == (("win", Fraction(14, 5)), LOSS)
        else:
            assert _red(tokens) == 1 and (good, bad) == (LOSS, ("win", Fraction(14, 5)))


def test_four_of_a_colour_paid_on_three() -> None:
    diff = _differences("four-of-a-colour-paid-on-three")
    assert len(diff) == 8 and {code for code, _ in diff} == {"FOUR_OF_A_COLOUR"}
    assert set(diff.values()) == {(LOSS, ("win", Fraction(13, 2)))}


@pytest.mark.parametrize(
    ("fault", "code", "good", "bad", "count"),
    [
        ("four-red-pays-10-to-1", "FOUR_RED", 14, 10, 1),
        ("two-two-pays-1-to-1", "TWO_TWO", Fraction(3, 2), 1, 6),
        ("three-white-one-red-pays-2-to-1", "THREE_WHITE_ONE_RED", Fraction(14, 5), 2, 4),
        ("four-white-pays-10-to-1", "FOUR_WHITE", 14, 10, 1),
    ],
)
def test_wrong_odds(fault: str, code: str, good: Any, bad: Any, count: int) -> None:
    diff = _differences(fault)
    assert len(diff) == count and {c for c, _ in diff} == {code}
    assert set(diff.values()) == {(("win", good), ("win", bad))}


def test_point_ninety_six_rounds_the_wrong_way(make_app: Any) -> None:
    fault = frozenset({"point-ninety-six-rounds-the-wrong-way"})
    for declared, wrong in (("down", "up"), ("up", "down"), ("half-up", "down")):
        assert xocdia.rounding_mode("ODD", declared, fault) == wrong
    for code in ("ODD", "EVEN", "BIG", "SMALL"):
        assert xocdia.rounding_mode(code, "half-even", fault) == "down"
        assert xocdia.rounding_mode(code, "down", NONE) == "down"
    assert xocdia.rounding_mode("TWO_TWO", "down", fault) == "down"
    _api, casino = make_app(rounding="down", faults=fault)
    _pid, player = casino.player()
    rnd = casino.play_xocdia(
        player, ["w", "r", "w", "w"], ("ODD", "1.23"), ("SMALL", "1.23"), ("FOUR_RED", "0.01")
    )
    assert [b["win"] for b in rnd["bets"]] == ["1.19", "1.19", "0.00"]
    rnd = casino.play_xocdia(player, ["r", "w", "w", "r"], ("TWO_TWO", "0.01"))
    assert rnd["bets"][0]["win"] == "0.01"  # 1.5:1 keeps the declared rule


def test_early_reveal_settled(make_app: Any) -> None:
    _api, casino = make_app(faults=frozenset({"early-reveal-settled"}))
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table("xocdia"))
    casino.bet(round_id, player, ("FOUR_RED", "1.00"))
    casino.event(round_id, "shake")
    rnd = casino.tokens(round_id, ["r", "r", "r", "r"]).json()
    assert rnd["state"] == "settled" and rnd["bets"][0]["win"] == "14.00"


def test_unshaken_round_settled(make_app: Any) -> None:
    _api, casino = make_app(faults=frozenset({"unshaken-round-settled"}))
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table("xocdia"))
    casino.bet(round_id, player, ("FOUR_RED", "1.00"))
    casino.close(round_id)
    rnd = casino.tokens(round_id, ["r", "r", "r", "r"]).json()
    assert rnd["state"] == "settled" and rnd["bets"][0]["win"] == "14.00"
    # an early reveal still voids
    round_id = casino.open(casino.table("xocdia"))
    assert casino.tokens(round_id, ["r", "r", "r", "r"]).json()["state"] == "void"


def test_void_keeps_stakes(make_app: Any) -> None:
    _api, casino = make_app(faults=frozenset({"void-keeps-stakes"}))
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table("xocdia"))
    casino.bet(round_id, player, ("BIG", "10.00"))
    rnd = casino.tokens(round_id, ["r", "r", "r", "r"]).json()
    assert rnd["state"] == "void"
    assert rnd["bets"][0]["status"] == "void" and rnd["bets"][0]["returned"] == "0.00"
    assert casino.balance(player) == "90.00"
    round_id = casino.open(casino.table("xocdia"))  # a cancel still refunds
    casino.bet(round_id, player, ("BIG", "10.00"))
    casino.event(round_id, "bowl-touched-token")
    assert casino.balance(player) == "90.00"
    round_id = casino.open(casino.table())  # Sic Bo voids are untouched
    casino.bet(round_id, player, ("BIG", "10.00"))
    casino.api.post(f"/v1/rounds/{round_id}/void", json={"reason": "x"}, headers=DEALER)
    assert casino.balance(player) == "90.00"


def test_bowl_touch_ignored(make_app: Any) -> None:
    _api, casino = make_app(faults=frozenset({"bowl-touch-ignored"}))
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table("xocdia"))
    casino.bet(round_id, player, ("FOUR_WHITE", "1.00"))
    casino.event(round_id, "shake")
    casino.close(round_id)
    rnd = casino.event(round_id, "bowl-touched-token").json()
    assert rnd["state"] == "closed" and rnd["events"][-1]["type"] == "bowl-touched-token"
    rnd = casino.tokens(round_id, ["w", "w", "w", "w"]).json()
    assert rnd["state"] == "settled" and casino.balance(player) == "114.00"


def test_rearrange_voids_round(make_app: Any) -> None:
    _api, casino = make_app(faults=frozenset({"rearrange-voids-round"}))
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table("xocdia"))
    casino.bet(round_id, player, ("TWO_TWO", "5.00"))
    casino.event(round_id, "shake")
    casino.close(round_id)
    rnd = casino.event(round_id, "rearrange").json()
    assert rnd["state"] == "void" and rnd["bets"][0]["returned"] == "5.00"
    assert casino.balance(player) == "100.00"


def test_reshake_returns_bets(make_app: Any) -> None:
    _api, casino = make_app(faults=frozenset({"reshake-returns-bets"}))
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table("xocdia"))
    casino.bet(round_id, player, ("SMALL", "5.00"))
    casino.event(round_id, "shake")
    casino.close(round_id)
    rnd = casino.reshake(round_id, "standing-token").json()
    assert rnd["state"] == "closed"
    assert rnd["bets"][0]["status"] == "void" and rnd["bets"][0]["returned"] == "5.00"
    assert casino.balance(player) == "100.00"


def test_bets_accepted_after_betting_closed(make_app: Any) -> None:
    _api, casino = make_app(faults=frozenset({"bets-accepted-after-betting-closed"}))
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table("xocdia"))
    casino.event(round_id, "shake")
    casino.close(round_id)
    assert casino.bet(round_id, player, ("BIG", "1.00")).status_code == 201
    casino.reshake(round_id, "items-fell")
    assert casino.bet(round_id, player, ("SMALL", "1.00")).status_code == 201
    assert casino.balance(player) == "98.00"
    sicbo_round = casino.open(casino.table())
    casino.close(sicbo_round)
    assert casino.bet(sicbo_round, player, ("BIG", "1.00")).status_code == 409


def test_bad_token_accepted(make_app: Any) -> None:
    _api, casino = make_app(faults=frozenset({"bad-token-accepted"}))
    _pid, player = casino.player("100.00")
    rnd = casino.play_xocdia(player, ["x", "r", "r", "r"], ("ONE_WHITE_THREE_RED", "1.00"))
    assert rnd["state"] == "settled"
    assert rnd["result"] == {"tokens": ["w", "r", "r", "r"], "red": 3, "white": 1}
    assert rnd["bets"][0]["win"] == "2.80"
    round_id = casino.open(casino.table("xocdia"))
    casino.event(round_id, "shake")
    casino.close(round_id)
    assert casino.tokens(round_id, ["r", "r", "w"]).status_code == 422  # shape still checked


def test_declares_wrong_max_rtp_xocdia(make_app: Any) -> None:
    api, _casino = make_app(faults=frozenset({"declares-wrong-max-rtp-xocdia"}))
    assert api.get("/v1/info").json()["max_rtp"] == {"sicbo": "97.22", "xocdia": "99.00"}

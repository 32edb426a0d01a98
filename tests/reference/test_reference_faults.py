"""Each seeded fault changes behaviour as its catalogue entry says; the catalogue is exact."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

import pytest
from reference_support import DEALER

from livecert.reference import faults, sicbo

NONE: frozenset[str] = frozenset()
ROLLS = list(product(range(1, 7), repeat=3))

EXPECTED_CATALOGUE = """\
small-wins-on-triple SB-PAY-16,REG-SETTLE-01,REG-RTP-01,SB-RTP-01
total-10-pays-7-to-1 SB-PAY-08,REG-SETTLE-01,REG-RTP-01,SB-RTP-01
number-on-three-dice-pays-2-to-1 SB-PAY-05,REG-SETTLE-01,REG-RTP-01
two-odd-one-even-pays-1-to-1 SB-PAY-12,REG-SETTLE-01,REG-RTP-01
four-numbers-counts-repeats SB-PAY-15,REG-SETTLE-01,REG-RTP-01,SB-RTP-01
pair-loses-on-triple SB-PAY-10,REG-SETTLE-01,REG-RTP-01
double-pays-twice SB-PAY-09,REG-SETTLE-01,REG-RTP-01
three-to-two-rounds-wrong-way REG-SETTLE-01
small-includes-eleven SB-PAY-01,REG-SETTLE-01,REG-RTP-01,SB-RTP-01
big-includes-ten SB-PAY-02,REG-SETTLE-01,REG-RTP-01,SB-RTP-01
odd-pays-2-to-1 SB-PAY-03,REG-SETTLE-01,REG-RTP-01,SB-RTP-01
even-loses-on-total-4 SB-PAY-04,REG-SETTLE-01,REG-RTP-01
specific-triple-pays-150 SB-PAY-06,REG-SETTLE-01,REG-RTP-01
any-triple-pays-24 SB-PAY-07,REG-SETTLE-01,REG-RTP-01
all-even-pays-5-to-1 SB-PAY-11,REG-SETTLE-01,REG-RTP-01
three-singles-ordered SB-PAY-13,REG-SETTLE-01,REG-RTP-01
double-single-ignores-single SB-PAY-14,REG-SETTLE-01,REG-RTP-01,SB-RTP-01
declares-wrong-max-rtp SB-RTP-01,REG-RTP-01
die-out-of-range-accepted SB-GEN-01,REG-INPUT-01
total-misreported SB-GEN-01
big-loses-on-two-two XD-PAY-09,REG-SETTLE-01,REG-RTP-01
big-paid-on-two-two XD-PAY-09,REG-SETTLE-01,REG-RTP-01,XD-RTP-01
small-loses-on-two-two XD-PAY-10,REG-SETTLE-01,REG-RTP-01
odd-even-pay-1-to-1 XD-PAY-07,XD-PAY-08,REG-SETTLE-01,REG-RTP-01,XD-RTP-01
one-white-three-red-paid-as-three-white-one-red XD-PAY-02,REG-SETTLE-01
four-of-a-colour-paid-on-three XD-PAY-06,REG-SETTLE-01,REG-RTP-01,XD-RTP-01
four-red-pays-10-to-1 XD-PAY-01,REG-SETTLE-01,REG-RTP-01
two-two-pays-1-to-1 XD-PAY-03,REG-SETTLE-01,REG-RTP-01
three-white-one-red-pays-2-to-1 XD-PAY-04,REG-SETTLE-01,REG-RTP-01
four-white-pays-10-to-1 XD-PAY-05,REG-SETTLE-01,REG-RTP-01
point-ninety-six-rounds-the-wrong-way REG-SETTLE-01
early-reveal-settled XD-VOID-01
unshaken-round-settled XD-VOID-01
void-keeps-stakes XD-VOID-01
bowl-touch-ignored XD-VOID-02
rearrange-voids-round XD-RND-02
reshake-returns-bets XD-RND-03,XD-RND-04
bets-accepted-after-betting-closed XD-RND-01,REG-COMMIT-01
bad-token-accepted XD-GEN-01,REG-INPUT-01
declares-wrong-max-rtp-xocdia XD-RTP-01,REG-RTP-01
countdown-not-enforced SB-RND-01,XD-RND-01,REG-COMMIT-01
sicbo-bets-after-close-accepted SB-RND-01,SB-RND-04,REG-COMMIT-01
bets-after-result-accepted SB-RND-01,XD-RND-01,REG-COMMIT-01
result-settles-twice REG-MONEY-01,REG-INPUT-01
withdrawal-allowed SB-RND-04
withdrawal-allowed-after-close SB-RND-04
sicbo-reshake-returns-bets SB-RND-05,SB-RND-06,SB-RND-04
reshake-takes-bets SB-RND-04,REG-COMMIT-01
reshake-reopens-betting SB-RND-04,XD-RND-01,REG-COMMIT-01
paused-round-takes-bets TBL-MAL-01
paused-round-takes-result TBL-MAL-01
resume-voids-bets TBL-MAL-02
resume-reopens-betting SB-RND-01,REG-COMMIT-01
cancel-refunds-nothing TBL-MAL-03
cancel-refunds-twice REG-MONEY-01
cancel-skips-disconnected TBL-DISC-02,TBL-MAL-03
disconnect-voids-bets TBL-DISC-02,TBL-DISC-01
disconnected-player-not-paid TBL-DISC-02
rejoin-settles-twice REG-MONEY-01,TBL-DISC-02
record-missing-stake TBL-DISC-03,REG-RECALL-01
record-shows-other-players REG-ACCESS-01
record-balance-after-wrong REG-RECALL-01
statistics-30-rounds SB-STAT-01
statistics-oldest-first SB-STAT-01
statistics-includes-cancelled SB-STAT-01
idempotency-ignored REG-IDEMP-01
idempotency-key-recorded-late REG-IDEMP-01
idempotency-key-forgotten-at-close REG-IDEMP-01
player-can-deal REG-ACCESS-01
player-sees-others-bets REG-ACCESS-01
stake-zero-accepted REG-INPUT-01
partial-slip-accepted REG-INPUT-01
empty-or-garbled-slip-accepted REG-INPUT-01
slip-content-type-ignored REG-INPUT-01
stake-number-accepted REG-INPUT-01
lax-body-reader REG-INPUT-01
stake-over-limit-accepted REG-LIMIT-01
stake-at-limit-refused REG-LIMIT-01
negative-balance-allowed REG-BAL-01,REG-INPUT-01
lost-update-under-concurrency REG-MONEY-01
interrupted-round-lost REG-INTR-01
interrupted-bet-lost REG-INTR-01
one-slip-per-round SB-RND-02
winnings-not-credited SB-RND-03,REG-MONEY-01
loaded-die REG-FAIR-01
sticky-die REG-FAIR-02
red-biased-token REG-FAIR-01
balance-as-number CONTRACT-02
record-missing-balance-after CONTRACT-02
round-state-in-capitals CONTRACT-02
result-answers-another-round CONTRACT-03
open-round-answers-200 CONTRACT-01
info-money-as-numbers CONTRACT-02
history-repeats-round REG-RECALL-01 int:1..12
history-skips-round REG-RECALL-01 int:1..12
history-shows-wrong-result REG-RECALL-01 int:1..12
idempotency-key-forgotten-after REG-IDEMP-01 int:200..5000
idempotency-key-per-table CONTRACT-03,REG-IDEMP-01 int:1000..5000
wins-from-an-amount-rounded-half-up REG-SETTLE-01 money:0.01..1.84
cancel-refund-uncredited TBL-MAL-03,REG-MONEY-01 money:0.01..50000.00
void-pays-winners XD-VOID-01,REG-MONEY-01 money:0.01..50000.00
disconnected-win-uncredited TBL-DISC-02,REG-MONEY-01 money:0.01..50000.00
row-pays-wrong-from-stake XD-PAY-01,REG-SETTLE-01 money:1.01..50000.00
record-balance-wrong-rounds-back REG-RECALL-01 int:1..6
record-wrong-above-stake REG-RECALL-01 money:0.01..50000.00
refund-wrong-on-cents TBL-MAL-03,XD-VOID-01 int:2..10
"""


def test_catalogue_is_exact() -> None:
    assert "\n".join(faults.listing()) + "\n" == EXPECTED_CATALOGUE
    assert len(faults.FAULTS) == 106
    assert all(f.description for f in faults.FAULTS.values())


def test_unknown_fault_names_are_refused() -> None:
    with pytest.raises(ValueError, match="valid faults: small-wins-on-triple"):
        faults.check(["small-wins-on-triple", "no-such-fault"])


def _differences(fault: str) -> dict[tuple[str, tuple[int, ...]], tuple[Any, Any]]:
    """Every (selection, roll) whose settlement the fault changes: (correct, faulty)."""
    out = {}
    with_fault = frozenset({fault})
    for code in sicbo.all_selections():
        for dice in ROLLS:
            good, bad = sicbo.settle(code, dice, NONE), sicbo.settle(code, dice, with_fault)
            if good != bad:
                out[(code, dice)] = (good, bad)
    return out


WIN1 = ("win", Fraction(1))
LOSS = ("lose", Fraction(0))


def test_small_wins_on_triple() -> None:
    assert _differences("small-wins-on-triple") == {
        ("SMALL", (2, 2, 2)): (LOSS, WIN1),
        ("SMALL", (3, 3, 3)): (LOSS, WIN1),
    }


def test_total_10_pays_7_to_1() -> None:
    diff = _differences("total-10-pays-7-to-1")
    assert len(diff) == 27
    assert all(code == "TOTAL_10" and bad == ("win", 7) for (code, _), (_, bad) in diff.items())


def test_number_on_three_dice_pays_2_to_1() -> None:
    assert _differences("number-on-three-dice-pays-2-to-1") == {
        (f"NUMBER_{n}", (n, n, n)): (("win", 3), ("win", 2)) for n in range(1, 7)
    }


def test_two_odd_one_even_pays_1_to_1() -> None:
    diff = _differences("two-odd-one-even-pays-1-to-1")
    assert len(diff) == 81
    assert set(diff.values()) == {(("win", Fraction(3, 2)), WIN1)}
    assert {code for code, _ in diff} == {"TWO_ODD_ONE_EVEN"}


def test_four_numbers_counts_repeats() -> None:
    diff = _differences("four-numbers-counts-repeats")
    assert diff[("FOUR_NUMBERS_1_2_3_4", (1, 1, 2))] == (LOSS, ("win", 7))
    assert all(good == LOSS for good, _bad in diff.values())
    assert len(diff) == 4 * (64 - 24)


def test_pair_loses_on_triple() -> None:
    assert _differences("pair-loses-on-triple") == {
        (f"PAIR_{n}", (n, n, n)): (("win", 10), LOSS) for n in range(1, 7)
    }


def test_double_pays_twice() -> None:
    diff = _differences("double-pays-twice")
    assert diff[("DOUBLE_1_2", (1, 1, 2))] == (("win", 5), ("win", 10))
    assert len(diff) == 15 * 6  # per double: 2 repeated numbers x 3 positions


def test_three_to_two_rounds_wrong_way(make_app: Any) -> None:
    _api, casino = make_app(rounding="down", faults=frozenset({"three-to-two-rounds-wrong-way"}))
    _pid, player = casino.player()
    rnd = casino.play(
        player,
        [1, 3, 2],
        ("TWO_ODD_ONE_EVEN", "0.03"),
        ("TWO_EVEN_ONE_ODD", "0.03"),
        ("NUMBER_1", "0.03"),
    )
    assert [b["win"] for b in rnd["bets"]] == ["0.05", "0.00", "0.03"]
    for declared, wrong in (
        ("up", "down"),
        ("half-up", "down"),
        ("half-even", "down"),
        ("down", "up"),
    ):
        assert (
            sicbo.rounding_mode(
                "TWO_EVEN_ONE_ODD", declared, frozenset({"three-to-two-rounds-wrong-way"})
            )
            == wrong
        )
        assert sicbo.rounding_mode("TWO_EVEN_ONE_ODD", declared, NONE) == declared


def test_small_includes_eleven() -> None:
    diff = _differences("small-includes-eleven")
    assert len(diff) == 27 and {code for code, _ in diff} == {"SMALL"}
    assert all(sum(dice) == 11 for _, dice in diff)


def test_big_includes_ten() -> None:
    diff = _differences("big-includes-ten")
    assert len(diff) == 27 and {code for code, _ in diff} == {"BIG"}
    assert all(sum(dice) == 10 for _, dice in diff)


def test_odd_pays_2_to_1() -> None:
    diff = _differences("odd-pays-2-to-1")
    assert len(diff) == 105 and set(diff.values()) == {(WIN1, ("win", 2))}


def test_even_loses_on_total_4() -> None:
    diff = _differences("even-loses-on-total-4")
    assert set(diff) == {("EVEN", (1, 1, 2)), ("EVEN", (1, 2, 1)), ("EVEN", (2, 1, 1))}


def test_specific_triple_pays_150() -> None:
    assert _differences("specific-triple-pays-150") == {
        (f"TRIPLE_{n}", (n, n, n)): (("win", 180), ("win", 150)) for n in range(1, 7)
    }


def test_any_triple_pays_24() -> None:
    assert _differences("any-triple-pays-24") == {
        ("ANY_TRIPLE", (n, n, n)): (("win", 30), ("win", 24)) for n in range(1, 7)
    }


def test_all_even_pays_5_to_1() -> None:
    diff = _differences("all-even-pays-5-to-1")
    assert len(diff) == 27 and set(diff.values()) == {(("win", 6), ("win", 5))}


def test_three_singles_ordered() -> None:
    diff = _differences("three-singles-ordered")
    assert ("THREE_SINGLES_1_3_4", (4, 1, 3)) in diff
    assert ("THREE_SINGLES_1_3_4", (1, 3, 4)) not in diff
    assert len(diff) == 20 * 5 and all(bad == LOSS for _good, bad in diff.values())


def test_double_single_ignores_single() -> None:
    diff = _differences("double-single-ignores-single")
    assert diff[("DOUBLE_SINGLE_2_2_3", (2, 2, 5))] == (LOSS, ("win", 60))
    assert all(good == LOSS for good, _bad in diff.values())


def test_declares_wrong_max_rtp(make_app: Any) -> None:
    api, _casino = make_app(faults=frozenset({"declares-wrong-max-rtp"}))
    assert api.get("/v1/info").json()["max_rtp"] == {"sicbo": "97.50", "xocdia": "98.75"}


@pytest.mark.parametrize("dice", [[0, 1, 2], [1, 2, 7]])
def test_die_out_of_range_accepted(make_app: Any, dice: list[int]) -> None:
    _api, casino = make_app(check=False, faults=frozenset({"die-out-of-range-accepted"}))
    _pid, player = casino.player("100.00")
    rnd = casino.play(player, dice, ("NUMBER_1", "1.00"))
    assert rnd["state"] == "settled" and rnd["result"]["dice"] == dice
    assert rnd["bets"][0]["outcome"] == "win"


def test_total_misreported(make_app: Any) -> None:
    api, casino = make_app(faults=frozenset({"total-misreported"}))
    _pid, player = casino.player("100.00")
    table = casino.table()
    rnd = casino.play(player, [1, 2, 3], ("TOTAL_6", "1.00"), table_id=table)
    assert rnd["result"] == {"dice": [1, 2, 3], "total": 7}
    assert rnd["bets"][0]["outcome"] == "win"  # settlement itself is correct
    stats = api.get(f"/v1/tables/{table}/statistics", headers=DEALER).json()
    assert stats["results"][0]["result"]["total"] == 7


def test_settlement_faults_reach_the_api(make_app: Any) -> None:
    _api, casino = make_app(faults=frozenset({"small-wins-on-triple", "pair-loses-on-triple"}))
    _pid, player = casino.player("100.00")
    rnd = casino.play(player, [3, 3, 3], ("SMALL", "1.00"), ("PAIR_3", "1.00"))
    assert [b["outcome"] for b in rnd["bets"]] == ["win", "lose"]

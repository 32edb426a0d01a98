"""A settlement differing from the exact amount only by the rounding direction fails the rounding
duty, REG-SETTLE-01, alone (RULES.md F; the rule is the one the target declares, RULES.md D
"money"): the paytable row's odds gave the exact win. Any other difference still fails the row.
By hand on the oracle's rows, then the reference rounding half-up from a drawn amount."""

import json
from decimal import Decimal

import pytest
from cli_support import certify_through

from livecert.adapters.model import BetView
from livecert.harness.checks import CheckLedger
from livecert.harness.embedded import EmbeddedServer
from livecert.harness.settlement_check import check_bet, judge_slip, settled_clauses
from livecert.rules import expected_settlement, load_paytable

D = Decimal
XOCDIA = load_paytable("xocdia")
TWO_TWO = ("w", "w", "r", "r")  # two white two red: TWO_TWO wins 1.5:1 (XD-PAY-03)


def _settled(win: str, returned: str, stake: str = "1.23", outcome: str = "win") -> BetView:
    return BetView("b1", "r1", "p1", "TWO_TWO", D(stake), "settled", outcome, D(win), D(returned))


@pytest.mark.parametrize(
    ("win", "returned", "clauses"),
    [
        # 1.23 x 1.5 = 1.845: "down" 1.84; half-up (or up) 1.85 is the rounding's alone
        ("1.85", "3.08", ("REG-SETTLE-01",)),
        # a cent more than either rounding, or returned other than stake + win: the row's too
        ("1.86", "3.09", ("XD-PAY-03", "REG-SETTLE-01")),
        ("1.85", "3.07", ("XD-PAY-03", "REG-SETTLE-01")),
        ("1.23", "2.46", ("XD-PAY-03", "REG-SETTLE-01")),  # paid 1:1, not 1.5:1
    ],
)
def test_only_a_rounding_difference_is_the_rounding_duty_alone(win, returned, clauses) -> None:
    bet = _settled(win, returned)
    row = check_bet(XOCDIA, bet, TWO_TWO, 2, "down")
    assert not row.matches
    assert row.clauses == clauses
    expected = expected_settlement(XOCDIA, "TWO_TWO", TWO_TWO, D("1.23"), 2, "down")
    assert settled_clauses(expected, bet, 2, "down") == clauses
    checks = CheckLedger(["XD-PAY-03", "REG-SETTLE-01"])
    failures = judge_slip(checks, XOCDIA, [("TWO_TWO", D("1.23"))], [bet], TWO_TWO, 2, "down")
    assert [f.clauses for f in failures] == [clauses]
    assert set(checks.as_record()["clauses"]) == set(clauses)  # the row not judged either way


def test_a_win_on_a_whole_cent_has_no_rounding_to_blame() -> None:
    """10.00 x 1.5 = 15.00 exactly: 15.01 is no rule's rounding of it."""
    row = check_bet(XOCDIA, _settled("15.01", "25.01", "10.00"), TWO_TWO, 2, "down")
    assert row.clauses == ("XD-PAY-03", "REG-SETTLE-01")


def test_a_settlement_right_but_for_the_outcome_named_is_the_rows() -> None:
    row = check_bet(XOCDIA, _settled("1.85", "3.08", outcome="lose"), TWO_TWO, 2, "down")
    assert row.clauses == ("XD-PAY-03", "REG-SETTLE-01")


ROUNDED_ROWS = "REG-SETTLE-01,XD-PAY-02,XD-PAY-03,XD-PAY-07,XD-PAY-08,XD-PAY-09,XD-PAY-10"


@pytest.mark.parametrize("amount", ["0.01", "1.84"])  # the fault's range, both ends
def test_a_server_rounding_half_up_from_an_amount_fails_the_rounding_duty_alone(
    tmp_path, amount: str
) -> None:
    """Declaring "down", the reference rounds half-up every win of at least `amount`: the Xoc
    Dia stakes feature's wins round apart (1.845 the largest), and only REG-SETTLE-01 fails,
    not the fractional rows whose bets it rounded."""
    fault = f"wins-from-an-amount-rounded-half-up={amount}"
    with EmbeddedServer(faults=(fault,)) as server:
        status, certificate, output = certify_through(
            tmp_path, server.url, server, "xocdia", ROUNDED_ROWS
        )
    assert status == 1, output[-3000:]
    failed = sorted(c for c, row in certificate["clauses"].items() if row["status"] == "failed")
    assert failed == ["REG-SETTLE-01"], output[-3000:]
    first = certificate["clauses"]["REG-SETTLE-01"]["checks"]["first_failure"]
    assert "declared rule" in json.dumps(first), first

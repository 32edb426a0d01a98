"""The CheckLedger: what a scenario's checks judged, per clause."""

from decimal import Decimal

import pytest

from livecert.harness.checks import CheckLedger
from livecert.harness.findings import ClauseFailure


def test_a_held_check_counts_for_each_tagged_clause_and_keeps_one_sample() -> None:
    ledger = CheckLedger(["SB-PAY-01", "REG-SETTLE-01"])
    ledger.held(["SB-PAY-01", "REG-SETTLE-01"], "SMALL on 1 2 3 won 1.00")
    ledger.held(["SB-PAY-01", "REG-SETTLE-01"], "SMALL on 1 2 4 won 1.00")
    record = ledger.as_record()["clauses"]
    assert record["SB-PAY-01"] == {
        "ran": 2,
        "held": 2,
        "failed": [],
        "sample": "SMALL on 1 2 3 won 1.00",
    }


def test_a_failed_check_is_raised_once_and_booked_once() -> None:
    ledger = CheckLedger(["SB-PAY-08"])
    with pytest.raises(ClauseFailure) as raised:
        ledger.check(False, ["SB-PAY-08"], "TOTAL_10 paid 7:1")
    ledger.record_failure(raised.value)  # the evidence plugin books what it meets: not again
    tally = ledger.clauses["SB-PAY-08"]
    assert (tally.ran, tally.held, len(tally.failures)) == (1, 0, 1)
    assert "TOTAL_10 paid 7:1 [breaks SB-PAY-08]" in tally.failures[0]


def test_a_check_on_a_clause_the_scenario_is_not_tagged_with_judges_nothing_there() -> None:
    ledger = CheckLedger(["TBL-DISC-02"])
    with pytest.raises(ClauseFailure):
        ledger.check(False, ["SB-PAY-02"], "BIG lost on 4 5 6")
    assert "SB-PAY-02" not in ledger.clauses
    assert ledger.as_record()["untagged"]["SB-PAY-02"]["ran"] == 1
    assert ledger.ran_for("TBL-DISC-02") == 0


def test_a_finding_of_its_own_judges_its_clause_in_any_scenario() -> None:
    ledger = CheckLedger(["SB-PAY-01"])
    ledger.record_failure(ClauseFailure("a bet answer for round r2", ["REG-COMMIT-01"]), True)
    assert ledger.clauses["REG-COMMIT-01"].failed == 1


IN_PASSING = ("REG-SETTLE-01", "REG-COMMIT-01")


def test_a_duty_shown_in_passing_is_judged_by_a_check_naming_no_tagged_clause() -> None:
    """A Total 10 settled wrong in a scenario about money alone: REG-SETTLE-01 judges it, the
    row it names stays apart (untagged)."""
    ledger = CheckLedger(["REG-MONEY-01"], IN_PASSING)
    with pytest.raises(ClauseFailure):
        ledger.check(False, ["SB-PAY-08", "REG-SETTLE-01"], "TOTAL_10 paid 7:1")
    assert ledger.clauses["REG-SETTLE-01"].failed == 1
    assert "SB-PAY-08" not in ledger.clauses
    assert ledger.untagged["SB-PAY-08"].ran == 1


def test_a_duty_in_passing_stays_apart_where_the_check_names_a_tagged_clause() -> None:
    ledger = CheckLedger(["SB-PAY-08"], IN_PASSING)
    ledger.held(["SB-PAY-08", "REG-SETTLE-01"], "TOTAL_10 paid 6:1")
    assert ledger.ran_for("SB-PAY-08") == 1
    assert "REG-SETTLE-01" not in ledger.clauses
    assert ledger.untagged["REG-SETTLE-01"].held == 1


def test_a_check_made_judge_untagged_fails_its_clauses_anywhere_and_credits_none() -> None:
    ledger = CheckLedger(["SB-PAY-08"], IN_PASSING)
    with pytest.raises(ClauseFailure):
        ledger.check(False, ["SB-RND-01"], "betting still open", judge_untagged=True)
    ledger.check(True, ["REG-COMMIT-01", "SB-RND-01"], "closed", judge_untagged=True)
    assert (ledger.clauses["SB-RND-01"].ran, ledger.clauses["SB-RND-01"].held) == (1, 0)
    assert (
        "REG-COMMIT-01" not in ledger.clauses
    )  # a hold credits no clause the scenario is not about
    assert ledger.untagged["SB-RND-01"].held == 1


def test_a_duty_in_passing_is_never_credited_by_a_check_that_held() -> None:
    ledger = CheckLedger(["REG-MONEY-01"], IN_PASSING)
    ledger.held(["REG-SETTLE-01"], "TOTAL_10 paid 6:1")
    assert "REG-SETTLE-01" not in ledger.clauses
    assert ledger.untagged["REG-SETTLE-01"].held == 1


def test_every_failed_check_keeps_its_evidence() -> None:
    ledger = CheckLedger(["REG-SETTLE-01"])
    for code in range(120):
        ledger.failed(["REG-SETTLE-01"], f"selection {code} settled wrong")
    assert len(ledger.clauses["REG-SETTLE-01"].failures) == 120


def test_the_evidence_table_writes_a_settlement_as_expected_once_and_a_mismatch_in_full() -> None:
    from livecert.harness.settlement_check import SettlementRow, rows_as_table
    from livecert.rules import expected_settlement, load_paytable

    paytable = load_paytable("sicbo")
    small = expected_settlement(paytable, "SMALL", (1, 2, 3), Decimal("1.00"), 2, "down")
    big = expected_settlement(paytable, "BIG", (1, 2, 3), Decimal("1.00"), 2, "down")
    rows = [
        SettlementRow("SMALL", Decimal("1.00"), small, "win", Decimal("1.00"), Decimal("2.00"),
                      "settled", True),
        SettlementRow("BIG", Decimal("1.00"), big, "win", Decimal("1.00"), Decimal("2.00"),
                      "settled", True),
    ]  # fmt: skip
    lines = rows_as_table(rows).splitlines()
    assert lines[3] == "SMALL | 1.00 | win | 1.00 | 2.00 | ="
    assert (
        lines[4] == "BIG | 1.00 | lose | 0.00 | 0.00 | settled/win | win 1.00 | returned 2.00 | NO"
    )

"""`livecert load`: players at tables on Locust, then every balance and bet reconciled through
the bet record to the cent. The reconciliation is checked by hand on made-up records; the load
itself on the reference, clean (reconciled) and with the seeded `lost-update-under-concurrency`
fault (concurrent slips of one player lose debits: non-compliant on REG-MONEY-01)."""

import json
from decimal import Decimal

import pytest
from cli_support import livecert

from livecert.adapters.model import BetRecord, BetView
from livecert.load.reconcile import PlayerBook, Reconciliation, reconcile_player

D = Decimal


def _bet(bet_id: str, selection: str, stake: str, returned: str | None, round_id: str = "r1"):
    status = "open" if returned is None else "settled"
    return BetView(bet_id, round_id, "p1", selection, D(stake), status, None, None,
                   None if returned is None else D(returned))  # fmt: skip


def _reconcile(book, bets, balance, results=None, abandoned=frozenset()):
    record = BetRecord("p1", tuple(bets), ())
    results = results if results is not None else {"r1": (1, 2, 3)}
    return reconcile_player(book, record, D(balance), results, set(abandoned), "sicbo", 2, "down")


def _book(**accepted: str) -> PlayerBook:
    return PlayerBook("p1", D("100.00"), {k: D(v) for k, v in accepted.items()})


# 1-2-3: total 6 is SMALL (wins 1:1: 2.00 back on 1.00); BIG loses; a SINGLE_1 wins 1:1
def test_a_record_that_adds_up_to_the_cent_reconciles() -> None:
    bets = [_bet("b1", "SMALL", "1.00", "2.00"), _bet("b2", "BIG", "0.01", "0.00")]
    problems, checked, money_in, money_out, unsettled = _reconcile(
        _book(b1="1.00", b2="0.01"),
        bets,
        "100.99",  # 100 - 1.01 + 2.00
    )
    assert (problems, checked, money_in, money_out, unsettled) == ([], 2, D("1.01"), D("2.00"), 0)


@pytest.mark.parametrize(
    ("bets", "balance", "found"),
    [
        ([_bet("b1", "SMALL", "1.00", "2.00")], "101.01", "balance 101.01, expected 101.00"),
        ([], "100.00", "accepted bet b1 is missing from the bet record"),
        (
            [_bet("b1", "SMALL", "1.00", "2.00"), _bet("b1", "SMALL", "1.00", "2.00")],
            "102.00",
            "bet b1 is in the record 2 times",
        ),
        ([_bet("b1", "SMALL", "1.00", "1.00")], "100.00", "returning 1.00, expected 2.00"),
        (
            [_bet("b1", "SMALL", "1.00", "2.00"), _bet("b9", "BIG", "5.00", "0.00")],
            "96.00",
            "the record holds bets never placed: b9",
        ),
    ],
    ids=["money created", "a bet lost", "settled twice", "paid short", "a bet never placed"],
)
def test_each_way_money_goes_wrong_is_found(bets, balance, found) -> None:
    problems, *_ = _reconcile(_book(b1="1.00"), bets, balance)
    assert any(found in p for p in problems), problems


def test_a_bet_from_a_slip_without_an_answer_is_allowed_and_still_counted() -> None:
    book = _book(b1="1.00")
    book.unanswered_slips = 1
    bets = [_bet("b1", "SMALL", "1.00", "2.00"), _bet("b9", "BIG", "5.00", "0.00")]
    problems, checked, *_ = _reconcile(book, bets, "96.00")  # 100 - 6 + 2
    assert problems == [] and checked == 2


def test_bets_of_a_round_the_dealer_could_not_settle_leave_the_run_incomplete() -> None:
    bets = [_bet("b1", "SMALL", "1.00", None, round_id="r2")]
    problems, _, _, _, unsettled = _reconcile(
        _book(b1="1.00"), bets, "99.00", results={}, abandoned={"r2"}
    )
    assert problems == [] and unsettled == 1
    assert Reconciliation(players=1, reconciled=1, bets_checked=1, unsettled=1).verdict == (
        "incomplete"
    )
    assert Reconciliation(players=1, reconciled=1, bets_checked=1).verdict == "compliant"
    assert Reconciliation(players=2, reconciled=1, bets_checked=1).verdict == "incomplete"


def _load(tmp_path, *args: str) -> tuple[int, dict, str]:
    done = livecert(
        "load", "--players", "20", "--tables", "4", "--duration", "10",
        "--report-dir", str(tmp_path), *args,
    )  # fmt: skip
    report = json.loads((tmp_path / "load.json").read_text(encoding="utf-8"))
    return done.returncode, report, done.stdout + done.stderr


@pytest.mark.timing
def test_twenty_players_for_ten_seconds_reconcile_to_the_cent(tmp_path) -> None:
    status, report, output = _load(tmp_path)
    money, load = report["reconciliation"], report["load"]
    assert status == 0, output
    assert money["verdict"] == "compliant" and money["reconciled"] == money["players"] == 20
    assert money["bets_checked"] > 100 and money["problem_count"] == 0
    assert load["requests"] > 200 and load["failures"] == 0
    assert load["p50_ms"] is not None and load["p95_ms"] >= load["p50_ms"]
    assert "REG-MONEY-01: COMPLIANT" in output


@pytest.mark.timing
def test_lost_updates_under_load_are_caught_on_the_money_clause(tmp_path) -> None:
    status, report, output = _load(tmp_path, "--reference-fault", "lost-update-under-concurrency")
    money = report["reconciliation"]
    assert status == 1, output
    assert money["verdict"] == "non-compliant" and money["clause"] == "REG-MONEY-01"
    assert any("balance" in p and "expected" in p for p in money["problems"])

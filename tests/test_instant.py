"""The instant-round helpers: random slips over the whole range of stakes, the losing result an
over-the-balance slip is tried on, and the adapter check (livecert/harness/instant.py)."""

import random
from decimal import Decimal
from types import SimpleNamespace

import pytest

from livecert.adapters.errors import Unsupported
from livecert.adapters.model import PlayerHandle, RoundView
from livecert.harness.checks import CheckLedger
from livecert.harness.instant import (
    InstantPlay,
    losing_outcome,
    random_slip,
    require_instant,
    stake_taken_as,
    stake_up_to,
)
from livecert.rules import load_paytable
from livecert.suite.steps.instant import below_zero

CENT = Decimal("0.01")
CODES = ["BIG", "SMALL", "ODD", "EVEN", "TOTAL_10", "PAIR_3"]


@pytest.mark.parametrize("balance", [Decimal("0.01"), Decimal("5.00"), Decimal("1000000.00")])
def test_a_random_slip_stays_within_the_balance_in_whole_cents(balance: Decimal) -> None:
    rng = random.Random(7)
    for _ in range(500):
        slip = random_slip(rng, CODES, balance, 2)
        assert 1 <= len(slip) <= 4
        assert len({code for code, _ in slip}) == len(slip)  # distinct selections
        assert all(stake >= CENT and stake % CENT == 0 for _, stake in slip)
        assert sum(stake for _, stake in slip) <= balance


@pytest.mark.parametrize("balance", [Decimal("0.01"), Decimal("0.02"), Decimal("250.00")])
def test_an_over_the_balance_slip_is_one_cent_over_it(balance: Decimal) -> None:
    rng = random.Random(3)
    for _ in range(200):
        slip = random_slip(rng, CODES, balance, 2, over_balance=True)
        assert sum(stake for _, stake in slip) == balance + CENT
        assert all(stake >= CENT for _, stake in slip)


def test_stakes_span_a_cent_to_the_whole_balance() -> None:
    rng = random.Random(11)
    most = Decimal("1000000.00")
    drawn = [stake_up_to(rng, most, 2) for _ in range(3000)]
    assert min(drawn) == CENT and max(drawn) <= most
    assert any(s < 1 for s in drawn)  # cents
    assert any(Decimal(10) <= s <= Decimal(100) for s in drawn)  # ordinary stakes
    assert any(s >= Decimal(100000) for s in drawn)  # very large ones
    assert stake_up_to(rng, Decimal("0.004"), 2) == CENT  # less than a cent: the smallest


def test_the_losing_result_of_big_is_one_where_big_loses_outright() -> None:
    dice = losing_outcome(load_paytable("sicbo"), ["BIG"])
    # Big wins on totals 11 to 17 unless the dice are a triple (SB-PAY-01)
    assert sum(dice) <= 10 or len(set(dice)) == 1
    tokens = losing_outcome(load_paytable("xocdia"), ["BIG"])
    # Big wins on three or four red and is returned on two (XD-PAY-09): it loses on 0 or 1 red
    assert tokens.count("r") <= 1


class _LiveOnly:
    """An adapter with no instant-round operation."""


class _Instant:
    def play_round(self, *args, **kwargs): ...


def test_an_adapter_without_an_instant_round_cannot_play_one_where_the_target_has_them() -> None:
    with pytest.raises(Unsupported, match="has no instant-round operation"):
        require_instant(_LiveOnly(), ("instant-round",))
    require_instant(_Instant(), ("instant-round",))
    require_instant(_LiveOnly(), ())  # not declared: the scenario's marker skips it first


def test_a_taken_slip_with_stakes_sent_as_text_counts_what_they_write() -> None:
    """A faulty table that takes "-5.00" (sent as text) staked -5.00; "abc" staked nothing."""
    slip = (("BIG", Decimal("10.00")), ("SMALL", "-5.00"), ("ODD", "abc"))
    taken = InstantPlay("P1", slip, (1, 2, 3), RoundView("r1", "t1", "sicbo", "settled", None, ()))
    assert taken.staked == Decimal("5.00")
    assert "staked 5.00" in taken.describe()
    assert InstantPlay("P1", slip, (1, 2, 3)).staked == 0


def test_a_stake_finer_than_the_currency_is_said_truncated_or_rounded() -> None:
    """A slip of "1.005" (or "1.009") taken and lost: the balance says what was taken, and the
    finding says so, not a win of some odd amount."""
    lost = RoundView("", "t1", "sicbo", "settled", None, (), ())
    tried = InstantPlay("P1", (("BIG", "1.005"),), (1, 1, 2), lost)
    dec = Decimal
    assert stake_taken_as(tried, dec("100.00"), dec("99.00"), 2) == (
        "the stake 1.005 was taken as 1.00 (truncated to the currency)"
    )
    assert stake_taken_as(tried, dec("100.00"), dec("98.99"), 2) == (
        "the stake 1.005 was taken as 1.01 (rounded to the currency)"
    )
    assert stake_taken_as(tried, dec("100.00"), dec("100.00"), 2) == ""  # nothing taken
    whole = InstantPlay("P1", (("BIG", "1.00"),), (1, 1, 2), lost)
    assert stake_taken_as(whole, dec("100.00"), dec("99.00"), 2) == ""  # a whole stake
    refused = InstantPlay("P1", (("BIG", "1.005"),), (1, 1, 2))
    assert stake_taken_as(refused, dec("100.00"), dec("99.00"), 2) == ""


def test_every_balance_read_after_instant_rounds_is_judged_against_zero() -> None:
    """The races, the access and the idempotency checks read balances for their own duties;
    each read also judges REG-BAL-01: below zero, a failure judged there though it is not
    tagged (every failure booked, the first returned to raise); not below zero, a check held
    on an untagged clause, crediting nothing."""
    ledger = CheckLedger(judged=["REG-MONEY-01"])
    players = {"P1": PlayerHandle("p1", "t1"), "P2": PlayerHandle("p2", "t2")}
    scene = SimpleNamespace(checks=ledger, adapter=object(), players=players)
    failure = below_zero(scene, {"P1": Decimal("-0.01"), "P2": Decimal("-5.00")})
    assert failure is not None and failure.clauses == ("REG-BAL-01",)
    assert "p1's balance is below zero: -0.01" in str(failure)
    booked = ledger.as_record()["clauses"]["REG-BAL-01"]
    assert (booked["ran"], booked["held"], len(booked["failed"])) == (2, 0, 2)
    held = CheckLedger(judged=["REG-MONEY-01"])
    scene = SimpleNamespace(checks=held, adapter=object(), players=players)
    assert below_zero(scene, {"P1": Decimal("0.00")}) is None
    assert "REG-BAL-01" not in held.as_record()["clauses"]  # held, but not tagged: no credit

"""Values built many times a sweep round without their frozen dataclass's `__init__`
(`BetView.reported` in livecert/adapters/model.py, `SettlementRow.of` in
livecert/harness/settlement_check.py): each must be the value the dataclass builds, in every
respect."""

import dataclasses
from decimal import Decimal

import pytest

from livecert.adapters.model import BetView
from livecert.harness.settlement_check import SettlementRow
from livecert.rules import expected_settlement, load_paytable

NAMED = ("b-1", "r-1", "p-1", "BIG", Decimal("1.00"), "settled", "win", Decimal("1.00"))


@pytest.mark.parametrize("returned", [Decimal("2.00"), None])
def test_a_reported_bet_is_the_bet_the_dataclass_builds(returned: Decimal | None) -> None:
    built, reported = BetView(*NAMED, returned), BetView.reported(*NAMED, returned)
    assert reported == built and hash(reported) == hash(built) and repr(reported) == repr(built)
    # every field, the defaults too, and nothing else
    assert vars(reported) == vars(built)
    assert list(vars(reported)) == [f.name for f in dataclasses.fields(BetView)]
    assert dataclasses.replace(reported, status="open") == dataclasses.replace(built, status="open")


def test_a_reported_bet_stays_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        BetView.reported(*NAMED, None).stake = Decimal("5.00")  # type: ignore[misc]


@pytest.mark.parametrize(("exact_win", "outcome_read"), [(None, True), (Decimal("0.96"), False)])
def test_a_checked_row_is_the_row_the_dataclass_builds(
    exact_win: Decimal | None, outcome_read: bool
) -> None:
    bet = dataclasses.replace(
        BetView(*NAMED, Decimal("2.00")), exact_win=exact_win, outcome_read=outcome_read
    )
    expected = expected_settlement(load_paytable("sicbo"), "BIG", (4, 5, 6), bet.stake, 2, "down")
    built = SettlementRow(
        bet.selection, bet.stake, expected, bet.outcome, bet.win, bet.returned, bet.status,
        bet.outcome_read, 3, "half-up", bet.exact_win,
    )  # fmt: skip
    row = SettlementRow.of(bet, expected, 3, "half-up")
    assert row == built and hash(row) == hash(built) and repr(row) == repr(built)
    assert list(vars(row)) == [f.name for f in dataclasses.fields(SettlementRow)]
    assert vars(row) == vars(built) and row.matches == built.matches
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.stake = Decimal("5.00")  # type: ignore[misc]


@pytest.mark.parametrize("kind", [BetView, SettlementRow])
def test_what_the_shortcut_skips_is_not_there(kind: type) -> None:
    """Built from the instance dict, a value skips `__post_init__` and needs a `__dict__`; a
    subclass would be built as its parent."""
    assert not hasattr(kind, "__post_init__") and "__slots__" not in vars(kind)
    assert kind.__subclasses__() == []

"""A balance read while the scenario's bet is still open on a table that shows no bet's status
before it settles (a live table's acknowledgement lists the bet taken, nothing more): the bet is
open, nothing returned, and the balance is judged as its start less the stake. Reported by a
live table's idempotency scenario, which the harness called its own error ("the player's
balance is checked before the round settled")."""

from decimal import Decimal
from types import SimpleNamespace

import pytest

from livecert.adapters.errors import Unsupported
from livecert.adapters.model import BetView, PlayerHandle, RoundView, TargetInfo
from livecert.harness.checks import CheckLedger
from livecert.harness.findings import ClauseFailure
from livecert.suite.fixtures.scene import PlacedBet, Scene
from livecert.suite.steps.common import balance_is

D = Decimal
ACKED = BetView("b1", "r1", "p1", "BIG", D("10.00"), None, None, None, None)  # type: ignore[arg-type]


class _Table:
    """A live table: the bet as acknowledged, the round in whatever state its clock is in."""

    def __init__(self, state: str, balance: str) -> None:
        self.state, self.shown = state, D(balance)

    def balance(self, player: PlayerHandle) -> Decimal:
        return self.shown

    def get_round(self, round_id: str, player: PlayerHandle | None = None) -> RoundView:
        return RoundView(round_id, "t1", "sicbo", self.state, None, (ACKED,), echoed=True)


def _scene(table: _Table) -> Scene:
    info = TargetInfo("t", "1", "1", ("sicbo",), "EUR", 2, "down", {}, ())
    scene = Scene(SimpleNamespace(adapter=table, info=info), {})  # type: ignore[arg-type]
    scene.created["player"] = PlayerHandle("p1", "token")
    scene.starting_balances["player"] = D("100.00")
    scene.round = RoundView("r1", "t1", "sicbo", "betting", None, (), echoed=True)
    scene.bets.append(PlacedBet("Big", "BIG", D("10.00"), "player", ACKED))
    scene.checks = CheckLedger(("REG-MONEY-01", "REG-SETTLE-01"))
    return scene


@pytest.mark.parametrize("state", ["betting", "closed"])
def test_a_bet_still_open_leaves_the_start_less_its_stake(state: str) -> None:
    scene = _scene(_Table(state, "90.00"))
    balance_is(scene, "90.00")
    tallies = scene.checks.clauses
    assert tallies["REG-MONEY-01"].held >= 1 and not tallies["REG-MONEY-01"].failed


def test_a_bet_still_open_and_a_balance_short_fails_the_money() -> None:
    scene = _scene(_Table("betting", "80.00"))
    with pytest.raises(ClauseFailure, match=r"balance is 80\.00"):
        balance_is(scene, "90.00")
    assert scene.checks.clauses["REG-MONEY-01"].failed


def test_a_round_the_table_finished_by_itself_is_not_judged_as_open() -> None:
    scene = _scene(_Table("settled", "90.00"))
    with pytest.raises(Unsupported, match="finished round r1 by itself"):
        balance_is(scene, "90.00")

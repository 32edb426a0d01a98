"""A live table's clock closing a round before the harness's first bet of a scenario, or a
sweep's slip, reaches it (a busy machine, a short betting time, a slip of 110 bets): the refusal
is nothing of the target's, and the bet goes to the table's next round, a few times at most
(fixtures/scene.py `place`, livecert/harness/sweep.py `bet_on_every_selection`)."""

from decimal import Decimal
from types import SimpleNamespace

import pytest

from livecert.adapters.errors import Refused, Unsupported
from livecert.adapters.model import BetView, PlayerHandle, RoundView, TargetInfo
from livecert.harness.checks import CheckLedger
from livecert.harness.sweep import bet_on_every_selection
from livecert.rules import load_paytable
from livecert.suite.fixtures.scene import LATE_TRIES, LateForTheTable, Scene
from livecert.suite.steps.bad_input import action_in_the_wrong_state

# a table closing betting on its own clock
pytestmark = pytest.mark.timing

D = Decimal


class _TimerTable:
    """Opens rounds r1, r2, ...; closes the first `late` of them before any bet reaches it."""

    def __init__(self, late: int, own_clock: bool = True) -> None:
        self.late, self.own_clock = late, own_clock
        self.opened: list[str] = []
        self.bets: list[str] = []

    def own_countdown(self) -> str | None:
        return "the table runs its own betting time" if self.own_clock else None

    def open_round(self, table_id: str, countdown_ms: int | None = None) -> RoundView:
        self.opened.append(f"r{len(self.opened) + 1}")
        return RoundView(self.opened[-1], table_id, "sicbo", "betting", None, ())

    def create_player(self, balance: Decimal) -> PlayerHandle:
        return PlayerHandle("p1", "token")

    def place_bets(self, player, round_id, bets, idempotency_key=None) -> list[BetView]:
        if len(self.opened) <= self.late:
            raise Refused("place", 200, "CLOSED", "betting is closed", "the table closed first")
        self.bets.append(round_id)
        return [
            BetView(f"b{k}", round_id, "p1", code, stake, None, None, None, None)  # type: ignore[arg-type]
            for k, (code, stake) in enumerate(bets, 1)
        ]


def _scene(table: _TimerTable) -> Scene:
    info = TargetInfo("t", "1", "1", ("sicbo",), "EUR", 2, "down", {}, ())
    scene = Scene(SimpleNamespace(adapter=table, info=info), {})  # type: ignore[arg-type]
    scene.own_table = "t1"
    scene.checks = CheckLedger(("SB-PAY-01",))
    return scene


def test_a_first_bet_late_for_the_table_goes_to_its_next_round() -> None:
    table = _TimerTable(late=1)
    placed = _scene(table).place("Small", D("10.00"))
    assert (table.opened, table.bets, placed.view.round_id) == (["r1", "r2"], ["r2"], "r2")


def test_late_every_time_is_the_harness_error_it_was() -> None:
    table = _TimerTable(late=LATE_TRIES)
    with pytest.raises(LateForTheTable, match="the harness was late"):
        _scene(table).place("Small", D("10.00"))
    assert len(table.opened) == LATE_TRIES and not table.bets


def test_a_round_the_scenario_bet_on_or_a_table_it_drives_is_never_left() -> None:
    table = _TimerTable(late=1, own_clock=False)  # the dealer's countdown is the scenario's
    with pytest.raises(LateForTheTable):
        _scene(table).place("Small", D("10.00"))
    assert table.opened == ["r1"]
    table = _TimerTable(late=0)
    scene = _scene(table)
    scene.place("Small", D("10.00"))
    table.late = 5  # the round now closes on the second bet: the first stands where it is
    with pytest.raises(LateForTheTable):
        scene.place("Big", D("10.00"))
    assert table.opened == ["r1"]


def test_an_open_round_the_table_closed_meanwhile_is_no_open_round_to_try_a_result_on() -> None:
    """'The dealer tries to enter the result on the open round': where the table's clock closed
    the round before the attempt (the bet's answer came late), a result it then takes says
    nothing of an open round's: not testable, never REG-INPUT-01's finding."""
    table = _TimerTable(late=0)
    table.get_round = lambda round_id, player=None: RoundView(  # type: ignore[attr-defined]
        round_id, "t1", "sicbo", "closed", None, ()
    )
    scene = _scene(table)
    scene.target.info = TargetInfo("t", "1", "1", ("sicbo",), "EUR", 2, "down", {}, ())
    scene.place("Small", D("10.00"))
    with pytest.raises(Unsupported, match="closed round r1 on its own clock"):
        action_in_the_wrong_state(scene, "enter the result on", "open")


@pytest.mark.parametrize("late", range(LATE_TRIES))
def test_a_sweep_slip_late_for_the_table_goes_to_its_next_round(late: int) -> None:
    table = _TimerTable(late=late)
    swept = bet_on_every_selection(table, load_paytable("sicbo"), "t1")  # type: ignore[arg-type]
    rounds = [f"r{k}" for k in range(1, late + 2)]
    assert (table.opened, table.bets, swept.round_id) == (rounds, [rounds[-1]], rounds[-1])
    assert len(swept.placed) == len(load_paytable("sicbo").selections)


def test_a_sweep_slip_late_every_time_or_refused_otherwise_is_raised() -> None:
    table = _TimerTable(late=LATE_TRIES)
    with pytest.raises(Refused, match="betting is closed"):
        bet_on_every_selection(table, load_paytable("sicbo"), "t1")  # type: ignore[arg-type]
    assert len(table.opened) == LATE_TRIES and not table.bets

    class _Refusing(_TimerTable):  # a refusal the table's clock does not explain: the target's
        def place_bets(self, player, round_id, bets, idempotency_key=None) -> list[BetView]:
            raise Refused("place", 400, "LIMIT", "over the limit")

    table = _Refusing(late=0)
    with pytest.raises(Refused, match="over the limit"):
        bet_on_every_selection(table, load_paytable("sicbo"), "t1")  # type: ignore[arg-type]
    assert table.opened == ["r1"]


def test_a_sweep_slip_closed_midway_is_never_sent_again() -> None:
    """A slip sent a bet at a time whose round closed after some were taken: those bets are the
    target's, so the slip is not sent again (a second round would bet them twice)."""

    class _Midway(_TimerTable):
        def place_bets(self, player, round_id, bets, idempotency_key=None) -> list[BetView]:
            refused = Refused("place", 200, "CLOSED", "betting is closed", "the table closed first")
            refused.taken = super().place_bets(player, round_id, bets[:3])
            raise refused

    table = _Midway(late=0)
    with pytest.raises(Refused, match="betting is closed") as raised:
        bet_on_every_selection(table, load_paytable("sicbo"), "t1")  # type: ignore[arg-type]
    assert table.opened == ["r1"] and len(raised.value.taken) == 3

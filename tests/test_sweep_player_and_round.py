"""A sweep round asks for its player and its round at once where the target allows it.

The contract's players are the operator's, made whether or not a round is open, so the two
requests are independent; a mapping's target may make players only into a live round, so there
the player still comes first. Tested with stand-in adapters: whether both were in flight together
is told by a barrier both must reach, not by a clock.
"""

import threading
from decimal import Decimal

import pytest

from livecert.adapters.errors import TargetError
from livecert.adapters.evidence import Exchange, ExchangeRecorder
from livecert.adapters.model import PlayerHandle, RoundView
from livecert.harness.sweep import bet_on_every_selection
from livecert.harness.vocabulary import paytable

SICBO = paytable("sicbo")


class _StandIn:
    """Records each request in its recorder; `together` makes the player and the round wait for
    each other (a barrier of two), `fails` names the operations that raise."""

    players_need_no_round = True

    def __init__(self, together: bool, fails: frozenset[str] = frozenset()) -> None:
        self.recorder = ExchangeRecorder()
        self.calls: list[str] = []
        self.fails = fails
        self.barrier = threading.Barrier(2, timeout=5) if together else None

    def _request(self, operation: str) -> None:
        self.calls.append(operation)
        exchange = Exchange(
            self.recorder.next_seq(), operation, "operator", "POST", "/x", None, 200, None, 1.0
        )
        self.recorder.add(exchange)
        if self.barrier is not None and operation != "place":
            self.barrier.wait()
        if operation in self.fails:
            raise TargetError(operation, "answered 503")

    def create_player(self, balance: Decimal) -> PlayerHandle:
        self._request("create a test player")
        return PlayerHandle("p1", "tok-p1")

    def open_round(self, table_id: str, countdown_ms: int | None = None) -> RoundView:
        self._request("open a round")
        return RoundView("r1", table_id, "sicbo", "betting", None, (), ())

    def place_bets(self, player, round_id, bets, idempotency_key=None) -> list:
        self._request("place")
        return []


def test_the_player_and_the_round_are_asked_for_at_once() -> None:
    adapter = _StandIn(together=True)  # a barrier of two: it breaks unless both are in flight
    swept = bet_on_every_selection(adapter, SICBO, "t1")  # type: ignore[arg-type]
    assert (swept.player.player_id, swept.round_id) == ("p1", "r1")
    assert sorted(adapter.calls[:2]) == ["create a test player", "open a round"]
    assert adapter.calls[2] == "place"


def test_where_the_target_may_need_a_round_the_player_still_comes_first() -> None:
    adapter = _StandIn(together=False)
    adapter.players_need_no_round = False  # type: ignore[misc]
    bet_on_every_selection(adapter, SICBO, "t1")  # type: ignore[arg-type]
    assert adapter.calls == ["create a test player", "open a round", "place"]


@pytest.mark.parametrize(
    ("fails", "raised"),
    [
        ({"create a test player"}, "create a test player"),
        ({"open a round"}, "open a round"),
        ({"create a test player", "open a round"}, "create a test player"),  # as if it came first
    ],
)
def test_a_failure_is_raised_as_when_the_player_comes_first(fails: set, raised: str) -> None:
    adapter = _StandIn(together=True, fails=frozenset(fails))
    with pytest.raises(TargetError) as caught:
        bet_on_every_selection(adapter, SICBO, "t1")  # type: ignore[arg-type]
    assert caught.value.operation == raised
    assert "place" not in adapter.calls
    # both requests were made and recorded before the error reached the step
    assert {e.operation for e in adapter.recorder.drain()} == {
        "create a test player",
        "open a round",
    }


def test_a_round_played_ahead_keeps_the_players_request_as_its_own_evidence() -> None:
    adapter = _StandIn(together=True)
    with adapter.recorder.capturing() as kept:
        bet_on_every_selection(adapter, SICBO, "t1")  # type: ignore[arg-type]
    assert sorted(e.operation for e in kept) == ["create a test player", "open a round", "place"]
    assert adapter.recorder.drain() == []  # nothing left for whichever scenario runs now

"""A live table whose rounds are pushed but whose bets are taken by request (an HTTP answer, not
the stream): the player's stream is joined before the bet is sent, since its settlement comes
there, and the bet is held for the round's settlement and for the stream judge, never ordered
against the close (the answer was on its way while the close was pushed). Seen on a plain
WebSocket table: every such bet read "missing from the round" and the sweep 160 of 160 wrong."""

from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

from livecert.adapters.live_events import BET_ACKED
from livecert.adapters.mapping import MappingAdapter, load_mapping
from livecert.adapters.mapping.bet_slips import BetSlips
from livecert.adapters.mapping.live import _Round
from livecert.adapters.mapping.live_bets import REQUEST_STREAM
from livecert.adapters.model import BetView, PlayerHandle
from livecert.harness.stream_judge import judge_stream
from livecert.rules import load_paytable

MAPPING = Path(__file__).parent.parent / "examples/socketio_table/mapping.yaml"
PLAYER = PlayerHandle("p1", "token")
BET = BetView("b1", "R1", "", "BIG", Decimal("10.00"), None, None, None, None)  # type: ignore[arg-type]


def _live():
    mapping = load_mapping(MAPPING, environ={"SOCKETIO_TABLE_ADMIN_TOKEN": "a-lab-token"})
    live = MappingAdapter(mapping, "http://127.0.0.1:9")._live
    assert live is not None
    live._rounds["R1"] = _Round("R1", "sicbo-1", "sicbo", "table sicbo-1", 1)
    return live


def test_a_bet_taken_by_request_is_held_and_its_players_stream_joined() -> None:
    live = _live()
    joined: list[tuple] = []
    live.player_stream = lambda player, table, game: joined.append((player.player_id, table))  # type: ignore[method-assign]
    assert live.before_request_bets(PLAYER, "R9") is False  # a round the stream never showed
    assert live.before_request_bets(PLAYER, "R1") is True
    assert joined == [("p1", "sicbo-1")]
    live.log.add("table sicbo-1", "in", "round:close", {"round": "R1", "table": "sicbo-1"})
    live.taken_by_request("R1", PLAYER, [BET])
    assert [b.bet_id for b in live.view("R1").bets] == ["b1"]  # awaited at settlement
    [acked] = [e for e in live.events_since(0) if e.kind == BET_ACKED]
    assert (acked.stream, acked.bet_id, acked.round_id) == (REQUEST_STREAM, "b1", "R1")
    # the close was logged before the answer came: not a bet taken after it, just not ordered
    verdict = judge_stream(live.events_since(0), load_paytable("sicbo"))
    assert not verdict.failed
    assert any("not ordered" in why for _, why in verdict.unjudged), verdict.unjudged


class _Slips(BetSlips):
    """The adapter's slips over a mapping that places bets by request, at a live table."""

    def __init__(self) -> None:
        self.mapping = SimpleNamespace(operation=lambda name: {"request": {}}, selections={})
        self._reader = SimpleNamespace(round_games={"R1": "sicbo"}, bet=lambda fields: BET)
        self._holdings: dict = {}
        self.capabilities = ("batch-bets",)
        self.calls: list[str] = []
        self._live = SimpleNamespace(  # type: ignore[assignment]
            before_request_bets=lambda p, r: self.calls.append(f"join {r}") or True,
            taken_by_request=lambda r, p, bets: self.calls.append(f"held {len(bets)}"),
        )

    def _run(self, name: str, operation: str, values: dict) -> dict:
        self.calls.append("request")
        return {"bets": [{"bet_id": "b1"}]}

    def _write(self, amount):
        return str(amount)


def test_the_adapter_joins_before_the_request_and_holds_the_bet_after_it() -> None:
    slips = _Slips()
    assert slips.place_bets(PLAYER, "R1", [("BIG", Decimal("10.00"))]) == [BET]
    assert slips.calls == ["join R1", "request", "held 1"]

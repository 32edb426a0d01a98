"""Bets at a live table that answers them nothing (issue 35): sent on the player's stream with
`emit.ack: false`, each confirmed by a pushed `bet_placed` message or by a read, refused by a
pushed error, and never a finding where the table's close came first. And a table's stream that
wants a credential on every connection, joined with a lab's variable or a role's credentials,
masked in the evidence.

The table here is a plain WebSocket server in the test's own process (websockets), which also
answers the one HTTP read a confirmation polls: a round opens every 150 ms on each table
connection, and each test says what the table does with a bet.
"""

import copy
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from http import HTTPStatus
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

from livecert.adapters.errors import Refused, Unsupported
from livecert.adapters.mapping import MappingAdapter, MappingError, load_mapping
from livecert.adapters.model import PlayerHandle
from livecert.adapters.secrets import SECRETS
from livecert.harness.findings import ClauseFailure
from livecert.harness.identity import IdentityGuard

# bets sent at once over a live table's connection
pytestmark = pytest.mark.timing

TABLE_TOKEN = "table-token-0123456789abcdef"  # the lab's variable: every table connection's
PLAYER_TOKEN = "player-token-0123456789abcdef"
Push = Callable[[dict], None]


class FakeTable:
    """A live table's server: rounds pushed to its table connections, bets answered as
    `on_bet` says (it may push to the player and record the bet where a read shows it)."""

    def __init__(self, on_bet: Callable[["FakeTable", dict, Push], None]) -> None:
        self.on_bet = on_bet
        self.shown: dict[str, list[dict]] = {}  # round -> the bets a read of it shows
        self.table_auth: list[str | None] = []  # each table connection's Authorization
        self._next = 0

    def bet_id(self) -> str:
        self._next += 1
        return f"B{self._next}"

    def process_request(self, connection, request):
        split = urlsplit(request.path)
        if split.path.startswith("/rounds/"):  # the read a confirmation polls
            round_id = split.path.rsplit("/", 1)[1]
            body = {"round": round_id, "state": "betting", "bets": self.shown.get(round_id, [])}
            response = connection.respond(HTTPStatus.OK, json.dumps(body))
            response.headers["Content-Type"] = "application/json"
            return response
        if parse_qs(split.query).get("as") == ["table"]:
            self.table_auth.append(request.headers.get("Authorization"))
            if request.headers.get("Authorization") != f"Bearer {TABLE_TOKEN}":
                return connection.respond(HTTPStatus.UNAUTHORIZED, "a table token is needed\n")
        return None

    def handler(self, connection) -> None:
        from websockets.exceptions import ConnectionClosed

        query = parse_qs(urlsplit(connection.request.path).query)

        def push(frame: dict) -> None:
            connection.send(json.dumps(frame))

        if query.get("as") == ["table"]:
            threading.Thread(target=self._rounds, args=(push,), daemon=True).start()
        try:
            for frame in connection:
                data = json.loads(frame)
                if data.get("type") == "bet":
                    self.on_bet(self, data, push)
        except ConnectionClosed:
            return

    @staticmethod
    def _rounds(push: Push) -> None:
        from websockets.exceptions import ConnectionClosed

        for n in range(1, 200):
            try:
                push({"type": "round.open", "round": f"R{n}"})
            except ConnectionClosed:
                return
            time.sleep(0.15)


@contextmanager
def fake_table(on_bet: Callable[[FakeTable, dict, Push], None]) -> Iterator[tuple[str, FakeTable]]:
    from websockets.sync.server import serve

    table = FakeTable(on_bet)
    server = serve(table.handler, "127.0.0.1", 0, process_request=table.process_request)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.socket.getsockname()[1]}", table
    finally:
        server.shutdown()


BET_SHAPE = {
    "bet_id": "id",
    "round_id": "round",
    "selection": {"path": "selection", "as": "selection"},
    "stake": {"path": "amount", "as": "money"},
}


def _mapping(**changes: Callable[[dict], None]) -> dict:
    data = {
        "mapping": 1,
        "name": "a table that answers no bet",
        "declares": {
            "games": ["sicbo"], "currency": "EUR", "minor_unit": 2, "rounding": "half-even",
        },
        "variables": {"table_token": {"env": "FAKE_TABLE_TOKEN", "secret": True}},
        "roles": {"operator": {"headers": {"Authorization": "Bearer ${vars.table_token}"}}},
        "money": {"scale": "minor", "format": "integer"},
        "selections": {"sicbo": {}},
        "shapes": {"bet": copy.deepcopy(BET_SHAPE)},
        "streams": {
            "protocol": "websocket",
            "path": "/live",
            "timeout_ms": 800,
            "table": {
                "query": {"as": "table"},
                "headers": {"Authorization": "Bearer ${vars.table_token}"},
            },
            "player": {"query": {"token": "${player.token}"}},
            "events": {
                "round_opened": {
                    "event": "round.open", "answer": {"fields": {"round_id": "round"}},
                },
                "betting_closed": {
                    "event": "round.close", "answer": {"fields": {"round_id": "round"}},
                },
                "bet_placed": {
                    "event": "bet.placed",
                    "answer": {"fields": {"bets": {"path": "bets", "shape": "bet"}}},
                },
                "error": {
                    "event": "error",
                    "answer": {"fields": {"code": "code", "message": "message"}},
                },
            },
        },
        "operations": {
            "create_player": {
                "role": "operator", "request": {"method": "POST", "path": "/players"},
                "answer": {"fields": {"player_id": "id"}},
            },
            "create_table": {"fixed": {"sicbo": "t1"}},
            "balance": {
                "role": "operator", "request": {"method": "GET", "path": "/balance"},
                "answer": {"fields": {"balance": {"path": "balance", "as": "money"}}},
            },
            "open_round": {"wait": {"event": "round_opened"}},
            "close_betting": {"wait": {"event": "betting_closed"}},
            "get_round": {
                "request": {"method": "GET", "path": "/rounds/${round_id}"},
                "answer": {
                    "fields": {
                        "round_id": "round", "state": "state",
                        "bets": {"path": "bets", "shape": "bet"},
                    }
                },
            },
            "place_bets": {
                "role": "player",
                "emit": {
                    "event": "bet",
                    "data": {
                        "round": "${round_id}", "selection": "${bet.selection}",
                        "amount": "${bet.stake}",
                    },
                    "ack": False,
                },
                "confirm": {"event": "bet_placed"},
            },
        },
    }  # fmt: skip
    for change in changes.values():
        change(data)
    return data


def _load(tmp_path: Path, data: dict):
    path = tmp_path / "mapping.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return load_mapping(path, environ={"FAKE_TABLE_TOKEN": TABLE_TOKEN})


@contextmanager
def adapter_at(
    tmp_path: Path, on_bet: Callable[[FakeTable, dict, Push], None], **changes
) -> Iterator[tuple[MappingAdapter, FakeTable, PlayerHandle, str]]:
    """The adapter at a fake table, a player, and a round the table opened."""
    SECRETS.register_player_token(PLAYER_TOKEN)
    with fake_table(on_bet) as (url, table):
        adapter = MappingAdapter(_load(tmp_path, _mapping(**changes)), url)
        try:
            opened = adapter.open_round(adapter.create_table("sicbo"))
            yield adapter, table, PlayerHandle("p1", PLAYER_TOKEN), opened.round_id
        finally:
            adapter.close()


def _placed(table: FakeTable, bet: dict) -> dict:
    return {"id": table.bet_id(), "round": bet["round"], "selection": bet["selection"],
            "amount": bet["amount"]}  # fmt: skip


def confirms(table: FakeTable, bet: dict, push: Push) -> None:
    """The table's list of the player's bets in the round, pushed once the bet is taken."""
    table.shown.setdefault(bet["round"], []).append(_placed(table, bet))
    push({"type": "bet.placed", "bets": table.shown[bet["round"]]})


def records(table: FakeTable, bet: dict, push: Push) -> None:
    """The bet taken silently: only a read of the round shows it."""
    table.shown.setdefault(bet["round"], []).append(_placed(table, bet))


def refuses(table: FakeTable, bet: dict, push: Push) -> None:
    push({"type": "error", "code": "LIMIT", "message": "over the table's limit"})


def says_nothing(table: FakeTable, bet: dict, push: Push) -> None:
    return None


def closes_first(table: FakeTable, bet: dict, push: Push) -> None:
    push({"type": "round.close", "round": bet["round"]})  # and nothing of the bet


# -- a bet's confirmation --------------------------------------------------------------------


def test_a_bet_is_confirmed_by_the_list_the_table_pushes(tmp_path: Path) -> None:
    with adapter_at(tmp_path, confirms) as (adapter, _, player, round_id):
        [first] = adapter.place_bets(player, round_id, [("BIG", Decimal("1.00"))])
        [second] = adapter.place_bets(player, round_id, [("BIG", Decimal("1.00"))])
        events = adapter.stream_events(0)
    assert (first.bet_id, first.round_id, first.selection, first.stake) == (
        "B1", round_id, "BIG", Decimal("1.00"),
    )  # fmt: skip
    assert second.bet_id == "B2"  # the list shows the first again: it confirms no new bet
    acked = [e for e in events if e.kind == "bet_acked"]
    assert [e.bet_id for e in acked] == ["B1", "B2"]  # the stream judge sees them taken


def test_a_bet_is_confirmed_by_a_read(tmp_path: Path) -> None:
    def by_read(data: dict) -> None:
        data["operations"]["place_bets"]["confirm"] = {"read": "get_round", "every_ms": 50}

    with adapter_at(tmp_path, records, by_read=by_read) as (adapter, _, player, round_id):
        [bet] = adapter.place_bets(player, round_id, [("SMALL", Decimal("2.50"))])
    assert (bet.bet_id, bet.selection, bet.stake) == ("B1", "SMALL", Decimal("2.50"))


def test_a_refusal_the_table_pushes_is_refused(tmp_path: Path) -> None:
    with (
        adapter_at(tmp_path, refuses) as (adapter, _, player, round_id),
        pytest.raises(Refused) as refused,
    ):
        adapter.place_bets(player, round_id, [("BIG", Decimal("1.00"))])
    assert (refused.value.code, refused.value.message) == ("LIMIT", "over the table's limit")
    assert refused.value.late is None  # betting was open: the refusal is the table's word


def test_a_bet_never_shown_while_the_table_said_nothing_fails_reg_commit_01(
    tmp_path: Path,
) -> None:
    """No answer, no refusal, no close by the stream's timeout: the bet is left out of the
    answer, and the harness's identity check fails REG-COMMIT-01 on the slip answered short."""
    with adapter_at(tmp_path, says_nothing) as (adapter, _, player, round_id):
        guarded = IdentityGuard(adapter, contract=False)
        with pytest.raises(ClauseFailure) as failed:
            guarded.place_bets(player, round_id, [("BIG", Decimal("1.00"))])
    assert failed.value.clauses == ("REG-COMMIT-01",)
    assert "a slip of 1 bet(s) was answered with 0" in str(failed.value)


def test_a_bet_never_shown_after_the_close_came_first_is_no_finding(tmp_path: Path) -> None:
    with (
        adapter_at(tmp_path, closes_first) as (adapter, _, player, round_id),
        pytest.raises(Unsupported, match="the harness was late") as late,
    ):
        adapter.place_bets(player, round_id, [("BIG", Decimal("1.00"))])
    assert not isinstance(late.value, Refused | ClauseFailure)
    assert f"closed betting on round {round_id} before it showed" in late.value.reason


def answered_by_a_frame(data: dict) -> None:
    """The mapping of a table answering each bet with a `bet.ack` frame."""
    place = data["operations"]["place_bets"]
    place["emit"] = {**place.pop("emit"), "answer_event": "bet.ack"}
    del place["emit"]["ack"], place["confirm"]
    place["responses"] = {"success": {"path": "$.ok", "equals": True}}
    place["answer"] = {"fields": {"bets": {"path": "bet", "shape": "bet"}}}


def test_a_websocket_bet_is_answered_by_the_next_frame_of_its_kind(tmp_path: Path) -> None:
    """A plain WebSocket's commonest style: the bet answered by a frame of a kind of its own,
    judged by `responses` and read by `answer` as an acknowledgement is."""

    def answers(table: FakeTable, bet: dict, push: Push) -> None:
        push({"type": "bet.ack", "ok": True, "bet": _placed(table, bet)})

    with adapter_at(tmp_path, answers, answered=answered_by_a_frame) as (
        adapter,
        _,
        player,
        round_id,
    ):
        [bet] = adapter.place_bets(player, round_id, [("BIG", Decimal("1.00"))])
    assert (bet.bet_id, bet.round_id, bet.stake) == ("B1", round_id, Decimal("1.00"))


def test_bets_sent_at_once_on_one_websocket_each_take_their_own_answer(tmp_path: Path) -> None:
    """Several bets sent at the same moment on one player's stream: the table answers them in
    the order they came, and each takes the first answer not taken by a bet sent before it,
    never another's (20 players sending 3 slips at once read a bet settled "never
    acknowledged" when two took one answer)."""

    def answers_slowly(table: FakeTable, bet: dict, push: Push) -> None:
        time.sleep(0.02)  # the answers come while the other bets are already waiting
        push({"type": "bet.ack", "ok": True, "bet": _placed(table, bet)})

    stakes = [Decimal(f"{n}.00") for n in range(1, 7)]
    taken: dict[Decimal, list] = {}
    with adapter_at(tmp_path, answers_slowly, answered=answered_by_a_frame) as (
        adapter,
        _,
        player,
        round_id,
    ):
        adapter.place_bets(player, round_id, [("BIG", Decimal("9.00"))])  # the stream joined

        def bet(stake: Decimal) -> None:
            taken[stake] = adapter.place_bets(player, round_id, [("BIG", stake)])

        threads = [threading.Thread(target=bet, args=(stake,)) for stake in stakes]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
    assert sorted(taken) == stakes, taken  # every bet answered
    assert all(bets[0].stake == stake for stake, bets in taken.items()), taken  # its own
    assert len({bets[0].bet_id for bets in taken.values()}) == len(stakes)


@pytest.mark.parametrize("confirm", ["pushed", "read"])
def test_alike_bets_sent_at_once_unanswered_are_each_confirmed_once(
    tmp_path: Path, confirm: str
) -> None:
    """The same bet sent four times at the same moment on one stream, never answered: each is
    confirmed by a bet of its own (the pushed list, or the read, shows all four), never two by
    one (a settlement of the fourth would read "a bet the player never had acknowledged")."""
    changes: dict = {}
    if confirm == "read":
        changes["changed"] = lambda data: data["operations"]["place_bets"].update(
            confirm={"read": "get_round", "every_ms": 50}
        )

    def slowly(table: FakeTable, bet: dict, push: Push) -> None:
        time.sleep(0.02)
        (confirms if confirm == "pushed" else records)(table, bet, push)

    taken: list[list] = []
    with adapter_at(tmp_path, slowly, **changes) as (adapter, _, player, round_id):
        adapter.place_bets(player, round_id, [("BIG", Decimal("2.00"))])  # the stream joined
        live = adapter._live
        held = live.acknowledged

        def held_slowly(*args) -> None:  # a busy machine: the other bets' threads run meanwhile
            time.sleep(0.05)
            held(*args)

        live.acknowledged = held_slowly  # type: ignore[method-assign]

        def bet() -> None:
            taken.append(adapter.place_bets(player, round_id, [("BIG", Decimal("1.00"))]))

        threads = [threading.Thread(target=bet) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
    assert len(taken) == 4 and all(len(bets) == 1 for bets in taken), taken
    assert len({bets[0].bet_id for bets in taken}) == 4, taken


def test_a_slip_of_a_message_a_bet_is_sent_whole_before_any_is_confirmed(tmp_path: Path) -> None:
    """A table with no slips (one message a bet) answering none: every bet of a slip goes out
    before the first confirmation is awaited, so a sweep's 110 bets fit a second of betting
    (one at a time, each waiting for its confirmation, they did not: the round closed)."""
    arrived: list[str] = []
    pushed: list[int] = []

    def confirms_later(table: FakeTable, bet: dict, push: Push) -> None:
        arrived.append(bet["selection"])

        def confirm() -> None:
            pushed.append(len(arrived))  # how many bets had come when the first was confirmed
            confirms(table, bet, push)

        threading.Timer(0.1, confirm).start()

    codes = ["BIG", "SMALL", "ODD", "EVEN", "ANY_TRIPLE"]
    with adapter_at(tmp_path, confirms_later) as (adapter, _, player, round_id):
        taken = adapter.place_bets(player, round_id, [(c, Decimal("1.00")) for c in codes])
    assert [b.selection for b in taken] == codes and len({b.bet_id for b in taken}) == 5
    assert pushed[0] == len(codes), (pushed, arrived)  # all sent before the first confirmation


# -- the file's form, checked when it loads --------------------------------------------------


def _no_confirm(data: dict) -> None:
    del data["operations"]["place_bets"]["confirm"]


def _confirm_unnamed(data: dict) -> None:
    del data["streams"]["events"]["bet_placed"]


def _stake_unread(data: dict) -> None:
    del data["shapes"]["bet"]["stake"]


def _acknowledged_websocket(data: dict) -> None:
    data["operations"]["place_bets"]["emit"]["ack"] = True


def _read_of_the_stream(data: dict) -> None:
    data["operations"]["place_bets"]["confirm"] = {"read": "get_round"}
    data["operations"]["get_round"] = {"stream": "round"}


def _player_role(data: dict) -> None:
    data["streams"]["player"]["role"] = "operator"


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (_no_confirm, "operations.place_bets.confirm: a bet the table does not answer"),
        (_confirm_unnamed, "operations.place_bets.confirm.event: streams.events names no "
                           "bet_placed message"),
        (_stake_unread, "shapes.bet: reads no stake"),
        (_acknowledged_websocket, "operations.place_bets.confirm: a bet answered by its "
                                  "acknowledgement"),
        (_read_of_the_stream, "operations.place_bets.confirm.read: get_round sends no request"),
        (_player_role, "streams.player.role: a player's stream is joined with its own token"),
    ],
)  # fmt: skip
def test_a_malformed_unanswered_bet_is_refused_naming_where(
    tmp_path: Path, change: Callable[[dict], None], problem: str
) -> None:
    with pytest.raises(MappingError) as raised:
        _load(tmp_path, _mapping(change=change))
    assert problem in str(raised.value)


# -- a table's stream that wants a credential ----------------------------------------------


def _by_role(data: dict) -> None:
    data["streams"]["table"] = {"query": {"as": "table"}, "role": "operator"}


@pytest.mark.parametrize("change", [None, _by_role], ids=["variable", "role"])
def test_a_table_stream_is_joined_with_its_credential_masked(tmp_path: Path, change) -> None:
    changes = {"change": change} if change else {}
    with adapter_at(tmp_path, confirms, **changes) as (adapter, table, _, _):
        exchanges = adapter.recorder.drain()
    assert table.table_auth == [f"Bearer {TABLE_TOKEN}"]
    [join] = [ex for ex in exchanges if ex.method == "JOIN" and ex.operation == "stream table t1"]
    assert join.request_body is not None
    assert TABLE_TOKEN not in join.request_body and "$FAKE_TABLE_TOKEN" in join.request_body
    assert json.loads(join.request_body)["headers"]["Authorization"] == "Bearer $FAKE_TABLE_TOKEN"
    assert not any(TABLE_TOKEN in f"{ex.url} {ex.request_body}" for ex in exchanges)

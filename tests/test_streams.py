"""Event streams (livecert/adapters/streams.py) against the example live table that pushes its
rounds over Socket.IO (examples/socketio_table) and a plain WebSocket server made here: every
message kept in order with its direction and time, secrets masked, waits that end with a clear
error instead of hanging, and the seeded faults' message orders visible in the log."""

import json
import os
import secrets
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

import pytest
import requests
from vendor_support import example_server

from livecert.adapters.secrets import SECRETS
from livecert.adapters.streams import (
    ACK,
    IN,
    OUT,
    SocketIOStream,
    StreamError,
    StreamLog,
    StreamTimeout,
    WebSocketStream,
)
from livecert.harness.embedded import free_port

# waits on a table's pushed messages, with deadlines
pytestmark = pytest.mark.timing

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def live_table(*faults: str, round_ms: int = 200) -> Iterator[tuple[str, dict[str, str]]]:
    """(URL, admin headers) of a running example live table, rounds taking bets `round_ms`."""
    port, token = free_port(), secrets.token_hex(12)
    command = [sys.executable, "-m", "examples.socketio_table", "--port", str(port), "--seed", "1"]
    command += ["--round-ms", str(round_ms)]
    for fault in faults:
        command += ["--fault", fault]
    env = {**os.environ, "SOCKETIO_TABLE_ADMIN_TOKEN": token}
    url = f"http://127.0.0.1:{port}"
    with example_server(command, env, url + "/api/tables", "the live table"):
        yield url, {"x-admin-token": token}


def player(url: str, admin: dict[str, str]) -> str:
    made = requests.post(url + "/api/accounts", json={"balance": 10000}, headers=admin, timeout=5)
    token = made.json()["token"]
    SECRETS.register_player_token(token)
    return token


def joined(url: str, token: str, log: StreamLog, table: str = "sicbo-1") -> SocketIOStream:
    stream = SocketIOStream("player", url, log, "/live", auth={"token": token}, timeout=5)
    stream.connect()
    assert stream.emit("join", {"table": table})["ok"]
    return stream


def next_round(log: StreamLog, after: int) -> str:
    opened = log.wait_for("player", lambda m: m.event == "round:open", "a round", after, 5)
    return opened.data["round"]


def test_a_round_is_seen_in_order_and_every_message_is_kept_masked() -> None:
    log = StreamLog()
    with live_table() as (url, admin):
        token = player(url, admin)
        stream = joined(url, token, log)
        try:
            round_id = next_round(log, log.last_seq)
            answer = stream.emit(
                "bet", {"round": round_id, "selection": "BIG", "amount": 100, "note": token}
            )
            assert answer["ok"], answer
            [bet] = answer["bets"]

            def of_round(event: str):
                return lambda m: m.event == event and m.data.get("round") == round_id

            closed = log.wait_for("player", of_round("round:close"), "the close", 0, 5)
            result = log.wait_for("player", of_round("round:result"), "the result", 0, 5)
            settled = log.wait_for(
                "player", lambda m: m.event == "bet:settled" and m.data["bet"] == bet["id"],
                "the bet's settlement", 0, 5,
            )  # fmt: skip
        finally:
            stream.close()
    assert closed.seq < result.seq < settled.seq
    kept = log.messages("player")
    assert [m.seq for m in kept] == sorted(m.seq for m in kept)
    assert [m.at for m in kept] == sorted(m.at for m in kept)
    sent = [m for m in kept if m.direction == OUT and m.event == "bet"]
    acks = [m for m in kept if m.direction == ACK and m.event == "bet"]
    assert len(sent) == len(acks) == 1 and sent[0].seq < acks[0].seq
    shown = json.dumps([m.as_dict() for m in kept])
    assert token not in shown and "$PLAYER_TOKEN[hmac:" in shown
    assert {m.direction for m in kept} == {IN, OUT, ACK}


def test_a_join_the_target_refuses_says_why() -> None:
    with live_table() as (url, _):
        stream = SocketIOStream(
            "player", url, StreamLog(), "/live", auth={"token": "no"}, timeout=5
        )
        with pytest.raises(StreamError, match=r"not a player.s token"):
            stream.connect()


def test_a_wait_past_its_deadline_names_what_it_waited_for() -> None:
    log = StreamLog()
    with live_table() as (url, admin):
        stream = joined(url, player(url, admin), log)
        try:
            started = time.monotonic()
            with pytest.raises(StreamTimeout, match="waiting for a jackpot: nothing of the kind"):
                log.wait_for("player", lambda m: m.event == "jackpot", "a jackpot", 0, 0.4)
            assert time.monotonic() - started < 2
        finally:
            stream.close()


@pytest.mark.parametrize(
    ("fault", "first", "then"),
    [("result-before-close", "round:result", "round:close"), (None, "round:close", "round:result")],
)
def test_the_order_of_close_and_result_is_in_the_log(fault, first, then) -> None:
    log = StreamLog()
    with live_table(*([fault] if fault else [])) as (url, admin):
        stream = joined(url, player(url, admin), log)
        try:
            round_id = next_round(log, log.last_seq)
            events = [
                log.wait_for(
                    "player", lambda m, e=e: m.event == e and m.data.get("round") == round_id,
                    e, 0, 5,
                )
                for e in ("round:close", "round:result")
            ]  # fmt: skip
        finally:
            stream.close()
    order = [m.event for m in sorted(events, key=lambda m: m.seq)]
    assert order == [first, then]


def test_a_late_acknowledgement_comes_after_the_close_message() -> None:
    """The `late-ack` fault: the bet is answered (and taken) after the close went out."""
    log = StreamLog()
    with live_table("late-ack") as (url, admin):
        stream = joined(url, player(url, admin), log)
        try:
            round_id = next_round(log, log.last_seq)
            answer = stream.emit("bet", {"round": round_id, "selection": "BIG", "amount": 100})
        finally:
            stream.close()
    assert answer["ok"]
    [close] = [
        m for m in log.messages() if m.event == "round:close" and m.data["round"] == round_id
    ]
    [ack] = [m for m in log.messages() if m.direction == ACK and m.event == "bet"]
    assert close.seq < ack.seq


@contextmanager
def websocket_server(frames: list[str]) -> Iterator[str]:
    """A plain WebSocket server that sends `frames` to each client, then closes."""
    from websockets.sync.server import serve

    def handler(connection) -> None:
        for frame in frames:
            connection.send(frame)
        time.sleep(0.1)

    server = serve(handler, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"ws://127.0.0.1:{server.socket.getsockname()[1]}"
    finally:
        server.shutdown()


def test_a_malformed_frame_and_a_closed_websocket_end_the_waits_clearly() -> None:
    log = StreamLog()
    frames = [json.dumps({"type": "round.open", "round": "R1"}), "<html>oops</html>"]
    with websocket_server(frames) as url:
        stream = WebSocketStream("table", url, log)
        stream.connect()
        opened = log.wait_for("table", lambda m: m.event == "round.open", "a round", 0, 5)
        assert opened.data == {"type": "round.open", "round": "R1"}
        with pytest.raises(StreamError, match="a frame that is not JSON: '<html>oops</html>'"):
            log.wait_for("table", lambda m: m.event == "round.close", "the close", 0, 5)
        stream.close()
    log = StreamLog()
    with websocket_server([json.dumps({"type": "hello"})]) as url:
        stream = WebSocketStream("table", url, log)
        stream.connect()
        with pytest.raises(StreamError, match="the target closed the stream"):
            log.wait_for("table", lambda m: m.event == "round.close", "the close", 0, 5)
        stream.close()


def test_a_websocket_that_is_not_there_is_a_clear_error() -> None:
    stream = WebSocketStream("table", f"ws://127.0.0.1:{free_port()}", StreamLog(), timeout=2)
    with pytest.raises(StreamError, match=r"opening ws://127\.0\.0\.1"):
        stream.connect()


def test_a_socketio_2_server_is_refused_naming_the_version() -> None:
    """python-socketio 5 cannot speak to a Socket.IO 2.x server (Engine.IO 3): the refusal
    says which version the target may be and which the harness speaks."""
    from livecert.adapters.streams import _why

    said = _why(ConnectionError("Unexpected status code 400 in server response"))
    assert "Socket.IO 2.x" in said and "3.x and later" in said
    assert _why(ConnectionError("Connection refused")) == "Connection refused"


@contextmanager
def socketio_server(sio) -> Iterator[str]:
    """The URL of the python-socketio server `sio`, served by uvicorn in a thread."""
    import socketio
    import uvicorn

    port = free_port()
    config = uvicorn.Config(socketio.ASGIApp(sio), host="127.0.0.1", port=port, log_level="error")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(5)


def test_money_a_table_writes_as_a_json_number_is_read_exactly() -> None:
    """A table writing amounts as JSON numbers (10.10, not "10.10"): a pushed wallet and an
    acknowledgement are read as Decimals, exactly as written; a Decimal stake is emitted as
    the number it is (never through float, which reads 10.10 as 10.1)."""
    import socketio

    from livecert.adapters import exact_json

    # the server's own packet class writes Decimals as numbers (10.10 on the wire); the client's
    # JSON is its own (a client reading with the standard module gets the float 10.1)
    before = socketio.packet.Packet.json
    exact = type("ServerPacket", (socketio.packet.Packet,), {"json": exact_json})
    sio = socketio.AsyncServer(async_mode="asgi", serializer=exact)
    received: list = []

    @sio.on("bet", namespace="/live")
    async def bet(sid: str, data) -> dict:
        received.append(data)
        await sio.emit("wallet", {"balance": Decimal("10.10")}, to=sid, namespace="/live")
        return {"ok": True, "stake": data["stake"], "returned": Decimal("0.30")}

    log = StreamLog()
    with socketio_server(sio) as url:
        stream = SocketIOStream("player", url, log, "/live", timeout=5)
        stream.connect()
        try:
            answer = stream.emit("bet", {"stake": Decimal("0.10")})
            wallet = log.wait_for("player", lambda m: m.event == "wallet", "the wallet", 0, 5)
        finally:
            stream.close()
    assert received == [{"stake": Decimal("0.10")}]  # as written: 0.10, not 0.1
    assert answer == {"ok": True, "stake": Decimal("0.10"), "returned": Decimal("0.30")}
    assert str(wallet.data["balance"]) == "10.10" and isinstance(wallet.data["balance"], Decimal)
    assert socketio.packet.Packet.json is before  # no other client or server of the process changed


def test_a_websocket_frame_with_a_money_number_is_read_exactly() -> None:
    log = StreamLog()
    frames = ['{"type": "wallet", "balance": 10.10, "won": 1e-2, "count": 3}']
    with websocket_server(frames) as url:
        stream = WebSocketStream("table", url, log)
        stream.connect()
        wallet = log.wait_for("table", lambda m: m.event == "wallet", "the wallet", 0, 5)
        stream.close()
    assert wallet.data == {"type": "wallet", "balance": Decimal("10.10"), "won": Decimal("0.01"),
                           "count": 3}  # fmt: skip
    assert str(wallet.data["balance"]) == "10.10" and type(wallet.data["count"]) is int


@pytest.mark.parametrize(
    ("balance", "said"),
    [("1e999999999", "beyond any amount"), ("[" * 100_000 + "]" * 100_000, "nested too deeply")],
)
def test_a_frame_with_a_number_beyond_any_amount_ends_the_wait_clearly(
    balance: str, said: str
) -> None:
    """16 bytes of `1e999999999` would be a gigabyte written out: the stream is broken, saying
    why, and the wait ends (a target error, the run incomplete), never memory exhausted. JSON
    deeper than Python's reader goes stopped the reading thread, the wait running out."""
    log = StreamLog()
    with websocket_server([f'{{"type": "wallet", "balance": {balance}}}']) as url:
        stream = WebSocketStream("table", url, log)
        stream.connect()
        with pytest.raises(StreamError, match=said) as raised:
            log.wait_for("table", lambda m: m.event == "wallet", "the wallet", 0, 30)
        stream.close()
    assert not isinstance(raised.value, StreamTimeout)


DEEP = "[" * 100_000 + "]" * 100_000  # JSON deeper than Python's reader goes


@pytest.mark.parametrize("way", ["pushed", "acknowledged"])
@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("1e999999999", "a packet with a number (1e999999999) of 1 digits"),
        ("[1,", "a packet that is not JSON"),
        (DEEP, "a packet of JSON nested too deeply to read"),
    ],
)
def test_a_socketio_packet_the_harness_cannot_read_ends_the_wait_naming_it(
    written: str, said: str, way: str
) -> None:
    """python-socketio reads a packet on its own thread and only logs what it cannot read: the
    wait for a pushed wallet, or for an emit's acknowledgement, ran to its timeout, saying
    nothing came. The packet is logged as it came and the wait ends naming it, as for a plain
    WebSocket's frame."""
    import socketio

    class Bent:  # the server writes a balance as `written`
        loads = staticmethod(json.loads)

        @staticmethod
        def dumps(value: object, **options: object) -> str:
            return json.dumps(value, **options).replace('"BENT"', written)

    sio = socketio.AsyncServer(
        async_mode="asgi", serializer=type("BentPacket", (socketio.packet.Packet,), {"json": Bent})
    )

    @sio.on("hello", namespace="/live")
    async def hello(sid: str, data: object) -> dict:
        await sio.emit("wallet", {"balance": "BENT"}, to=sid, namespace="/live")
        return {"ok": True}

    @sio.on("ask", namespace="/live")
    async def ask(sid: str, data: object) -> dict:
        return {"balance": "BENT"}  # the acknowledgement itself

    log = StreamLog()
    with socketio_server(sio) as url:
        stream = SocketIOStream("player", url, log, "/live", timeout=30)
        stream.connect()
        try:
            with pytest.raises(StreamError) as raised:
                if way == "pushed":
                    stream.emit("hello", {})
                    log.wait_for("player", lambda m: m.event == "wallet", "the wallet", 0, 30)
                else:
                    stream.emit("ask", {})
        finally:
            stream.close()
    assert said in str(raised.value) and not isinstance(raised.value, StreamTimeout)
    [malformed] = [m for m in log.messages("player") if m.event == "malformed"]
    assert written[:100] in malformed.data  # as it came (the first 500 characters)


def test_exact_json_writes_decimals_as_the_numbers_they_hold() -> None:
    from livecert.adapters import exact_json

    value = {"a": Decimal("0.10"), "b": [Decimal("1E+2"), 1.5, "x"], "c": None}
    assert exact_json.dumps(value) == '{"a":0.10,"b":[100,1.5,"x"],"c":null}'
    assert exact_json.loads(exact_json.dumps(value))["a"] == Decimal("0.10")
    assert str(exact_json.loads("[0.10]")[0]) == "0.10"
    for beyond in ("1e999999999", "1e-101", "0." + "1" * 101):
        with pytest.raises(exact_json.NumberBeyondReason):
            exact_json.loads(f"[{beyond}]")
    many = [Decimal(n) / 100 for n in range(20_000)]  # written in one pass, not one per number
    assert exact_json.loads(exact_json.dumps(many)) == many


def test_a_reproduction_sends_a_decimal_stake_as_the_run_sent_it() -> None:
    """The script of a failed live scenario reads what the run emitted exactly and sends it
    exactly: a stake written 0.10 is sent as 0.10, never the float 0.1."""
    from livecert.adapters.evidence import EMITTED, JOINED, Exchange
    from livecert.adapters.stream_script import stream_reproduction

    joined = '{"auth":{"token":"$PLAYER_TOKEN[hmac:0a1b2c3d]"}}'
    emitted = '{"round":"r1","bets":[{"selection":"BIG","amount":0.10}]}'
    exchanges = [
        Exchange(1, "stream player p1", "player", JOINED, "http://127.0.0.1:9/live", joined,
                 None, None, 0.0, None, None, started=100.0),
        Exchange(2, "stream player p1", "player", EMITTED, "http://127.0.0.1:9/live bet",
                 emitted, None, None, 0.0, None, None, started=100.25),
    ]  # fmt: skip
    script = stream_reproduction(exchanges, "a late bet", "taken after the close")
    assert script is not None
    names: dict = {"__name__": "a reproduction, not run"}
    exec(compile(script, "reproduction.py", "exec"), names)
    (_, _, _, _, first), (_, action, event, data, at) = names["STEPS"]
    assert (action, event, float(first), float(at)) == ("emit", "bet", 0.0, 0.25)
    assert data["bets"][0]["amount"] == Decimal("0.10")
    assert names["exact"].dumps(data, separators=(",", ":")) == emitted  # as the run sent it

"""The fault relay of the lost-answer scenarios (REG-IDEMP-01 under a real network fault): a slip
reaches the target, its answer never reaches the harness; over plain HTTP and over HTTPS, where
the target is still spoken to under its own name (Host, TLS server name, certificate check)."""

import json
import re
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests
import trustme
from fake_target import fake_target, send_json, serving
from samples import OPEN_BET as BET
from samples import ROUND

from livecert.adapters import HttpAdapter, PlayerHandle, RoundView, TargetError
from livecert.adapters.errors import Unsupported
from livecert.adapters.lost_answer import LostAnswerRelay, RelayError
from livecert.harness.checks import CheckLedger
from livecert.harness.embedded import EmbeddedServer
from livecert.harness.findings import ClauseFailure
from livecert.suite.steps.lost_answers import (
    _lose,
    answer_lost,
    app_sends_again,
    connection_lost_in_flight,
    taken_once,
)

# answers held back and re-sends in flight
pytestmark = pytest.mark.timing

PLAYER = PlayerHandle("p1", "secret-player-token")
SLIP = [("SMALL", Decimal("1.00"))]


def answering(seen: list[dict[str, str]], delay: float = 0.0):
    """A target that takes every slip (after `delay`) and keeps the headers it was sent."""

    def behaviour(handler: BaseHTTPRequestHandler) -> None:
        seen.append(dict(handler.headers.items()))
        time.sleep(delay)
        send_json(handler, 201, {"bets": [BET], "balance": "9.00"})

    return behaviour


def test_the_answer_is_dropped_once_the_target_has_answered() -> None:
    seen: list[dict[str, str]] = []
    with fake_target(answering(seen)) as url:
        adapter = HttpAdapter(url, "op", "dl")
        adapter.place_bets_answer_lost(PLAYER, "r1", SLIP, "key-1")
        assert len(seen) == 1  # the target had it before the call returned
        [bet] = adapter.place_bets(PLAYER, "r1", SLIP, idempotency_key="key-1")
        adapter.close()
    first = seen[0]
    assert first["Idempotency-Key"] == "key-1"
    assert first["Authorization"] == f"Bearer {PLAYER.token}"
    assert first["Host"] == url.removeprefix("http://")  # the target's name, not the relay's
    assert seen[1]["Idempotency-Key"] == "key-1" and bet.bet_id == BET["bet_id"]
    lost, resent = adapter.recorder.drain()
    assert lost.status is None and lost.response_body is None
    assert "dropped on purpose" in (lost.error or "") and " 201 " in (lost.error or "")
    assert lost.idempotency_key == "key-1" and resent.status == 201


def test_in_flight_the_call_returns_before_the_target_answers() -> None:
    seen: list[dict[str, str]] = []
    with fake_target(answering(seen, delay=0.8)) as url:
        adapter = HttpAdapter(url, "op", "dl")
        started = time.perf_counter()
        finish = adapter.place_bets_answer_lost(PLAYER, "r1", SLIP, "key-2", in_flight=True)
        returned = time.perf_counter() - started
        finish()  # waits until the target answered the lost slip
        waited = time.perf_counter() - started
        adapter.close()
    assert returned < 0.6 and waited >= 0.8
    assert [h["Idempotency-Key"] for h in seen] == ["key-2"]
    [lost] = adapter.recorder.drain()  # its evidence completed once the target answered
    assert "the target answered (HTTP/1.0 201" in (lost.error or "")


def test_a_target_that_cannot_be_reached_is_a_target_error() -> None:
    with fake_target(answering([])) as url:
        pass  # the server is gone: nothing listens there any more
    adapter = HttpAdapter(url, "op", "dl")
    with pytest.raises(TargetError, match="cannot reach the target"):
        adapter.place_bets_answer_lost(PLAYER, "r1", SLIP, "key-3")


def test_a_target_behind_a_proxy_is_not_testable_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    adapter = HttpAdapter("http://casino.example", "op", "dl")
    with pytest.raises(Unsupported, match="proxy"):
        adapter.place_bets_answer_lost(PLAYER, "r1", SLIP, "key-4")


def test_nothing_the_target_answers_reaches_the_harness() -> None:
    seen: list[dict[str, str]] = []
    with fake_target(answering(seen)) as url:
        host, port = url.removeprefix("http://").split(":")
        relay = LostAnswerRelay((host, int(port)), bound_s=2)
        with socket.create_connection(("127.0.0.1", relay.port), timeout=3) as harness:
            relay.request_follows()
            harness.sendall(b"POST /v1/rounds/r1/bets HTTP/1.1\r\nHost: x\r\n")
            harness.sendall(b"Connection: close\r\nContent-Length: 2\r\n\r\n{}")
            received = harness.recv(65536)  # the relay closes this side once the target answered
        dropped = relay.wait()
    assert received == b"" and len(seen) == 1
    assert dropped.answered and dropped.dropped_bytes > 0
    assert dropped.first_line.startswith("HTTP/1.0 201")


def test_the_relay_listens_on_loopback_only_and_stops() -> None:
    relay = LostAnswerRelay(("127.0.0.1", 9), bound_s=0.5)
    assert relay._listener.getsockname()[0] == "127.0.0.1"
    relay.close()
    assert "never connected" in relay.result.problem
    assert not relay._thread.is_alive()


# -- over HTTPS ------------------------------------------------------------------------------------


@contextmanager
def tls_target(name: str, seen: list[dict[str, str]]) -> Iterator[tuple[str, str]]:
    """A TLS target on a loopback port with a certificate for `name` from a test CA; yields its
    URL under the name `localhost` and the CA file the harness trusts. The TLS server name each
    connection asked for is kept in `seen` as `SNI`."""
    ca = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(name).configure_cert(context)
    names: list[str | None] = []
    context.sni_callback = lambda _sock, server_name, _ctx: names.append(server_name)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            seen.append({**dict(self.headers.items()), "SNI": str(names[-1])})
            send_json(self, 201, {"bets": [BET], "balance": "9.00"})

        def do_GET(self) -> None:  # the round, holding the one bet every slip is answered
            send_json(self, 200, {**ROUND, "state": "betting", "result": None, "bets": [BET]})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with ca.cert_pem.tempfile() as ca_file:
        try:
            yield f"https://localhost:{server.server_address[1]}", ca_file
        finally:
            server.shutdown()
            server.server_close()


def test_over_https_the_target_is_spoken_to_under_its_own_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[dict[str, str]] = []
    with tls_target("localhost", seen) as (url, ca_file):
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", ca_file)  # as a lab trusts its target's CA
        adapter = HttpAdapter(url, "op", "dl")
        adapter.place_bets_answer_lost(PLAYER, "r1", SLIP, "key-5")
        adapter.place_bets(PLAYER, "r1", SLIP, idempotency_key="key-5")
        adapter.close()
    assert [(h["SNI"], h["Host"], h["Idempotency-Key"]) for h in seen] == [
        ("localhost", url.removeprefix("https://"), "key-5")
    ] * 2
    lost = adapter.recorder.drain()[0]
    assert "dropped on purpose" in (lost.error or "") and "target answered" in (lost.error or "")


def test_over_https_a_certificate_for_another_name_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[dict[str, str]] = []
    with tls_target("elsewhere.example", seen) as (url, ca_file):
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", ca_file)
        adapter = HttpAdapter(url, "op", "dl")
        with pytest.raises(TargetError, match="certificate"):
            adapter.place_bets_answer_lost(PLAYER, "r1", SLIP, "key-6")
    assert seen == []


# -- against the reference ------------------------------------------------------------------------


def test_on_the_reference_with_its_key_recorded_late_only_a_re_send_in_flight_is_placed_twice() -> (
    None
):
    """The fault the lost-answer scenarios catch and no earlier scenario did: the key recorded
    after a slow step, so a re-send while the first is at work is placed again (the clean
    reference is certified on the scenarios by the self-test's clean run)."""
    with EmbeddedServer(faults=("idempotency-key-recorded-late",)) as server:
        adapter = HttpAdapter(server.url, server.operator_token, server.dealer_token)
        player = adapter.create_player(Decimal("100.00"))
        round_id = adapter.open_round(adapter.create_table("sicbo"), 60_000).round_id
        held = []
        for key, in_flight in (("after-the-answer", False), ("in-flight", True)):
            slip = [("BIG", Decimal("10.00"))]
            finish = adapter.place_bets_answer_lost(
                player, round_id, slip, key, in_flight=in_flight
            )
            [resent] = adapter.place_bets(player, round_id, slip, idempotency_key=key)
            finish()
            bets = adapter.get_round(round_id, player).bets
            held.append(len(bets))
            assert resent.bet_id in {b.bet_id for b in bets}
        balance = adapter.balance(player)
        adapter.close()
    assert (held, balance) == ([1, 3], Decimal("70.00"))


def test_an_adapter_without_the_relay_makes_the_scenario_not_testable() -> None:
    """A mapping adapter or a plugin has no `place_bets_answer_lost`: the scenario is skipped
    with the reason (fixtures/evidence.py turns Unsupported into a skip), never passed."""

    class Scene:
        adapter = object()

    with pytest.raises(Unsupported, match="fault relay"):
        _lose(Scene(), "10.00", "Big", in_flight=False)  # type: ignore[arg-type]


# -- judged by the steps: only a slip the target took shows what its key does --------------------

SLIP_PATH = re.compile(r"^/v1/rounds/[^/]+/bets$")
HOP = {"content-length", "transfer-encoding", "connection", "host"}
Forward = Callable[[dict[str, str]], tuple[int, bytes]]
OnSlip = Callable[[dict[str, str], Forward], tuple[int, bytes]]


def _error(code: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": "from the stand-in"}}).encode()


@contextmanager
def slip_proxy(upstream: str, on_slip: OnSlip) -> Iterator[str]:
    """A stand-in target: the reference behind a proxy that passes every request on, except
    that each bet slip goes to `on_slip(headers, forward)` (the relay's slip is the one sent with
    `Connection: close`)."""
    session = requests.Session()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}

            def forward(sent: dict[str, str]) -> tuple[int, bytes]:
                answer = session.request(
                    self.command, upstream + self.path, data=body, headers=sent, timeout=30
                )
                return answer.status_code, answer.content

            if self.command == "POST" and SLIP_PATH.match(self.path):
                headers["Connection"] = self.headers.get("Connection", "")
                status, payload = on_slip(headers, forward)
            else:
                status, payload = forward(headers)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_DELETE = _handle

    try:
        with serving(Handler) as url:
            yield url
    finally:
        session.close()


def _keyless(headers: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k.lower() not in ("idempotency-key", "connection")}


def keys_ignored(first: int | None = None) -> OnSlip:
    """No idempotency at all (every slip passed on without its key); with `first`, the relay's
    slip is answered `first` and never placed (a target that refused or failed it)."""

    def on_slip(headers: dict[str, str], forward: Forward) -> tuple[int, bytes]:
        if first is not None and headers["Connection"].lower() == "close":
            return first, _error("INTERNAL" if first >= 500 else "INVALID_STAKE")
        return forward(_keyless(headers))

    return on_slip


def conflict_while_processed(slow_s: float = 0.4) -> OnSlip:
    """An idempotent target (the reference) that takes `slow_s` over each slip and refuses a
    re-send with 409 IDEMPOTENCY_CONFLICT while the first with its key is still at work.

    The relay's slip (sent with `Connection: close`) reaches the target first, so the target
    takes it up first: a re-send waits for that before it looks at the key. Without the wait, a
    busy machine could run the re-send's handler first and the roles would swap at random."""
    busy: set[str] = set()
    lock = threading.Lock()
    first_taken_up = threading.Event()

    def on_slip(headers: dict[str, str], forward: Forward) -> tuple[int, bytes]:
        key = headers.get("Idempotency-Key", "")
        if headers.get("Connection", "").lower() == "close":
            with lock:
                busy.add(key)
            first_taken_up.set()
        else:
            first_taken_up.wait(timeout=10)
            with lock:
                if key in busy:
                    return 409, _error("IDEMPOTENCY_CONFLICT")
                busy.add(key)
        try:
            time.sleep(slow_s)
            return forward({k: v for k, v in headers.items() if k != "Connection"})
        finally:
            with lock:
                busy.discard(key)

    return on_slip


class StandInScene:
    """What the lost-answer steps use of a Scene: an adapter, a player, an open round, checks."""

    def __init__(self, adapter: HttpAdapter) -> None:
        self.adapter, self.game = adapter, "sicbo"
        self.round: RoundView | None = None
        self.bets: list = []
        self.checks = CheckLedger(("REG-IDEMP-01",))
        self._player: PlayerHandle | None = None

    def player(self) -> PlayerHandle:
        if self._player is None:
            self._player = self.adapter.create_player(Decimal("100.00"))
        return self._player

    def open_round(self) -> RoundView:
        if self.round is None:
            table = self.adapter.create_table("sicbo")
            self.round = self.adapter.open_round(table, countdown_ms=60_000)
        return self.round


@pytest.fixture(scope="module")
def reference() -> Iterator[EmbeddedServer]:
    with EmbeddedServer() as server:
        yield server


def play(
    reference: EmbeddedServer, on_slip: OnSlip, in_flight: bool, kept: list | None = None
) -> StandInScene:
    """The lost-answer scenario's steps against the reference behind `on_slip`; the scene is
    also put in `kept` (to read its checks when a step raised)."""
    with slip_proxy(reference.url, on_slip) as url:
        adapter = HttpAdapter(url, reference.operator_token, reference.dealer_token)
        scene = StandInScene(adapter)
        if kept is not None:
            kept.append(scene)
        try:
            lose = connection_lost_in_flight if in_flight else answer_lost
            lost = lose(scene, "10.00", "Big")  # type: ignore[arg-type]
            app_sends_again(scene, lost)  # type: ignore[arg-type]
            taken_once(scene, lost)  # type: ignore[arg-type]
        finally:
            adapter.close()
    return scene


@pytest.mark.parametrize("in_flight", [False, True], ids=["answered", "in-flight"])
def test_a_lost_slip_the_target_failed_with_503_is_a_target_error_not_a_pass(
    reference: EmbeddedServer, in_flight: bool
) -> None:
    """The reviewer's stand-in: no idempotency, and 503 to the relay's slip; the re-send is then
    a first placement, which shows nothing of a key: never passed, never a finding."""
    kept: list[StandInScene] = []
    with pytest.raises(TargetError, match="answered 503") as raised:
        play(reference, keys_ignored(first=503), in_flight, kept)
    assert raised.value.answered == 503
    assert kept[0].checks.as_record() == {"clauses": {}, "untagged": {}}


@pytest.mark.parametrize("in_flight", [False, True], ids=["answered", "in-flight"])
def test_a_lost_slip_the_target_refused_makes_the_scenario_not_testable(
    reference: EmbeddedServer, in_flight: bool
) -> None:
    kept: list[StandInScene] = []
    with pytest.raises(Unsupported, match=r"422 .*did not take it"):
        play(reference, keys_ignored(first=422), in_flight, kept)
    assert kept[0].checks.as_record() == {"clauses": {}, "untagged": {}}


def test_a_slip_placed_twice_in_flight_fails_the_clause_saying_when_it_was_resent(
    reference: EmbeddedServer,
) -> None:
    with pytest.raises(ClauseFailure, match="REG-IDEMP-01") as raised:
        play(reference, keys_ignored(), in_flight=True)
    said = str(raised.value)
    assert "while the first was still on its way, stands 2 times" in said
    assert "at once" not in said


@pytest.mark.parametrize("in_flight", [False, True], ids=["answered", "in-flight"])
def test_a_target_refusing_a_re_send_in_flight_with_409_and_replaying_later_holds(
    reference: EmbeddedServer, in_flight: bool
) -> None:
    """The IETF Idempotency-Key draft's answer to a concurrent request (409), which the contract
    allows: the app sends once more after the first was answered, and gets the first answer."""
    on_slip = conflict_while_processed()
    scene = play(reference, on_slip, in_flight)
    tally = scene.checks.clauses["REG-IDEMP-01"]
    assert (tally.ran, tally.held) == (2, 2)
    slips = [e.status for e in scene.adapter.recorder.drain() if e.url.endswith("/bets")]
    assert slips == ([None, 409, 200] if in_flight else [None, 200])  # the lost one: no answer


def test_a_relay_that_did_not_pass_the_slip_on_is_a_harness_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(LostAnswerRelay, "forwarded", lambda self, timeout: False)
    with fake_target(answering([], delay=0.3)) as url:
        adapter = HttpAdapter(url, "op", "dl")
        with pytest.raises(RelayError, match="did not pass the whole slip on"):
            adapter.place_bets_answer_lost(PLAYER, "r1", SLIP, "key-7", in_flight=True)
        adapter.close()
    [lost] = adapter.recorder.drain()  # kept as evidence, with what went wrong
    assert lost.status is None and "did not pass the whole slip on" in (lost.error or "")


def test_a_target_closing_without_an_answer_has_not_answered() -> None:
    """A bare close is no answer: the slip cannot count as taken (a target error in the steps)."""
    listener = socket.create_server(("127.0.0.1", 0))

    def close_at_once() -> None:
        connection, _ = listener.accept()
        connection.recv(65536)
        connection.close()

    threading.Thread(target=close_at_once, daemon=True).start()
    relay = LostAnswerRelay(listener.getsockname(), bound_s=2)
    with socket.create_connection(("127.0.0.1", relay.port), timeout=3) as harness:
        relay.request_follows()
        harness.sendall(b"POST /v1/rounds/r1/bets HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        harness.recv(65536)
    dropped = relay.wait()
    listener.close()
    assert not dropped.answered and dropped.dropped_bytes == 0
    assert "closed the connection without an answer" in dropped.describe()


def test_over_https_a_slip_lost_in_flight_and_held_once_is_not_testable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Over TLS the relay cannot read the dropped answer's status, and in flight the round is
    not read before the re-send: one bet in the round may be the re-send's own first placement."""

    class TlsScene(StandInScene):
        def player(self) -> PlayerHandle:
            return PLAYER

        def open_round(self) -> RoundView:
            self.round = self.round or self.adapter.get_round("r1", PLAYER)
            return self.round

    with tls_target("localhost", []) as (url, ca_file):
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", ca_file)
        scene = TlsScene(HttpAdapter(url, "op", "dl"))
        lost = connection_lost_in_flight(scene, "1.00", "Small")  # type: ignore[arg-type]
        with pytest.raises(Unsupported, match="could not read the status"):
            app_sends_again(scene, lost)  # type: ignore[arg-type]
        scene.adapter.close()
    assert scene.checks.as_record() == {"clauses": {}, "untagged": {}}

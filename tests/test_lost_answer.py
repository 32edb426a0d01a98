"""The fault relay of the lost-answer scenarios (REG-IDEMP-01 under a real network fault): a slip
reaches the target, its answer never reaches the harness; over plain HTTP and over HTTPS, where
the target is still spoken to under its own name (Host, TLS server name, certificate check)."""

import socket
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import trustme
from fake_target import fake_target, send_json
from samples import OPEN_BET as BET

from livecert.adapters import HttpAdapter, PlayerHandle, TargetError
from livecert.adapters.errors import Unsupported
from livecert.adapters.lost_answer import LostAnswerRelay
from livecert.harness.embedded import EmbeddedServer
from steps.lost_answers import _lose

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

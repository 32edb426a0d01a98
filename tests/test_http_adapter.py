"""The canonical adapter: retries that can never apply a bet twice, timeouts, evidence."""

import socket
import threading
import time
from decimal import Decimal
from http.server import BaseHTTPRequestHandler

import pytest
from fake_target import fake_target, send_json
from samples import OPEN_BET as BET
from samples import ROUND

from livecert.adapters import HttpAdapter, PlayerHandle, Refused, TargetError

PLAYER = PlayerHandle("p1", "secret-player-token")


def drop(handler: BaseHTTPRequestHandler) -> None:
    """Take the request, then close the connection without a word."""
    handler.close_connection = True
    handler.connection.shutdown(socket.SHUT_RDWR)


def dropping_first(answer):
    seen: list[str] = []
    lock = threading.Lock()

    def behaviour(handler: BaseHTTPRequestHandler) -> None:
        with lock:
            seen.append(handler.headers.get("Idempotency-Key") or "")
            first = len(seen) == 1
        if first:
            drop(handler)
        else:
            answer(handler)

    return behaviour, seen


def test_a_bet_slip_lost_on_the_wire_is_resent_with_the_same_idempotency_key() -> None:
    behaviour, keys = dropping_first(
        lambda h: send_json(h, 201, {"bets": [BET], "balance": "9.00"})
    )
    with fake_target(behaviour) as url:
        adapter = HttpAdapter(url, "op", "dl")
        [bet] = adapter.place_bets(PLAYER, "r1", [("SMALL", Decimal("1.00"))])
    assert bet.stake == Decimal("1.00")
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0].startswith("livecert-")
    exchanges = adapter.recorder.drain()
    assert [e.status for e in exchanges] == [None, 201]
    assert exchanges[0].error and exchanges[0].idempotency_key == keys[0]


def test_a_result_lost_on_the_wire_is_never_sent_again() -> None:
    behaviour, seen = dropping_first(lambda h: send_json(h, 200, ROUND))
    with fake_target(behaviour) as url:
        adapter = HttpAdapter(url, "op", "dl")
        with pytest.raises(TargetError, match=r"enter the result.*broke"):
            adapter.enter_result("r1", (1, 2, 3))
    assert len(seen) == 1


@pytest.mark.timing
def test_a_target_that_does_not_answer_times_out() -> None:
    with fake_target(lambda h: time.sleep(10)) as url:
        adapter = HttpAdapter(url, "op", "dl", timeout=(1.0, 0.5))
        started = time.monotonic()
        with pytest.raises(TargetError, match=r"no answer within 0\.5 s"):
            adapter.balance(PLAYER)
    assert time.monotonic() - started < 5


def test_a_refusal_carries_the_code_and_message() -> None:
    refusal = {"error": {"code": "UNKNOWN_SELECTION", "message": "TOTAL_3 is not a selection"}}
    with fake_target(lambda h: send_json(h, 422, refusal)) as url:
        adapter = HttpAdapter(url, "op", "dl")
        with pytest.raises(Refused) as refused:
            adapter.place_bets(PLAYER, "r1", [("TOTAL_3", Decimal("1.00"))])
    assert (refused.value.status, refused.value.code) == (422, "UNKNOWN_SELECTION")


def test_evidence_keeps_every_exchange_and_never_a_token() -> None:
    with fake_target(lambda h: send_json(h, 201, {"bets": [BET], "balance": "9.00"})) as url:
        adapter = HttpAdapter(url, "operator-secret", "dealer-secret")
        adapter.place_bets(PLAYER, "r1", [("SMALL", Decimal("1.00"))], idempotency_key="k-1")
    [exchange] = adapter.recorder.drain()
    curl = exchange.as_curl()
    assert exchange.operation == "place 1 bet(s)" and exchange.status == 201
    assert '"stake":"1.00"' in exchange.request_body
    assert "$PLAYER_TOKEN" in curl and "Idempotency-Key: k-1" in curl
    assert "secret" not in curl
    assert adapter.recorder.drain() == []


def test_a_new_players_token_never_reaches_the_evidence() -> None:
    """The answer that creates a player carries its bearer token: the exchange recorded for it
    shows it as $PLAYER_TOKEN[hmac:...] (the run record, Allure and the reproductions are made
    of these)."""
    created = {"player_id": "p9", "token": "tok-5c1d-live", "balance": "10.00", "connected": True}
    with fake_target(lambda h: send_json(h, 201, created)) as url:
        adapter = HttpAdapter(url, "operator-secret", "dealer-secret")
        player = adapter.create_player(Decimal("10.00"))
    assert player.token == "tok-5c1d-live"  # the harness still uses it
    [exchange] = adapter.recorder.drain()
    assert exchange.status == 201 and "tok-5c1d-live" not in exchange.response_body
    assert '"token":"$PLAYER_TOKEN[hmac:' in exchange.response_body.replace(" ", "")

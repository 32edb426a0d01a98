"""The round history read through the canonical adapter (`HttpAdapter.round_history`) from the
embedded reference, run as the harness runs it (a subprocess): the drawn tables of
`drawn_rounds`, and a table whose rounds the harness played, every answer checked against the
contract on the way."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import pytest
from rewriting_proxy import rewriting_proxy

from livecert.adapters import HistoryPage, HistoryRound, HttpAdapter, Refused
from livecert.contract import ContractViolation
from livecert.harness.embedded import EmbeddedServer

DRAWN = 2000


@pytest.fixture(scope="module")
def server() -> Iterator[EmbeddedServer]:
    with EmbeddedServer(drawn_rounds=DRAWN, shaker_seed=20260101) as running:
        yield running


@pytest.fixture
def adapter(server: EmbeddedServer) -> Iterator[HttpAdapter]:
    client = HttpAdapter(server.url, server.operator_token, server.dealer_token)
    yield client
    client.close()


def _history(adapter: HttpAdapter, table_id: str, limit: int) -> list[HistoryPage]:
    pages, after = [], None
    while True:
        page = adapter.round_history(table_id, after=after, limit=limit)
        pages.append(page)
        if page.next is None:
            return pages
        after = page.next


def test_the_server_is_started_with_the_drawn_tables_options(server: EmbeddedServer) -> None:
    command = " ".join(map(str, server.process.args if server.process else []))
    assert f"--drawn-rounds {DRAWN} --shaker-seed 20260101" in command
    assert EmbeddedServer().drawn_rounds == 0 and EmbeddedServer().shaker_seed is None


def test_the_drawn_tables_read_page_by_page_give_every_round_once(adapter: HttpAdapter) -> None:
    assert "round-history" in adapter.info().capabilities
    for game, size in (("sicbo", 3), ("xocdia", 4)):
        pages = _history(adapter, f"drawn-{game}", limit=1000)
        assert [len(p.rounds) for p in pages] == [1000, 1000]
        rounds = [r for p in pages for r in p.rounds]
        assert all(isinstance(r, HistoryRound) for r in rounds)
        assert [r.round_id for r in rounds] == [f"drawn-{game}-{k:07d}" for k in range(1, 2001)]
        assert all(
            r.state == "settled"
            and (r.shaker, r.dealer, r.in_order) == ("shaker-1", "dealer-1", True)
            and len(r.result["dice" if game == "sicbo" else "tokens"]) == size
            for r in rounds
            if r.result is not None
        )
        times = [r.time for r in rounds]
        assert None not in times and times == sorted(times)  # oldest first
    # a smaller page: the same rounds; the default page holds 1,000
    small = [r for p in _history(adapter, "drawn-sicbo", limit=700) for r in p.rounds]
    assert small == [r for p in _history(adapter, "drawn-sicbo", limit=1000) for r in p.rounds]
    assert len(adapter.round_history("drawn-xocdia").rounds) == 1000


def test_the_rounds_the_harness_played_show_their_state_and_result(adapter: HttpAdapter) -> None:
    player = adapter.create_player(Decimal("100.00"))
    table = adapter.create_table("sicbo")
    settled = adapter.open_round(table, countdown_ms=60_000).round_id
    adapter.place_bets(player, settled, [("BIG", Decimal("1.00"))])
    adapter.close_betting(settled)
    adapter.enter_result(settled, [6, 5, 1])
    cancelled = adapter.open_round(table, countdown_ms=60_000).round_id
    adapter.place_bets(player, cancelled, [("SMALL", Decimal("2.00"))])
    adapter.dealer_action(cancelled, "cancel", "the shaker jammed")
    still_open = adapter.open_round(table, countdown_ms=60_000).round_id
    page = adapter.round_history(table)
    assert page.next is None
    assert [(r.round_id, r.state) for r in page.rounds] == [
        (settled, "settled"),
        (cancelled, "cancelled"),
    ]
    assert page.rounds[0].result == {"dice": [6, 5, 1], "total": 12}
    assert page.rounds[1].result is None and page.rounds[1].time is not None
    assert not any(r.in_order or r.shaker or r.dealer for r in page.rounds)
    assert still_open not in {r.round_id for r in page.rounds}
    # a voided Xoc Dia round
    xocdia = adapter.create_table("xocdia")
    voided = adapter.open_round(xocdia, countdown_ms=60_000).round_id
    adapter.place_bets(player, voided, [("ODD", Decimal("1.00"))])
    adapter.dealer_action(voided, "void", "the bowl was lifted early")
    [entry] = adapter.round_history(xocdia).rounds
    assert (entry.round_id, entry.state, entry.result) == (voided, "void", None)


def test_refusals_come_back_as_refused(adapter: HttpAdapter) -> None:
    with pytest.raises(Refused) as unknown:
        adapter.round_history("t_no_such_table")
    assert (unknown.value.status, unknown.value.code) == (404, "NOT_FOUND")
    for after, limit in (("not-a-cursor", 10), (None, 0), (None, 1001)):
        with pytest.raises(Refused) as bad:
            adapter.round_history("drawn-sicbo", after=after, limit=limit)
        assert (bad.value.status, bad.value.code) == (422, "VALIDATION")


def _unfinished_state(method: str, path: str, status: int, body: object) -> object:
    """A history naming a round still betting: outside the contract's finished states."""
    if method == "GET" and path.endswith("/rounds") and isinstance(body, dict):
        return {**body, "rounds": [{**r, "state": "betting"} for r in body["rounds"]]}
    return body


def test_an_answer_outside_the_contract_is_a_violation(server: EmbeddedServer) -> None:
    with rewriting_proxy(server.url, _unfinished_state) as url:
        bent = HttpAdapter(url, server.operator_token, server.dealer_token)
        try:
            with pytest.raises(ContractViolation, match=r"getRoundHistory .*state must be one of"):
                bent.round_history("drawn-sicbo", limit=5)
        finally:
            bent.close()

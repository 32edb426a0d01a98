"""The round history (`GET /v1/tables/{table_id}/rounds`, capability `round-history`) and the
drawn tables of `--drawn-rounds`: every finished round exactly once over the pages, oldest first,
`next` null at the end; a bad `limit` or cursor refused with nothing stored; the rounds a dealer
played shown with their state and result. Every answer is checked against the contract."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from reference_support import DEALER, OPERATOR, Casino, ContractClient

from livecert.reference.app import create_app
from livecert.reference.config import Config
from livecert.reference.store import HISTORY_PAGE

AppFactory = Any


def _page(api: ContractClient, table: str, **params: Any) -> dict[str, Any]:
    answer = api.get(f"/v1/tables/{table}/rounds", headers=OPERATOR, params=params)
    assert answer.status_code == 200, answer.text
    return answer.json()


def _all(api: ContractClient, table: str, limit: int) -> tuple[list[dict[str, Any]], int]:
    """Every round of the history, page after page; and how many pages it took."""
    rounds, after, pages = [], None, 0
    while True:
        page = _page(api, table, limit=limit, **({"after": after} if after else {}))
        pages += 1
        assert len(page["rounds"]) <= limit
        rounds += page["rounds"]
        after = page["next"]
        if after is None:
            return rounds, pages


def _dump(api: ContractClient) -> str:
    """The whole database, read from its file: what a refusal must leave as it was."""
    with sqlite3.connect(api.client.app.state.store.path) as db:
        return hashlib.sha256("\n".join(db.iterdump()).encode()).hexdigest()


@pytest.fixture
def drawn(make_app: AppFactory) -> ContractClient:
    api, _casino = make_app(drawn_rounds=250, shaker_seed=42)
    return api


def test_every_drawn_round_comes_once_oldest_first_and_next_is_null_at_the_end(
    drawn: ContractClient,
) -> None:
    rounds, pages = _all(drawn, "drawn-sicbo", limit=100)
    assert pages == 3  # 100, 100, 50
    ids = [r["round_id"] for r in rounds]
    assert ids == [f"drawn-sicbo-{k:07d}" for k in range(1, 251)]
    times = [r["settled_at"] for r in rounds]
    assert times == sorted(times) and len(set(times)) == 250  # 40 s apart, the last at start-up
    for entry in rounds:
        assert entry["state"] == "settled" and entry["in_order"] is True
        assert (entry["shaker"], entry["dealer"]) == ("shaker-1", "dealer-1")
        dice = entry["result"]["dice"]
        assert len(dice) == 3 and entry["result"]["total"] == sum(dice)
    # a page size that divides the history: the last full page still says it is the last
    assert _all(drawn, "drawn-sicbo", limit=125)[1] == 2
    assert _all(drawn, "drawn-sicbo", limit=1000) == (rounds, 1)
    assert len(_page(drawn, "drawn-sicbo")["rounds"]) == 100  # the default limit


def test_the_drawn_xocdia_table_holds_tokens_shaken_and_settled(drawn: ContractClient) -> None:
    rounds, _ = _all(drawn, "drawn-xocdia", limit=1000)
    assert len(rounds) == 250
    for entry in rounds:
        tokens = entry["result"]["tokens"]
        assert len(tokens) == 4 and entry["result"]["red"] == tokens.count("r")
    one = drawn.get(f"/v1/rounds/{rounds[0]['round_id']}", headers=DEALER).json()
    assert one["state"] == "settled" and one["bets"] == []
    assert [e["type"] for e in one["events"]] == ["shake", "result"]
    chart = drawn.get("/v1/tables/drawn-sicbo/statistics", headers=DEALER).json()
    assert len(chart["results"]) == 50 and chart["results"][0]["round_id"] == "drawn-sicbo-0000250"


def test_a_bad_limit_or_cursor_is_refused_and_stores_nothing(drawn: ContractClient) -> None:
    casino = Casino(drawn)
    other_table = casino.table()
    unfinished = casino.open(other_table)
    before = _dump(drawn)
    path = "/v1/tables/drawn-sicbo/rounds"
    for query in (
        "limit=0",
        "limit=1001",
        "limit=abc",
        "limit=1.5",
        "limit=-1",
        "limit=",
        "limit=%205",
        "limit=10&limit=20",
        "after=nope",
        "after=",
        f"after={unfinished}",  # a round of another table, and not finished
        "after=drawn-xocdia-0000001",  # a finished round, of another table
        "after=drawn-sicbo-0000001&after=drawn-sicbo-0000002",
    ):
        answer = drawn.get(f"{path}?{query}", headers=OPERATOR)
        assert answer.status_code == 422, (query, answer.text)
        error = answer.json()["error"]
        assert error["code"] == "VALIDATION" and error["message"], (query, error)
    assert _dump(drawn) == before
    long = "x" * 5000
    refused = drawn.get(f"{path}?after={long}", headers=OPERATOR).json()["error"]["message"]
    assert len(refused) < 300  # the cursor is not repeated whole
    answer = drawn.get("/v1/tables/t_missing/rounds", headers=OPERATOR)
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "NOT_FOUND"
    assert drawn.get(path, headers=DEALER).status_code == 403
    assert drawn.get(path).status_code == 401
    assert _dump(drawn) == before


def test_the_rounds_a_dealer_played_appear_with_their_state_and_result_once_finished(
    api: ContractClient, casino: Casino
) -> None:
    _pid, player = casino.player()
    sicbo = casino.table()
    played = casino.play(player, [3, 1, 6], ("BIG", "1.00"), table_id=sicbo)
    cancelled = casino.open(sicbo)
    assert casino.bet(cancelled, player, ("SMALL", "2.00")).status_code == 201
    answer = api.post(f"/v1/rounds/{cancelled}/cancel", json={"reason": "jam"}, headers=DEALER)
    assert answer.status_code == 200
    open_now = casino.open(sicbo)
    page = _page(api, sicbo)
    assert page["next"] is None
    assert [(r["round_id"], r["state"]) for r in page["rounds"]] == [
        (played["round_id"], "settled"),
        (cancelled, "cancelled"),
    ]
    first, second = page["rounds"]
    assert first["result"] == {"dice": [3, 1, 6], "total": 10}
    assert first["settled_at"] == played["bets"][0]["settled_at"]
    assert second["result"] is None and second["settled_at"] is not None
    assert all(r["shaker"] is None and r["dealer"] is None for r in page["rounds"])
    assert all(r["in_order"] is False for r in page["rounds"])  # as the dealer entered them
    # the round still open joins the history once it finished, after the last round read
    casino.close(open_now)
    assert casino.result(open_now, [2, 2, 2]).status_code == 200
    later = _page(api, sicbo, after=cancelled)
    assert [r["round_id"] for r in later["rounds"]] == [open_now] and later["next"] is None
    # a Xoc Dia round voided by the dealer
    xocdia = casino.table("xocdia")
    voided = casino.open(xocdia)
    answer = api.post(f"/v1/rounds/{voided}/void", json={"reason": "bowl"}, headers=DEALER)
    assert answer.status_code == 200
    assert [(r["round_id"], r["state"], r["result"]) for r in _page(api, xocdia)["rounds"]] == [
        (voided, "void", None)
    ]


def test_a_restart_completes_the_drawn_tables_with_the_draws_one_start_would_make(
    tmp_path: Path,
) -> None:
    def history(db: str, rounds: int, seed: int) -> list[Any]:
        app = create_app(Config(db_path=db, drawn_rounds=rounds, shaker_seed=seed))
        try:
            with TestClient(app) as client:
                api = ContractClient(client)
                return [
                    (r["round_id"], r["result"])
                    for table in ("drawn-sicbo", "drawn-xocdia")
                    for r in _all(api, table, limit=1000)[0]
                ]
        finally:
            app.state.store.close()

    grown = str(tmp_path / "grown.sqlite3")
    first = history(grown, 100, 7)
    assert history(grown, 100, 7) == first  # started again: nothing added, nothing changed
    assert history(grown, 60, 7) == first  # fewer asked: nothing taken away
    completed = history(grown, 150, 7)
    assert completed[:100] == first[:100] and len(completed) == 300
    assert completed == history(str(tmp_path / "fresh.sqlite3"), 150, 7)
    assert history(str(tmp_path / "other.sqlite3"), 150, 8) != completed


def test_the_history_and_the_opening_of_a_round_share_their_path(
    api: ContractClient, casino: Casino
) -> None:
    table = casino.table()
    assert _page(api, table) == {"rounds": [], "next": None}
    assert api.post(f"/v1/tables/{table}/rounds", json={}, headers=DEALER).status_code == 201
    other = api.client.request("PUT", f"/v1/tables/{table}/rounds")
    assert other.status_code == 405  # Starlette keeps a route's methods as a set: any order
    assert set(other.headers["allow"].split(", ")) == {"GET", "POST"}


def test_the_capability_is_declared_and_can_be_left_undeclared(make_app: AppFactory) -> None:
    api, _ = make_app()
    assert "round-history" in api.get("/v1/info").json()["capabilities"]
    quiet, _ = make_app(without=frozenset({"round-history"}))
    assert "round-history" not in quiet.get("/v1/info").json()["capabilities"]
    # no drawn table unless asked for
    missing = api.get("/v1/tables/drawn-sicbo/rounds", headers=OPERATOR)
    assert missing.status_code == 404


def test_a_page_is_a_keyset_search_of_the_table_s_rounds_never_a_scan(
    drawn: ContractClient,
) -> None:
    path = drawn.client.app.state.store.path
    with sqlite3.connect(path) as db:
        plan = " ".join(
            row[-1] for row in db.execute("EXPLAIN QUERY PLAN " + HISTORY_PAGE, ("t", 0, 10))
        )
    assert "SEARCH rounds USING INDEX rounds_in_table_order (table_id=? AND seq>?)" in plan
    assert "TEMP B-TREE" not in plan  # no sort of the table's rounds


def test_drawn_rounds_are_recorded_at_start_up(tmp_path: Path) -> None:
    """10,000 rounds a game at start-up (how fast: benchmarks/drawn_rounds.py; timing belongs
    in a benchmark, not in a test)."""
    app = create_app(Config(db_path=str(tmp_path / "big.sqlite3"), drawn_rounds=10_000))
    try:
        with sqlite3.connect(app.state.store.path) as db:
            counts = dict(db.execute("SELECT table_id, COUNT(*) FROM rounds GROUP BY table_id"))
            stored = db.execute(
                "SELECT result FROM rounds WHERE table_id = 'drawn-sicbo'"
            ).fetchone()
    finally:
        app.state.store.close()
    assert counts == {"drawn-sicbo": 10_000, "drawn-xocdia": 10_000}
    assert len(json.loads(stored[0])) == 3

"""With no fault seeded: the bet record's rounds, the round's life, concurrency, restarts."""

from __future__ import annotations

import threading
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from reference_support import DEALER, Casino, ContractClient, restarted, round_before_a_restart


def _error(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code


def _record(api: ContractClient, player: dict[str, str], **params: str) -> dict[str, Any]:
    r = api.get("/v1/player/bets", headers=player, params=params)
    assert r.status_code == 200, r.text
    return r.json()


# -- the bet record (REG-RECALL-01, TBL-DISC-03) -------------------------------------------------


def test_record_rounds_open_settled_cancelled(api: ContractClient, casino: Casino) -> None:
    pid, player = casino.player("100.00")
    _pid2, other = casino.player("100.00")
    table = casino.table()
    first = casino.open(table)
    casino.bet(first, player, ("SMALL", "10.00"), ("TOTAL_6", "1.00"))
    casino.bet(first, other, ("BIG", "5.00"))
    casino.bet(first, player, ("BIG", "4.00"))  # a second slip keeps balance_before
    rec = _record(api, player)
    assert rec["player_id"] == pid and len(rec["bets"]) == 3
    [open_round] = rec["rounds"]
    assert open_round == {
        "round_id": first,
        "table_id": table,
        "game": "sicbo",
        "state": "betting",
        "opened_at": open_round["opened_at"],
        "finished_at": None,
        "result": None,
        "staked": "15.00",
        "returned": None,
        "balance_before": "100.00",
        "balance_after": None,
    }
    casino.close(first)
    casino.result(first, [1, 2, 3])  # SMALL wins 10 + 10, TOTAL_6 wins 1 + 18, BIG loses
    second = casino.open(table)
    casino.bet(second, player, ("ODD", "7.00"))
    api.post(f"/v1/rounds/{second}/cancel", json={"reason": "camera"}, headers=DEALER)
    rec = _record(api, player)
    assert [r["round_id"] for r in rec["rounds"]] == [second, first]  # newest first
    cancelled, settled = rec["rounds"]
    assert settled["state"] == "settled" and settled["result"]["dice"] == [1, 2, 3]
    assert (settled["staked"], settled["returned"]) == ("15.00", "39.00")
    assert (settled["balance_before"], settled["balance_after"]) == ("100.00", "124.00")
    assert settled["finished_at"] is not None
    assert cancelled["state"] == "cancelled" and cancelled["result"] is None
    assert (cancelled["staked"], cancelled["returned"]) == ("7.00", "7.00")
    assert (cancelled["balance_before"], cancelled["balance_after"]) == ("124.00", "124.00")
    assert casino.balance(player) == "124.00"
    only = _record(api, player, round_id=first)
    assert [r["round_id"] for r in only["rounds"]] == [first] and len(only["bets"]) == 3
    assert _record(api, other)["rounds"][0]["balance_after"] == "95.00"
    assert _record(api, player, round_id="r_missing") == {
        "player_id": pid,
        "bets": [],
        "rounds": [],
    }


def test_record_of_a_void_xocdia_round_keeps_its_result(
    api: ContractClient, casino: Casino
) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table("xocdia"))
    casino.bet(round_id, player, ("ODD", "10.00"))
    assert casino.tokens(round_id, ["r", "w", "w", "w"]).json()["state"] == "void"  # early reveal
    [rnd] = _record(api, player)["rounds"]
    assert rnd["state"] == "void" and rnd["result"]["red"] == 1
    assert (rnd["returned"], rnd["balance_after"]) == ("10.00", "100.00")


def test_record_shows_only_the_players_own_bets(api: ContractClient, casino: Casino) -> None:
    pid, player = casino.player("100.00")
    _pid2, other = casino.player("100.00")
    round_id = casino.open(casino.table())
    casino.bet(round_id, player, ("SMALL", "1.00"))
    casino.bet(round_id, other, ("BIG", "2.00"))
    rec = _record(api, player)
    assert [b["player_id"] for b in rec["bets"]] == [pid]
    assert rec["rounds"][0]["staked"] == "1.00"
    assert [
        b["player_id"] for b in api.get(f"/v1/rounds/{round_id}", headers=player).json()["bets"]
    ] == [pid]
    _error(api.get("/v1/player/bets", headers=DEALER), 403, "FORBIDDEN")


# -- the round's life ----------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["sicbo", "xocdia"])
@pytest.mark.timing
def test_countdown_expiry_refuses_bets(casino: Casino, game: str) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table(game), countdown_ms=300)
    assert casino.bet(round_id, player, ("ODD", "1.00")).status_code == 201
    time.sleep(0.4)
    _error(casino.bet(round_id, player, ("ODD", "1.00")), 409, "ROUND_STATE")
    assert casino.balance(player) == "99.00"


def test_withdrawal_refused_in_every_state(api: ContractClient, casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table())
    bet_id = casino.bet(round_id, player, ("SMALL", "10.00")).json()["bets"][0]["bet_id"]
    _error(api.delete(f"/v1/bets/{bet_id}", headers=player), 409, "BET_FINAL")  # betting
    casino.close(round_id)
    _error(api.delete(f"/v1/bets/{bet_id}", headers=player), 409, "BET_FINAL")  # closed
    assert casino.reshake(round_id, "dice-overlap").status_code == 200
    _error(api.delete(f"/v1/bets/{bet_id}", headers=player), 409, "BET_FINAL")  # re-shake
    assert casino.balance(player) == "90.00"
    casino.result(round_id, [1, 2, 3])
    _error(api.delete(f"/v1/bets/{bet_id}", headers=player), 409, "BET_FINAL")  # settled
    [bet] = casino.get_round(round_id)["bets"]
    assert (bet["status"], bet["outcome"], bet["returned"]) == ("settled", "win", "20.00")
    assert casino.balance(player) == "110.00"


def test_pause_refuses_bets_and_results_and_resume_continues(
    api: ContractClient, casino: Casino
) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table())
    casino.bet(round_id, player, ("BIG", "10.00"))
    api.post(f"/v1/rounds/{round_id}/pause", json={"reason": "camera"}, headers=DEALER)
    _error(casino.bet(round_id, player, ("BIG", "1.00")), 409, "ROUND_STATE")
    _error(casino.result(round_id, [4, 5, 6]), 409, "ROUND_STATE")
    api.post(f"/v1/rounds/{round_id}/resume", headers=DEALER)
    assert casino.bet(round_id, player, ("BIG", "1.00")).status_code == 201
    assert [b["status"] for b in casino.get_round(round_id)["bets"]] == ["open", "open"]
    casino.close(round_id)
    assert casino.result(round_id, [4, 5, 6]).json()["state"] == "settled"
    assert casino.balance(player) == "111.00"


def test_cancel_refunds_exactly_once(api: ContractClient, casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table("xocdia"))
    casino.bet(round_id, player, ("FOUR_RED", "10.00"), ("EVEN", "3.33"))
    assert casino.balance(player) == "86.67"
    api.post(f"/v1/rounds/{round_id}/cancel", json={"reason": "no fix"}, headers=DEALER)
    assert casino.balance(player) == "100.00"
    _error(
        api.post(f"/v1/rounds/{round_id}/cancel", json={"reason": "again"}, headers=DEALER),
        409,
        "ROUND_STATE",
    )
    _error(api.post(f"/v1/rounds/{round_id}/resume", headers=DEALER), 409, "ROUND_STATE")
    assert casino.balance(player) == "100.00"


@pytest.mark.parametrize("game", ["sicbo", "xocdia"])
def test_disconnect_and_reconnect_keep_bets(api: ContractClient, casino: Casino, game: str) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table(game))
    casino.bet(round_id, player, ("ODD", "10.00"))
    assert api.post("/v1/player/disconnect", headers=player).json()["connected"] is False
    assert api.post("/v1/player/connect", headers=player).json()["connected"] is True
    assert api.post("/v1/player/disconnect", headers=player).status_code == 200
    assert [b["status"] for b in casino.get_round(round_id)["bets"]] == ["open"]
    if game == "xocdia":
        casino.event(round_id, "shake")
        casino.close(round_id)
        casino.tokens(round_id, ["r", "w", "w", "w"])
        expected = "109.60"
    else:
        casino.close(round_id)
        casino.result(round_id, [1, 1, 3])
        expected = "110.00"
    [bet] = casino.get_round(round_id)["bets"]
    assert (bet["status"], bet["outcome"]) == ("settled", "win")
    assert api.get("/v1/player", headers=player).json()["balance"] == expected


def test_statistics_after_55_rounds(api: ContractClient, casino: Casino) -> None:
    table = casino.table()
    settled = []
    for i in range(55):
        round_id = casino.open(table)
        if i in (3, 40, 52):
            api.post(f"/v1/rounds/{round_id}/cancel", json={"reason": "x"}, headers=DEALER)
            continue
        casino.close(round_id)
        casino.result(round_id, [i % 6 + 1, (i // 6) % 6 + 1, 2])
        settled.append(round_id)
    results = api.get(f"/v1/tables/{table}/statistics", headers=DEALER).json()["results"]
    assert [e["round_id"] for e in results] == settled[::-1][:50]


def test_idempotent_replay_applies_once(casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table())
    key = {"Idempotency-Key": "slip-1"}
    first = casino.bet(round_id, player, ("SMALL", "10.00"), headers=key)
    again = casino.bet(round_id, player, ("SMALL", "10.00"), headers=key)
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json() == again.json()
    assert casino.balance(player) == "90.00" and len(casino.get_round(round_id)["bets"]) == 1


# -- concurrency and restarts --------------------------------------------------------------------


@pytest.mark.timing
def test_twenty_concurrent_players_settle_and_conserve_money(
    api: ContractClient, casino: Casino
) -> None:
    players = [casino.player("100.00")[1] for _ in range(20)]
    round_id = casino.open(casino.table())
    barrier = threading.Barrier(len(players))
    codes: list[int] = []

    def play(player: dict[str, str]) -> None:
        barrier.wait()
        for code in ("SMALL", "TOTAL_6", "NUMBER_1"):
            codes.append(casino.bet(round_id, player, (code, "1.00")).status_code)

    threads = [threading.Thread(target=play, args=(p,)) for p in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert codes == [201] * 60
    assert sum(Decimal(casino.balance(p)) for p in players) == Decimal("1940.00")
    casino.close(round_id)
    rnd = casino.result(round_id, [1, 2, 3]).json()
    assert len(rnd["bets"]) == 60 and {b["status"] for b in rnd["bets"]} == {"settled"}
    returned = sum(Decimal(b["returned"]) for b in rnd["bets"])
    assert returned == 20 * (2 + 19 + 2)
    assert sum(Decimal(casino.balance(p)) for p in players) == Decimal("1940.00") + returned
    for player in players:
        [rec] = _record(api, player)["rounds"]
        assert (rec["balance_before"], rec["balance_after"]) == ("100.00", "120.00")


@pytest.mark.parametrize("finish", ["settle", "cancel"])
def test_restart_keeps_an_open_round(tmp_path: Path, finish: str) -> None:
    db = str(tmp_path / "restart.sqlite3")
    player, round_id, _ = round_before_a_restart(db, ("SMALL", "10.00"), close=True)
    with restarted(db) as api:
        casino = Casino(api)
        assert casino.get_round(round_id)["state"] == "closed"
        assert casino.balance(player) == "90.00"
        if finish == "settle":
            assert casino.result(round_id, [1, 2, 3]).json()["state"] == "settled"
            expected = "110.00"
        else:
            r = api.post(f"/v1/rounds/{round_id}/cancel", json={"reason": "x"}, headers=DEALER)
            assert r.json()["state"] == "cancelled"
            expected = "100.00"
        assert casino.balance(player) == expected
        [rec] = _record(api, player)["rounds"]
        assert (rec["balance_before"], rec["balance_after"]) == ("100.00", expected)

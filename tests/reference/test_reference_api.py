"""The HTTP contract: happy paths validated against openapi.yaml, roles, refusals, round life."""

from __future__ import annotations

import time
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from hand_tables import sicbo_hand_table
from reference_support import (
    DEALER,
    OPERATOR,
    Casino,
    ContractClient,
    restarted,
    round_before_a_restart,
)

from livecert.reference import __version__, sicbo


def _error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"]["code"] == code, body
    assert body["error"]["message"]
    return body["error"]


# -- info, identity, roles --------------------------------------------------------------------


def test_info(api: ContractClient) -> None:
    info = api.get("/v1/info").json()
    assert info["implementation"] == {
        "name": "livecert-reference",
        "version": __version__,
        "vendor": "livecert",
    }
    assert info["contract_version"] == "1.1.0"
    assert info["games"] == ["sicbo", "xocdia"]
    assert info["currency"] == "EUR" and info["minor_unit"] == 2 and info["rounding"] == "down"
    assert info["max_rtp"] == {"sicbo": "97.22", "xocdia": "98.75"}
    assert {"idempotency", "pause", "statistics", "disconnect"} <= set(info["capabilities"])
    assert info["countdown_ms"] == {"min": 0, "max": 600000}
    assert isinstance(info["instance"], str) and info["instance"]  # names this process


def test_a_restart_with_return_interrupted_rounds_cancels_them_each_stake_returned(
    tmp_path: Path,
) -> None:
    """The test-only option: on start-up every unfinished round is cancelled, its stakes back
    (the other way REG-INTR-01 allows); finished rounds are left as they were."""
    db = str(tmp_path / "restart.sqlite3")
    headers, rid, [bet] = round_before_a_restart(db, ("BIG", "10.00"))
    with restarted(db, return_interrupted=True) as api:
        casino = Casino(api)
        view = casino.get_round(rid)
        assert view["state"] == "cancelled" and view["reason"] == "the server restarted"
        [shown] = [b for b in view["bets"] if b["bet_id"] == bet["bet_id"]]
        assert (shown["status"], shown["outcome"], shown["returned"]) == (
            "cancelled",
            "refund",
            "10.00",
        )
        assert casino.balance(headers) == "100.00"


def test_whoami(api: ContractClient, casino: Casino) -> None:
    pid, player = casino.player()
    assert api.get("/v1/whoami", headers=OPERATOR).json() == {"role": "operator", "player_id": None}
    assert api.get("/v1/whoami", headers=DEALER).json()["role"] == "dealer"
    assert api.get("/v1/whoami", headers=player).json() == {"role": "player", "player_id": pid}
    _error(api.get("/v1/whoami"), 401, "UNAUTHORIZED")
    _error(api.get("/v1/whoami", headers={"Authorization": "Bearer nope"}), 401, "UNAUTHORIZED")
    _error(api.get("/v1/whoami", headers={"Authorization": "Basic abc"}), 401, "UNAUTHORIZED")


def test_roles(api: ContractClient, casino: Casino) -> None:
    _pid, player = casino.player()
    table = casino.table()
    _error(api.post(f"/v1/tables/{table}/rounds", json={}, headers=player), 403, "FORBIDDEN")
    _error(api.post(f"/v1/tables/{table}/rounds", json={}, headers=OPERATOR), 403, "FORBIDDEN")
    _error(api.post(f"/v1/tables/{table}/rounds", json={}), 401, "UNAUTHORIZED")
    _error(api.post("/v1/players", json={"balance": "1.00"}, headers=DEALER), 403, "FORBIDDEN")
    _error(api.post("/v1/players", json={"balance": "1.00"}, headers=player), 403, "FORBIDDEN")
    _error(api.post("/v1/tables", json={"game": "sicbo"}, headers=player), 403, "FORBIDDEN")
    round_id = casino.open(table)
    _error(casino.bet(round_id, DEALER, ("SMALL", "1.00")), 403, "FORBIDDEN")
    _error(casino.bet(round_id, OPERATOR, ("SMALL", "1.00")), 403, "FORBIDDEN")
    _error(casino.bet(round_id, {}, ("SMALL", "1.00")), 401, "UNAUTHORIZED")
    _error(api.post(f"/v1/rounds/{round_id}/close", headers=player), 403, "FORBIDDEN")
    _error(
        api.post(f"/v1/rounds/{round_id}/result", json={"dice": [1, 2, 3]}, headers=player),
        403,
        "FORBIDDEN",
    )
    _error(api.get("/v1/player", headers=DEALER), 403, "FORBIDDEN")
    assert api.get(f"/v1/rounds/{round_id}", headers=player).json()["state"] == "betting"


def test_tables(api: ContractClient) -> None:
    r = api.post("/v1/tables", json={"game": "sicbo", "name": "T1"}, headers=OPERATOR)
    assert r.status_code == 201 and r.json()["game"] == "sicbo" and r.json()["name"] == "T1"
    r = api.post("/v1/tables", json={"game": "xocdia"}, headers=OPERATOR)
    assert r.status_code == 201 and r.json()["game"] == "xocdia"
    _error(api.post("/v1/tables", json={"game": "XOCDIA"}, headers=OPERATOR), 422, "VALIDATION")
    _error(api.post("/v1/tables", json={"game": "poker"}, headers=OPERATOR), 422, "VALIDATION")
    _error(api.post("/v1/tables", json={}, headers=OPERATOR), 422, "VALIDATION")


def test_players(api: ContractClient) -> None:
    r = api.post("/v1/players", json={"balance": "0.00"}, headers=OPERATOR)
    assert r.status_code == 201 and r.json()["balance"] == "0.00" and r.json()["token"]
    for bad in (
        {"balance": 100},
        {"balance": "-1.00"},
        {"balance": "1.001"},
        {},
        [],
        {"balance": "1.00", "name": 5},
    ):
        _error(api.post("/v1/players", json=bad, headers=OPERATOR), 422, "VALIDATION")


# -- the HTTP envelope ------------------------------------------------------------------------


def test_unknown_path_method_and_bodies(api: ContractClient, casino: Casino) -> None:
    _error(api.get("/v1/nowhere"), 404, "NOT_FOUND")
    _error(api.get("/v1/info/"), 404, "NOT_FOUND")
    r = api.client.put("/v1/info")
    assert r.status_code == 405 and r.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
    _error(api.get("/v1/rounds/r_missing", headers=DEALER), 404, "NOT_FOUND")
    _error(api.get("/v1/tables/t_missing/statistics", headers=DEALER), 404, "NOT_FOUND")
    _error(api.post("/v1/tables/t_missing/rounds", json={}, headers=DEALER), 404, "NOT_FOUND")
    _error(
        api.post(
            "/v1/players",
            content=b"{not json",
            headers={**OPERATOR, "Content-Type": "application/json"},
        ),
        422,
        "VALIDATION",
    )
    _error(
        api.post(
            "/v1/players",
            content=b'{"balance": "1.00"}',
            headers={**OPERATOR, "Content-Type": "text/plain"},
        ),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
    )
    _error(
        api.post(
            "/v1/players",
            content=b'{"balance": NaN}',
            headers={**OPERATOR, "Content-Type": "application/json"},
        ),
        422,
        "VALIDATION",
    )
    _error(api.post("/v1/players", headers=OPERATOR), 422, "VALIDATION")
    table = casino.table()
    for bad in (
        {"countdown_ms": -1},
        {"countdown_ms": "10"},
        {"countdown_ms": 1.5},
        {"countdown_ms": 600_001},
        [1],
    ):
        _error(api.post(f"/v1/tables/{table}/rounds", json=bad, headers=DEALER), 422, "VALIDATION")
    r = api.post(f"/v1/tables/{table}/rounds", headers=DEALER)  # no body: the default countdown
    assert r.status_code == 201


# -- a whole round ----------------------------------------------------------------------------


def test_happy_path_round(api: ContractClient, casino: Casino) -> None:
    pid, player = casino.player("100.00")
    table = casino.table()
    r = api.post(f"/v1/tables/{table}/rounds", json={"countdown_ms": 30000}, headers=DEALER)
    assert r.status_code == 201
    rnd = r.json()
    assert rnd["state"] == "betting" and rnd["bets"] == [] and rnd["result"] is None
    round_id = rnd["round_id"]
    r = casino.bet(
        round_id, player, ("SMALL", "10.00"), ("TWO_ODD_ONE_EVEN", "0.03"), ("TOTAL_4", "1.00")
    )
    assert r.status_code == 201
    assert r.json()["balance"] == "88.97"
    assert [b["status"] for b in r.json()["bets"]] == ["open"] * 3
    assert all(b["win"] is None and b["outcome"] is None for b in r.json()["bets"])
    closed = casino.close(round_id)
    assert closed["state"] == "closed" and closed["events"][0]["type"] == "close"
    r = api.post(f"/v1/rounds/{round_id}/reshakes", json={"reason": "dice-overlap"}, headers=DEALER)
    assert r.status_code == 200
    event = r.json()["events"][-1]
    assert (event["type"], event["reason"], r.json()["state"]) == (
        "reshake",
        "dice-overlap",
        "closed",
    )
    r = api.post(f"/v1/rounds/{round_id}/events", json={"type": "shake"}, headers=DEALER)
    assert r.status_code == 200 and r.json()["events"][-1]["type"] == "shake"
    r = casino.result(round_id, [1, 1, 2])
    assert r.status_code == 200
    settled = r.json()
    assert settled["state"] == "settled"
    assert settled["result"] == {"dice": [1, 1, 2], "total": 4}
    bets = {b["selection"]: b for b in settled["bets"]}
    assert (bets["SMALL"]["outcome"], bets["SMALL"]["win"], bets["SMALL"]["returned"]) == (
        "win",
        "10.00",
        "20.00",
    )
    assert (bets["TWO_ODD_ONE_EVEN"]["win"], bets["TWO_ODD_ONE_EVEN"]["returned"]) == (
        "0.04",
        "0.07",
    )  # 4.5 minor units rounded down
    assert (bets["TOTAL_4"]["win"], bets["TOTAL_4"]["returned"]) == ("60.00", "61.00")
    assert all(b["status"] == "settled" and b["settled_at"] for b in settled["bets"])
    assert casino.balance(player) == "170.04"  # 88.97 + 20 + 0.07 + 61
    record = api.get("/v1/player/bets", headers=player).json()
    assert record["player_id"] == pid and len(record["bets"]) == 3
    assert [b["selection"] for b in record["bets"]] == ["TOTAL_4", "TWO_ODD_ONE_EVEN", "SMALL"]
    assert api.get(f"/v1/player/bets?round_id={round_id}", headers=player).json()["bets"]
    assert api.get("/v1/player/bets?round_id=r_other", headers=player).json()["bets"] == []
    stats = api.get(f"/v1/tables/{table}/statistics", headers=player).json()
    assert stats["results"][0]["result"] == {"dice": [1, 1, 2], "total": 4}
    # a finished round refuses every further action
    _error(casino.result(round_id, [1, 2, 3]), 409, "ROUND_STATE")
    for action, body in (
        ("close", None),
        ("resume", None),
        ("pause", {"reason": "x"}),
        ("cancel", {"reason": "x"}),
        ("void", {"reason": "x"}),
        ("reshakes", {"reason": "die-not-flat"}),
        ("events", {"type": "shake"}),
    ):
        _error(
            api.post(f"/v1/rounds/{round_id}/{action}", json=body, headers=DEALER),
            409,
            "ROUND_STATE",
        )
    _error(casino.bet(round_id, player, ("BIG", "1.00")), 409, "ROUND_STATE")


def test_players_see_only_their_own_bets(api: ContractClient, casino: Casino) -> None:
    pid_a, a = casino.player()
    _pid_b, b = casino.player()
    round_id = casino.open(casino.table())
    casino.bet(round_id, a, ("BIG", "1.00"))
    casino.bet(round_id, b, ("SMALL", "1.00"), ("ODD", "1.00"))
    assert [
        x["player_id"] for x in api.get(f"/v1/rounds/{round_id}", headers=a).json()["bets"]
    ] == [pid_a]
    assert len(api.get(f"/v1/rounds/{round_id}", headers=b).json()["bets"]) == 2
    assert len(api.get(f"/v1/rounds/{round_id}", headers=DEALER).json()["bets"]) == 3
    assert len(api.get(f"/v1/rounds/{round_id}", headers=OPERATOR).json()["bets"]) == 3


def test_one_unfinished_round_per_table(api: ContractClient, casino: Casino) -> None:
    table = casino.table()
    round_id = casino.open(table)
    _error(api.post(f"/v1/tables/{table}/rounds", json={}, headers=DEALER), 409, "ROUND_STATE")
    casino.close(round_id)
    _error(api.post(f"/v1/tables/{table}/rounds", json={}, headers=DEALER), 409, "ROUND_STATE")
    casino.result(round_id, [4, 5, 6])
    casino.open(table)


# -- refusals move no money --------------------------------------------------------------------

BAD_SLIPS: list[tuple[str, list[dict[str, Any]], int, str]] = [
    ("unknown", [{"selection": "LUCKY_7", "stake": "1.00"}], 422, "UNKNOWN_SELECTION"),
    ("total 3", [{"selection": "TOTAL_3", "stake": "1.00"}], 422, "UNKNOWN_SELECTION"),
    ("double 2 2", [{"selection": "DOUBLE_2_2", "stake": "1.00"}], 422, "UNKNOWN_SELECTION"),
    ("triple 7", [{"selection": "TRIPLE_7", "stake": "1.00"}], 422, "UNKNOWN_SELECTION"),
    ("zero", [{"selection": "SMALL", "stake": "0.00"}], 422, "INVALID_STAKE"),
    ("negative", [{"selection": "SMALL", "stake": "-1.00"}], 422, "INVALID_STAKE"),
    ("non-numeric", [{"selection": "SMALL", "stake": "ten"}], 422, "INVALID_STAKE"),
    ("over-precise", [{"selection": "SMALL", "stake": "1.001"}], 422, "INVALID_STAKE"),
    ("exponent", [{"selection": "SMALL", "stake": "1e1"}], 422, "INVALID_STAKE"),
    ("huge", [{"selection": "SMALL", "stake": "1000000000.01"}], 422, "INVALID_STAKE"),
    ("json number", [{"selection": "SMALL", "stake": 1}], 422, "VALIDATION"),
    ("json float", [{"selection": "SMALL", "stake": 1.5}], 422, "VALIDATION"),
    ("missing stake", [{"selection": "SMALL"}], 422, "VALIDATION"),
    ("above balance", [{"selection": "SMALL", "stake": "100.01"}], 409, "INSUFFICIENT_FUNDS"),
    (
        "sum above balance",
        [{"selection": "SMALL", "stake": "60.00"}, {"selection": "BIG", "stake": "40.01"}],
        409,
        "INSUFFICIENT_FUNDS",
    ),
    (
        "one bad among good",
        [
            {"selection": "SMALL", "stake": "1.00"},
            {"selection": "BIG", "stake": "1.00"},
            {"selection": "TOTAL_18", "stake": "1.00"},
            {"selection": "ODD", "stake": "1.00"},
        ],
        422,
        "UNKNOWN_SELECTION",
    ),
    (
        "one bad stake among good",
        [{"selection": "SMALL", "stake": "1.00"}, {"selection": "BIG", "stake": "0"}],
        422,
        "INVALID_STAKE",
    ),
    ("empty slip", [], 422, "VALIDATION"),
]


@pytest.mark.parametrize(
    ("slip", "status", "code"), [pytest.param(s, st, c, id=name) for name, s, st, c in BAD_SLIPS]
)
def test_bad_slips_are_refused_and_move_nothing(
    api: ContractClient, casino: Casino, slip: list[dict[str, Any]], status: int, code: str
) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table())
    r = api.post(f"/v1/rounds/{round_id}/bets", json={"bets": slip}, headers=player)
    _error(r, status, code)
    assert casino.balance(player) == "100.00"
    assert api.get(f"/v1/rounds/{round_id}", headers=DEALER).json()["bets"] == []
    assert api.get("/v1/player/bets", headers=player).json()["bets"] == []


def test_unknown_selection_names_code_and_index(casino: Casino) -> None:
    _pid, player = casino.player()
    round_id = casino.open(casino.table())
    err = _error(
        casino.bet(round_id, player, ("SMALL", "1.00"), ("TOTAL_3", "1.00")),
        422,
        "UNKNOWN_SELECTION",
    )
    assert "TOTAL_3" in err["message"] and "1" in err["message"]
    assert err["details"] == {"index": 1, "selection": "TOTAL_3"}


def test_exact_balance_is_accepted(casino: Casino) -> None:
    _pid, player = casino.player("2.00")
    round_id = casino.open(casino.table())
    r = casino.bet(round_id, player, ("SMALL", "1.00"), ("BIG", "1.00"))
    assert r.status_code == 201 and r.json()["balance"] == "0.00"
    _error(casino.bet(round_id, player, ("ODD", "0.01")), 409, "INSUFFICIENT_FUNDS")


@pytest.mark.parametrize(
    "body",
    [
        {"dice": [0, 1, 2]},
        {"dice": [1, 2, 7]},
        {"dice": [1, 2]},
        {"dice": [1, 2, 3, 4]},
        {"dice": [1.5, 2, 3]},
        {"dice": ["1", "2", "3"]},
        {"dice": [1.25, 2, 3]},
        {"dice": [True, 2, 3]},
        {"dice": None},
        {"tokens": ["r", "r", "w", "w"]},
        {},
        {"dice": [1, 2, 3], "extra": 1},
    ],
)
def test_bad_results_are_refused_and_settle_nothing(
    api: ContractClient, casino: Casino, body: dict[str, Any]
) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table())
    casino.bet(round_id, player, ("SMALL", "10.00"))
    casino.close(round_id)
    _error(
        api.post(f"/v1/rounds/{round_id}/result", json=body, headers=DEALER), 422, "INVALID_RESULT"
    )
    rnd = api.get(f"/v1/rounds/{round_id}", headers=DEALER).json()
    assert rnd["state"] == "closed" and rnd["result"] is None
    assert rnd["bets"][0]["status"] == "open"
    assert casino.balance(player) == "90.00"


def test_result_entered_twice(api: ContractClient, casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table())
    casino.bet(round_id, player, ("SMALL", "10.00"))
    casino.close(round_id)
    assert casino.result(round_id, [1, 2, 3]).status_code == 200
    assert casino.balance(player) == "110.00"
    _error(casino.result(round_id, [1, 2, 3]), 409, "ROUND_STATE")
    _error(casino.result(round_id, [6, 6, 5]), 409, "ROUND_STATE")
    assert casino.balance(player) == "110.00"


def test_result_needs_betting_closed(casino: Casino) -> None:
    round_id = casino.open(casino.table())
    _error(casino.result(round_id, [1, 2, 3]), 409, "ROUND_STATE")


def test_bets_after_close_refused(casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table())
    casino.close(round_id)
    _error(casino.bet(round_id, player, ("SMALL", "1.00")), 409, "ROUND_STATE")
    assert casino.balance(player) == "100.00"


def test_withdrawal_refused(api: ContractClient, casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    _pid2, other = casino.player("100.00")
    round_id = casino.open(casino.table())
    bet_id = casino.bet(round_id, player, ("SMALL", "5.00")).json()["bets"][0]["bet_id"]
    _error(api.delete(f"/v1/bets/{bet_id}", headers=player), 409, "BET_FINAL")
    _error(api.delete(f"/v1/bets/{bet_id}", headers=other), 404, "NOT_FOUND")
    _error(api.delete("/v1/bets/b_missing", headers=player), 404, "NOT_FOUND")
    casino.close(round_id)
    api.post(f"/v1/rounds/{round_id}/reshakes", json={"reason": "too-few-tumbles"}, headers=DEALER)
    _error(api.delete(f"/v1/bets/{bet_id}", headers=player), 409, "BET_FINAL")
    rnd = api.get(f"/v1/rounds/{round_id}", headers=player).json()
    assert rnd["bets"][0]["status"] == "open"
    assert casino.balance(player) == "95.00"


def test_reshakes_and_events(api: ContractClient, casino: Casino) -> None:
    round_id = casino.open(casino.table())
    _error(
        api.post(
            f"/v1/rounds/{round_id}/reshakes", json={"reason": "dice-overlap"}, headers=DEALER
        ),
        409,
        "ROUND_STATE",
    )
    casino.close(round_id)
    for bad in ({"reason": "items-fell"}, {"reason": "bored"}, {}):
        _error(
            api.post(f"/v1/rounds/{round_id}/reshakes", json=bad, headers=DEALER), 422, "VALIDATION"
        )
    r = api.post(
        f"/v1/rounds/{round_id}/reshakes",
        json={"reason": "die-not-flat", "note": "die 2 leaning"},
        headers=DEALER,
    )
    assert r.status_code == 200
    event = r.json()["events"][-1]
    assert (event["type"], event["reason"]) == ("reshake", "die-not-flat")
    assert r.json()["state"] == "closed"
    r = api.post(f"/v1/rounds/{round_id}/events", json={"type": "rearrange"}, headers=DEALER)
    assert r.status_code == 200
    _error(
        api.post(
            f"/v1/rounds/{round_id}/events", json={"type": "bowl-touched-token"}, headers=DEALER
        ),
        422,
        "VALIDATION",
    )
    assert api.get(f"/v1/rounds/{round_id}", headers=DEALER).json()["state"] == "closed"


# -- idempotency -------------------------------------------------------------------------------


def test_idempotency_replay_and_conflict(api: ContractClient, casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table())
    key = {"Idempotency-Key": "slip-1"}
    first = casino.bet(round_id, player, ("SMALL", "10.00"), headers=key)
    assert first.status_code == 201
    again = casino.bet(round_id, player, ("SMALL", "10.00"), headers=key)
    assert again.status_code == 200 and again.json() == first.json()
    assert casino.balance(player) == "90.00"
    _error(casino.bet(round_id, player, ("BIG", "10.00"), headers=key), 409, "IDEMPOTENCY_CONFLICT")
    assert casino.balance(player) == "90.00"
    assert len(api.get("/v1/player/bets", headers=player).json()["bets"]) == 1
    # the key belongs to one player: another player may use the same key
    _pid2, other = casino.player("100.00")
    assert casino.bet(round_id, other, ("BIG", "1.00"), headers=key).status_code == 201
    # a refused request does not consume its key
    key2 = {"Idempotency-Key": "slip-2"}
    _error(
        casino.bet(round_id, player, ("SMALL", "1000.00"), headers=key2), 409, "INSUFFICIENT_FUNDS"
    )
    assert casino.bet(round_id, player, ("SMALL", "1.00"), headers=key2).status_code == 201
    # the replay stands even after betting closed
    casino.close(round_id)
    assert casino.bet(round_id, player, ("SMALL", "10.00"), headers=key).status_code == 200
    _error(
        casino.bet(round_id, player, ("SMALL", "1.00"), headers={"Idempotency-Key": "x" * 129}),
        422,
        "VALIDATION",
    )


# -- countdown, pause, resume, cancel, void ------------------------------------------------------


@pytest.mark.timing
def test_countdown_expiry_refuses_bets(api: ContractClient, casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table(), countdown_ms=200)
    assert casino.bet(round_id, player, ("SMALL", "1.00")).status_code == 201
    time.sleep(0.3)
    _error(casino.bet(round_id, player, ("SMALL", "1.00")), 409, "ROUND_STATE")
    assert api.get(f"/v1/rounds/{round_id}", headers=DEALER).json()["state"] == "closed"
    assert casino.balance(player) == "99.00"
    assert casino.close(round_id)["state"] == "closed"  # idle once the countdown ran out
    assert casino.result(round_id, [2, 3, 4]).json()["state"] == "settled"


def test_zero_countdown_takes_no_bets(casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table(), countdown_ms=0)
    _error(casino.bet(round_id, player, ("SMALL", "1.00")), 409, "ROUND_STATE")


@pytest.mark.timing
def test_pause_freezes_the_countdown_and_resume_continues(
    api: ContractClient, casino: Casino
) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table(), countdown_ms=400)
    r = api.post(f"/v1/rounds/{round_id}/pause", json={"reason": "camera down"}, headers=DEALER)
    assert r.status_code == 200
    assert (r.json()["state"], r.json()["paused_from"]) == ("paused", "betting")
    _error(casino.bet(round_id, player, ("SMALL", "1.00")), 409, "ROUND_STATE")
    _error(
        api.post(f"/v1/rounds/{round_id}/pause", json={"reason": "again"}, headers=DEALER),
        409,
        "ROUND_STATE",
    )
    _error(api.post(f"/v1/rounds/{round_id}/close", headers=DEALER), 409, "ROUND_STATE")
    time.sleep(0.5)  # longer than the countdown: the frozen countdown must not run out
    r = api.post(f"/v1/rounds/{round_id}/resume", headers=DEALER)
    assert r.status_code == 200 and r.json()["state"] == "betting"
    assert r.json()["paused_from"] is None
    assert casino.bet(round_id, player, ("SMALL", "1.00")).status_code == 201
    time.sleep(0.5)
    _error(casino.bet(round_id, player, ("SMALL", "1.00")), 409, "ROUND_STATE")
    types = [e["type"] for e in api.get(f"/v1/rounds/{round_id}", headers=DEALER).json()["events"]]
    assert types == ["pause", "resume"]
    _error(api.post(f"/v1/rounds/{round_id}/resume", headers=DEALER), 409, "ROUND_STATE")


def test_pause_when_closed_takes_no_result(api: ContractClient, casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table())
    casino.bet(round_id, player, ("BIG", "10.00"))
    casino.close(round_id)
    r = api.post(f"/v1/rounds/{round_id}/pause", json={"reason": "dice stuck"}, headers=DEALER)
    assert r.json()["paused_from"] == "closed"
    _error(casino.result(round_id, [6, 5, 4]), 409, "ROUND_STATE")
    _error(api.post(f"/v1/rounds/{round_id}/pause", json={}, headers=DEALER), 422, "VALIDATION")
    assert api.post(f"/v1/rounds/{round_id}/resume", headers=DEALER).json()["state"] == "closed"
    assert casino.result(round_id, [6, 5, 4]).json()["state"] == "settled"
    assert casino.balance(player) == "110.00"


@pytest.mark.parametrize(("action", "status"), [("cancel", "cancelled"), ("void", "void")])
@pytest.mark.parametrize("when", ["betting", "closed", "paused"])
def test_cancel_and_void_refund_exactly(
    api: ContractClient, casino: Casino, action: str, status: str, when: str
) -> None:
    _pid, player = casino.player("100.00")
    _pid2, other = casino.player("50.00")
    table = casino.table()
    round_id = casino.open(table)
    casino.bet(
        round_id, player, ("SMALL", "10.00"), ("TOTAL_4", "0.01"), ("TWO_EVEN_ONE_ODD", "12.35")
    )
    casino.bet(round_id, other, ("BIG", "50.00"))
    if when != "betting":
        casino.close(round_id)
    if when == "paused":
        api.post(f"/v1/rounds/{round_id}/pause", json={"reason": "table fault"}, headers=DEALER)
    _error(api.post(f"/v1/rounds/{round_id}/{action}", json={}, headers=DEALER), 422, "VALIDATION")
    r = api.post(f"/v1/rounds/{round_id}/{action}", json={"reason": "no fix"}, headers=DEALER)
    assert r.status_code == 200
    rnd = r.json()
    assert rnd["state"] == status and rnd["reason"] == "no fix" and rnd["result"] is None
    for bet in rnd["bets"]:
        assert (bet["status"], bet["outcome"], bet["win"]) == (status, "refund", "0.00")
        assert bet["returned"] == bet["stake"]
    assert casino.balance(player) == "100.00" and casino.balance(other) == "50.00"
    _error(
        api.post(f"/v1/rounds/{round_id}/cancel", json={"reason": "x"}, headers=DEALER),
        409,
        "ROUND_STATE",
    )
    assert casino.balance(player) == "100.00"
    assert api.get(f"/v1/tables/{table}/statistics", headers=DEALER).json()["results"] == []
    casino.open(table)  # the table is free again


# -- statistics ----------------------------------------------------------------------------------


def test_statistics_newest_first_at_most_50_without_cancelled(
    api: ContractClient, casino: Casino
) -> None:
    table = casino.table()
    expected = []
    for i in range(60):  # 6 cancelled, 54 settled
        round_id = casino.open(table)
        if i % 10 == 5:
            api.post(f"/v1/rounds/{round_id}/cancel", json={"reason": "x"}, headers=DEALER)
            continue
        casino.close(round_id)
        dice = [i % 6 + 1, (i // 6) % 6 + 1, 3]
        casino.result(round_id, dice)
        expected.append((round_id, dice))
    results = api.get(f"/v1/tables/{table}/statistics", headers=DEALER).json()["results"]
    assert len(results) == 50
    newest = list(reversed(expected))[:50]
    assert [(e["round_id"], e["result"]["dice"]) for e in results] == newest
    assert all(e["result"]["total"] == sum(e["result"]["dice"]) for e in results)
    other = casino.table()
    assert api.get(f"/v1/tables/{other}/statistics", headers=DEALER).json()["results"] == []


# -- connection --------------------------------------------------------------------------------


def test_disconnect_keeps_bets(api: ContractClient, casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table())
    casino.bet(round_id, player, ("NUMBER_6", "10.00"))
    r = api.post("/v1/player/disconnect", headers=player)
    assert r.status_code == 200 and r.json()["connected"] is False
    casino.close(round_id)
    casino.result(round_id, [6, 6, 1])
    r = api.post("/v1/player/connect", headers=player)
    assert r.json()["connected"] is True and r.json()["balance"] == "120.00"
    bet = api.get("/v1/player/bets", headers=player).json()["bets"][0]
    assert (bet["outcome"], bet["win"], bet["returned"]) == ("win", "20.00", "30.00")


# -- settlement end to end -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rounding", "expected"),
    [
        ("down", ("0.01", "0.04", "18.52")),
        ("up", ("0.02", "0.05", "18.53")),
        ("half-up", ("0.02", "0.05", "18.53")),
        ("half-even", ("0.02", "0.04", "18.52")),
    ],
)
def test_rounding_of_three_to_two_wins(
    make_app: Any, rounding: str, expected: tuple[str, str, str]
) -> None:
    api, casino = make_app(rounding=rounding)
    assert api.get("/v1/info").json()["rounding"] == rounding
    _pid, player = casino.player("100.00")
    rnd = casino.play(
        player,
        [1, 3, 2],
        ("TWO_ODD_ONE_EVEN", "0.01"),
        ("TWO_ODD_ONE_EVEN", "0.03"),
        ("TWO_ODD_ONE_EVEN", "12.35"),
    )
    wins = tuple(b["win"] for b in rnd["bets"])
    assert wins == expected
    returned = [b["returned"] for b in rnd["bets"]]
    stakes = ["0.01", "0.03", "12.35"]
    for stake, win, ret in zip(stakes, wins, returned, strict=True):
        assert Fraction(ret) == Fraction(stake) + Fraction(win)


def test_every_selection_over_all_216_rolls_through_the_api(make_app: Any) -> None:
    """216 rounds, each with a 110-bet slip of 2.00: per-selection wins and returns."""
    _api, casino = make_app(check=False)  # 216 rounds: contract checks are done elsewhere
    _pid, player = casino.player("1000000.00")
    table = casino.table()
    codes = sicbo.all_selections()
    wins = dict.fromkeys(codes, 0)
    returned = dict.fromkeys(codes, Fraction(0))
    for dice in product(range(1, 7), repeat=3):
        round_id = casino.open(table)
        assert casino.bet(round_id, player, *[(c, "2.00") for c in codes]).status_code == 201
        casino.close(round_id)
        r = casino.result(round_id, list(dice))
        assert r.status_code == 200
        for bet in r.json()["bets"]:
            if bet["outcome"] == "win":
                wins[bet["selection"]] += 1
            returned[bet["selection"]] += Fraction(bet["returned"]) / 2
    table_by_hand = sicbo_hand_table()
    assert {c: (wins[c], returned[c]) for c in codes} == table_by_hand
    total_returned = sum(returned.values()) * 2
    expected_balance = Fraction(1_000_000) - 216 * 110 * 2 + total_returned
    assert Fraction(casino.balance(player)) == expected_balance

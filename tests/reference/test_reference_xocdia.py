"""Xoc Dia on the reference server: selections, settlement, result entry and the round's life."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from fractions import Fraction
from itertools import product
from typing import Any

import pytest
from hand_tables import (
    XOCDIA_DECLARED_MAX_RTP_PERCENT,
    XOCDIA_MAX_RTP,
    XOCDIA_OUTCOMES,
    XOCDIA_TABLE,
)
from reference_support import DEALER, OPERATOR, Casino, ContractClient

from livecert.reference import sicbo, xocdia

NONE: frozenset[str] = frozenset()
RESULTS = [list(t) for t in product("rw", repeat=4)]
EARLY = "the bowl was lifted before the betting period ended (XD-VOID-01)"
NO_SHAKE = "no shake was recorded (XD-VOID-01)"


def _error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"]["code"] == code, body
    assert body["error"]["message"]
    return body


def _closed_round(casino: Casino, player: dict[str, str], *bets: tuple[str, str]) -> str:
    """A Xoc Dia round with bets placed, shaken, and betting closed."""
    round_id = casino.open(casino.table("xocdia"))
    if bets:
        assert casino.bet(round_id, player, *bets).status_code == 201
    assert casino.event(round_id, "shake").status_code == 200
    casino.close(round_id)
    return round_id


# -- the paytable, by hand -------------------------------------------------------------------


def test_selections_are_exactly_the_ten_codes() -> None:
    assert xocdia.all_selections() == list(XOCDIA_TABLE)
    assert all(xocdia.is_selection(code) for code in XOCDIA_TABLE)
    for code in ("TOTAL_4", "NUMBER_1", "big", "Four_Red", "FOUR_RED ", "TWO_2", "", "RED"):
        assert not xocdia.is_selection(code)
    for code in ("FOUR_RED", "TWO_TWO", "FOUR_OF_A_COLOUR", "ONE_WHITE_THREE_RED"):
        assert not sicbo.is_selection(code)


@pytest.mark.parametrize("code", list(XOCDIA_TABLE))
def test_settlement_reproduces_the_hand_table(code: str) -> None:
    wins = refunds = 0
    returned = Fraction(0)
    for tokens in RESULTS:
        outcome, odds = xocdia.settle(code, tuple(tokens), NONE)
        if outcome == "win":
            wins += 1
            returned += 1 + odds
        elif outcome == "refund":
            assert odds == 0
            refunds += 1
            returned += 1
        else:
            assert (outcome, odds) == ("lose", 0)
    assert len(RESULTS) == XOCDIA_OUTCOMES
    assert (wins, refunds, returned) == XOCDIA_TABLE[code]


def test_max_rtp_is_big_and_small() -> None:
    best = max(total for _w, _r, total in XOCDIA_TABLE.values()) / XOCDIA_OUTCOMES
    assert best == XOCDIA_MAX_RTP
    assert xocdia.max_rtp(NONE) == XOCDIA_DECLARED_MAX_RTP_PERCENT == "98.75"


def test_parse_result_keeps_the_order() -> None:
    assert xocdia.parse_result({"tokens": ["w", "r", "r", "w"]}, NONE) == ("w", "r", "r", "w")
    assert xocdia.result_view(("w", "r", "r", "r"), NONE) == {
        "tokens": ["w", "r", "r", "r"],
        "red": 3,
        "white": 1,
    }


# -- the paytable through the API -----------------------------------------------------------


def test_all_selections_over_all_results_through_the_api(casino: Casino) -> None:
    _pid, player = casino.player("1000.00")
    table = casino.table("xocdia")
    wins: dict[str, int] = defaultdict(int)
    refunds: dict[str, int] = defaultdict(int)
    returned: dict[str, Fraction] = defaultdict(Fraction)
    for tokens in RESULTS:
        bets = [(code, "1.00") for code in XOCDIA_TABLE]
        rnd = casino.play_xocdia(player, tokens, *bets, table_id=table)
        assert rnd["state"] == "settled" and rnd["result"]["tokens"] == tokens
        assert rnd["result"]["red"] == tokens.count("r")
        assert rnd["result"]["white"] == tokens.count("w")
        for bet in rnd["bets"]:
            code = bet["selection"]
            assert bet["status"] == "settled"
            stake, win, back = (Decimal(bet[k]) for k in ("stake", "win", "returned"))
            if bet["outcome"] == "win":
                wins[code] += 1
                assert back == stake + win and win > 0
            elif bet["outcome"] == "refund":
                refunds[code] += 1
                assert win == 0 and back == stake
            else:
                assert win == 0 and back == 0
            returned[code] += Fraction(back)
    for code, (n_wins, n_refunds, total) in XOCDIA_TABLE.items():
        assert (wins[code], refunds[code], returned[code]) == (n_wins, n_refunds, total), code
    # 16 rounds of 10 x 1.00 staked; the returns sum to the table's totals.
    expected = (
        Decimal("1000.00")
        - 160
        + sum(Decimal(t.numerator) / t.denominator for *_, t in XOCDIA_TABLE.values())
    )
    assert Decimal(casino.balance(player)) == expected


@pytest.mark.parametrize("stake", ["0.01", "1.23", "10.00", "999.99"])
def test_big_and_small_refunded_on_two_two(casino: Casino, stake: str) -> None:
    _pid, player = casino.player("2000.00")
    rnd = casino.play_xocdia(player, ["w", "w", "r", "r"], ("BIG", stake), ("SMALL", stake))
    for bet in rnd["bets"]:
        assert bet["status"] == "settled" and bet["outcome"] == "refund"
        assert bet["win"] == "0.00" and bet["returned"] == bet["stake"] == stake
    assert casino.balance(player) == "2000.00"


def test_game_specific_meaning_of_shared_codes(casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    rnd = casino.play_xocdia(player, ["w", "r", "r", "r"], ("BIG", "10.00"), ("ODD", "10.00"))
    assert [b["win"] for b in rnd["bets"]] == ["9.60", "9.60"]
    rnd = casino.play(player, [4, 5, 6], ("BIG", "10.00"), ("ODD", "10.00"))
    assert [b["win"] for b in rnd["bets"]] == ["10.00", "10.00"]


# (rounding rule, ODD 1.23 at 0.96 = 1.1808, THREE_WHITE_ONE_RED 0.07 at 2.8 = 0.196,
#  TWO_TWO 0.01 at 1.5 = 0.015)
ROUNDING = [
    ("down", "1.18", "0.19", "0.01"),
    ("up", "1.19", "0.20", "0.02"),
    ("half-up", "1.18", "0.20", "0.02"),
    ("half-even", "1.18", "0.20", "0.02"),
]


@pytest.mark.parametrize(("mode", "odd", "three_white", "two_two"), ROUNDING)
def test_rounding_of_fractional_wins(
    make_app: Any, mode: str, odd: str, three_white: str, two_two: str
) -> None:
    api, casino = make_app(rounding=mode)
    assert api.get("/v1/info").json()["rounding"] == mode
    _pid, player = casino.player("100.00")
    table = casino.table("xocdia")
    rnd = casino.play_xocdia(
        player,
        ["w", "r", "w", "w"],
        ("ODD", "1.23"),
        ("THREE_WHITE_ONE_RED", "0.07"),
        table_id=table,
    )
    assert [b["win"] for b in rnd["bets"]] == [odd, three_white]
    assert [b["returned"] for b in rnd["bets"]] == [
        str(Decimal("1.23") + Decimal(odd)),
        str(Decimal("0.07") + Decimal(three_white)),
    ]
    rnd = casino.play_xocdia(player, ["r", "w", "w", "r"], ("TWO_TWO", "0.01"), table_id=table)
    assert rnd["bets"][0]["win"] == two_two


# -- refused input ---------------------------------------------------------------------------

BAD_RESULTS = [
    {"tokens": ["r", "r", "w"]},
    {"tokens": ["r", "r", "w", "w", "r"]},
    {"tokens": ["r", "r", "w", "x"]},
    {"tokens": ["r", "", "w", "w"]},
    {"tokens": ["R", "r", "w", "w"]},
    {"tokens": ["R", "W", "r", "w"]},
    {"tokens": ["red", "r", "w", "w"]},
    {"tokens": [1, 0, 1, 0]},
    {"tokens": ["r", None, "w", "w"]},
    {"tokens": [True, "r", "w", "w"]},
    {"tokens": [["r"], "r", "w", "w"]},
    {"tokens": []},
    {"tokens": "rrww"},
    {"tokens": None},
    {"dice": [1, 2, 3]},
    {"tokens": ["r", "r", "w", "w"], "dice": [1, 2, 3]},
    {"tokens": ["r", "r", "w", "w"], "extra": 1},
    {},
]


@pytest.mark.parametrize("body", BAD_RESULTS)
def test_bad_results_are_refused(api: ContractClient, casino: Casino, body: Any) -> None:
    _pid, player = casino.player("100.00")
    round_id = _closed_round(casino, player, ("BIG", "10.00"))
    _error(
        api.post(f"/v1/rounds/{round_id}/result", json=body, headers=DEALER), 422, "INVALID_RESULT"
    )
    rnd = casino.get_round(round_id)
    assert rnd["state"] == "closed" and rnd["result"] is None
    assert rnd["bets"][0]["status"] == "open"
    assert casino.balance(player) == "90.00"


def test_bad_result_during_betting_voids_nothing(casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table("xocdia"))
    casino.bet(round_id, player, ("BIG", "10.00"))
    _error(casino.tokens(round_id, ["r", "x", "w", "w"]), 422, "INVALID_RESULT")
    assert casino.get_round(round_id)["state"] == "betting"
    assert casino.balance(player) == "90.00"


def test_tokens_refused_on_a_sicbo_table(casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table())
    casino.bet(round_id, player, ("BIG", "10.00"))
    casino.close(round_id)
    _error(casino.tokens(round_id, ["r", "r", "w", "w"]), 422, "INVALID_RESULT")
    assert casino.get_round(round_id)["state"] == "closed"
    assert casino.balance(player) == "90.00"


@pytest.mark.parametrize(
    ("game", "code"),
    [
        ("xocdia", "TOTAL_4"),
        ("xocdia", "NUMBER_1"),
        ("xocdia", "ANY_TRIPLE"),
        ("xocdia", "four_red"),
        ("xocdia", "Big"),
        ("xocdia", "TWO_TWO "),
        ("xocdia", "THREE_RED_ONE_WHITE"),
        ("sicbo", "FOUR_RED"),
        ("sicbo", "TWO_TWO"),
        ("sicbo", "FOUR_OF_A_COLOUR"),
        ("sicbo", "ONE_WHITE_THREE_RED"),
    ],
)
def test_other_game_selections_are_unknown(casino: Casino, game: str, code: str) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table(game))
    _error(
        casino.bet(round_id, player, ("SMALL", "1.00"), (code, "1.00")), 422, "UNKNOWN_SELECTION"
    )
    assert casino.balance(player) == "100.00"
    assert casino.get_round(round_id)["bets"] == []


def test_reshake_reasons_and_events_per_game(api: ContractClient, casino: Casino) -> None:
    xd = _closed_round(casino, {})
    for reason in ("dice-overlap", "die-not-flat", "too-few-tumbles", "bored"):
        _error(casino.reshake(xd, reason), 422, "VALIDATION")
    _error(casino.event(xd, "wobble"), 422, "VALIDATION")
    sb = casino.open(casino.table())
    casino.close(sb)
    for reason in ("items-fell", "standing-token"):
        _error(casino.reshake(sb, reason), 422, "VALIDATION")
    _error(casino.event(sb, "bowl-touched-token"), 422, "VALIDATION")
    assert casino.get_round(xd)["events"][-1]["type"] == "close"
    assert api.get(f"/v1/rounds/{sb}", headers=DEALER).json()["state"] == "closed"


# -- the round's life ------------------------------------------------------------------------


def test_normal_round_settles_and_records_the_order(casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    rnd = casino.play_xocdia(player, ["w", "r", "r", "w"], ("TWO_TWO", "2.00"))
    assert rnd["state"] == "settled" and rnd["reason"] is None
    assert rnd["result"] == {"tokens": ["w", "r", "r", "w"], "red": 2, "white": 2}
    assert [e["type"] for e in rnd["events"]] == ["shake", "close", "result"]
    assert rnd["bets"][0]["win"] == "3.00" and rnd["bets"][0]["returned"] == "5.00"
    assert casino.balance(player) == "103.00"


def _assert_refunded(rnd: dict[str, Any], status: str, stakes: list[str]) -> None:
    assert [b["stake"] for b in rnd["bets"]] == stakes
    for bet in rnd["bets"]:
        assert bet["status"] == status and bet["outcome"] == "refund"
        assert bet["win"] == "0.00" and bet["returned"] == bet["stake"]
        assert bet["settled_at"] is not None


def test_early_reveal_voids_the_round(casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table("xocdia"))
    casino.bet(round_id, player, ("BIG", "10.00"), ("FOUR_RED", "5.00"))
    assert casino.event(round_id, "shake").status_code == 200
    r = casino.tokens(round_id, ["r", "r", "r", "r"])
    assert r.status_code == 200, r.text
    rnd = r.json()
    assert rnd["state"] == "void" and rnd["reason"] == EARLY
    assert rnd["result"] == {"tokens": ["r", "r", "r", "r"], "red": 4, "white": 0}
    assert rnd["events"][-1]["type"] == "void"
    _assert_refunded(rnd, "void", ["10.00", "5.00"])
    assert casino.balance(player) == "100.00"
    _error(casino.tokens(round_id, ["r", "r", "r", "r"]), 409, "ROUND_STATE")
    _error(casino.bet(round_id, player, ("BIG", "1.00")), 409, "ROUND_STATE")
    assert casino.balance(player) == "100.00"


def test_unshaken_round_is_void(casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table("xocdia"))
    casino.bet(round_id, player, ("SMALL", "7.50"))
    casino.close(round_id)
    rnd = casino.tokens(round_id, ["w", "w", "w", "w"]).json()
    assert rnd["state"] == "void" and rnd["reason"] == NO_SHAKE
    assert rnd["result"]["tokens"] == ["w", "w", "w", "w"]
    _assert_refunded(rnd, "void", ["7.50"])
    assert casino.balance(player) == "100.00"


def test_countdown_end_is_not_an_early_reveal(make_app: Any) -> None:
    clock = {"now": 1_800_000_000_000}
    _api, casino = make_app(clock=lambda: clock["now"])
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table("xocdia"), countdown_ms=5_000)
    casino.bet(round_id, player, ("ODD", "10.00"))
    casino.event(round_id, "shake")
    clock["now"] += 5_000
    assert casino.get_round(round_id)["state"] == "closed"
    _error(casino.event(round_id, "shake"), 409, "ROUND_STATE")
    rnd = casino.tokens(round_id, ["r", "w", "w", "w"]).json()
    assert rnd["state"] == "settled" and rnd["bets"][0]["win"] == "9.60"


@pytest.mark.parametrize("close_first", [False, True])
def test_bowl_touched_token_cancels(casino: Casino, close_first: bool) -> None:
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table("xocdia"))
    casino.bet(round_id, player, ("TWO_TWO", "3.00"), ("EVEN", "4.00"))
    casino.event(round_id, "shake")
    if close_first:
        casino.close(round_id)
    r = casino.event(round_id, "bowl-touched-token")
    assert r.status_code == 200, r.text
    rnd = r.json()
    assert rnd["state"] == "cancelled" and "bowl touched a token" in rnd["reason"]
    assert rnd["result"] is None
    assert [e["type"] for e in rnd["events"]][-2:] == ["bowl-touched-token", "cancel"]
    _assert_refunded(rnd, "cancelled", ["3.00", "4.00"])
    assert casino.balance(player) == "100.00"
    _error(casino.tokens(round_id, ["w", "w", "r", "r"]), 409, "ROUND_STATE")
    _error(casino.event(round_id, "bowl-touched-token"), 409, "ROUND_STATE")
    assert casino.balance(player) == "100.00"


def test_events_refused_in_the_wrong_state(api: ContractClient, casino: Casino) -> None:
    round_id = casino.open(casino.table("xocdia"))
    _error(casino.event(round_id, "rearrange"), 409, "ROUND_STATE")
    assert casino.event(round_id, "shake").status_code == 200
    api.post(f"/v1/rounds/{round_id}/pause", json={"reason": "camera"}, headers=DEALER)
    for kind in ("shake", "rearrange", "bowl-touched-token"):
        _error(casino.event(round_id, kind), 409, "ROUND_STATE")
    _error(casino.tokens(round_id, ["r", "r", "w", "w"]), 409, "ROUND_STATE")
    assert casino.get_round(round_id)["state"] == "paused"
    api.post(f"/v1/rounds/{round_id}/resume", headers=DEALER)
    casino.close(round_id)
    _error(casino.event(round_id, "shake"), 409, "ROUND_STATE")
    api.post(f"/v1/rounds/{round_id}/pause", json={"reason": "camera"}, headers=DEALER)
    _error(casino.tokens(round_id, ["r", "r", "w", "w"]), 409, "ROUND_STATE")
    api.post(f"/v1/rounds/{round_id}/resume", headers=DEALER)
    assert casino.tokens(round_id, ["r", "r", "w", "w"]).json()["state"] == "settled"
    for kind in ("shake", "rearrange", "bowl-touched-token"):
        _error(casino.event(round_id, kind), 409, "ROUND_STATE")


def test_rearrange_changes_nothing(casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    round_id = _closed_round(casino, player, ("FOUR_WHITE", "1.00"))
    r = casino.event(round_id, "rearrange")
    assert r.status_code == 200
    rnd = r.json()
    assert rnd["state"] == "closed" and rnd["reason"] is None
    assert rnd["events"][-1]["type"] == "rearrange"
    assert rnd["bets"][0]["status"] == "open"
    rnd = casino.tokens(round_id, ["w", "w", "w", "w"]).json()
    assert rnd["state"] == "settled" and rnd["bets"][0]["returned"] == "15.00"
    assert casino.balance(player) == "114.00"


@pytest.mark.parametrize("reason", ["items-fell", "standing-token"])
def test_reshake_keeps_bets_and_betting_closed(casino: Casino, reason: str) -> None:
    _pid, player = casino.player("100.00")
    round_id = _closed_round(casino, player, ("SMALL", "10.00"))
    r = casino.reshake(round_id, reason)
    assert r.status_code == 200
    rnd = r.json()
    assert rnd["state"] == "closed"
    assert (rnd["events"][-1]["type"], rnd["events"][-1]["reason"]) == ("reshake", reason)
    assert rnd["bets"][0]["status"] == "open" and rnd["bets"][0]["returned"] is None
    _error(casino.bet(round_id, player, ("BIG", "1.00")), 409, "ROUND_STATE")
    assert casino.balance(player) == "90.00"
    rnd = casino.tokens(round_id, ["w", "w", "w", "r"]).json()
    assert rnd["state"] == "settled" and rnd["bets"][0]["win"] == "9.60"
    assert casino.balance(player) == "109.60"


@pytest.mark.parametrize("reason", ["items-fell", "standing-token"])
def test_reshake_during_betting_keeps_betting_open(casino: Casino, reason: str) -> None:
    """Xoc Dia is shaken during betting (XD-RND-01), so it may be re-shaken then (XD-RND-03/04):
    recorded, the bets stand, betting stays open with its countdown; a Sic Bo re-shake during
    betting is refused (SB-RND-03: the dice are shaken when betting ends)."""
    _pid, player = casino.player("100.00")
    round_id = casino.open(casino.table("xocdia"))
    assert casino.bet(round_id, player, ("SMALL", "10.00")).status_code == 201
    assert casino.event(round_id, "shake").status_code == 200
    ends_at = casino.get_round(round_id)["betting_ends_at"]
    r = casino.reshake(round_id, reason)
    assert r.status_code == 200, r.text
    rnd = r.json()
    assert (rnd["state"], rnd["betting_ends_at"]) == ("betting", ends_at)
    assert (rnd["events"][-1]["type"], rnd["events"][-1]["reason"]) == ("reshake", reason)
    assert [(b["status"], b["returned"]) for b in rnd["bets"]] == [("open", None)]
    assert casino.bet(round_id, player, ("ODD", "5.00")).status_code == 201  # betting goes on
    assert casino.balance(player) == "85.00"
    casino.close(round_id)
    rnd = casino.tokens(round_id, ["w", "w", "w", "r"]).json()
    assert rnd["state"] == "settled"
    assert [(b["selection"], b["returned"]) for b in rnd["bets"]] == [
        ("SMALL", "19.60"),
        ("ODD", "9.80"),
    ]
    assert casino.balance(player) == "114.40"
    sb = casino.open(casino.table())
    assert casino.bet(sb, player, ("BIG", "1.00")).status_code == 201
    _error(casino.reshake(sb, "dice-overlap"), 409, "ROUND_STATE")
    rnd = casino.get_round(sb)
    assert (rnd["state"], rnd["events"]) == ("betting", [])
    assert casino.balance(player) == "113.40"


def test_dealer_void_and_cancel_on_xocdia(api: ContractClient, casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    for action, status in (("void", "void"), ("cancel", "cancelled")):
        round_id = _closed_round(casino, player, ("BIG", "2.00"))
        r = api.post(f"/v1/rounds/{round_id}/{action}", json={"reason": "test"}, headers=DEALER)
        assert r.status_code == 200
        _assert_refunded(r.json(), status, ["2.00"])
    assert casino.balance(player) == "100.00"


def test_statistics_and_bet_record(api: ContractClient, casino: Casino) -> None:
    _pid, player = casino.player("100.00")
    table = casino.table("xocdia")
    first = casino.play_xocdia(player, ["r", "w", "w", "w"], ("ODD", "1.00"), table_id=table)
    early = casino.open(table)
    casino.bet(early, player, ("EVEN", "2.00"))
    casino.tokens(early, ["r", "r", "r", "r"])  # void: early reveal
    unshaken = casino.open(table)
    casino.close(unshaken)
    casino.tokens(unshaken, ["w", "w", "w", "w"])  # void: no shake
    touched = casino.open(table)
    casino.bet(touched, player, ("BIG", "3.00"))
    casino.event(touched, "bowl-touched-token")  # cancelled
    last = casino.play_xocdia(player, ["w", "r", "r", "r"], ("BIG", "1.00"), table_id=table)
    stats = api.get(f"/v1/tables/{table}/statistics", headers=player).json()
    assert stats["game"] == "xocdia"
    assert [e["round_id"] for e in stats["results"]] == [last["round_id"], first["round_id"]]
    assert stats["results"][0]["result"] == {"tokens": ["w", "r", "r", "r"], "red": 3, "white": 1}
    assert all(e["settled_at"] for e in stats["results"])
    record = api.get("/v1/player/bets", headers=player).json()["bets"]
    assert [(b["round_id"], b["status"], b["outcome"], b["returned"]) for b in record] == [
        (last["round_id"], "settled", "win", "1.96"),
        (touched, "cancelled", "refund", "3.00"),
        (early, "void", "refund", "2.00"),
        (first["round_id"], "settled", "win", "1.96"),
    ]
    assert casino.balance(player) == "101.92"


def test_statistics_keep_fifty(api: ContractClient, casino: Casino) -> None:
    table = casino.table("xocdia")
    ids = []
    for index in range(52):
        round_id = casino.open(table)
        casino.event(round_id, "shake")
        casino.close(round_id)
        tokens = ["r" if (index >> bit) & 1 else "w" for bit in range(4)]
        assert casino.tokens(round_id, tokens).json()["state"] == "settled"
        ids.append(round_id)
    results = api.get(f"/v1/tables/{table}/statistics", headers=OPERATOR).json()["results"]
    assert [e["round_id"] for e in results] == ids[::-1][:50]

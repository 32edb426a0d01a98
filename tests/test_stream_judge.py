"""The duties a live table's stream shows (livecert/harness/stream_judge.py), judged from real
streams of the example Socket.IO table: clean, and with each seeded fault the stream can show,
each failing its own clause and nothing else."""

from decimal import Decimal

import pytest
import requests
from test_streams import joined, live_table, next_round, player

from livecert.adapters.errors import MappingAnswerError
from livecert.adapters.live_events import (
    BALANCE,
    BET_ACKED,
    BETTING_CLOSED,
    RESULT,
    ROUND_OPENED,
    SETTLED,
    EventRule,
    read_events,
)
from livecert.adapters.streams import ACK, StreamLog
from livecert.harness.stream_judge import StreamVerdict, judge_stream
from livecert.rules import load_paytable

SICBO = load_paytable("sicbo")
BETS = (("BIG", 100), ("SMALL", 200), ("ODD", 300))  # cents
FORCED = [6, 6, 5]  # 17: BIG and ODD win 1:1, SMALL loses
RULES = [
    EventRule(ROUND_OPENED, "round:open", {"round_id": "round"}),
    EventRule(BETTING_CLOSED, "round:close", {"round_id": "round"}),
    EventRule(RESULT, "round:result", {"round_id": "round", "result": "dice"}),
    EventRule(
        BET_ACKED,
        "bet",
        {
            "round_id": "sent.round",
            "bet_id": "answer.bets[0].id",
            "selection": "answer.bets[0].selection",
            "amount": "answer.bets[0].amount",
        },
        direction=ACK,
        when=("answer.ok", True),
    ),
    EventRule(
        SETTLED,
        "bet:settled",
        {
            "round_id": "round",
            "bet_id": "bet",
            "selection": "selection",
            "amount": "amount",
            "returned": "returned",
        },
    ),
    EventRule(BALANCE, "wallet", {"balance": "balance"}),
]


def cents(value: object) -> Decimal:
    return Decimal(int(value)).scaleb(-2)  # type: ignore[call-overload]


def play(*faults: str) -> tuple[StreamLog, str]:
    """One round with three bets on a forced 6-6-5, every message kept, until the wallet after
    the last settlement; the log and the round played (betting open 400 ms, room for the three
    bets under load)."""
    log = StreamLog()
    with live_table(*faults, round_ms=400) as (url, admin):
        stream = joined(url, player(url, admin), log)
        try:
            round_id = next_round(log, log.last_seq)
            requests.post(
                url + "/api/test/next-outcome", json={"table": "sicbo-1", "dice": FORCED},
                headers=admin, timeout=5,
            )  # fmt: skip
            taken = 0
            for selection, amount in BETS:
                answer = stream.emit(
                    "bet", {"round": round_id, "selection": selection, "amount": amount}
                )
                taken += bool(answer.get("ok"))
            after = 0
            for _ in range(taken):  # each taken bet's settlement, then the wallet after them
                after = log.wait_for(
                    "player", lambda m: m.event == "bet:settled", "a settlement", after, 5
                ).seq
            log.wait_for("player", lambda m: m.event == "wallet", "the wallet", after, 5)
        finally:
            stream.close()
    [shown] = [
        m for m in log.messages() if m.event == "round:result" and m.data["round"] == round_id
    ]
    assert shown.data["dice"] == FORCED, "the forced outcome missed the round: not the test's round"
    return log, round_id


def judged(log: StreamLog, round_id: str) -> StreamVerdict:
    """The judge over the round played (and the balances), not the round the player joined
    in the middle of, whose close it may not have seen."""
    events = [e for e in read_events(log, RULES, cents) if e.round_id in (round_id, None)]
    return judge_stream(events, SICBO, 2, "half-even", {"player": Decimal("100.00")})


def failed_clauses(played: tuple[StreamLog, str]) -> set[str]:
    verdict = judged(*played)
    assert verdict.checks, "nothing was judged"
    return {c for check in verdict.failed for c in check.clauses}


def test_a_clean_round_holds_every_check() -> None:
    verdict = judged(*play())
    assert not verdict.failed, verdict.failed
    assert not verdict.unjudged, verdict.unjudged
    held = {c for check in verdict.checks for c in check.clauses}
    assert {"SB-RND-01", "REG-COMMIT-01", "REG-SETTLE-01", "REG-MONEY-01"} <= held
    [balance] = [c for c in verdict.checks if c.what.startswith("the last balance pushed")]
    assert balance.held and "102.00, against 102.00" in balance.what
    assert {"SB-PAY-01", "SB-PAY-02", "SB-PAY-03"} <= held  # Small, Big, Odd's own rows
    [payout] = [c for c in verdict.checks if "on BIG" in c.what]
    assert "returned 2.00, the paytable 2.00" in payout.what


@pytest.mark.parametrize(
    ("fault", "clauses"),
    [
        ("late-ack", {"SB-RND-01", "REG-COMMIT-01"}),
        ("result-before-close", {"REG-COMMIT-01"}),
        # the pushed return is a cent over the paytable (Big's and Odd's rows), and the wallet,
        # credited right, is then not the start less the stakes plus the returns pushed
        ("settlement-pays-wrong", {"REG-SETTLE-01", "SB-PAY-02", "SB-PAY-03", "REG-MONEY-01"}),
    ],
)
def test_each_stream_fault_fails_its_own_clauses_only(fault: str, clauses: set[str]) -> None:
    assert failed_clauses(play(fault)) == clauses


def test_an_acknowledgement_and_a_close_on_different_streams_are_not_ordered() -> None:
    log = StreamLog()
    log.add("table", "in", "round:close", {"round": "R1"})
    sent = log.add("player", "out", "bet", {"round": "R1", "selection": "BIG", "amount": 100})
    log.add("player", ACK, "bet", {"ok": True, "bets": [
        {"id": "b1", "selection": "BIG", "amount": 100}]}, answers=sent.seq)  # fmt: skip
    verdict = judge_stream(read_events(log, RULES, cents), SICBO)
    assert not [c for c in verdict.checks if "SB-RND-01" in c.clauses]
    [(clauses, why)] = verdict.unjudged
    assert set(clauses) == {"SB-RND-01", "REG-COMMIT-01"} and "not ordered" in why
    assert verdict.open_clauses == {"SB-RND-01", "REG-COMMIT-01"}


def test_a_settlement_pushed_twice_is_one_and_one_never_placed_fails() -> None:
    log = StreamLog()
    log.add("player", "in", "round:result", {"round": "R1", "dice": [1, 2, 3]})
    settled = {"round": "R1", "bet": "b9", "selection": "SMALL", "amount": 100, "returned": 200}
    log.add("player", "in", "bet:settled", settled)
    log.add("player", "in", "bet:settled", settled)
    start = {"player": Decimal("10.00")}  # the player's own stream: its settlements are its
    verdict = judge_stream(read_events(log, RULES, cents), SICBO, start=start)
    never = [c for c in verdict.failed if "never had acknowledged" in c.what]
    assert len(never) == 1 and set(never[0].clauses) == {"REG-SETTLE-01", "REG-MONEY-01"}


def test_a_rule_that_reads_nothing_is_the_rule_s_mistake() -> None:
    log = StreamLog()
    log.add("player", "in", "round:close", {"id": "R1"})
    with pytest.raises(MappingAnswerError, match=r"betting_closed\.round_id reads round"):
        read_events(log, RULES, cents)


def test_messages_are_kept_in_the_order_they_arrived() -> None:
    """The table pushes each settlement then the wallet, bet by bet: the log keeps that order
    (Engine.IO would hand each message to a thread of its own and let them overtake)."""
    kept = [m.event for m in play()[0].messages() if m.event in ("bet:settled", "wallet")]
    assert kept == ["bet:settled", "wallet"] * len(BETS)


def acked(log: StreamLog, bet: str, selection: str, amount: int, round_id: str = "R1") -> None:
    sent = log.add("player", "out", "bet", {"round": round_id, "selection": selection})
    answer = {"ok": True, "bets": [{"id": bet, "selection": selection, "amount": amount}]}
    log.add("player", ACK, "bet", answer, answers=sent.seq)


def test_a_second_settlement_with_other_amounts_fails() -> None:
    log = StreamLog()
    acked(log, "b1", "BIG", 100)
    log.add("player", "in", "round:close", {"round": "R1"})
    log.add("player", "in", "round:result", {"round": "R1", "dice": [6, 6, 5]})
    settled = {"round": "R1", "bet": "b1", "selection": "BIG", "amount": 100, "returned": 200}
    log.add("player", "in", "bet:settled", settled)
    log.add("player", "in", "bet:settled", {**settled, "returned": 400})
    verdict = judge_stream(read_events(log, RULES, cents), SICBO)
    [twice] = [c for c in verdict.failed if "settled twice" in c.what]
    assert set(twice.clauses) == {"REG-SETTLE-01", "REG-MONEY-01"}


def test_a_settlement_restating_the_stake_is_judged_on_the_bet_as_taken() -> None:
    """Taken as 1.00 on Big; settled as 2.00 returning 4.00: the return is judged on 1.00."""
    log = StreamLog()
    acked(log, "b1", "BIG", 100)
    log.add("player", "in", "round:close", {"round": "R1"})
    log.add("player", "in", "round:result", {"round": "R1", "dice": [6, 6, 5]})
    log.add(
        "player",
        "in",
        "bet:settled",
        {"round": "R1", "bet": "b1", "selection": "BIG", "amount": 200, "returned": 400},
    )
    failed = judge_stream(read_events(log, RULES, cents), SICBO).failed
    assert any("settled as 2.00 on BIG" in c.what for c in failed)
    assert any("returned 4.00, the paytable 2.00" in c.what for c in failed)


def test_only_a_bet_s_first_acknowledgement_is_judged_for_lateness() -> None:
    log = StreamLog()
    acked(log, "b1", "BIG", 100)
    log.add("player", "in", "round:close", {"round": "R1"})
    acked(log, "b1", "BIG", 100)  # a re-send with its key, answered with the bet taken
    verdict = judge_stream(read_events(log, RULES, cents), SICBO)
    [late] = [c for c in verdict.checks if "SB-RND-01" in c.clauses]
    assert late.held


def test_a_result_without_a_close_on_its_stream_is_not_judged_and_xoc_dia_voids() -> None:
    log = StreamLog()
    log.add("player", "in", "round:result", {"round": "R1", "dice": [1, 2, 3]})
    verdict = judge_stream(read_events(log, RULES, cents), SICBO)
    assert not verdict.failed and verdict.open_clauses == {"REG-COMMIT-01"}
    tokens = [
        EventRule(BETTING_CLOSED, "round:close", {"round_id": "round"}),
        EventRule(RESULT, "round:result", {"round_id": "round", "result": "tokens"}),
    ]
    log = StreamLog()
    log.add("table", "in", "round:result", {"round": "R2", "tokens": "rrww"})
    log.add("table", "in", "round:close", {"round": "R2"})
    verdict = judge_stream(read_events(log, tokens, cents), load_paytable("xocdia"))
    assert not verdict.failed and "a void round" in verdict.unjudged[0][1]

"""The duties a live table's stream shows (livecert/harness/stream_judge.py), judged from real
streams of the example Socket.IO table: clean, and with each seeded fault the stream can show,
each failing its own clause and nothing else."""

import threading
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

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
    LiveEvent,
    read_events,
)
from livecert.adapters.mapping import MappingAdapter, load_mapping
from livecert.adapters.mapping.live import _Round
from livecert.adapters.mapping.live_join import _Joined, player_stream_name
from livecert.adapters.streams import ACK, StreamLog
from livecert.harness.stream_judge import StreamVerdict, judge_stream
from livecert.rules import load_paytable
from livecert.suite.fixtures.live_streams import _judged

# a live table pushing its rounds on its own clock
pytestmark = pytest.mark.timing

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
        ("result-before-close", {"REG-COMMIT-01", "SB-RND-03"}),
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
    log.add("player", "in", "round:open", {"round": "R1"})
    log.add("player", "in", "round:result", {"round": "R1", "dice": [1, 2, 3]})
    settled = {"round": "R1", "bet": "b9", "selection": "SMALL", "amount": 100, "returned": 200}
    log.add("player", "in", "bet:settled", settled)
    log.add("player", "in", "bet:settled", settled)
    start = {"player": Decimal("10.00")}  # the player's own stream: its settlements are its
    verdict = judge_stream(read_events(log, RULES, cents), SICBO, start=start)
    never = [c for c in verdict.failed if "never had acknowledged" in c.what]
    assert len(never) == 1 and set(never[0].clauses) == {"REG-SETTLE-01", "REG-MONEY-01"}


def test_an_unknown_bet_settled_on_a_round_opened_before_the_events_is_not_judged() -> None:
    """A lent account's stream read by the next scenario: a bet its table took only after the
    earlier scenario ended settles on a round this reader never saw open. Whose it was is not
    known, so it is left unjudged with the reason, never a phantom settlement."""
    log = StreamLog()
    log.add("player", "in", "round:result", {"round": "R0", "dice": [1, 2, 3]})
    settled = {"round": "R0", "bet": "b9", "selection": "SMALL", "amount": 100, "returned": 200}
    log.add("player", "in", "bet:settled", settled)
    verdict = judge_stream(
        read_events(log, RULES, cents), SICBO, start={"player": Decimal("10.00")}
    )
    assert not [c for c in verdict.failed if "never had acknowledged" in c.what]
    [(clauses, why)] = [u for u in verdict.unjudged if "bet b9" in u[1]]
    assert set(clauses) == {"REG-SETTLE-01", "REG-MONEY-01"} and "opened before" in why


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
    assert not verdict.failed and verdict.open_clauses == {"REG-COMMIT-01", "SB-RND-03"}
    tokens = [
        EventRule(BETTING_CLOSED, "round:close", {"round_id": "round"}),
        EventRule(RESULT, "round:result", {"round_id": "round", "result": "tokens"}),
    ]
    log = StreamLog()
    log.add("table", "in", "round:result", {"round": "R2", "tokens": "rrww"})
    log.add("table", "in", "round:close", {"round": "R2"})
    verdict = judge_stream(read_events(log, tokens, cents), load_paytable("xocdia"))
    # the bowl lifted early: a void round, no finding of its own; with no bets, nothing to judge
    assert not verdict.failed and not verdict.unjudged


XOCDIA = load_paytable("xocdia")
D = Decimal


def at(seq: int, kind: str, stream: str = "player", **fields: object) -> LiveEvent:
    """One event as the judge reads it, `seq` its place in the log."""
    return LiveEvent(kind, stream, seq, 0.0, **{"round_id": "R1", **fields})  # type: ignore[arg-type]


def early_xoc_dia(first: str, second: str) -> list[LiveEvent]:
    """Bet b1 (10.00 on Odd) taken, the bowl lifted showing r r w w (Even wins, Odd loses)
    before betting closed, bet b2 (5.00 on Even, the shown result) taken after it, then the
    close and each bet's settlement returning `first` and `second`."""
    return [
        at(1, BET_ACKED, bet_id="b1", selection="ODD", amount=D("10.00")),
        at(2, RESULT, result=["r", "r", "w", "w"]),
        at(3, BET_ACKED, bet_id="b2", selection="EVEN", amount=D("5.00")),
        at(4, BETTING_CLOSED),
        at(5, SETTLED, bet_id="b1", returned=D(first)),
        at(6, SETTLED, bet_id="b2", returned=D(second)),
    ]


def clauses_of(checks: list) -> set[str]:
    return {c for check in checks for c in check.clauses}


def test_an_early_xoc_dia_result_with_every_bet_returned_holds() -> None:
    verdict = judge_stream(early_xoc_dia("10.00", "5.00"), XOCDIA)
    assert not verdict.failed, verdict.failed
    assert not verdict.unjudged, verdict.unjudged
    void = [c for c in verdict.checks if c.clauses == ("XD-VOID-01",)]
    assert len(void) == 2 and all(c.held for c in void)
    [after] = [c for c in verdict.checks if "after round R1's result was shown" in c.what]
    assert after.held and after.clauses == ("REG-COMMIT-01",)
    # a void round's refunds are not payouts: nothing judged by the paytable
    assert not [c for c in clauses_of(verdict.checks) if c.startswith("XD-PAY")]


def test_an_early_xoc_dia_result_with_a_bet_paid_on_it_fails_void_and_commit() -> None:
    verdict = judge_stream(early_xoc_dia("10.00", "9.80"), XOCDIA)  # Even paid 0.96:1
    assert clauses_of(verdict.failed) == {"XD-VOID-01", "REG-COMMIT-01"}
    assert all("b2" in c.what for c in verdict.failed)


def test_an_early_xoc_dia_result_with_a_losing_bet_kept_fails_void() -> None:
    verdict = judge_stream(early_xoc_dia("0", "5.00"), XOCDIA)  # b1 on Odd kept as lost
    [kept] = verdict.failed
    assert kept.clauses == ("XD-VOID-01",) and "bet b1" in kept.what


def test_an_early_xoc_dia_result_whose_refunds_have_not_come_is_awaited_not_silent() -> None:
    verdict = judge_stream(early_xoc_dia("10.00", "5.00")[:4], XOCDIA)
    assert not verdict.failed and verdict.awaiting == {"R1"}
    assert {"XD-VOID-01", "REG-COMMIT-01"} <= verdict.open_clauses


def early_sic_bo(returned: str) -> list[LiveEvent]:
    """6 6 5 shown before betting closed; Big (1.00) taken after it, settled `returned`."""
    return [
        at(1, RESULT, result=[6, 6, 5]),
        at(2, BET_ACKED, bet_id="b1", selection="BIG", amount=D("1.00")),
        at(3, BETTING_CLOSED),
        at(4, SETTLED, bet_id="b1", returned=D(returned)),
    ]


def test_an_early_sic_bo_result_fails_commit_and_the_result_after_betting() -> None:
    verdict = judge_stream(early_sic_bo("2.00"), SICBO)  # Big paid on the dice shown
    assert clauses_of(verdict.failed) == {"REG-COMMIT-01", "SB-RND-03"}
    [shown] = [c for c in verdict.failed if "SB-RND-03" in c.clauses]
    assert "pushed before its betting closed" in shown.what
    [taken] = [c for c in verdict.failed if "after round R1's result was shown" in c.what]
    assert taken.clauses == ("REG-COMMIT-01",)


def test_a_bet_taken_after_an_early_sic_bo_result_and_returned_holds_commit() -> None:
    verdict = judge_stream(early_sic_bo("1.00"), SICBO)  # void and returned
    [taken] = [c for c in verdict.checks if "after round R1's result was shown" in c.what]
    assert taken.held
    # the early result still fails; the refund is no payout judged by the paytable
    assert [c.what for c in verdict.failed] == ["the result of round R1 was pushed before its "
                                                "betting closed"]  # fmt: skip


def test_a_result_come_with_its_settlement_not_is_awaited() -> None:
    events = [
        at(1, BET_ACKED, bet_id="b1", selection="BIG", amount=D("1.00")),
        at(2, BETTING_CLOSED),
        at(3, RESULT, result=[6, 6, 5]),
        at(4, BALANCE, balance=D("99.00")),
    ]
    verdict = judge_stream(events, SICBO, start={"player": D("100.00")})
    assert verdict.awaiting == {"R1"}  # b1's settlement, then a balance after it (and b1)
    assert verdict.awaiting_balance == {"player": 1}
    assert {"REG-SETTLE-01", "REG-MONEY-01"} <= verdict.open_clauses


class LentTarget:
    """What `_judged` (fixtures/live_streams.py) uses of a mapping adapter whose player is a
    lent account holding 50.00 more than the scenario asked, and of the run's target; the
    pushes in `later` come only when the stream is waited on."""

    def __init__(self, events: list[LiveEvent], later: tuple[LiveEvent, ...] = ()) -> None:
        self.adapter, self.info = self, SimpleNamespace(minor_unit=2, rounding="down")
        self.events, self.later = list(events), list(later)
        self.waited: list[tuple[set[str], dict[str, int]]] = []

    def stream_events(self, mark: int) -> list[LiveEvent]:
        return [e for e in self.events if e.seq > mark]

    def stream_name(self, handle: object) -> str:
        return "player"

    def balance_offset(self, handle: object) -> Decimal:
        return D("50.00")

    def stream_wait(self, rounds: set[str], balances: dict[str, int]) -> None:
        self.waited.append((set(rounds), dict(balances)))
        self.events += self.later


def a_round_won(balance: str) -> list[LiveEvent]:
    """Big (1.00) taken, closed, 6 6 5 (Big wins 1:1, returns 2.00), settled, the balance."""
    return [
        at(1, BET_ACKED, bet_id="b1", selection="BIG", amount=D("1.00")),
        at(2, BETTING_CLOSED),
        at(3, RESULT, result=[6, 6, 5]),
        at(4, SETTLED, bet_id="b1", returned=D("2.00")),
        at(5, BALANCE, balance=D(balance)),
    ]


def judged_at_the_end(target: LentTarget) -> StreamVerdict:
    scene = SimpleNamespace(created={"A": object()}, starting_balances={"A": D("100.00")},
                            game="sicbo")  # fmt: skip
    verdict = _judged(target, scene, 0)  # type: ignore[arg-type]
    assert verdict is not None
    return verdict


@pytest.mark.parametrize(("pushed", "held"), [("151.00", True), ("101.00", False)])
def test_a_lent_account_s_pushed_balance_carries_its_surplus(pushed: str, held: bool) -> None:
    """100.00 asked, 50.00 more held: the whole balance pushed is 150.00 - 1.00 + 2.00."""
    verdict = judged_at_the_end(LentTarget(a_round_won(pushed)))
    [money] = [c for c in verdict.checks if c.clauses == ("REG-MONEY-01",)]
    assert money.held is held


def test_settlements_still_on_their_way_are_waited_for_then_judged() -> None:
    events = a_round_won("151.00")
    target = LentTarget(events[:3], later=tuple(events[3:]))
    verdict = judged_at_the_end(target)
    assert target.waited == [({"R1"}, {"player": 1})]
    assert not verdict.unjudged and not verdict.failed
    assert {"SB-PAY-02", "REG-MONEY-01"} <= clauses_of(verdict.checks)


def test_the_live_table_waits_for_what_the_judge_awaits_up_to_the_settle_time() -> None:
    """The mapping's LiveTable, no server: a round the run bet on whose settlement and wallet
    are pushed a moment after the wait began are seen when it returns."""
    mapping = load_mapping(
        Path(__file__).parent.parent / "examples/socketio_table/mapping.yaml",
        environ={"SOCKETIO_TABLE_ADMIN_TOKEN": "a-certification-token"},
    )
    adapter = MappingAdapter(mapping, "http://127.0.0.1:9")
    live = adapter._live
    assert live is not None
    live.settle = 30.0  # the bound; the pushes come long before it
    stream = player_stream_name("p1")
    live._rounds["R1"] = _Round("R1", "sicbo-1", "sicbo", "table sicbo-1", 1,
                                {"p1": [SimpleNamespace(bet_id="b1")]})  # type: ignore[list-item]  # fmt: skip
    live._joined[stream] = _Joined(object(), "player", "", None, "sicbo-1", "sicbo")  # type: ignore[arg-type]
    settled = {"round": "R1", "bet": "b1", "selection": "BIG", "amount": 100, "returned": 200,
               "outcome": "win"}  # fmt: skip

    def pushed() -> None:
        live.log.add(stream, "in", "bet:settled", settled)
        live.log.add(stream, "in", "wallet", {"balance": 10100})

    timer = threading.Timer(0.05, pushed)
    timer.start()
    try:
        adapter.stream_wait({"R1"}, {stream: 0})
        kinds = [e.kind for e in adapter.stream_events(0)]
    finally:
        timer.join()
    assert kinds == [SETTLED, BALANCE]

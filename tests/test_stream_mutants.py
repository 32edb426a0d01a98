"""The pushed-event operators (livecert/harness/mutants/families/streams.py) against the stream's
judge: on a hand-made stream the judge holds whole, each operator's mutant, aimed at each clause
it can validate, fails exactly the clauses it declares; read twice (as the judge does when it
waits for more), it alters the same messages the same way and marks each once; and none is
chosen for a target that pushes nothing."""

from decimal import Decimal

import pytest

from livecert.adapters.evidence import MUTATED, ExchangeRecorder
from livecert.adapters.live_events import (
    BALANCE,
    BET_ACKED,
    BETTING_CLOSED,
    RESULT,
    ROUND_OPENED,
    SETTLED,
    LiveEvent,
)
from livecert.adapters.model import TargetInfo
from livecert.harness.mutants import TargetShape, all_operators, operators_for, parse_mutant
from livecert.harness.mutants.mutation import MutatedAnswers
from livecert.harness.mutants.registry import STREAMS
from livecert.harness.stream_judge import judge_stream
from livecert.rules import load_paytable

INFO = TargetInfo("t", "1", "1", ("sicbo", "xocdia"), "EUR", 2, "down", {}, ())
TABLE, PLAYER = "table", "player"
START = Decimal("1000.00")
# per game: a result, two bets (selection, stake, what the paytable returns on that result,
# worked out by hand: Sic Bo 6-6-5 is 17, Big and Odd win 1:1, Small loses; Xoc Dia three
# red one white is odd (24:25 after the 4% commission, 0.96 on 1.00) and not even)
ROUNDS = {
    "sicbo": ([6, 6, 5], [("BIG", "1.00", "2.00"), ("SMALL", "2.50", "0.00")]),
    "xocdia": (["r", "r", "r", "w"], [("ODD", "1.00", "1.96"), ("EVEN", "3.00", "0.00")]),
}


def stream(game: str, rounds: int = 2, timed: bool = True) -> list[LiveEvent]:
    """`rounds` rounds in the order a correct table pushes them: opened, the bets taken (their
    acknowledgements on the player's stream, every message with the table's own time unless
    not `timed`, as most tables push), closed on the table's stream and the player's, the
    result, the settlements, the balance after."""
    result, bets = ROUNDS[game]
    events: list[LiveEvent] = []
    balance = START

    def push(kind: str, stream_name: str, round_id: str, **fields: object) -> None:
        seq = len(events) + 1
        events.append(LiveEvent(kind, stream_name, seq, float(seq), round_id,
                                server_time=float(seq) if timed else None, **fields))  # type: ignore[arg-type]  # fmt: skip

    for n in range(1, rounds + 1):
        rid = f"r{n}"
        push(ROUND_OPENED, TABLE, rid)
        for k, (selection, stake, _) in enumerate(bets):
            push(BET_ACKED, PLAYER, rid, bet_id=f"{rid}-b{k}", selection=selection,
                 amount=Decimal(stake))  # fmt: skip
        push(BETTING_CLOSED, TABLE, rid)
        push(BETTING_CLOSED, PLAYER, rid)  # as the Socket.IO table does: a close on each stream
        push(RESULT, TABLE, rid, result=result)
        for k, (selection, stake, returned) in enumerate(bets):
            push(SETTLED, PLAYER, rid, bet_id=f"{rid}-b{k}", selection=selection,
                 amount=Decimal(stake), returned=Decimal(returned))  # fmt: skip
            balance += Decimal(returned) - Decimal(stake)
        push(BALANCE, PLAYER, rid, balance=balance)
    return events


def failed(events: list[LiveEvent], game: str) -> set[str]:
    verdict = judge_stream(events, load_paytable(game), 2, "down", {PLAYER: START})
    return {c for check in verdict.failed for c in check.clauses}


class Streamed:
    """A live table's adapter reduced to its stream: the same events each time it is read."""

    def __init__(self, events: list[LiveEvent]) -> None:
        self.events = events
        self.recorder = ExchangeRecorder()

    def stream_events(self, after: int) -> list[LiveEvent]:
        return [e for e in self.events if e.seq > after]


STREAM_CLAUSES = ("REG-SETTLE-01", "REG-MONEY-01", "REG-COMMIT-01", "SB-RND-01", "XD-RND-01",
                  "SB-RND-03", "XD-VOID-01")  # fmt: skip
STREAM_MUTANTS = [
    (op.name, clause, game)
    for op in all_operators().values()
    if op.family == STREAMS
    for clause in STREAM_CLAUSES
    if op.validates(clause)
    for game in ("sicbo", "xocdia")
    if not clause.startswith("SB-" if game == "xocdia" else "XD-")
]


@pytest.mark.parametrize("game", ["sicbo", "xocdia"])
@pytest.mark.parametrize("timed", [True, False], ids=["timed", "untimed"])
def test_the_hand_made_stream_is_judged_whole_and_clean(game: str, timed: bool) -> None:
    events = stream(game, timed=timed)
    verdict = judge_stream(events, load_paytable(game), 2, "down", {PLAYER: START})
    assert not verdict.failed and not verdict.unjudged
    held = {c for check in verdict.checks for c in check.clauses}
    assert {"REG-SETTLE-01", "REG-MONEY-01", "REG-COMMIT-01"} <= held


@pytest.mark.parametrize("timed", [True, False], ids=["timed", "untimed"])
@pytest.mark.parametrize(("name", "clause", "game"), STREAM_MUTANTS)
def test_each_stream_mutant_fails_exactly_its_declared_clauses(
    name: str, clause: str, game: str, timed: bool
) -> None:
    """With the table's own times and without (the order then the streams' alone), read first
    in part, as the judge does before it waits for what is still to come, then whole."""
    mutant = parse_mutant(f"{name}@{clause}")
    whole = stream(game, timed=timed)
    target = Streamed(whole[: len(whole) // 2])
    answers = MutatedAnswers(
        target, mutant.name, lambda note: mutant.operator.mutation(mutant.clause, INFO, note)
    )
    answers.stream_events(0)
    target.events = whole  # the rest came while the judge waited
    first = answers.stream_events(0)
    again = answers.stream_events(0)
    assert first == again
    assert clause in failed(first, game)
    declared = set(mutant.declares)
    # every clause declared is one this game's judge can fail (the other game's window is not)
    own = {c for c in declared if not c.startswith("SB-" if game == "xocdia" else "XD-")}
    assert failed(first, game) == own
    notes = [e for e in target.recorder.drain() if e.method == MUTATED]
    assert notes and len(notes) == answers.alterations
    assert len({n.url for n in notes}) == len(notes)  # each message marked once
    assert target.events == stream(game, timed=timed)  # the table's own messages untouched


def test_stream_operators_are_chosen_only_for_a_target_that_pushes() -> None:
    quiet, pushing = TargetShape(), TargetShape(pushes=True)
    assert all(op.family != STREAMS for op in operators_for("REG-MONEY-01", quiet))
    chosen = [op.name for op in operators_for("REG-MONEY-01", pushing)]
    assert chosen[:2] == ["pushed-settlement-repeated", "pushed-balance-unit-off"]
    assert "balance-unit-off" in chosen[2:]  # the wallet's reads are still read there
    assert [op.name for op in operators_for("SB-RND-03", quiet)] == ["shake-not-kept"]
    assert [op.name for op in operators_for("SB-RND-03", pushing)] == [
        "pushed-result-before-close",
        "shake-not-kept",
    ]

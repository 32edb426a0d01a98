"""Pushed-event operators: a live table's message dropped, repeated or out of order.

A table that runs rounds on its own clock shows most of its duties on its stream, and the stream's
judge (livecert/harness/stream_judge.py) reads them in the order the messages came. These
operators alter the events that judge reads, never the messages the table sent nor what the
steps waited on, the way one fault of such a table would: the result of a settled round never
pushed, a settlement pushed again with another amount, a bet's acknowledgement come after its
round closed, the result come before the close, a pushed balance a unit off. They apply only to
a target that pushes its rounds.

The judge reads the stream again when it waits for settlements still on their way: each hook is
a function of the messages alone (the same message altered the same way each time), and each
alteration is marked once.
"""

from collections.abc import Iterable
from dataclasses import replace

from livecert.adapters.live_events import (
    BALANCE,
    BET_ACKED,
    BETTING_CLOSED,
    RESULT,
    SETTLED,
    LiveEvent,
)
from livecert.harness.mutants.mutation import Mutation
from livecert.harness.mutants.registry import STREAMS, TargetShape, clauses_in, operator

SETTLE, MONEY, COMMIT = "REG-SETTLE-01", "REG-MONEY-01", "REG-COMMIT-01"
WINDOWS = ("SB-RND-01", "XD-RND-01")  # bets are taken only during the countdown


def pushes(clause: str, shape: TargetShape) -> bool:
    """A pushed event can be altered only where the target pushes its rounds."""
    return shape.pushes


class StreamMutation(Mutation):
    """Marks each altered message once, however often the judge reads the stream."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self._marked: set[tuple[str, int, str | None]] = set()

    def mark(self, event: LiveEvent, what: str) -> None:
        """`event` altered as `what` says (marked once: a slip's bets share one message)."""
        key = (event.kind, event.seq, event.bet_id)
        with self.lock:
            first = key not in self._marked
            self._marked.add(key)
        if first:
            self.altered(what)


def _in_order(events: Iterable[LiveEvent]) -> list[LiveEvent]:
    """The events as the stream would have shown them (by seq; ties keep their place)."""
    return sorted(events, key=lambda e: e.seq)


@operator(
    "pushed-result-dropped",
    family=STREAMS,
    summary="a round's result never pushed, its bets settled all the same",
    validates=clauses_in(SETTLE),
    applies=pushes,
)
class PushedResultDropped(StreamMutation):
    def events(self, events: list[LiveEvent]) -> list[LiveEvent]:
        settled = {e.round_id for e in events if e.kind == SETTLED}
        kept = []
        for event in events:
            if event.kind == RESULT and event.round_id in settled:
                self.mark(event, f"the result of round {event.round_id} dropped "
                          f"(message #{event.seq})")  # fmt: skip
                continue
            kept.append(event)
        return kept


@operator(
    "pushed-settlement-repeated",
    family=STREAMS,
    summary="a bet's settlement pushed twice, the second returning a minor unit more",
    validates=clauses_in(SETTLE, MONEY),
    # a bet settled twice with other amounts: both duties (stream_judge.py)
    declares=lambda clause: (SETTLE, MONEY),
    applies=pushes,
)
class PushedSettlementRepeated(StreamMutation):
    def events(self, events: list[LiveEvent]) -> list[LiveEvent]:
        shown: list[LiveEvent] = []
        repeated: set[str] = set()
        for event in events:
            shown.append(event)
            if event.kind != SETTLED or event.returned is None or event.bet_id in repeated:
                continue
            repeated.add(event.bet_id or "")
            again = replace(event, returned=event.returned + self.unit)
            shown.append(again)
            self.mark(event, f"bet {event.bet_id}'s settlement (message "
                      f"#{event.seq}, returned {event.returned}) pushed again returning "
                      f"{again.returned}")  # fmt: skip
        return shown


@operator(
    "pushed-ack-after-close",
    family=STREAMS,
    summary="a bet acknowledged (taken) after its round's betting closed",
    validates=clauses_in(COMMIT, *WINDOWS),
    # taken after the close: the betting window and the commitment (stream_judge.py)
    declares=lambda clause: (COMMIT, *(WINDOWS if clause == COMMIT else (clause,))),
    applies=pushes,
)
class PushedAckAfterClose(StreamMutation):
    def events(self, events: list[LiveEvent]) -> list[LiveEvent]:
        # each round's latest close, on any stream, and the latest of the target's times a
        # close of it carries
        closes: dict[str | None, LiveEvent] = {}
        times: dict[str | None, float] = {}
        for event in events:
            if event.kind != BETTING_CLOSED:
                continue
            closes[event.round_id] = event
            if event.server_time is not None:
                times[event.round_id] = max(event.server_time, times.get(event.round_id, 0.0))
        shown = []
        for event in events:
            close = closes.get(event.round_id)
            if event.kind != BET_ACKED or close is None or event.seq > close.seq:
                shown.append(event)
                continue
            # after every close of its round in the log (a close pushed on the player's stream
            # too orders it there), and by the target's clock where a close carries it (one on
            # another stream, with no such clock, stays unordered, as it was: the stream cannot
            # show this fault there, and the mutant survives to say so)
            latest = times.get(event.round_id)
            later_time = None if latest is None else latest + 0.001
            shown.append(replace(event, seq=close.seq + 1, server_time=later_time))
            self.mark(event, f"bet {event.bet_id}'s acknowledgement (message "
                      f"#{event.seq}) shown after round {event.round_id}'s close "
                      f"(#{close.seq})")  # fmt: skip
        return _in_order(shown)


@operator(
    "pushed-result-before-close",
    family=STREAMS,
    summary="a round's result pushed before its betting closed (the dice or bowl shown early)",
    # Sic Bo: the result after the close (SB-RND-03) and the bets committed before it; Xoc Dia:
    # the bowl lifted early voids the round, which this table then pays as usual
    validates=clauses_in("SB-RND-03", "XD-VOID-01"),
    declares=lambda clause: (clause, COMMIT) if clause == "SB-RND-03" else (clause,),
    applies=pushes,
)
class PushedResultBeforeClose(StreamMutation):
    def events(self, events: list[LiveEvent]) -> list[LiveEvent]:
        closes: dict[tuple[str | None, str], LiveEvent] = {}
        for event in events:
            if event.kind == BETTING_CLOSED:
                closes.setdefault((event.round_id, event.stream), event)
        shown = []
        for event in events:
            close = closes.get((event.round_id, event.stream))
            if event.kind != RESULT or close is None or event.seq < close.seq:
                shown.append(event)
                continue
            early_time = None if close.server_time is None else close.server_time - 0.001
            shown.append(replace(event, seq=close.seq - 1, server_time=early_time))
            self.mark(event, f"the result of round {event.round_id} (message "
                      f"#{event.seq}) shown before its close (#{close.seq})")  # fmt: skip
        # the result just before the close it now precedes (first among any of its seq)
        return sorted(shown, key=lambda e: (e.seq, e.kind != RESULT))


@operator(
    "pushed-balance-unit-off",
    family=STREAMS,
    summary="every balance a player's stream pushes is one minor unit more than the wallet's",
    validates=clauses_in(MONEY),
    applies=pushes,
)
class PushedBalanceUnitOff(StreamMutation):
    def events(self, events: list[LiveEvent]) -> list[LiveEvent]:
        shown = []
        for event in events:
            if event.kind == BALANCE and event.balance is not None:
                event = replace(event, balance=event.balance + self.unit)
                self.mark(event, f"the balance pushed on {event.stream} "
                          f"(message #{event.seq}) shown as {event.balance}")  # fmt: skip
            shown.append(event)
        return shown

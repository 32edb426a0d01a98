"""The duties a live table's stream shows, each judged on its own clause from the events in the
order the harness saw them.

- A bet acknowledged (taken) after the close of its round's betting, where the acknowledgement
  and the close came on one stream (so their order is the target's) or both carry the target's
  own time: SB-RND-01 / XD-RND-01 (bets only during the countdown) and REG-COMMIT-01.
- A result pushed before betting closed, on the same stream: REG-COMMIT-01.
- A settlement for a round that never reported its result, or for a bet the player never had
  acknowledged: REG-SETTLE-01 and REG-MONEY-01.
- A settlement pushed twice is one settlement (the evidence keeps both); a balance that goes
  past what the player staked and was returned fails REG-MONEY-01.

Where a bet goes over HTTP and the close comes over the stream, the two are not ordered: no
lateness is judged then, and the check says so rather than passing.
"""

from dataclasses import dataclass, field
from decimal import Decimal

from livecert.harness.live_events import (
    BALANCE,
    BET_ACKED,
    BETTING_CLOSED,
    RESULT,
    SETTLED,
    LiveEvent,
)
from livecert.rules.paytable import Paytable
from livecert.rules.settlement import expected_settlement

WINDOW = {"sicbo": "SB-RND-01", "xocdia": "XD-RND-01"}
COMMIT, SETTLE, MONEY = "REG-COMMIT-01", "REG-SETTLE-01", "REG-MONEY-01"


@dataclass(frozen=True)
class StreamCheck:
    """One check of a clause on the stream: held or not, and the messages it rests on."""

    clauses: tuple[str, ...]
    held: bool
    what: str
    seqs: tuple[int, ...] = ()


@dataclass
class StreamVerdict:
    checks: list[StreamCheck] = field(default_factory=list)
    unjudged: list[str] = field(default_factory=list)  # what could not be ordered, and why

    @property
    def failed(self) -> list[StreamCheck]:
        return [c for c in self.checks if not c.held]


def _first(events: list[LiveEvent], kind: str, round_id: str) -> list[LiveEvent]:
    return [e for e in events if e.kind == kind and e.round_id == round_id]


def _acks_against_close(events: list[LiveEvent], game: str, verdict: StreamVerdict) -> None:
    clauses = (WINDOW[game], COMMIT)
    for ack in (e for e in events if e.kind == BET_ACKED):
        closes = _first(events, BETTING_CLOSED, ack.round_id or "")
        same = [c for c in closes if c.stream == ack.stream]
        timed = [c for c in closes if c.server_time is not None and ack.server_time is not None]
        if same:
            late = same[0].seq < ack.seq
            seqs = (same[0].seq, ack.seq)
        elif timed:
            late = timed[0].server_time < ack.server_time  # type: ignore[operator]
            seqs = (timed[0].seq, ack.seq)
        else:
            verdict.unjudged.append(
                f"bet {ack.bet_id} of round {ack.round_id}: its acknowledgement and the close "
                "came on different streams without the target's times, so they are not ordered"
            )
            continue
        what = (
            f"bet {ack.bet_id} was taken after betting on round {ack.round_id} closed"
            if late
            else f"bet {ack.bet_id} was taken before betting on round {ack.round_id} closed"
        )
        verdict.checks.append(StreamCheck(clauses, not late, what, seqs))


def _results_against_close(events: list[LiveEvent], verdict: StreamVerdict) -> None:
    for result in (e for e in events if e.kind == RESULT):
        closes = [
            c for c in _first(events, BETTING_CLOSED, result.round_id or "")
            if c.stream == result.stream
        ]  # fmt: skip
        if not closes:
            early = True  # no close on that stream before or after: the result came first
            what = f"the result of round {result.round_id} came with no close of its betting"
            seqs: tuple[int, ...] = (result.seq,)
        else:
            early = result.seq < closes[0].seq
            what = (
                f"the result of round {result.round_id} was pushed before its betting closed"
                if early
                else f"the result of round {result.round_id} came after its betting closed"
            )
            seqs = (closes[0].seq, result.seq)
        verdict.checks.append(StreamCheck((COMMIT,), not early, what, seqs))


def _settlements(events: list[LiveEvent], verdict: StreamVerdict) -> dict[str, LiveEvent]:
    """Each bet's settlement once (a repeat is evidence, not a second settlement)."""
    acked = {e.bet_id for e in events if e.kind == BET_ACKED}
    resulted = {e.round_id for e in events if e.kind == RESULT}
    once: dict[str, LiveEvent] = {}
    for settled in (e for e in events if e.kind == SETTLED):
        if settled.bet_id in once:
            continue
        once[settled.bet_id or ""] = settled
        known = settled.bet_id in acked
        verdict.checks.append(
            StreamCheck(
                (SETTLE, MONEY), known,
                f"bet {settled.bet_id} was settled"
                + ("" if known else ", a bet the player never had acknowledged"),
                (settled.seq,),
            )
        )  # fmt: skip
        has_result = settled.round_id in resulted
        verdict.checks.append(
            StreamCheck(
                (SETTLE,), has_result,
                f"round {settled.round_id} settled "
                + ("after its result" if has_result else "with no result ever reported"),
                (settled.seq,),
            )
        )  # fmt: skip
    return once


def _balances(
    events: list[LiveEvent], once: dict[str, LiveEvent], start: dict[str, Decimal],
    verdict: StreamVerdict,
) -> None:  # fmt: skip
    """The last balance pushed on a player's stream against its start, less every stake taken,
    plus every return settled: judged only once every bet taken has its settlement (a balance
    pushed between a round's settlements may count some of them already; it is evidence)."""
    for stream, opening in start.items():
        own = [e for e in events if e.stream == stream]
        acked = {e.bet_id: e for e in own if e.kind == BET_ACKED}
        balances = [e for e in own if e.kind == BALANCE and e.balance is not None]
        if not balances:
            continue
        unsettled = [b for b in acked if b not in once]
        if unsettled:
            verdict.unjudged.append(
                f"the balance of stream {stream}: bets {', '.join(map(str, unsettled))} have no "
                "settlement on it, so the balance cannot be reconciled from the stream"
            )
            continue
        last = balances[-1]
        staked = sum((e.amount or Decimal(0) for e in acked.values()), Decimal(0))
        returned = sum((once[b].returned or Decimal(0) for b in acked), Decimal(0))
        expected = opening - staked + returned
        verdict.checks.append(
            StreamCheck(
                (MONEY,), last.balance == expected,
                f"the last balance pushed, {last.balance}, against {expected} (the start "
                f"{opening} minus {staked} staked plus {returned} returned)",
                (last.seq,),
            )
        )  # fmt: skip


def _outcome(result: object) -> tuple | None:
    """The dice or tokens of a pushed result (a list, or tokens written together)."""
    if isinstance(result, str):
        result = list(result)
    if isinstance(result, list) and len(result) in (3, 4):
        return tuple(str(t).lower() if isinstance(t, str) else t for t in result)
    return None


def _payouts(
    events: list[LiveEvent], once: dict[str, LiveEvent], paytable: Paytable, minor_unit: int,
    rounding: str, verdict: StreamVerdict,
) -> None:  # fmt: skip
    """Each pushed settlement against the oracle, on its round's pushed result."""
    results = {e.round_id: e for e in events if e.kind == RESULT}
    for settled in once.values():
        shown = results.get(settled.round_id)
        outcome = _outcome(shown.result) if shown is not None else None
        if outcome is None or settled.selection is None or settled.amount is None:
            continue  # judged above: a settlement with no result; or the rule reads no stake
        expected = expected_settlement(
            paytable, settled.selection, outcome, settled.amount, minor_unit, rounding
        )
        held = settled.returned == expected.returned
        verdict.checks.append(
            StreamCheck(
                (SETTLE, *expected.clauses), held,
                f"bet {settled.bet_id} on {settled.selection} ({settled.amount}) on {outcome}: "
                f"returned {settled.returned}, the paytable {expected.returned}",
                (shown.seq, settled.seq),  # type: ignore[union-attr]
            )
        )  # fmt: skip


def judge_stream(
    events: list[LiveEvent],
    paytable: Paytable,
    minor_unit: int = 2,
    rounding: str = "down",
    start: dict[str, Decimal] | None = None,
) -> StreamVerdict:
    """Every duty the events show; `start` is each player's stream and opening balance."""
    verdict = StreamVerdict()
    _acks_against_close(events, paytable.game, verdict)
    _results_against_close(events, verdict)
    once = _settlements(events, verdict)
    _payouts(events, once, paytable, minor_unit, rounding, verdict)
    _balances(events, once, start or {}, verdict)
    return verdict

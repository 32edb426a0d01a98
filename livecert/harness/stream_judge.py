"""The duties a live table's stream shows, each judged on its own clause from the events in the
order the harness saw them.

- A bet acknowledged (taken) after the close of its round's betting, where the acknowledgement
  and the close came on one stream (so their order is the target's) or both carry the target's
  own time: SB-RND-01 / XD-RND-01 (bets only during the countdown) and REG-COMMIT-01. Only a
  bet's first acknowledgement counts (a re-send with its key is answered with the bet taken).
- A result pushed before betting closed, on the same stream (stream_rounds.py): in Sic Bo,
  REG-COMMIT-01 and SB-RND-03; in Xoc Dia the round is void and each of its bets' settlements
  must return exactly the stake (XD-VOID-01); in either, a bet acknowledged after the result
  was shown fails REG-COMMIT-01 unless it is void and returned.
- A settlement for a bet the player never had acknowledged, or for a round that never reported
  its result; a bet settled twice with other amounts: REG-SETTLE-01 and REG-MONEY-01. A
  settlement pushed twice alike is one settlement (the evidence keeps both). A settlement of an
  unknown bet on a round that opened before the events began is not judged: it may be an
  earlier scenario's bet, one the table took only after that scenario had ended.
- Each return against the paytable, on the bet as it was acknowledged (its stake and
  selection; a settlement that restates them otherwise fails REG-SETTLE-01).
- The last balance of a player's stream against its start less the stakes plus the returns,
  where it was pushed after every one of them: REG-MONEY-01.

What cannot be ordered or reconciled is not judged, and says which clauses it leaves open
(`unjudged`): those clauses are then not proven by the stream, whatever else held. What only a
settlement or a balance still on its way could settle is named in the verdict (`awaiting`,
`awaiting_balance`), for the caller to wait for on the stream and judge again.
"""

from decimal import Decimal

from livecert.adapters.errors import MappingAnswerError
from livecert.adapters.live_events import (
    BALANCE,
    BET_ACKED,
    BETTING_CLOSED,
    RESULT,
    ROUND_OPENED,
    SETTLED,
    LiveEvent,
)
from livecert.harness.round_clauses import COMMIT, SETTLE, WINDOW
from livecert.harness.stream_rounds import (
    EventIndex,
    StreamCheck,
    StreamVerdict,
    by_round,
    early_duties,
    of,
    ordered,
    results_against_close,
)
from livecert.rules.paytable import Paytable, PaytableError
from livecert.rules.settlement import OutcomeError, expected_settlement

MONEY = "REG-MONEY-01"
__all__ = ["StreamCheck", "StreamVerdict", "judge_stream"]


def _first_acks(events: list[LiveEvent]) -> dict[str, LiveEvent]:
    acks: dict[str, LiveEvent] = {}
    for ack in (e for e in events if e.kind == BET_ACKED):
        acks.setdefault(ack.bet_id or "", ack)
    return acks


def _acks_against_close(
    acks: dict[str, LiveEvent], index: EventIndex, game: str, verdict: StreamVerdict
) -> None:
    clauses = (WINDOW[game], COMMIT)
    for ack in acks.values():
        closes = of(index, BETTING_CLOSED, ack.round_id)
        order = ordered(ack, closes)
        if order is None:
            why = (
                "its acknowledgement and the close came on different streams without the "
                "target's times"
                if closes
                else "no close of its round's betting was seen"
            )
            verdict.unjudged.append(
                (clauses, f"bet {ack.bet_id} of round {ack.round_id}: {why}, so not ordered")
            )
            continue
        late, seqs = order
        when = "after" if late else "before"
        what = f"bet {ack.bet_id} was taken {when} betting on round {ack.round_id} closed"
        verdict.checks.append(StreamCheck(clauses, not late, what, seqs))


def _settlements(
    events: list[LiveEvent], acks: dict[str, LiveEvent], players: set[str], verdict: StreamVerdict
) -> dict[str, LiveEvent]:
    """Each bet's settlement once: a repeat alike is evidence; a repeat with other amounts is a
    second settlement. A settlement is of the bet the player had acknowledged, on that player's
    stream and that round (one naming no round is of the acknowledged bet's round); anything
    else fails REG-SETTLE-01 (a settlement of a bet never taken fails REG-MONEY-01 too)."""
    resulted = {e.round_id for e in events if e.kind == RESULT}
    opened = {e.round_id for e in events if e.kind == ROUND_OPENED}
    once: dict[str, LiveEvent] = {}
    for settled in (e for e in events if e.kind == SETTLED):
        first = once.get(settled.bet_id or "")
        if first is not None:
            same = (first.returned, first.amount) == (settled.returned, settled.amount)
            if not same:
                verdict.checks.append(
                    StreamCheck(
                        (SETTLE, MONEY), False,
                        f"bet {settled.bet_id} settled twice: returned {first.returned}, then "
                        f"{settled.returned}", (first.seq, settled.seq),
                    )
                )  # fmt: skip
            continue
        ack = acks.get(settled.bet_id or "")
        once[settled.bet_id or ""] = settled
        if ack is None:
            if settled.round_id is not None and settled.round_id not in opened:
                # a round that opened before these events began: its bets may be an earlier
                # reader's (a bet taken only after its scenario ended), so not judged here
                verdict.unjudged.append(
                    (
                        (SETTLE, MONEY),
                        f"bet {settled.bet_id} settled on round {settled.round_id}, a round "
                        "opened before the stream was read here: whose bet it was is not known",
                    )
                )
                continue
            if settled.stream in players:
                verdict.checks.append(
                    StreamCheck(
                        (SETTLE, MONEY), False,
                        f"bet {settled.bet_id} was settled, a bet the player never had "
                        "acknowledged", (settled.seq,),
                    )
                )  # fmt: skip
            continue
        said = settled.round_id
        problems = []
        if settled.stream != ack.stream:
            problems.append(f"pushed on {settled.stream}, taken on {ack.stream}")
        if said is not None and said != ack.round_id:
            problems.append(f"settled on round {said}, taken for round {ack.round_id}")
        verdict.checks.append(
            StreamCheck(
                (SETTLE,), not problems,
                f"bet {settled.bet_id} was settled "
                + ("; ".join(problems) if problems else "to its player, on its round"),
                (ack.seq, settled.seq),
            )
        )  # fmt: skip
        has_result = ack.round_id in resulted
        verdict.checks.append(
            StreamCheck(
                (SETTLE,), has_result,
                f"round {ack.round_id} settled "
                + ("after its result" if has_result else "with no result ever reported"),
                (settled.seq,),
            )
        )  # fmt: skip
    for bet_id, ack in acks.items():
        if bet_id not in once and ack.round_id in resulted:
            verdict.awaiting.add(ack.round_id or "")
            verdict.unjudged.append(
                ((SETTLE, MONEY), f"bet {bet_id}: its round's result came, its settlement not")
            )
    return once


def _outcome(result: object, shown: LiveEvent) -> tuple:
    """The dice or tokens of a pushed result, or the mapping's error saying what it holds."""
    if isinstance(result, str) and len(result) == 4 and result.isalpha():
        result = list(result)
    if isinstance(result, list) and len(result) in (3, 4):
        return tuple(str(t).lower() if isinstance(t, str) else t for t in result)
    raise MappingAnswerError(
        "reading a pushed result", "result",
        f"the result of round {shown.round_id} reads {result!r}: not three dice or four tokens",
        repr(result)[:200],
    )  # fmt: skip


def _payouts(
    once: dict[str, LiveEvent], acks: dict[str, LiveEvent], events: list[LiveEvent],
    paytable: Paytable, minor_unit: int, rounding: str, verdict: StreamVerdict,
    returned_instead: set[str],
) -> None:  # fmt: skip
    """Each settlement against the oracle, on the bet as acknowledged and its round's result
    (but those `returned_instead`: a void round's, or taken after the result was shown)."""
    results = {e.round_id: e for e in events if e.kind == RESULT}
    for bet_id, settled in once.items():
        ack = acks.get(bet_id)
        if ack is None or bet_id in returned_instead:
            continue  # never taken (failed above), or judged on its return of the stake
        shown = results.get(ack.round_id)
        if shown is None:
            continue  # judged above: a settlement with no result
        selection = ack.selection if ack and ack.selection else settled.selection
        stake = ack.amount if ack and ack.amount is not None else settled.amount
        if ack is not None and (settled.selection, settled.amount) not in (
            (ack.selection, ack.amount), (None, None),
        ):  # fmt: skip
            verdict.checks.append(
                StreamCheck(
                    (SETTLE,), False,
                    f"bet {bet_id} was taken as {ack.amount} on {ack.selection} and settled as "
                    f"{settled.amount} on {settled.selection}", (ack.seq, settled.seq),
                )
            )  # fmt: skip
        if selection is None or stake is None:
            verdict.unjudged.append(((SETTLE,), f"bet {bet_id}: no stake or selection to judge"))
            continue
        try:
            expected = expected_settlement(
                paytable, selection, _outcome(shown.result, shown), stake, minor_unit, rounding
            )
        except (OutcomeError, PaytableError, KeyError) as error:
            raise MappingAnswerError(
                "judging a pushed settlement", "selection",
                f"bet {bet_id} on {selection!r} on {shown.result!r}: {error}", "",
            ) from None  # fmt: skip
        held = settled.returned == expected.returned
        verdict.checks.append(
            StreamCheck(
                (SETTLE, *expected.clauses), held,
                f"bet {bet_id} on {selection} ({stake}) on {shown.result}: returned "
                f"{settled.returned}, the paytable {expected.returned}",
                (shown.seq, settled.seq),
            )
        )  # fmt: skip


def _balances(
    events: list[LiveEvent], acks: dict[str, LiveEvent], once: dict[str, LiveEvent],
    start: dict[str, Decimal], verdict: StreamVerdict,
) -> None:  # fmt: skip
    """The last balance pushed on a player's stream against its start, less every stake taken,
    plus every return settled: judged only where every bet taken has its settlement and the
    balance came after all of them (one pushed between settlements is evidence only). A balance
    after settlements still to come (their rounds' results came) is awaited; where the stream
    pushed no balance yet, only together with those settlements."""
    resulted = {e.round_id for e in events if e.kind == RESULT}
    for stream, opening in start.items():
        own = [a for a in acks.values() if a.stream == stream]
        balances = [e for e in events if e.stream == stream and e.kind == BALANCE]
        settled = [once[a.bet_id or ""] for a in own if (a.bet_id or "") in once]
        latest = max((e.seq for e in [*own, *settled]), default=0)
        unsettled = [a for a in own if (a.bet_id or "") not in once]
        may_come = all(a.round_id in resulted for a in unsettled)  # each settlement may come
        if not balances:
            if unsettled and may_come:
                verdict.awaiting_balance[stream] = latest
            continue
        last = balances[-1]
        if unsettled or last.seq < latest:
            if may_come:
                verdict.awaiting_balance[stream] = latest
            verdict.unjudged.append(
                ((MONEY,), f"stream {stream}: no balance pushed after every bet and settlement")
            )
            continue
        staked = sum((a.amount or Decimal(0) for a in own), Decimal(0))
        returned = sum((s.returned or Decimal(0) for s in settled), Decimal(0))
        expected = opening - staked + returned
        verdict.checks.append(
            StreamCheck(
                (MONEY,), last.balance == expected,
                f"the last balance pushed, {last.balance}, against {expected} (the start "
                f"{opening} minus {staked} staked plus {returned} returned)", (last.seq,),
            )
        )  # fmt: skip


def judge_stream(
    events: list[LiveEvent],
    paytable: Paytable,
    minor_unit: int = 2,
    rounding: str = "down",
    start: dict[str, Decimal] | None = None,
) -> StreamVerdict:
    """Every duty the events show; `start` names each player's own stream and its opening
    balance (without it, the streams the acknowledgements came on are the players')."""
    verdict = StreamVerdict()
    acks = _first_acks(events)
    players = set(start) if start else {a.stream for a in acks.values()}
    index = by_round(events)  # once: every round's events found without reading them all
    _acks_against_close(acks, index, paytable.game, verdict)
    early = results_against_close(events, index, paytable.game, verdict)
    once = _settlements(events, acks, players, verdict)
    returned_instead = early_duties(acks, index, early, once, paytable.game, verdict)
    _payouts(once, acks, events, paytable, minor_unit, rounding, verdict, returned_instead)
    _balances(events, acks, once, start or {}, verdict)
    return verdict

"""A live table's rounds in the order its stream showed them, and the duties a result shown
before betting closed leaves (stream_judge.py judges the rest of the stream with these types).

Two messages are ordered where they came on one stream (the order is the target's) or both carry
the target's own time; otherwise they are not ordered, and nothing resting on their order is
judged. A result shown before its round's close, on the close's stream:

- Xoc Dia: the bowl was lifted early, so the round is void and all bets are returned
  (XD-VOID-01). The early result is no finding of its own; each settlement of a bet of the round
  must return exactly its stake (nothing won, nothing lost), on XD-VOID-01.
- Sic Bo: the result comes only after betting ends (SB-RND-03) and a bet is committed before the
  outcome (REG-COMMIT-01): the early result fails both.
- Either game: a bet acknowledged after the result was shown was received after the outcome
  (REG-COMMIT-01): that holds only where it is void and returned, its settlement returning
  exactly its stake. Such a bet (and every bet of a void round) is not judged by the paytable.

A duty whose settlement has not come is unjudged (its round, whose result came, is awaited:
stream_judge.py), so the caller may wait for it on the stream and judge again.
"""

from dataclasses import dataclass, field

from livecert.adapters.live_events import BETTING_CLOSED, RESULT, LiveEvent
from livecert.harness.round_clauses import COMMIT, SETTLE

VOID = "XD-VOID-01"
SHOWN_AFTER_CLOSE = {"sicbo": "SB-RND-03"}  # the result comes only after betting ends


@dataclass(frozen=True)
class StreamCheck:
    """One check of a clause on the stream: held or not, and the messages it rests on."""

    clauses: tuple[str, ...]
    held: bool
    what: str
    seqs: tuple[int, ...] = ()


@dataclass
class StreamVerdict:
    """The checks the stream allowed, what it left unjudged with the clauses left open, and
    what judging it again could settle: the rounds whose settlements are awaited, and the
    players' streams awaiting a balance pushed after the seq named."""

    checks: list[StreamCheck] = field(default_factory=list)
    unjudged: list[tuple[tuple[str, ...], str]] = field(default_factory=list)
    awaiting: set[str] = field(default_factory=set)
    awaiting_balance: dict[str, int] = field(default_factory=dict)

    @property
    def failed(self) -> list[StreamCheck]:
        return [c for c in self.checks if not c.held]

    @property
    def open_clauses(self) -> set[str]:
        """Clauses something left unjudged: not proven by this stream, whatever held."""
        return {c for clauses, _ in self.unjudged for c in clauses}


EventIndex = dict[tuple[str, str | None], list[LiveEvent]]


def by_round(events: list[LiveEvent]) -> EventIndex:
    """The events by kind and round, each list in the stream's order: read once, so that a
    table's hundreds of rounds are judged in one pass, not each round over every event."""
    index: EventIndex = {}
    for event in events:
        index.setdefault((event.kind, event.round_id), []).append(event)
    return index


def of(index: EventIndex, kind: str, round_id: str | None) -> list[LiveEvent]:
    return index.get((kind, round_id), [])


def ordered(event: LiveEvent, marks: list[LiveEvent]) -> tuple[bool, tuple[int, int]] | None:
    """Whether `event` came after the first of `marks` (with the two messages' seqs), where
    they are ordered: on one stream, or both with the target's time; None where not."""
    same = [m for m in marks if m.stream == event.stream]
    if same:
        return same[0].seq < event.seq, (same[0].seq, event.seq)
    timed = [m for m in marks if m.server_time is not None]
    if timed and event.server_time is not None:
        first: float = timed[0].server_time  # type: ignore[assignment]
        return first < event.server_time, (timed[0].seq, event.seq)
    return None


def results_against_close(
    events: list[LiveEvent], index: EventIndex, game: str, verdict: StreamVerdict
) -> set[str]:
    """Each result against its round's close on its stream; the rounds shown early."""
    early: set[str] = set()
    for result in (e for e in events if e.kind == RESULT):
        clauses = (COMMIT, *(c for c in [SHOWN_AFTER_CLOSE.get(game)] if c))
        closes = [c for c in of(index, BETTING_CLOSED, result.round_id)
                  if c.stream == result.stream]  # fmt: skip
        if not closes:
            verdict.unjudged.append(
                (clauses, f"the result of round {result.round_id}: no close on its stream")
            )
            continue
        shown_early = result.seq < closes[0].seq
        if shown_early:
            early.add(result.round_id or "")
            if game == "xocdia":
                continue  # the bowl lifted early: a void round, judged by its refunds
        when = "before" if shown_early else "after"
        what = f"the result of round {result.round_id} was pushed {when} its betting closed"
        seqs = (closes[0].seq, result.seq)
        verdict.checks.append(StreamCheck(clauses, not shown_early, what, seqs))
    return early


def _stake_back(ack: LiveEvent, settled: LiveEvent) -> tuple[bool | None, str]:
    """Whether the settlement returned exactly the bet's stake as taken (None: nothing to tell
    it by), and how it reads."""
    stake = ack.amount if ack.amount is not None else settled.amount
    if stake is None or settled.returned is None:
        return None, f"bet {ack.bet_id}: its settlement or its acknowledgement says no amount"
    held = settled.returned == stake
    return held, f"returned {settled.returned} of its stake {stake}"


def early_duties(
    acks: dict[str, LiveEvent], index: EventIndex, early: set[str],
    once: dict[str, LiveEvent], game: str, verdict: StreamVerdict,
) -> set[str]:  # fmt: skip
    """The duties of the bets of rounds shown early; the bets judged here, not by the paytable
    (a void round's, and any taken after the result was shown or not ordered against it)."""
    here: set[str] = set()
    for bet_id, ack in acks.items():
        if ack.round_id not in early:
            continue
        void = game == "xocdia"
        settled = once.get(bet_id)
        order = ordered(ack, of(index, RESULT, ack.round_id))
        late = order is not None and order[0]
        if void or order is None or late:
            here.add(bet_id)
        if void:
            _refunded(ack, settled, (VOID,), f"bet {bet_id} of void round {ack.round_id}", verdict)
        if order is None:
            verdict.unjudged.append(
                (
                    (COMMIT,) if void else (COMMIT, SETTLE),
                    f"bet {bet_id} of round {ack.round_id}: its acknowledgement and the result "
                    "shown before the close came on different streams without the target's "
                    "times, so not ordered",
                )
            )
        elif late:
            what = f"bet {bet_id} was taken after round {ack.round_id}'s result was shown"
            _refunded(ack, settled, (COMMIT,), what, verdict, order[1])
    return here


def _refunded(
    ack: LiveEvent, settled: LiveEvent | None, clauses: tuple[str, ...], what: str,
    verdict: StreamVerdict, seqs: tuple[int, ...] = (),
) -> None:  # fmt: skip
    """`clauses` held where the bet's settlement returned exactly its stake (void and
    returned), failed where it returned otherwise, unjudged where it has not come."""
    if settled is None:
        verdict.unjudged.append((clauses, f"{what}: its settlement has not come"))
        return
    held, said = _stake_back(ack, settled)
    if held is None:
        verdict.unjudged.append((clauses, f"{what}: {said}"))
        return
    seqs = (*(seqs or (ack.seq,)), settled.seq)
    verdict.checks.append(StreamCheck(clauses, held, f"{what}, {said}", seqs))

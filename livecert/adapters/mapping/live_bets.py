"""Bets at a live table that answers them nothing of its own, or over a plain WebSocket.

Some tables acknowledge no bet message: the bet shows taken only by a message they push (a bet
placed, or the player's bets in the round) or in the round or record read back. Such a bet
(`emit: {..., ack: false}`) is sent on the player's stream, and each bet of it is confirmed by
the file's `confirm`: the `bet_placed` message, or a read polled (`get_round`, `bet_record`),
within the stream's `timeout_ms`. A refusal the table pushes meanwhile (the `bet_refused` or
`error` message) is `Refused`, marked late where the table's close came first, as an
acknowledgement's refusal is. A bet that never shows is left out of the answer only where the
table said nothing at all of it (no refusal, no close seen): the harness's identity check then
fails REG-COMMIT-01 on a slip answered with fewer bets. Where the close came first the harness
was late, and nothing can be said of the bet: not testable, never a finding.

A plain WebSocket answers nothing either; its commonest style answers a bet with a frame of a
kind of its own (`answer_event`): the next one on the player's stream is the bet's answer.
"""

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol

from livecert.adapters.errors import Refused, Unsupported
from livecert.adapters.mapping.calls import Calls
from livecert.adapters.mapping.reading import Reader
from livecert.adapters.mapping.stream_spec import CONFIRMED_BY
from livecert.adapters.model import BetRecord, BetView, PlayerHandle, RoundView
from livecert.adapters.streams import (
    IN,
    SocketIOStream,
    StreamLog,
    StreamMessage,
    StreamTimeout,
    WebSocketStream,
)

REFUSALS = ("bet_refused", "error")  # what a table pushes to refuse a bet it did not answer
DEFAULT_EVERY_MS = 500  # how often a read that confirms a bet is sent again
REQUEST_STREAM = "requests"  # where a bet taken by a request (not the stream) is acknowledged
Slip = list[tuple[str, Decimal | str]]


class Reads(Protocol):
    """What a read confirming a bet asks (the mapping adapter's own operations)."""

    def get_round(self, round_id: str, player: PlayerHandle | None = None) -> RoundView: ...

    def bet_record(self, player: PlayerHandle, round_id: str | None = None) -> BetRecord: ...


class BetsOverStream:
    """LiveTable's bets sent with no acknowledgement, a plain WebSocket's answered bets, and
    bets a request took for a round its stream shows. Needs LiveTable's streams, reader and
    rounds."""

    log: StreamLog
    events: dict[str, dict]
    timeout: float
    reader: Reader
    calls: Calls
    _rounds: dict[str, Any]
    _joined: dict[str, Any]

    # LiveTable's own (and its StreamJoins'): annotations only, so theirs are the ones called
    _read: Callable[[str, StreamMessage, dict], dict | None]
    _render: Callable[[Any, dict], Any]
    _closed_before: Callable[[Any, StreamMessage | None], bool]
    bet_stream: Callable[[PlayerHandle, str, str], tuple[Any, str]]
    _sending_lock: threading.Lock  # a plain WebSocket's answered bets, sent one at a time
    _answers_lock: threading.Lock  # and their answers taken in the sending order
    _awaiting_answer: dict[str, list[int]]  # stream -> the seqs of bets sent, not answered yet
    _answers_taken: set[int]  # the seqs of the answer frames a bet has taken
    _confirm_lock: threading.Lock  # an unanswered bet's confirmation matched and held at once
    player_stream: Callable[[PlayerHandle, str, str | None], str]
    acknowledged: Callable[[str, PlayerHandle, list[BetView], StreamMessage], None]

    # -- bets taken by request at a table that pushes its rounds ------------------------------

    def before_request_bets(self, player: PlayerHandle, round_id: str) -> bool:
        """A bet about to go by request (not on the stream) for a round the table's stream
        showed opened: the player's stream joined first, since the bet's settlement comes there
        (True); False for a round the stream never showed (the target refuses it, or not)."""
        known = self._rounds.get(round_id)
        if known is None:
            return False
        self.player_stream(player, known.table_id, known.game)
        return True

    def taken_by_request(self, round_id: str, player: PlayerHandle, bets: list[BetView]) -> None:
        """Bets a request's answer took, held for the round's settlement and the judge like
        acknowledged ones: their answer placed after every message logged when it came, on no
        stream of the table's (so never ordered against the close: a close pushed before an
        answer that was on its way says nothing of when the bet was taken)."""
        answered = StreamMessage(
            self.log.last_seq, REQUEST_STREAM, IN, "the place_bets request's answer", None,
            time.time(),
        )  # fmt: skip
        self.acknowledged(round_id, player, bets, answered)

    # -- sending -------------------------------------------------------------------------------

    def sent(self, stream: str, emit: dict, data: Any) -> StreamMessage:
        """The bet message sent asking no acknowledgement: a Socket.IO event, or a plain
        WebSocket's frame of the kind `emit.event` (set in the frame where it says none)."""
        joined = self._joined[stream].stream
        if isinstance(joined, SocketIOStream):
            return joined.post(emit["event"], data)
        assert isinstance(joined, WebSocketStream)
        if isinstance(data, dict) and joined.kind_key not in data:
            data = {joined.kind_key: emit["event"], **data}
        return joined.send(data)

    def answer_frame(
        self, stream: str, emit: dict, data: Any, known: Any, closed_first: bool, operation: str
    ) -> tuple[Any, StreamMessage]:
        """A plain WebSocket's bet, answered by the next frame of kind `answer_event` on the
        player's stream (a refusal pushed before it is `Refused`)."""
        with self._sending_lock:  # sent and queued before the next: the queue keeps their order
            sent = self.sent(stream, emit, data)
            with self._answers_lock:  # (never held while the log is: a wait holds the log)
                waiting = self._awaiting_answer.setdefault(stream, [])
                waiting.append(sent.seq)
        values = {"round_id": known.round_id if known else None, "game": self._game(known)}
        found: list[tuple[dict | None, StreamMessage]] = []

        def match(message: StreamMessage) -> bool:
            """An answer (or a refusal) not taken yet, once every bet sent before on the stream
            has taken its own: a table answers a connection's frames in the order they came,
            and bets sent at once on one stream must not take each other's answers."""
            refusal = self._refusal_in(message, values)
            if refusal is None and message.event != emit["answer_event"]:
                return False
            with self._answers_lock:
                if message.seq in self._answers_taken or waiting[0] != sent.seq:
                    return False
                self._answers_taken.add(message.seq)
                waiting.remove(sent.seq)
            found.append((refusal, message))
            return True

        what = f"the answer ({emit['answer_event']}) to the bet sent"
        try:
            message = self.log.wait_for(stream, match, what, sent.seq, self.timeout)
        finally:
            with self._answers_lock:
                if sent.seq in waiting:  # never answered: the next in line may take one
                    waiting.remove(sent.seq)
            self.log.nudge()  # the next bet in line may take an answer come meanwhile
        refusal, _ = found[-1]
        if refusal is not None:
            raise self._refused(refusal, known, closed_first, message, operation)
        return message.data, message

    # -- bets the table does not answer --------------------------------------------------------

    def send_unanswered(
        self,
        spec: dict,
        player: PlayerHandle,
        round_id: str,
        values: dict,
        operation: str,
        slip: Slip,
    ) -> "_Bet":
        """One bet message sent with no acknowledgement asked: what its confirmation needs. A
        slip of one message a bet sends them all before confirming any (a table's betting time
        may hold a sweep's 110 messages, not 110 waits for their confirmations)."""
        known, stream = self.bet_stream(player, round_id, operation)
        data = self._render(spec["emit"]["data"], self.calls.context(values))
        closed_first = known is not None and self._closed_before(known, None)
        sent = self.sent(stream, spec["emit"], data)
        return _Bet(stream, sent, known, round_id, player, slip, closed_first, operation)

    def confirm_unanswered(self, spec: dict, context: "_Bet", reads: Reads) -> list[BetView]:
        """The bets of a message `send_unanswered` sent, confirmed as the file's `confirm`
        says, in the slip's order; a bet never shown as `_never_shown` says."""
        confirm = spec["confirm"]
        if "event" in confirm:
            found = self._confirmed_by_pushes(context)
        else:
            found = self._confirmed_by_reads(context, confirm, reads)
        missing = [code for index, (code, _) in enumerate(context.slip) if index not in found]
        if missing:
            self._never_shown(context, missing)
        return [found[index][0] for index in sorted(found)]

    def _confirmed_by_pushes(self, bet: "_Bet") -> dict[int, tuple[BetView, StreamMessage]]:
        """Each bet of the slip matched with a `bet_placed` message pushed on the player's
        stream after the bet was sent, within the stream's timeout."""
        values = {"round_id": bet.round_id, "game": self._game(bet.known)}
        deadline = time.monotonic() + self.timeout
        found: dict[int, tuple[BetView, StreamMessage]] = {}
        after = bet.sent.seq
        while len(found) < len(bet.slip):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            seen: list[tuple[dict | None, list[BetView]]] = []

            def match(message: StreamMessage, seen: list = seen) -> bool:
                refusal = self._refusal_in(message, values)
                if refusal is not None:
                    seen.append((refusal, []))
                    return True
                fields = self._read(CONFIRMED_BY, message, values)
                if fields is None:
                    return False
                seen.append((None, self._shown(fields, bet)))
                return True

            what = f"the confirmation of the bet sent for round {bet.round_id}"
            try:
                message = self.log.wait_for(bet.stream, match, what, after, left)
            except StreamTimeout:
                break
            after = message.seq
            refusal, shown = seen[-1]
            if refusal is not None:
                raise self._refused(refusal, bet.known, bet.closed_first, message, bet.operation)
            with self._confirm_lock:  # a bet shown confirms one bet sent, never two at once
                for index, view in _matched(shown, bet.slip, found, self._held(bet)):
                    found[index] = (view, message)
                    self.acknowledged(bet.round_id, bet.player, [view], message)
        return found

    def _confirmed_by_reads(
        self, bet: "_Bet", confirm: dict, reads: Reads
    ) -> dict[int, tuple[BetView, StreamMessage]]:
        """Each bet of the slip matched with a bet the file's read shows, read again every
        `every_ms` within the stream's timeout; a refusal pushed meanwhile is `Refused`."""
        values = {"round_id": bet.round_id, "game": self._game(bet.known)}
        every = confirm.get("every_ms", DEFAULT_EVERY_MS) / 1000
        read = _reader_of(confirm["read"], reads, bet.round_id, bet.player)
        deadline = time.monotonic() + self.timeout
        found: dict[int, tuple[BetView, StreamMessage]] = {}
        while True:
            for message in self.log.since(bet.sent.seq, bet.stream):
                refusal = self._refusal_in(message, values) if message.direction == IN else None
                if refusal is not None:
                    raise self._refused(
                        refusal, bet.known, bet.closed_first, message, bet.operation
                    )
            try:
                shown = [b for b in read() if _of_bet(b, bet)]
            except Refused as refused:
                raise Unsupported(
                    bet.operation,
                    f"the {confirm['read']} that would confirm the bet was refused ({refused})",
                ) from None
            mark = self.log.last_seq
            with self._confirm_lock:  # a bet shown confirms one bet sent, never two at once
                matched = _matched(shown, bet.slip, found, self._held(bet))
                late = not bet.closed_first and bet.known is not None  # closed while reading
                if matched and late and self._closed_before(bet.known, None):
                    raise Unsupported(
                        bet.operation,
                        f"the bet showed in the {confirm['read']} only once the table had "
                        f"closed betting on round {bet.round_id}: when it was taken cannot be "
                        "ordered against the close",
                    )
                # the read answered after the log's message `mark`: the bet taken by then
                confirmed = StreamMessage(mark, bet.stream, IN, f"read {confirm['read']}", None,
                                          time.time())  # fmt: skip
                for index, view in matched:
                    found[index] = (view, confirmed)
                    self.acknowledged(bet.round_id, bet.player, [view], confirmed)
            left = deadline - time.monotonic()
            if len(found) == len(bet.slip) or left <= 0:
                return found
            time.sleep(min(every, left))

    def _never_shown(self, bet: "_Bet", missing: list[str]) -> None:
        """A bet no confirmation showed by the deadline: not testable where the table's close
        came first (the harness late) or the round was never seen opened; else it is left out
        of the answer, the table having said nothing at all of it."""
        which = ", ".join(missing)
        waited = f"{self.timeout:g} s"
        if bet.known is None:
            raise Unsupported(
                bet.operation,
                f"the table answers no bet, and in {waited} showed nothing of the bet on {which} "
                f"for round {bet.round_id}, a round it was never seen opening: whether it was "
                "refused cannot be known",
            )
        if bet.closed_first or self._closed_before(bet.known, None):
            when = "before the bet was sent" if bet.closed_first else "before it showed"
            raise Unsupported(
                bet.operation,
                f"the table closed betting on round {bet.round_id} {when}, and in {waited} "
                f"showed nothing of the bet on {which}: the harness was late, and whether the "
                "table took it cannot be known",
            )

    # -- reading what the table pushed ---------------------------------------------------------

    def _refusal_in(self, message: StreamMessage, values: dict) -> dict | None:
        """The fields of a refusal the message is (`bet_refused`, or the stream's `error`)."""
        for kind in REFUSALS:
            if kind in self.events:
                fields = self._read(kind, message, values)
                if fields is not None:
                    return fields
        return None

    def _refused(
        self,
        fields: dict,
        known: Any,
        closed_first: bool,
        message: StreamMessage,
        operation: str,
    ) -> Refused:
        """A refusal the table pushed, as an acknowledgement's refusal is: late where the
        round's close was seen first (before the bet was sent, or before the refusal)."""
        said = ", ".join(f"{k} {v}" for k, v in fields.items() if k != "code")
        code = str(fields.get("code") or "REFUSED")
        late = None
        if known is not None:
            if closed_first:
                late = f"the bet was sent after the table closed betting on round {known.round_id}"
            elif self._closed_before(known, message):
                late = (
                    f"the table closed betting on round {known.round_id} while the bet was on "
                    "its way"
                )
        return Refused(operation, 200, code, str(fields.get("message") or said or code), late)

    def _shown(self, fields: dict, bet: "_Bet") -> list[BetView]:
        """The bets a confirmation shows (one bet's fields, or its `bets`), as taken."""
        items = fields.get("bets") if "bets" in fields else [fields]
        views = [unnamed(self.reader.bet(item)) for item in items or []]
        return [view for view in views if _of_bet(view, bet)]

    def _held(self, bet: "_Bet") -> set[str]:
        """The ids of the bets the player holds in the round already (a list of the player's
        bets shows them again: they confirm no new one)."""
        if bet.known is None:
            return set()
        return {b.bet_id for b in bet.known.bets.get(bet.player.player_id, [])}

    def _game(self, known: Any) -> str | None:
        return known.game if known is not None else None


class _Bet:
    """One bet message sent: where, when, for what, and what the harness knew then."""

    def __init__(
        self,
        stream: str,
        sent: StreamMessage,
        known: Any,
        round_id: str,
        player: PlayerHandle,
        slip: Slip,
        closed_first: bool,
        operation: str,
    ) -> None:
        self.stream, self.sent, self.known, self.round_id = stream, sent, known, round_id
        self.player, self.slip, self.closed_first = player, slip, closed_first
        self.operation = operation


def _reader_of(
    name: str, reads: Reads, round_id: str, player: PlayerHandle
) -> Callable[[], list[BetView]]:
    if name == "bet_record":
        return lambda: list(reads.bet_record(player, round_id).bets)
    return lambda: list(reads.get_round(round_id, player).bets)


def _of_bet(view: BetView, bet: _Bet) -> bool:
    """A bet shown that may be the one sent: of its round and its player, where it names them."""
    return view.round_id in ("", bet.round_id) and view.player_id in ("", bet.player.player_id)


def _stake(stake: Decimal | str) -> Decimal | None:
    """A slip's stake as an amount (a stake sent as text that is none: matched on the selection
    alone)."""
    if isinstance(stake, Decimal):
        return stake
    try:
        return Decimal(stake)
    except InvalidOperation:
        return None


def _matched(
    shown: list[BetView], slip: Slip, found: dict, held: set[str]
) -> list[tuple[int, BetView]]:
    """Each bet shown that is new (not held, not matched already) matched with the first bet of
    the slip not yet confirmed with its selection and stake."""
    taken = held | {view.bet_id for view, _ in found.values()}
    open_ = [i for i in range(len(slip)) if i not in found]
    matched: list[tuple[int, BetView]] = []
    for view in shown:
        if view.bet_id in taken:
            continue
        for index in open_:
            code, stake = slip[index]
            amount = _stake(stake)
            if view.selection == code and (amount is None or view.stake == amount):
                matched.append((index, view))
                open_.remove(index)
                taken.add(view.bet_id)
                break
    return matched


def unnamed(bet: BetView) -> BetView:
    """A bet as an acknowledgement shows it: a round or player it does not name stays unnamed
    (empty), never "None", and never filled in with the one asked (its check would hold by
    construction)."""
    round_id = "" if bet.round_id == "None" else bet.round_id
    player_id = "" if bet.player_id == "None" else bet.player_id
    return replace(bet, round_id=round_id, player_id=player_id)

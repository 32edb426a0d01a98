"""A live table in a mapping file: its rounds waited for on the stream it pushes them over, bets
emitted with their acknowledgement as the answer, and a round read as the stream showed it.

A table that plays its rounds on a timer says what happens as messages: a round opened, betting
closed, the result, each bet's settlement, the wallet. The file's `streams` section says how to
join (Socket.IO or a plain WebSocket; the table's stream, and each player's) and which message
means which (`streams.events`), read with the file's own extraction (fields, shapes, money,
selections, results). An operation with `wait:` sends nothing of its own (its `before` hooks
apart: a test hook forcing the next outcome) and returns when its message comes; `emit:` sends
an event on the player's stream and reads the acknowledgement as the answer. Every message in
and out is an exchange of the run's evidence (PUSH, EMIT, ACK), secrets masked.

What a wait does not see within its deadline is a `StreamTimeout` naming the round and the
message awaited; a stream that drops or sends what is not JSON is a `StreamError`: a target
error, never a hang. A message the file names that lacks what the file reads there is a mapping
error, as for any answer.
"""

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from livecert.adapters.errors import Refused, TargetError, Unsupported
from livecert.adapters.evidence import (
    ExchangeRecorder,
)
from livecert.adapters.jsonpath import MISSING, holds, parse, read
from livecert.adapters.live_events import BET_ACKED, LiveEvent
from livecert.adapters.mapping.calls import Answer, Calls, error_of
from livecert.adapters.mapping.live_bets import BetsOverStream
from livecert.adapters.mapping.live_bets import unnamed as unnamed  # the adapter's, from here
from livecert.adapters.mapping.live_join import StreamJoins, player_stream_name, shown_text
from livecert.adapters.mapping.reading import Reader
from livecert.adapters.mapping.template import dump_json
from livecert.adapters.model import BetView, PlayerHandle, RoundView
from livecert.adapters.streams import (
    IN,
    SocketIOStream,
    StreamMessage,
    StreamTimeout,
)

DEFAULT_SETTLE_MS = 2_000
# the messages the stream judge reads (the acknowledgements are recorded as they come)
JUDGED = ("round_opened", "betting_closed", "result", "settled", "balance")
# what a round shows, by the last message about it the stream pushed
STATE_AFTER = {"round_opened": "betting", "betting_closed": "closed", "result": "settled"}


@dataclass
class _Round:
    """What the run knows of a round from the stream: where it was seen opened, its game."""

    round_id: str
    table_id: str
    game: str | None
    stream: str
    opened_seq: int
    bets: dict[str, list[BetView]] = field(default_factory=dict)  # player -> bets acknowledged
    close_asked: bool = False  # the run waited for its close once already


class LiveTable(BetsOverStream, StreamJoins):
    """The streams of one run against a mapping's live table, and the operations over them."""

    def __init__(
        self,
        spec: dict,
        base_url: str,
        calls: Calls,
        reader: Reader,
        recorder: ExchangeRecorder,
        filters: dict[str, Callable[..., Any]],
    ) -> None:
        super().__init__(spec, base_url, calls, recorder, filters)
        self.reader = reader
        self.events: dict[str, dict] = spec["events"]
        self.settle = spec.get("settle_ms", DEFAULT_SETTLE_MS) / 1000
        self._rounds: dict[str, _Round] = {}
        self._acked: list[LiveEvent] = []
        self._sending_lock, self._answers_lock = threading.Lock(), threading.Lock()
        self._confirm_lock = threading.Lock()
        self._awaiting_answer: dict[str, list[int]] = {}
        self._answers_taken: set[int] = set()

    # -- reading messages ----------------------------------------------------------------------

    def _read(self, kind: str, message: StreamMessage, values: dict) -> dict | None:
        """The message read as event `kind`, or None where it is not one."""
        rule = self.events.get(kind)
        if rule is None or message.event != rule["event"]:
            return None
        if message.direction != rule.get("direction", IN):
            return None
        document = message.data
        when = rule.get("when")
        if when and not holds(when, read(document, parse(when["path"])[1])):
            return None
        text = dump_json(document)
        answer = Answer(document, document, "$", text)
        return self.reader.answer(
            kind, f"read the stream's {message.event!r}", rule, answer, values,
            place=f"streams.events.{kind}",
        )  # fmt: skip

    def _wait(
        self,
        stream: str,
        kind: str,
        what: str,
        after: int,
        accept: Callable[[dict], bool],
        values: dict,
        timeout: float | None = None,
    ) -> tuple[dict, StreamMessage]:
        """The first message of `stream` after `after` read as `kind` that `accept` takes;
        an `error` message of the stream meanwhile is a target error naming what it said."""
        found: list[dict] = []
        began = self.log.last_seq  # an error the table says from now on ends the wait

        def match(message: StreamMessage) -> bool:
            error = None
            if "error" in self.events and message.seq > began:
                error = self._read("error", message, values)
            if error is not None:
                said = ", ".join(f"{k} {v}" for k, v in error.items())
                raise TargetError(f"waiting for {what}", shown_text(f"the stream said: {said}"))
            fields = self._read(kind, message, values)
            if fields is None or not accept(fields):
                return False
            found.append(fields)
            return True

        wait = self.timeout if timeout is None else timeout
        message = self.log.wait_for(stream, match, what, after, wait)
        return found[-1], message

    # -- the operations ------------------------------------------------------------------------

    def joined_mark(self, table_id: str, game: str | None) -> int:
        """The table's stream joined (once), and where its log is now: a wait for a round that
        a hook is about to open starts here, so the hook's round is not missed."""
        self.table_stream(table_id, game)
        return self.log.last_seq

    def next_round(
        self, table_id: str, game: str | None, known: frozenset[str], after: int | None = None
    ) -> RoundView:
        """The next round the table opens that the run has not met since `after` (the stream's
        log mark, taken by `joined_mark` before a hook that opens it; by default now: a round
        opened before the table's stream was joined is never taken, its betting may be nearly
        over)."""
        stream = self.table_stream(table_id, game)
        after = self.log.last_seq if after is None else after
        values = {"table_id": table_id, "game": game}

        def new_here(fields: dict) -> bool:
            if str(fields.get("round_id")) in known:
                return False
            return str(fields.get("table_id", table_id)) == str(table_id)

        fields, message = self._wait(
            stream, "round_opened", f"a new round at table {table_id}", after, new_here, values
        )
        round_id = str(fields["round_id"])
        with self._lock:
            self._rounds[round_id] = _Round(round_id, table_id, game, stream, message.seq)
        if game:
            self.reader.round_games[round_id] = game
        self.reader.rounds_seen.add(round_id)
        return self._view(round_id, "betting")

    def _round(self, round_id: str, operation: str) -> _Round:
        known = self._rounds.get(round_id)
        if known is None:  # the table's own messages are all there is to wait for or read
            raise Unsupported(
                operation,
                f"round {round_id} was never seen opened on a table's stream: the table opens, "
                "closes and settles its rounds itself, so nothing can be asked of another one",
            )
        return known

    def closed(self, round_id: str) -> RoundView:
        """Round `round_id` once the stream said betting closed (at once if it did already)."""
        known = self._round(round_id, "close betting")
        why = None
        if known.close_asked:
            why = "a second close cannot be asked of it"
        elif self.view(round_id).state == "settled":
            why = f"round {round_id} is finished, and closing it cannot be asked of it"
        known.close_asked = True
        if why:
            raise Unsupported(
                "close betting", f"the table closes betting on its own timer, once: {why}"
            )
        self._wait(
            known.stream, "betting_closed", f"betting to close on round {round_id}",
            known.opened_seq - 1, lambda f: str(f.get("round_id")) == round_id,
            {"round_id": round_id, "game": known.game},
        )  # fmt: skip
        return self._view(round_id, "closed")

    def settled(self, round_id: str) -> RoundView:
        """Round `round_id` once its result came, with each bet the run's players placed as its
        settlement said (a bet no settlement came for within the settle time stays as it was
        acknowledged, unsettled: what the stream showed)."""
        known = self._round(round_id, "enter the result")
        values = {"round_id": round_id, "game": known.game}
        fields, _ = self._wait(
            known.stream, "result", f"the result of round {round_id}", known.opened_seq - 1,
            lambda f: str(f.get("round_id")) == round_id, values,
        )  # fmt: skip
        self._as_forced(round_id, fields.get("result"))
        if "settled" in self.events:
            self._await_settlements(known, values)
        return self._view(round_id, "settled", fields.get("result"))

    def _as_forced(self, round_id: str, shown: Any) -> None:
        """The table showed another result than the one the lab forced (other dice, another
        count of red): the forcing did not reach it, and nothing of the round can be judged on
        the forced result. A target error (the run is incomplete), never payout findings. The
        same dice or tokens in another order are the same result here: the round's result
        check judges the order."""
        forced = self.reader.entered.get(round_id)
        values = _outcome_values(shown)
        if forced is None or not isinstance(values, list):
            return
        try:
            same = sorted(map(str, values)) == sorted(map(str, forced))
        except TypeError:
            same = False
        if not same:
            raise TargetError(
                "enter the result",
                f"round {round_id} showed {values}, not the {list(forced)} the lab forced: the "
                "forcing did not reach the table, so its settlements say nothing of the paytable",
            )

    def _await_settlements(
        self, known: _Round, values: dict, deadline: float | None = None
    ) -> None:
        """Wait (up to the settle time in all, or until `deadline`) for each acknowledged bet's
        settlement on its player's stream; one never pushed is left for the checks to find."""
        deadline = time.monotonic() + self.settle if deadline is None else deadline
        for player_id, bets in list(known.bets.items()):
            stream = player_stream_name(player_id)
            joined = self._joined.get(stream)
            if joined is None or joined.stream is None or self.log.is_broken(stream):
                continue  # a disconnected (or dropped) player is told nothing now
            wanted = {b.bet_id for b in bets}
            after = known.opened_seq - 1

            def names(fields: dict, wanted: set[str] = wanted) -> bool:
                return any(_names_bet(fields, bet_id, known.round_id) for bet_id in wanted)

            while wanted:
                left = deadline - time.monotonic()
                if left <= 0:
                    return  # the rest are judged as the stream showed them
                try:
                    fields, message = self._wait(
                        stream, "settled", f"the settlements of round {known.round_id}",
                        after, names, values, left,
                    )  # fmt: skip
                except StreamTimeout:
                    return  # the rest are judged as the stream showed them
                wanted.discard(str(fields.get("bet_id")))
                after = message.seq

    def await_pushes(self, rounds: set[str], balances: dict[str, int]) -> None:
        """What the stream judge awaits, up to the settle time in all: the settlements of
        `rounds` (as after a result), then on each player's stream of `balances` a balance
        pushed after its last settlement (and after the seq named). What does not come (a
        stream that dropped or said an error meanwhile included) is judged as it was shown."""
        deadline = time.monotonic() + self.settle
        try:
            for round_id in sorted(rounds):
                known = self._rounds.get(round_id)
                if known is not None and "settled" in self.events:
                    values = {"round_id": round_id, "game": known.game}
                    self._await_settlements(known, values, deadline)
            for stream, after in balances.items():
                joined = self._joined.get(stream)
                left = deadline - time.monotonic()
                if "balance" not in self.events or left <= 0:
                    return
                if joined is None or joined.stream is None or self.log.is_broken(stream):
                    continue
                values = {"game": joined.game}
                for message in self.log.since(after, stream):
                    if self._read("settled", message, values) is not None:
                        after = message.seq
                what = f"a balance on {stream}"
                self._wait(stream, "balance", what, after, lambda _: True, values, left)
        except TargetError:  # StreamTimeout included: nothing more came in time
            return

    def view(self, round_id: str) -> RoundView:
        """The round as the stream has shown it so far."""
        known = self._round(round_id, "read the round")
        values = {"round_id": round_id, "game": known.game}
        state, result = "betting", None
        for message in self.log.since(known.opened_seq - 1, known.stream):
            for kind in ("betting_closed", "result"):
                fields = self._read(kind, message, values)
                if fields is not None and str(fields.get("round_id")) == round_id:
                    # a result shown is final: a close pushed after it (a table that showed its
                    # result early) leaves the round settled, never open to a forced outcome
                    if state != "settled":
                        state = STATE_AFTER[kind]
                    result = fields.get("result", result)
        return self._view(round_id, state, result)

    def _view(self, round_id: str, state: str, result: Any = None) -> RoundView:
        known = self._rounds[round_id]
        with self._lock:
            holdings = [(player, list(placed)) for player, placed in known.bets.items()]
        bets: list[BetView] = []
        for player, placed in holdings:
            found = self._settlements(known, player)
            bets += [self._settled_bet(bet, found, state == "settled") for bet in placed]
        return RoundView(
            round_id=round_id,
            table_id=known.table_id,
            game=known.game or "",
            state=state,
            result=result,
            bets=tuple(bets),
            events=None,  # a stream says what happened, not the dealer's events
            opened_at=None,
            betting_ends_at=None,
            echoed=True,
        )

    def _settlements(self, known: _Round, player_id: str) -> dict[str, dict]:
        """The last settlement of each bet of the round on the player's stream, by bet id."""
        if "settled" not in self.events:
            return {}
        values = {"round_id": known.round_id, "game": known.game}
        found: dict[str, dict] = {}
        for message in self.log.since(known.opened_seq - 1, player_stream_name(player_id)):
            fields = self._read("settled", message, values)
            if fields is not None and _on_round(fields, known.round_id):
                found[str(fields.get("bet_id"))] = fields
        return found

    def _settled_bet(self, bet: BetView, settlements: dict[str, dict], ended: bool) -> BetView:
        """The bet as its last settlement says, if one came; after the result a bet with no
        settlement seen has an unknown status (a disconnected player is told nothing)."""
        settled = settlements.get(bet.bet_id)
        if settled is None:
            return replace(bet, status=None) if ended else bet
        merged = {
            "bet_id": bet.bet_id, "round_id": bet.round_id, "player_id": bet.player_id,
            "selection": bet.selection, "stake": bet.stake, "status": "settled", **settled,
        }  # fmt: skip
        return self.reader.bet(merged)

    def bet_stream(
        self, player: PlayerHandle, round_id: str, operation: str
    ) -> tuple[_Round | None, str]:
        """The round a bet is sent for (None: never seen opened) and the player's stream it
        goes on, joined at the round's table."""
        known = self._rounds.get(round_id)
        if known is not None:
            return known, self.player_stream(player, known.table_id, known.game)
        # a round the table never opened: sent as asked, for the target to refuse
        return None, self._any_stream_of(player, operation)

    def place(
        self, spec: dict, player: PlayerHandle, round_id: str, values: dict, operation: str
    ) -> tuple[Answer, StreamMessage]:
        """One emit of the bet event on the player's stream, its acknowledgement (a plain
        WebSocket's: the next frame of the kind `answer_event`) judged by the file's
        `responses` as an answer is: a refusal is `Refused` (its code and message)."""
        known, stream = self.bet_stream(player, round_id, operation)
        joined = self._joined[stream]
        emit = spec["emit"]
        data = self._render(emit["data"], self.calls.context(values))
        closed_first = known is not None and self._closed_before(known, None)
        if isinstance(joined.stream, SocketIOStream):
            body, ack = joined.stream.call(emit["event"], data)
        elif "answer_event" in emit:
            body, ack = self.answer_frame(stream, emit, data, known, closed_first, operation)
        else:  # the loader refuses it: a plain WebSocket acknowledges nothing
            raise TargetError(operation, "a plain WebSocket's bet needs answer_event")
        rules = self.calls.responses(spec)
        success = rules.get("success", {})
        ok = holds(success, read(body, parse(success["path"])[1])) if "path" in success else True
        if not ok:
            code, message = error_of(rules, body, shown_text(dump_json(body)))
            late = None
            if closed_first:
                late = f"the bet was sent after the table closed betting on round {round_id}"
            elif known is not None and self._closed_before(known, ack):
                late = f"the table closed betting on round {round_id} while the bet was on its way"
            raise Refused(operation, 200, code or "REFUSED", message, late)
        root = rules.get("data")
        data_root = read(body, parse(root)[1]) if root else body
        return Answer(body, data_root, root or "$", dump_json(body)), ack

    def _closed_before(self, known: _Round, ack: StreamMessage | None) -> bool:
        """Whether the round's close was seen on any stream before the answer `ack` came."""
        until = ack.seq if ack is not None else self.log.last_seq
        values = {"round_id": known.round_id, "game": known.game}
        for message in self.log.since(known.opened_seq - 1)[: until - known.opened_seq + 1]:
            fields = self._read("betting_closed", message, values)
            if fields is not None and str(fields.get("round_id")) == known.round_id:
                return True
        return False

    def _any_stream_of(self, player: PlayerHandle, operation: str) -> str:
        """The player's stream as it is, or joined at the table the run last met a round of."""
        name = player_stream_name(player.player_id)
        joined = self._joined.get(name)
        if joined is not None and joined.stream is not None:
            return name
        if not self._rounds:
            raise TargetError(operation, "no table's stream was joined yet to send the bet on")
        last = list(self._rounds.values())[-1]
        return self.player_stream(player, last.table_id, last.game)

    def acknowledged(
        self, round_id: str, player: PlayerHandle, bets: list[BetView], ack: StreamMessage
    ) -> None:
        """Bets the target acknowledged (`ack`, the message that said so): the ones whose
        settlement the result waits for, and what the stream judge orders against the close.
        A bet acknowledged again (a slip resent with its key) is one bet."""
        with self._lock:
            known = self._rounds.get(round_id)
            if known is not None:
                held = known.bets.setdefault(player.player_id, [])
                ids = {b.bet_id for b in held}
                held += [b for b in bets if b.bet_id not in ids]
            self._acked += [_acked(ack, round_id, b) for b in bets]

    @property
    def mark(self) -> int:
        """Where the stream's log is now: what a scenario's judge reads from."""
        return self.log.last_seq

    def events_since(self, after: int) -> list[LiveEvent]:
        """Every message after seq `after` read as what it means, in the order seen: the
        table's and players' pushes (each stream read for the game of the table it joined)
        and the acknowledgements of the bets this run emitted."""
        events = [a for a in self._acked if a.seq > after]
        for message in self.log.since(after):
            joined = self._joined_ever.get(message.stream)
            game = joined.game if joined else None
            for kind in JUDGED:
                fields = self._read(kind, message, {"game": game})
                if fields is None:
                    continue
                result = _outcome_values(fields.get("result"))
                events.append(
                    LiveEvent(
                        kind, message.stream, message.seq, message.at,
                        _text(fields.get("round_id")), _text(fields.get("bet_id")),
                        fields.get("selection"), fields.get("stake"), fields.get("returned"),
                        fields.get("balance"), None, result,
                    )
                )  # fmt: skip
        return sorted(events, key=lambda e: e.seq)


def _acked(ack: StreamMessage, round_id: str, bet: BetView) -> LiveEvent:
    """A bet taken, placed where its acknowledgement came (the round it was sent for)."""
    return LiveEvent(
        BET_ACKED, ack.stream, ack.seq, ack.at, round_id, bet.bet_id, bet.selection, bet.stake
    )


def _text(value: Any) -> str | None:
    return None if value in (None, MISSING) else str(value)


def _on_round(fields: dict, round_id: str) -> bool:
    """A message of round `round_id`, where it names a round at all."""
    said = fields.get("round_id")
    return said in (None, MISSING) or str(said) == round_id


def _names_bet(fields: dict, bet_id: str, round_id: str) -> bool:
    """A settlement names the bet by its id (and, where it says one, its round)."""
    return str(fields.get("bet_id")) == bet_id and _on_round(fields, round_id)


def _outcome_values(result: Any) -> Any:
    """The dice or tokens of a result read by the file (`{dice, total}` or `{tokens, ...}`)."""
    if not isinstance(result, dict):
        return result
    return result.get("dice") if "dice" in result else result.get("tokens")

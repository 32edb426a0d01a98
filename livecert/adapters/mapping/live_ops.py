"""The mapping adapter's side of a live table that pushes its rounds (`live.py` drives the
streams): the operations that wait on the stream, what such a table cannot be asked, and the
stream's messages for the judge at each scenario's end.

The mixin needs the adapter's `mapping`, `_live` (a LiveTable or None), `_calls`, `_reader`
and `_forced`.
"""

from collections.abc import Sequence
from typing import Any

from livecert.adapters.errors import TargetError, Unsupported
from livecert.adapters.live_events import LiveEvent
from livecert.adapters.mapping.live import LiveTable
from livecert.adapters.mapping.live_join import player_stream_name
from livecert.adapters.model import PlayerHandle, RoundView


class LiveOperations:
    """What the mapping adapter does over a live table's streams."""

    mapping: Any
    _live: LiveTable | None
    _calls: Any
    _reader: Any
    _forced: Any

    def stream_mark(self) -> int | None:
        """Where a live table's stream log is now (None: this target pushes nothing)."""
        return None if self._live is None else self._live.mark

    def stream_events(self, after: int) -> list[LiveEvent]:
        """The live table's messages since `stream_mark` said `after`, read as events."""
        return [] if self._live is None else self._live.events_since(after)

    def stream_wait(self, rounds: set[str], balances: dict[str, int]) -> None:
        """Wait, up to the mapping's `settle_ms` in all, for what the stream judge awaits: the
        settlements of `rounds`, then a balance pushed after them on each stream named."""
        if self._live is not None:
            self._live.await_pushes(rounds, balances)

    def stream_name(self, player: PlayerHandle) -> str:
        """The name of the player's own stream in those events."""
        return player_stream_name(player.player_id)

    def _stream_of(self, operation: str) -> LiveTable:
        if self._live is None:  # the loader requires streams for any wait, emit or stream
            raise TargetError(operation, "the mapping has no streams")
        if self._forced is not None:
            raise Unsupported(
                operation,
                "it goes over the live table's stream, joined with the run's own credentials: "
                "who else may do it cannot be asked there",
            )
        return self._live

    def _waited(self, name: str, operation: str, values: dict) -> RoundView:
        """A live table's operation: its `before` hooks (a test hook forcing the outcome), then
        the message its `wait` names, on the table's stream."""
        spec = self.mapping.operation(name) or {}
        live = self._stream_of(operation)
        if "table_id" not in values and (spec.get("before") or spec.get("then")):
            # its round's table, for a hook naming it (names.WAIT_CONTEXT)
            values = {**values, "table_id": live.view(values["round_id"]).table_id}
        event = spec["wait"]["event"]
        mark = None
        if event == "round_opened":  # joined before a hook that opens the round, or it is missed
            mark = live.joined_mark(values["table_id"], values.get("game"))
        self._calls.hooks(operation, spec, "before", values)
        if event == "round_opened":
            known = frozenset(self._reader.rounds_seen)
            view = live.next_round(values["table_id"], values.get("game"), known, mark)
        elif event == "betting_closed":
            view = live.closed(values["round_id"])
        else:
            view = live.settled(values["round_id"])
        self._calls.hooks(operation, spec, "then", values)
        return view

    def _forcible(self, round_id: str, outcome: Sequence[int] | Sequence[str]) -> None:
        """A live table shows its own results after betting closes; the lab only forces the
        outcome of a closed round. What else a scenario asks cannot be arranged there."""
        why = None
        if not _possible(outcome):
            why = f"{list(outcome)} is not a result it can show, so its refusal cannot be asked"
        else:
            state = self._stream_of("enter the result").view(round_id).state
            if state == "betting":
                why = "a result revealed while betting is open cannot be arranged"
            elif state != "closed":
                why = f"the round is {state}: a second result cannot be entered"
        if why:
            raise Unsupported(
                "enter the result", f"the live table draws its own results after betting: {why}"
            )

    def own_countdown(self) -> str | None:
        """Why a round's betting time cannot be chosen here (the table opens its rounds itself:
        a `wait` for its next round, or a poll for a new one), or None."""
        spec = self.mapping.operation("open_round") or {}
        if "wait" in spec or (spec.get("poll") or {}).get("new_round"):
            return (
                "the table opens its rounds itself, with its own betting time: a countdown of "
                "the scenario's choosing cannot be set"
            )
        return None

    def dealer_acts_alone(self) -> str | None:
        """Why the dealer's shake cannot be left out or asked of this table (its own dealer
        shakes every round: `record_event: {stream: by-table}`), or None."""
        if (self.mapping.operation("record_event") or {}).get("stream") != "by-table":
            return None
        return (
            "the table's own dealer shakes every round (record_event: by-table): a forgotten or "
            "late shake cannot be arranged"
        )


def _possible(outcome: Sequence[int] | Sequence[str]) -> bool:
    """Three dice 1-6, or four tokens r/w: a result a table can show."""
    values = list(outcome)
    if len(values) == 3:
        return all(type(d) is int and 1 <= d <= 6 for d in values)
    return len(values) == 4 and all(t in ("r", "w") for t in values)

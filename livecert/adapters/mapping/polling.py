"""A mapping's round operations read again while its `poll` says to: a round that passes
through a transitional state, or a table that opens its rounds itself (a poll for a new one).
A live table that pushes its rounds waits on its stream instead (`live_ops.py`).

The mixin needs the adapter's `mapping`, `_reader`, `_run`, `_forced` and `_waited`.
"""

import time
from typing import Any

from livecert.adapters.errors import TargetError, Unsupported
from livecert.adapters.model import RoundView


class PolledRounds:
    """How the mapping adapter performs a round operation: once, polled, or waited for."""

    mapping: Any
    _reader: Any
    _forced: Any

    def _round_op(self, name: str, operation: str, values: dict) -> RoundView:
        """A round operation's answer, read again while the mapping's `poll` says to (or, for
        a live table, the message its `wait` names, on the table's stream)."""
        if "wait" in (self.mapping.operation(name) or {}):
            return self._waited(name, operation, values)
        poll = (self.mapping.operation(name) or {}).get("poll")
        if not poll:
            return self._reader.round(self._run(name, operation, values))
        new_round = bool(poll.get("new_round"))
        if new_round and self._forced:
            raise Unsupported(
                operation,
                "the table opens its own rounds (the mapping waits for a new one): who may "
                "open a round cannot be asked of it",
            )
        known = frozenset(self._reader.rounds_seen)  # "new" means: not one this run has met before
        waiting = "until" in poll  # what the round shows before it gets there is the target's
        shown = self._reader.round_or_none(
            self._run(name, operation, values, none_yet=new_round, waiting=waiting)
        )
        if shown is None and not new_round:
            raise TargetError(operation, "the answer names no round")
        return self._poll(name, poll, shown, values, known)

    def _poll(
        self,
        name: str,
        poll: dict,
        shown: RoundView | None,
        values: dict,
        known: frozenset[str],
    ) -> RoundView:
        """Read the round again until it leaves a transitional state (or reaches one), or, with
        `new_round`, read the operation again until it shows a round the run has not met (a
        table that opens its rounds itself)."""
        interval = poll.get("interval_ms", 50) / 1000
        timeout_ms = poll.get("timeout_ms", 10_000)
        deadline = time.monotonic() + timeout_ms / 1000
        new_round = poll.get("new_round", False)
        operation = poll.get("operation", name if new_round else "get_round")

        def waiting(view: RoundView | None) -> bool:
            if view is None or (new_round and view.round_id in known):
                return True
            if any(getattr(view, k) in v for k, v in poll.get("while", {}).items()):
                return True
            return any(getattr(view, k) not in v for k, v in poll.get("until", {}).items())

        while waiting(shown):
            if time.monotonic() > deadline:
                if shown is None:
                    seen = "no round at all"
                elif new_round and shown.round_id in known:
                    seen = f"still round {shown.round_id} ({shown.state!r}), met before"
                else:
                    seen = f"round {shown.round_id} stayed {shown.state!r}"
                wanted = "a new round" if new_round else "the round"
                raise TargetError(f"wait for {wanted}", f"{seen} for {timeout_ms} ms")
            time.sleep(interval)
            # the round asked for (or, after an open, the one the answer named)
            round_id = values.get("round_id") or (shown.round_id if shown else None)
            asked = values if new_round else {**values, "round_id": round_id}
            answer = self._run(
                operation, "read the round", asked, none_yet=new_round, waiting="until" in poll
            )
            shown = self._reader.round_or_none(answer)
        return shown

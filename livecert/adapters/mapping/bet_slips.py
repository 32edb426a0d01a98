"""The mapping adapter's bet slips: each bet in the vendor's code and money format, sent in one
request or one per bet (`batch-bets`), by request or on a live table's player stream (emitted
with its acknowledgement, or unanswered and confirmed: live_bets.py). At a table that pushes its
rounds, a bet taken by request is still settled on the stream, so the player's stream is joined
before it is sent and the bet held for the round's settlement and the stream judge.

The mixin needs the adapter's `mapping`, `_reader`, `_live`, `_run`, `_stream_of`, `_write`,
`_holdings` and `capabilities`.
"""

import uuid
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from livecert.adapters.errors import Refused, Unsupported
from livecert.adapters.mapping.live import LiveTable, unnamed
from livecert.adapters.mapping.selections import NotOffered
from livecert.adapters.model import BetView, PlayerHandle


class BetSlips:
    """`place_bets` of the mapping adapter."""

    mapping: Any
    _reader: Any
    _live: LiveTable | None
    _holdings: dict[str, dict[str, tuple[PlayerHandle, list[BetView]]]]
    capabilities: tuple[str, ...]

    # the adapter's own (and LiveOperations'): annotations only, so theirs are the ones called
    _run: Callable[[str, str, dict], dict]
    _stream_of: Callable[[str], LiveTable]
    _write: Callable[[Decimal | str], Any]

    def place_bets(
        self,
        player: PlayerHandle,
        round_id: str,
        bets: Sequence[tuple[str, Decimal | str]],
        idempotency_key: str | None = None,
    ) -> list[BetView]:
        game = self._reader.round_games.get(round_id)
        wire = self._wire_slip(game, bets)
        key = idempotency_key or f"livecert-{uuid.uuid4()}"
        base = {"player": player, "round_id": round_id, "game": game, "idempotency_key": key}
        batches = [wire] if "batch-bets" in self.capabilities else [[w] for w in wire]
        if not batches:
            raise Unsupported("place an empty slip", "the target takes one request per bet")
        placed: list[BetView] = []
        unanswered: list = []  # messages sent, each confirmed once all are sent
        try:
            spec = self.mapping.operation("place_bets") or {}
            for index, batch in enumerate(batches):
                key_of_batch = key if len(batches) == 1 else f"{key}-{index}"  # one key per request
                values = {**base, "bets": batch, "idempotency_key": key_of_batch}
                operation = f"place {len(batch)} bet(s)"
                if "emit" not in spec:  # by request; at a live table, settled on the stream
                    live_round = self._live is not None and self._live.before_request_bets(
                        player, round_id
                    )
                    fields = self._run("place_bets", operation, values)
                    taken = [self._reader.bet(b) for b in fields.get("bets") or []]
                    if live_round:
                        self._live.taken_by_request(round_id, player, taken)  # type: ignore[union-attr]
                    placed += taken
                    continue
                live = self._stream_of(operation)
                values["bet"] = batch[0] if len(batch) == 1 else None
                if spec["emit"].get("ack") is False:  # answered nothing: confirmed (live_bets.py)
                    slip = list(bets) if len(batches) == 1 else [bets[index]]
                    unanswered.append(
                        live.send_unanswered(spec, player, round_id, values, operation, slip)
                    )
                    continue
                answer, ack = live.place(spec, player, round_id, values, operation)
                fields = self._reader.answer("place_bets", operation, spec, answer, values)
                acked = [unnamed(self._reader.bet(b)) for b in fields.get("bets") or []]
                live.acknowledged(round_id, player, acked, ack)
                placed += acked
            for sent in unanswered:  # all sent first: the table's betting time holds every one
                placed += self._stream_of("place bets").confirm_unanswered(spec, sent, self)
        except Refused as refused:  # what the slip had taken is the target's: said, and held
            refused.taken = [*placed, *refused.taken]
            raise
        finally:
            holdings = self._holdings.setdefault(round_id, {})
            holder = holdings.setdefault(player.player_id, (player, []))
            holder[1].extend(placed)
        return placed

    def _wire_slip(
        self, game: str | None, bets: Sequence[tuple[str, Decimal | str]]
    ) -> list[dict[str, Any]]:
        """A slip as the templates see it: each bet's `selection` in the vendor's code, its
        `stake` in the wire money format, and `code`, ours."""
        table = self.mapping.selections.get(game) if game else None
        wire = []
        for code, stake in bets:
            try:
                vendor_code = table.to_vendor(code) if table else code
            except NotOffered as missing:
                raise Unsupported(f"bet on {code}", str(missing)) from None
            if table and vendor_code == code and table.from_vendor(code) != code:
                # a code we do not have, sent unchanged, that the target reads as one of its
                # bets ("small" is its Small): no unknown selection can be sent that way
                raise Unsupported(
                    f"bet on the selection {code!r}",
                    f"{code!r} is the target's own code for {table.from_vendor(code)}: sent "
                    "unchanged it is a valid bet there, not an unknown selection",
                )
            wire.append({"selection": vendor_code, "stake": self._write(stake), "code": code})
        return wire

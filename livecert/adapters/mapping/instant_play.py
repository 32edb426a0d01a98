"""Instant rounds through a mapping file: one request that bets, plays and settles.

A target may take a whole slip in one request (`batch-bets`) or one bet per request (each bet
then a round of its own, with the same forced result), and may report each bet's settlement or
only the new balance (`settlement: from-balance`: the change around the request is the bet's).
The mixin needs the adapter's `_run`, `_reader`, `_own_balance`, `_wire_slip`,
`_outcome_values`, `capabilities`, `mapping` and `_table_games`.
"""

import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from decimal import Decimal
from typing import Any

from livecert.adapters.errors import Unsupported
from livecert.adapters.mapping.wire_money import is_plain_amount
from livecert.adapters.model import BetView, PlayerHandle, RoundView


def plain_stake(stake: Decimal | str) -> bool:
    """A stake that is an amount, written in the contract's notation: the adapter writes it in
    the vendor's money format. Other text ("abc", "+10.00", "010.00", "1e3") is sent as written,
    so that its notation, not an amount it might stand for, is what the target judges."""
    return isinstance(stake, Decimal) or is_plain_amount(stake)


def settled_from_balance(bet: BetView, returned: Decimal) -> BetView:
    """A bet of a round the target reports settled, with the amount its player's balance
    gained when the result came in. The bet's own status and outcome are the target's when it
    reports them; only a missing outcome is read from the amount."""
    outcome, said = bet.outcome, bet.outcome_read and bet.outcome not in (None, "open")
    if not said:
        outcome = "lose" if returned == 0 else "refund" if returned == bet.stake else "win"
    win = returned - bet.stake if outcome == "win" else Decimal(0)
    status = bet.status if bet.status not in (None, "open") else "settled"
    return replace(
        bet, outcome=outcome, returned=returned, win=win, status=status, outcome_read=said
    )


class InstantRounds:
    """`play_round` of the mapping adapter."""

    _lock: threading.Lock
    _playing: set[str]
    _table_games: dict[str, str]
    mapping: Any
    _reader: Any

    def play_round(
        self,
        player: PlayerHandle,
        table_id: str,
        bets: Sequence[tuple[str, Decimal | str]],
        outcome: Sequence[int] | Sequence[str],
        idempotency_key: str | None = None,
        read_settlement: bool = True,
    ) -> RoundView:
        """One request that bets and settles (capability `instant-round`): the slip and the
        result the lab forces, answered with the settled round. A target without `batch-bets`
        plays each bet of the slip as a round of its own, with the same result (a refusal
        part-way leaves the bets before it played: the duties of a slip refused whole need
        `batch-bets`); with `settlement: from-balance`, what each bet returned is read from
        the player's balance around its request. `read_settlement=False`: the caller judges
        only whether the slip was taken and the balance after (a slip that must be refused),
        so a slip of several bets is played there too, its bets' settlement left unread."""
        game = self._table_games.get(table_id)
        wire = self._wire_slip(game, bets)
        key = idempotency_key or f"livecert-{uuid.uuid4()}"
        parts = [(list(bets), wire)]
        if "batch-bets" not in self.capabilities:
            if not wire:
                raise Unsupported("play an empty slip", "the target takes one request per bet")
            parts = [([bet], [sent]) for bet, sent in zip(bets, wire, strict=True)]
        from_balance = (self.mapping.operation("play_round") or {}).get("settlement")
        if from_balance and not read_settlement:
            return self._play_parts(player, table_id, game, parts, key, outcome, False)
        if from_balance and len(parts[0][0]) > 1:
            raise Unsupported(
                f"play a slip of {len(bets)} bets",
                "the target reports no settlement per bet (the mapping derives it from the "
                "balance), and one request holds several bets: they cannot be told apart",
            )
        if from_balance:
            with self._claim_player(player):
                return self._play_parts(player, table_id, game, parts, key, outcome, True)
        return self._play_parts(player, table_id, game, parts, key, outcome, False)

    @contextmanager
    def _claim_player(self, player: PlayerHandle) -> Iterator[None]:
        """One round at a time per player where the settlement is read from the balance: two
        rounds of one player at the same moment move one balance and cannot be told apart."""
        with self._lock:
            if player.player_id in self._playing:
                raise Unsupported(
                    "play rounds of one player at the same moment",
                    "the target reports no settlement per round (the mapping derives it from "
                    "the balance): rounds of one player at once cannot be told apart",
                )
            self._playing.add(player.player_id)
        try:
            yield
        finally:
            with self._lock:
                self._playing.discard(player.player_id)

    def _play_parts(
        self,
        player: PlayerHandle,
        table_id: str,
        game: str | None,
        parts: list,
        key: str,
        outcome: Sequence[int] | Sequence[str],
        from_balance: bool,
    ) -> RoundView:
        rounds = []
        for index, (slip, sent) in enumerate(parts):
            values = {
                "player": player,
                "table_id": table_id,
                "game": game,
                "bets": sent,
                "idempotency_key": key if len(parts) == 1 else f"{key}-{index}",
                **self._outcome_values(outcome),
            }
            # one bet whose stake is an amount: what else a target takes (an empty slip, "abc")
            # is shown as it answered, for the bad-input checks to judge
            derivable = from_balance and len(slip) == 1 and plain_stake(slip[0][1])
            before = self._own_balance(player) if derivable else None
            shown = self._play_one(values, slip, outcome)
            if before is not None and shown.state == "settled":
                shown = self._instant_from_balance(shown, player, slip[0], before)
            rounds.append(shown)
        if len(rounds) == 1:
            return rounds[0]
        return replace(rounds[0], bets=tuple(b for r in rounds for b in r.bets))

    def _play_one(self, values: dict, slip: Sequence, outcome: Sequence) -> RoundView:
        """One play_round request, read with this call's result and stakes (the round's id is
        known only from the answer)."""
        stakes = {code: Decimal(stake) for code, stake in slip if plain_stake(stake)}
        sent = tuple((code, Decimal(s) if plain_stake(s) else None) for code, s in slip)
        self._reader.reading_instant(tuple(outcome), stakes, sent)
        try:
            return self._reader.round(
                self._run("play_round", "bet and settle in one request", values)
            )
        finally:
            self._reader.reading_instant(None, {})

    def _instant_from_balance(
        self, shown: RoundView, player: PlayerHandle, bet: tuple, before: Decimal
    ) -> RoundView:
        """The round's one bet settled with what the balance says it returned: the change
        around the request plus the stake. A bet the answer does not list is the slip's."""
        code, stake = bet
        returned = self._own_balance(player) - before + Decimal(stake)
        listed = [b for b in shown.bets if b.selection == code]
        base = (
            listed[0]
            if listed
            else BetView(
                bet_id="",
                round_id=shown.round_id,
                player_id=player.player_id,
                selection=code,
                stake=Decimal(stake),
                status=None,
                outcome=None,
                win=None,
                returned=None,
            )
        )
        others = tuple(b for b in shown.bets if b.selection != code)
        return replace(shown, bets=(settled_from_balance(base, returned), *others))

"""A mutant at work: the adapter the steps use, its answers altered the way one fault would.

`MutatedAnswers` wraps the adapter the run built (under the limit and identity guards, so they
judge the altered answers as the steps do). It sends every request as the steps asked, then
hands the answer to the mutant's `Mutation`, whose hooks return it altered or as it was. Each
alteration is written into the evidence as an exchange of its own (method MUTANT, nothing sent),
beside the exchange that brought the answer, and counted: a mutant that found nothing to alter
on this target says so, instead of passing as a survivor.

A mutation keeps its alterations consistent, as the fault it stands for would: a bet paid one
unit more shows that unit in every later balance and in the bet record, so that only the
clause it is aimed at has reason to fail.
"""

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any

from livecert.adapters.errors import Refused
from livecert.adapters.evidence import MUTATED, Exchange
from livecert.adapters.live_events import LiveEvent
from livecert.adapters.model import (
    BetRecord,
    BetView,
    HistoryPage,
    PlayerHandle,
    RoundView,
    TargetInfo,
)

SAMPLES_KEPT = 20  # alterations described in the run record (all are in the evidence)


class Mutation:
    """The hooks of one mutant; each returns the answer altered, or as it was. `altered(what)`
    marks an alteration in the evidence. Shared state is guarded by `lock` (a scenario's
    money sessions read at once)."""

    def __init__(self, clause: str, info: TargetInfo, note: Callable[[str], None]) -> None:
        self.clause = clause
        self.info = info
        self._note = note
        self.lock = threading.RLock()
        # how much more a lent account holds than the balance shown (the adapter's, where it
        # lends accounts: set by MutatedAnswers), for a mutant altering what the account holds
        self.surplus: Callable[[PlayerHandle], Decimal] = lambda player: Decimal(0)

    @property
    def unit(self) -> Decimal:
        """The target's minor unit as an amount (0.01 for two decimals)."""
        return Decimal(1).scaleb(-self.info.minor_unit)

    def altered(self, what: str) -> None:
        self._note(what)

    # -- the hooks -----------------------------------------------------------------------------

    def bets_placed(
        self, player: PlayerHandle, round_id: str, bets: Sequence[Any], views: list[BetView]
    ) -> list[BetView]:
        return views

    def bets_refused(
        self, player: PlayerHandle, round_id: str, bets: Sequence[Any], refusal: Refused
    ) -> list[BetView] | None:
        """A slip the target refused: None keeps the refusal; bet views show it taken."""
        return None

    def resent(
        self, player: PlayerHandle, round_id: str, key: str, views: list[BetView]
    ) -> list[BetView]:
        """The answer to a slip sent again under an idempotency key already used."""
        return views

    def round(self, operation: str, view: RoundView) -> RoundView:
        """Any answer that shows a round: opened, closed, a dealer's action or event, a result,
        a read (`operation` names it: `dealer_action:pause`, `record_event:rearrange`)."""
        return view

    def round_refused(
        self,
        player: PlayerHandle,
        table_id: str,
        bets: Sequence[Any],
        outcome: Sequence[Any],
        refusal: Refused,
    ) -> RoundView | None:
        """An instant round (a slip played and settled in one request) the target refused:
        None keeps the refusal; a round shows it played."""
        return None

    def withdrawal_refused(self, player: PlayerHandle, bet_id: str, refusal: Refused) -> bool:
        """A withdrawal the target refused: True shows it done."""
        return False

    def disconnected(self, player: PlayerHandle) -> None:
        """The player was disconnected (the request sent as asked)."""

    def balance(self, player: PlayerHandle, amount: Decimal) -> Decimal:
        return amount

    def record(self, player: PlayerHandle, record: BetRecord) -> BetRecord:
        return record

    def statistics(self, table_id: str, rows: list[dict]) -> list[dict]:
        return rows

    def history(self, table_id: str, page: HistoryPage) -> HistoryPage:
        return page

    def refused_to_another(self, operation: str, refusal: Refused) -> bool:
        """A request sent with another role's or player's credentials (the access scenarios'
        copies of the adapter) that the target refused: True shows it done."""
        return False

    def events(self, events: list[LiveEvent]) -> list[LiveEvent]:
        """A live table's pushed messages as read for the stream's judge, in the order seen.
        They are read again when the judge waits for more: a hook must alter the same message
        the same way each time (and mark it once)."""
        return events


class Disconnections(Mutation):
    """A mutation that remembers who disconnected in the run (its fault is theirs alone)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.gone: set[str] = set()  # the players who disconnected

    def disconnected(self, player: PlayerHandle) -> None:
        with self.lock:
            self.gone.add(player.player_id)

    def went_offline(self, player_id: str) -> bool:
        with self.lock:
            return player_id in self.gone


class MutatedAnswers:
    """The adapter as the steps see it in a validation run: every answer through `mutation`."""

    def __init__(self, adapter: Any, mutant_name: str, build: Callable[..., Mutation]) -> None:
        self._adapter = adapter
        self.mutant_name = mutant_name
        self.alterations = 0
        self.samples: list[str] = []
        self._count_lock = threading.Lock()
        self._keys: set[str] = set()  # the idempotency keys sent so far
        self.mutation = build(self._note)
        offset = getattr(adapter, "balance_offset", None)
        if offset is not None:
            self.mutation.surplus = offset

    def __getattr__(self, name: str) -> Any:
        return getattr(self._adapter, name)

    def __repr__(self) -> str:
        return f"MutatedAnswers({self.mutant_name}, {self._adapter!r})"

    @property
    def inner(self) -> Any:
        return self._adapter

    def _note(self, what: str) -> None:
        recorder = self._adapter.recorder
        text = f"livecert validation, mutant {self.mutant_name}: {what} (the harness altered the "
        text += "answer it read; the target was sent nothing else and answered otherwise)"
        recorder.add(
            Exchange(recorder.next_mark_seq(), "mutant", "harness", MUTATED, text,
                     None, None, None, 0.0)
        )  # fmt: skip
        with self._count_lock:
            self.alterations += 1
            if len(self.samples) < SAMPLES_KEPT:
                self.samples.append(what)

    # -- bets ------------------------------------------------------------------------------------

    def place_bets(
        self,
        player: PlayerHandle,
        round_id: str,
        bets: Sequence[Any],
        idempotency_key: str | None = None,
    ) -> list[BetView]:
        with self._count_lock:
            again = idempotency_key is not None and idempotency_key in self._keys
            if idempotency_key is not None:
                self._keys.add(idempotency_key)
        try:
            views = self._adapter.place_bets(
                player, round_id, bets, idempotency_key=idempotency_key
            )
        except Refused as refusal:
            shown = self.mutation.bets_refused(player, round_id, bets, refusal)
            if shown is None:
                raise
            return shown
        if again:
            assert idempotency_key is not None
            views = self.mutation.resent(player, round_id, idempotency_key, views)
        return self.mutation.bets_placed(player, round_id, bets, views)

    def withdraw_bet(self, player: PlayerHandle, bet_id: str) -> None:
        try:
            self._adapter.withdraw_bet(player, bet_id)
        except Refused as refusal:
            if not self.mutation.withdrawal_refused(player, bet_id, refusal):
                raise

    def disconnect(self, player: PlayerHandle) -> None:
        self._adapter.disconnect(player)
        self.mutation.disconnected(player)

    # -- rounds ----------------------------------------------------------------------------------

    def open_round(self, table_id: str, countdown_ms: int | None = None) -> RoundView:
        view = self._adapter.open_round(table_id, countdown_ms=countdown_ms)
        return self.mutation.round("open_round", view)

    def close_betting(self, round_id: str) -> RoundView:
        return self.mutation.round("close_betting", self._adapter.close_betting(round_id))

    def record_reshake(self, round_id: str, reason: str) -> RoundView:
        return self.mutation.round("record_reshake", self._adapter.record_reshake(round_id, reason))

    def record_event(self, round_id: str, event: str) -> RoundView:
        view = self._adapter.record_event(round_id, event)
        return self.mutation.round(f"record_event:{event}", view)

    def dealer_action(self, round_id: str, action: str, reason: str | None = None) -> RoundView:
        view = self._adapter.dealer_action(round_id, action, reason)
        return self.mutation.round(f"dealer_action:{action}", view)

    def enter_result(self, round_id: str, outcome: Sequence[Any]) -> RoundView:
        return self.mutation.round("enter_result", self._adapter.enter_result(round_id, outcome))

    def get_round(self, round_id: str, player: PlayerHandle | None = None) -> RoundView:
        return self.mutation.round("get_round", self._adapter.get_round(round_id, player))

    @property
    def play_round(self) -> Callable[..., RoundView]:
        """The inner adapter's instant round, its answer altered; absent where it has none."""
        if not hasattr(self._adapter, "play_round"):
            raise AttributeError("play_round")
        return self._play_round

    def _play_round(
        self,
        player: PlayerHandle,
        table_id: str,
        bets: Sequence[Any],
        outcome: Sequence[Any],
        idempotency_key: str | None = None,
        **options: Any,
    ) -> RoundView:
        try:
            view = self._adapter.play_round(
                player, table_id, bets, outcome, idempotency_key=idempotency_key, **options
            )
        except Refused as refusal:
            shown = self.mutation.round_refused(player, table_id, bets, outcome, refusal)
            if shown is None:
                raise
            return shown
        return self.mutation.round("play_round", view)

    # -- the player's money and records -------------------------------------------------------

    def balance(self, player: PlayerHandle) -> Decimal:
        return self.mutation.balance(player, self._adapter.balance(player))

    def bet_record(self, player: PlayerHandle, round_id: str | None = None) -> BetRecord:
        return self.mutation.record(player, self._adapter.bet_record(player, round_id))

    def statistics(self, table_id: str) -> list[dict]:
        return self.mutation.statistics(table_id, self._adapter.statistics(table_id))

    @property
    def round_history(self) -> Callable[..., HistoryPage]:
        if not hasattr(self._adapter, "round_history"):
            raise AttributeError("round_history")
        return self._round_history

    def _round_history(self, table_id: str, *args: Any, **options: Any) -> HistoryPage:
        page = self._adapter.round_history(table_id, *args, **options)
        return self.mutation.history(table_id, page)

    # -- other credentials -------------------------------------------------------------------------

    @property
    def as_role(self) -> Callable[[str], "ActingAnswers"]:
        """The inner adapter acting as a role, its refusals through the mutation."""
        if not hasattr(self._adapter, "as_role"):
            raise AttributeError("as_role")
        return lambda role: ActingAnswers(self._adapter.as_role(role), self.mutation)

    @property
    def with_credential(self) -> Callable[[str], "ActingAnswers"]:
        """The inner adapter sending another credential, its refusals through the mutation."""
        if not hasattr(self._adapter, "with_credential"):
            raise AttributeError("with_credential")
        return lambda token: ActingAnswers(self._adapter.with_credential(token), self.mutation)

    # -- a live table's stream -------------------------------------------------------------------

    def stream_events(self, after: int) -> list[LiveEvent]:
        return self.mutation.events(self._adapter.stream_events(after))


class ActingAnswers:
    """A copy of the adapter acting with other credentials: each operation sent as asked; a
    refusal it meets handed to the mutation, which may show it done (nothing returned)."""

    def __init__(self, adapter: Any, mutation: Mutation) -> None:
        self._adapter = adapter
        self._mutation = mutation

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._adapter, name)
        if not callable(value):
            return value

        def sent(*args: Any, **kwargs: Any) -> Any:
            try:
                return value(*args, **kwargs)
            except Refused as refusal:
                if self._mutation.refused_to_another(name, refusal):
                    return None
                raise

        return sent


def with_bets(view: RoundView, bets: Sequence[BetView]) -> RoundView:
    return replace(view, bets=tuple(bets))

"""The sweep's rounds played ahead on several tables at once (`--workers`, tables in play).

Each sweep scenario plays one round: a player bets on every selection, the dealer closes
betting, enters the outcome, and every settlement is checked. Against a remote target most of
that is waiting, so with N tables in play the rounds of the outcomes the process will judge are
played ahead by N threads, each at a table of its own. Each step of a scenario then takes the
answer its request got (or the error it raised), with the exchanges of that step as its
evidence, and judges it exactly as if it had sent the request itself: the checks are the
steps', not this module's. A round's requests are the same, in the same order, as the
scenario's own; only the moment they were sent differs. Exchanges of a step the scenario never
reaches (it failed before) are handed to it at its end (`PlayedRound.rest`).

The rounds are played at the process's tables and at tables finished processes lend
(`TablePool`). Each holds the target shared while it is played (a restart waits for it). While
no scenario of the process waits on the pool, no round starts while a scenario that runs alone
(a restart, a countdown) waits or runs.
"""

import contextlib
import os
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from livecert.adapters import RoundView, TargetAdapter, TargetInfo
from livecert.adapters.evidence import Exchange, ExchangeRecorder
from livecert.harness.sweep import (
    OutcomeReport,
    SweepRound,
    bet_on_every_selection,
    instant,
    settle_sweep_round,
)
from livecert.harness.table_pool import LentTables, TablePool
from livecert.harness.workers import ScenarioGate
from livecert.rules.conditions import Outcome
from livecert.rules.paytable import Paytable

RESTART_POLL_S = 0.1  # how often a round played ahead looks whether a restart still waits


@dataclass
class Played:
    """One step's requests made ahead: what they answered or raised, and their exchanges."""

    value: Any = None
    error: BaseException | None = None
    exchanges: list[Exchange] = field(default_factory=list)
    taken: bool = False

    def take(self, recorder: ExchangeRecorder) -> Any:
        """The step's answer (its exchanges now the running scenario's evidence), or its
        error raised as the request would have raised it."""
        if not self.taken:
            self.taken = True
            recorder.replay(self.exchanges)
        if self.error is not None:
            raise self.error
        return self.value


@dataclass
class PlayedRound:
    """A sweep round played ahead: its bets, its close (none for an instant round) and its
    result, each for the step that sends it."""

    outcome: Outcome
    bets: Played
    close: Played | None = None
    result: Played | None = None

    def steps(self) -> list[Played]:
        return [p for p in (self.bets, self.close, self.result) if p is not None]

    def rest(self, recorder: ExchangeRecorder) -> None:
        """Exchanges of steps the scenario did not reach: still its evidence."""
        for played in self.steps():
            if not played.taken:
                played.taken = True
                recorder.replay(played.exchanges)


def _step(recorder: ExchangeRecorder, send: Callable[[], Any]) -> Played:
    with recorder.capturing() as exchanges:
        try:
            return Played(send(), exchanges=exchanges)
        except BaseException as error:  # raised again in the scenario's step
            return Played(error=error, exchanges=exchanges)


class SweepPool:
    """The rounds of a game's sweep, played ahead at `tables` tables of the process, and at
    tables finished processes lend, a thread and a table each."""

    def __init__(
        self,
        adapter: TargetAdapter,
        recorder: ExchangeRecorder,
        paytable: Paytable,
        info: TargetInfo,
        stake: Decimal,
        only: Collection[str],
        tables: int,
        gate: ScenarioGate | None = None,
        lent: LentTables | None = None,
    ) -> None:
        self.adapter, self.recorder, self.paytable, self.info = adapter, recorder, paytable, info
        self.stake, self.only = stake, only
        self._pool = TablePool(tables, lent, "livecert-sweep")
        self._rounds: dict[Outcome, Future[PlayedRound]] = {}
        self._taken: set[Outcome] = set()  # rounds a scenario has judged: never judged again
        self._table = threading.local()
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._gate, self._waited_on = gate, 0  # scenarios waiting on a round now

    def play(self, outcomes: Iterable[Outcome]) -> None:
        """Start playing the outcomes not started yet (or already judged), in this order."""
        with self._lock:
            for outcome in outcomes:
                key = tuple(outcome)
                if (key in self._rounds and key not in self._taken) or self._stopped.is_set():
                    continue
                self._taken.discard(key)
                self._rounds[key] = self._pool.submit(self._held, key)

    def _held(self, outcome: Outcome) -> PlayedRound:
        """The round played with the target held. While no scenario waits on the pool, a
        round waits for a restart that waits or runs; while one does, the restart waits on
        that scenario, and waiting for it would be a deadlock. A pool that stops plays no
        more rounds."""
        if self._gate is None:
            return self._play_one(outcome)
        while not self._stopped.is_set():
            descriptor = None
            if self._waited_on or not self._gate.restart_waiting():
                descriptor = self._gate.round_hold()
            if descriptor is None:
                time.sleep(RESTART_POLL_S)
                continue
            try:
                return self._play_one(outcome)
            finally:
                os.close(descriptor)
        raise CancelledError(f"the sweep stopped before the round of {outcome} was played")

    def cancel_ahead(self) -> None:
        """Drop the rounds no scenario has taken and none has started: the scenario that
        asked for them failed, and the process goes on to others with its own tables."""
        with self._lock:
            for key, future in list(self._rounds.items()):
                if key not in self._taken and future.cancel():
                    del self._rounds[key]

    def round_of(self, outcome: Outcome) -> PlayedRound:
        """The round played for `outcome`, once it is done (played now if it was not, or if a
        scenario judged it already: a round is judged once, as when each sends its own)."""
        self.play([outcome])
        key = tuple(outcome)
        with self._waiting():
            played = self._rounds[key].result()
        with self._lock:
            self._taken.add(key)
        return played

    @contextlib.contextmanager
    def _waiting(self) -> Iterator[None]:
        with self._lock:
            self._waited_on += 1
        try:
            yield
        finally:
            with self._lock:
                self._waited_on -= 1

    def _table_id(self) -> Played | str:
        """This thread's own table, created the first time it plays."""
        table = getattr(self._table, "id", None)
        if table is None:
            made = _step(self.recorder, lambda: self.adapter.create_table(self.paytable.game))
            if made.error is not None:
                return made
            self._table.id = table = made.value
            self._table.made = made
        return table

    def _play_one(self, outcome: Outcome) -> PlayedRound:
        table = self._table_id()
        if isinstance(table, Played):  # the table could not be made: the bets step says so
            return PlayedRound(outcome, table)
        made: Played | None = getattr(self._table, "made", None)
        self._table.made = None  # the table's creation is the first round's evidence
        one_request = instant(self.adapter, self.info)
        bets = _step(
            self.recorder,
            lambda: bet_on_every_selection(
                self.adapter, self.paytable, table, self.stake, one_request, self.only
            ),
        )
        if made is not None:
            bets.exchanges[:0] = made.exchanges
        played = PlayedRound(outcome, bets)
        if bets.error is not None or self._stopped.is_set():
            return self._table_left(played)
        sweep_round: SweepRound = bets.value
        if not one_request:
            played.close = _step(
                self.recorder, lambda: self.adapter.close_betting(sweep_round.round_id)
            )
            if played.close.error is not None:
                return self._table_left(played)
        played.result = _step(
            self.recorder,
            lambda: settle_sweep_round(
                self.adapter, self.paytable, self.info, sweep_round, outcome
            ),
        )
        return self._table_left(played)

    def _table_left(self, played: PlayedRound) -> PlayedRound:
        """A round whose step failed may still be live at this thread's table: the thread
        leaves the table, and its next round is played at a new one (as a scenario that
        failed leaves its table), never refused for what this round left behind."""
        if any(step.error is not None for step in played.steps()):
            self._table.id = None
        return played

    def stop(self) -> None:
        """No round starts after this; the rounds in play finish (each request is bounded)."""
        self._stopped.set()
        self._pool.shutdown(wait=True, cancel_futures=True)


def closed_view(played: PlayedRound) -> RoundView | None:
    """The close step's answer (None for an instant round, which has none)."""
    return None if played.close is None else played.close.value


def report_of(played: PlayedRound, recorder: ExchangeRecorder) -> OutcomeReport:
    assert played.result is not None
    return played.result.take(recorder)

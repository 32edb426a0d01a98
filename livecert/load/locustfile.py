"""The load profile on Locust: many players at many tables, a dealer running each table.

Each process (Locust's headless runner, or each worker of its master and worker mode) makes
its own tables at the start, runs a dealer per table (open a round, let players bet for a
while, close betting, enter a random result, again), and its Locust users are players: each is
created with a balance and sends slips of one to three bets, random selections and stakes from
a cent up, sometimes two slips at the same moment, into the betting round of its table. Every
request goes through the canonical adapter (the contract checked on every answer, every
request within its deadline) and is reported to Locust's statistics.

At the stop the dealers settle the rounds in play, and the process reconciles its own players
(livecert.load.reconcile) and writes it to LIVECERT_LOAD_DIR (one file per process). The
target and its tokens come from LIVECERT_TARGET_URL, LIVECERT_OPERATOR_TOKEN and
LIVECERT_DEALER_TOKEN; LIVECERT_LOAD_GAME and LIVECERT_LOAD_TABLES set the game and the tables.

    locust -f LOCUSTFILE --master --headless -u 200 -r 50 -t 60s --expect-workers 2
    locust -f LOCUSTFILE --worker --master-host HOST          (on each machine)
    livecert load --merge DIR                                 (the workers' files, one verdict)
"""

import json
import os
import random
import threading
import time
from decimal import Decimal
from pathlib import Path

import gevent
from gevent import GreenletExit
from locust import User, between, events, task
from locust.runners import MasterRunner

from livecert.adapters import Bounds, HttpAdapter, Refused, TargetError
from livecert.adapters.evidence import Exchange, ExchangeRecorder
from livecert.adapters.model import PlayerHandle
from livecert.contract import ContractViolation
from livecert.harness.dealer import open_round
from livecert.load.reconcile import PlayerBook, Reconciliation, reconcile_player
from livecert.rules import all_outcomes, load_paytable
from livecert.rules.conditions import Outcome

START = Decimal("100000.00")  # enough for a player's stakes over a long run
BETTING_SECONDS = 1.0  # how long a round takes bets before its dealer closes it
GRACE_SECONDS = 0.3  # slips already sent when the round stops being offered
REQUEST_DEADLINE = 30.0


class StatsRecorder(ExchangeRecorder):
    """Reports every request to Locust's statistics and keeps none (a load run sends many)."""

    def add(self, exchange: Exchange) -> None:
        failed = exchange.error is not None or (exchange.status or 0) >= 500
        events.request.fire(
            request_type=exchange.method,
            name=exchange.operation,
            response_time=exchange.elapsed_ms,
            response_length=len(exchange.response_body or ""),
            exception=RuntimeError(exchange.error or f"answered {exchange.status}")
            if failed
            else None,
            context={},
        )


class LoadState:
    """What one process knows while the load runs: tables, rounds in play, players' books,
    the results entered, and what went wrong."""

    def __init__(self) -> None:
        self.game = os.environ.get("LIVECERT_LOAD_GAME", "sicbo")
        self.adapter = HttpAdapter(
            os.environ["LIVECERT_TARGET_URL"],
            os.environ["LIVECERT_OPERATOR_TOKEN"],
            os.environ["LIVECERT_DEALER_TOKEN"],
            timeout=(5.0, REQUEST_DEADLINE),
            recorder=StatsRecorder(),
            bounds=Bounds.for_run(request_deadline=REQUEST_DEADLINE),
        )
        self.info = self.adapter.info()
        self.paytable = load_paytable(self.game)
        self.outcomes = list(all_outcomes(self.paytable))
        count = int(os.environ.get("LIVECERT_LOAD_TABLES", "4"))
        self.tables = [self.adapter.create_table(self.game) for _ in range(count)]
        self.betting: dict[str, str | None] = dict.fromkeys(self.tables)  # table -> round
        self.results: dict[str, Outcome] = {}
        self.abandoned: set[str] = set()  # rounds the dealer could not settle (the target's error)
        self.books: list[tuple[PlayerHandle, PlayerBook]] = []
        self.errors: list[str] = []
        self.harness_errors: list[str] = []
        self.lock = threading.Lock()
        self.stopping = False
        self.dealers = [gevent.spawn(self.deal, table) for table in self.tables]
        self._next_table = 0

    def table_for_next_player(self) -> str:
        with self.lock:
            table = self.tables[self._next_table % len(self.tables)]
            self._next_table += 1
            return table

    def deal(self, table: str) -> None:
        """The table's dealer, round after round, until the stop (the last round settled)."""
        countdown = int(BETTING_SECONDS * 1000) + 10_000  # the dealer closes it before
        while not self.stopping:
            round_id = None
            try:
                opened = open_round(self.adapter, self.game, table, countdown_ms=countdown)
                round_id = opened.round_id
                self.betting[table] = round_id
                gevent.sleep(BETTING_SECONDS)
                self.betting[table] = None
                gevent.sleep(GRACE_SECONDS)
                self.adapter.close_betting(opened.round_id)
                outcome = random.choice(self.outcomes)
                self.adapter.enter_result(opened.round_id, outcome)
                self.results[opened.round_id] = tuple(outcome)
            except (TargetError, Refused, ContractViolation) as error:
                self.errors.append(f"the dealer of table {table}: {error}")
                self.betting[table] = None
                if round_id is not None and round_id not in self.results:
                    self.abandoned.add(round_id)
                gevent.sleep(0.5)
            except Exception as error:  # a defect of the harness: never a finding
                self.harness_errors.append(f"the dealer of table {table}: {error!r}")
                self.betting[table] = None
                if round_id is not None and round_id not in self.results:
                    self.abandoned.add(round_id)
                return

    def stop(self) -> None:
        self.stopping = True
        gevent.joinall(self.dealers, timeout=REQUEST_DEADLINE * 4)

    def reconcile(self) -> Reconciliation:
        done = Reconciliation(players=len(self.books), harness_errors=list(self.harness_errors))
        for handle, book in self.books:
            try:
                record = self.adapter.bet_record(handle)
                balance = self.adapter.balance(handle)
            except (TargetError, Refused, ContractViolation) as error:
                done.unreadable.append(f"player {book.player_id}: {error}")
                continue
            problems, checked, money_in, money_out, unsettled = reconcile_player(
                book, record, balance, self.results, self.abandoned, self.game,
                self.info.minor_unit, self.info.rounding,
            )  # fmt: skip
            done.unsettled += unsettled
            done.problems += problems
            done.bets_checked += checked
            done.money_in += money_in
            done.money_out += money_out
            done.reconciled += 1
        return done


STATE: LoadState | None = None


@events.test_start.add_listener
def _start(environment, **_: object) -> None:
    global STATE
    if isinstance(environment.runner, MasterRunner):
        return  # the master runs no user: the workers play and reconcile
    STATE = LoadState()


@events.test_stop.add_listener
def _stop(environment, **_: object) -> None:
    if STATE is None:
        return
    STATE.stop()
    done = STATE.reconcile()
    folder = os.environ.get("LIVECERT_LOAD_DIR")
    if folder:
        path = Path(folder) / f"reconciliation-{os.getpid()}-{int(time.time())}.json"
        path.write_text(
            json.dumps({**done.as_dict(), "errors": STATE.errors[:50]}, indent=2),
            encoding="utf-8",
        )


def random_stake(room: Decimal) -> Decimal:
    """A stake from a cent to 5.00 (or what the balance leaves), in cents."""
    most = min(int(room * 100), 500)
    return Decimal(random.randint(1, max(1, most))) / 100


class Player(User):
    """A player at one table: slips of random bets into the round taking bets."""

    wait_time = between(0.05, 0.25)

    def on_start(self) -> None:
        assert STATE is not None, "the load state starts with the test"
        self.state = STATE
        self.table = STATE.table_for_next_player()
        self.handle = STATE.adapter.create_player(START)
        self.book = PlayerBook(self.handle.player_id, START)
        self.spent = Decimal(0)
        with STATE.lock:
            STATE.books.append((self.handle, self.book))

    def slip(self, round_id: str) -> None:
        codes = [s.code for s in self.state.paytable.selections]
        bets = [
            (random.choice(codes), random_stake(START - self.spent))
            for _ in range(random.randint(1, 3))
        ]
        try:
            placed = self.state.adapter.place_bets(self.handle, round_id, bets)
        except GreenletExit:
            # the run's end stopped this player while its slip was on the way: the target may
            # have taken it, so its bets are allowed in the record (and counted there)
            self.book.unanswered_slips += 1
            raise
        except Refused as refused:
            # betting closed meanwhile, a limit: nothing taken, so nothing booked (a refused
            # slip that took bets shows in the record as bets never placed)
            self.book.refusals.append(f"{refused.status} {refused.code}")
            return
        except TargetError as error:
            if error.answered is None:  # no whole answer: its bets may have been taken
                self.book.unanswered_slips += 1
            self.state.errors.append(f"player {self.handle.player_id}: {error}")
            return
        except ContractViolation as error:
            self.state.errors.append(f"player {self.handle.player_id}: {error}")
            return
        for bet in placed:
            self.book.accepted[bet.bet_id] = bet.stake
            self.spent += bet.stake

    @task
    def bet(self) -> None:
        round_id = self.state.betting.get(self.table)
        if round_id is None or self.spent > START - 100:
            return  # no round taking bets, or the balance nearly spent
        if random.random() < 0.3:  # two slips at the same moment: one player's race
            gevent.joinall([gevent.spawn(self.slip, round_id) for _ in range(2)])
        else:
            self.slip(round_id)

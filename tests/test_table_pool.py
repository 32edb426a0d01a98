"""Tables a finished process lends, and the pools that play at them.

A run keeps to its N tables in play: a lent table is played by one pool at a time, none is
borrowed before its process lends it, and work runs in the order it was given whatever the
number of tables. A sweep's round played ahead lets a waiting restart in first, but a round a
scenario waits on is played (the restart waits on that scenario).
"""

import threading
import time
from decimal import Decimal

import pytest

from livecert.adapters.http import HttpAdapter
from livecert.harness.embedded import EmbeddedServer
from livecert.harness.sweep_pool import SweepPool
from livecert.harness.table_pool import LentTables, TablePool
from livecert.harness.vocabulary import paytable
from livecert.harness.workers import ScenarioGate

WAIT_S = 10  # a deadline for what must happen, never a guess at how long it takes


def test_a_table_is_lent_only_by_its_finished_process_and_to_one_pool(tmp_path) -> None:
    borrower = LentTables(tmp_path, worker=0, per_process=1)
    assert borrower.borrow() is None  # nothing lent while every process plays
    LentTables(tmp_path, worker=1, per_process=2).lend()  # gw1 is done: tables 2 and 3
    first, second = borrower.borrow(), borrower.borrow()
    assert first is not None and second is not None
    assert borrower.borrow() is None  # both in play: a third pool waits
    LentTables.give_back(first)
    again = borrower.borrow()
    assert again is not None
    for descriptor in (second, again):
        LentTables.give_back(descriptor)
    assert sorted(p.name for p in tmp_path.glob("table-*")) == ["table-2.lent", "table-3.lent"]


def test_work_runs_in_order_and_raises_as_it_raised() -> None:
    pool, ran = TablePool(1), []
    try:
        assert pool.map(lambda n: ran.append(n) or n * n, range(6)) == [0, 1, 4, 9, 16, 25]
        assert ran == [0, 1, 2, 3, 4, 5]  # at one table: in the order given
        failed = pool.submit(lambda: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            failed.result(WAIT_S)
    finally:
        pool.shutdown()
    assert pool.borrowed == 0  # nothing to borrow in a run of one process


@pytest.mark.timing  # work at once, and a borrowing thread that looks every 0.2 s
def test_work_waiting_is_played_at_the_tables_lent(tmp_path) -> None:
    LentTables(tmp_path, worker=1, per_process=2).lend()
    pool = TablePool(1, LentTables(tmp_path, worker=0, per_process=1))
    together = threading.Barrier(3, timeout=WAIT_S)  # passed only with three tables at once
    try:
        futures = [pool.submit(together.wait) for _ in range(3)]
        assert sorted(f.result(WAIT_S) for f in futures) == [0, 1, 2]
    finally:
        pool.shutdown()
    assert pool.borrowed == 2
    assert all(  # given back: another pool may borrow them now
        (d := LentTables(tmp_path, 0, 1).borrow()) is not None and not LentTables.give_back(d)
        for _ in range(2)
    )


@pytest.mark.timing
def test_a_pool_never_plays_more_tables_than_it_has_and_is_lent(tmp_path) -> None:
    LentTables(tmp_path, worker=1, per_process=1).lend()
    pool = TablePool(1, LentTables(tmp_path, worker=0, per_process=1))
    go, started, running, most = threading.Event(), threading.Semaphore(0), [0], [0]
    lock = threading.Lock()

    def work() -> None:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        started.release()
        go.wait(WAIT_S)
        with lock:
            running[0] -= 1

    try:
        futures = [pool.submit(work) for _ in range(4)]
        assert started.acquire(timeout=WAIT_S) and started.acquire(timeout=WAIT_S)
        assert not started.acquire(timeout=0.6)  # a third table would be one not lent
        go.set()
        for future in futures:
            future.result(WAIT_S)
    finally:
        go.set()
        pool.shutdown()
    assert most[0] == 2


@pytest.mark.timing
def test_waiting_work_is_cancelled_when_the_pool_stops() -> None:
    pool = TablePool(1)
    go, running = threading.Event(), threading.Event()
    first = pool.submit(lambda: running.set() or go.wait(WAIT_S))
    assert running.wait(WAIT_S)  # at its table: it ends, the rest never starts
    rest = [pool.submit(lambda: None) for _ in range(3)]
    stopping = threading.Thread(target=pool.shutdown, kwargs={"cancel_futures": True})
    stopping.start()
    deadline = time.monotonic() + WAIT_S
    while not all(f.cancelled() for f in rest) and time.monotonic() < deadline:
        time.sleep(0.01)
    go.set()
    stopping.join(WAIT_S)
    assert first.result(WAIT_S) is True
    assert all(f.cancelled() for f in rest)


@pytest.mark.timing
def test_a_round_played_ahead_lets_a_waiting_restart_in_first(tmp_path) -> None:
    gate = ScenarioGate(tmp_path)
    xocdia = paytable("xocdia")
    ahead, waited = ("r", "r", "w", "w"), ("w", "w", "w", "w")
    restarted = threading.Event()

    def restart() -> None:
        with gate.alone():
            restarted.set()

    with EmbeddedServer() as server:
        adapter = HttpAdapter(server.url, server.operator_token, server.dealer_token)
        info = adapter.info()
        pool = SweepPool(adapter, adapter.recorder, xocdia, info, Decimal("1.00"), (), 1, gate)
        restarting = threading.Thread(target=restart)
        try:
            with gate.shared():  # a sweep scenario of this process
                restarting.start()
                deadline = time.monotonic() + WAIT_S
                while not gate.restart_waiting() and time.monotonic() < deadline:
                    time.sleep(0.01)
                sent = adapter.recorder.count
                pool.play([ahead])
                time.sleep(0.6)
                assert adapter.recorder.count == sent  # played ahead: after the restart
                played = pool.round_of(ahead)  # the scenario waits on it: it is played now
                assert played.result is not None and not played.result.value.mismatches
                assert not restarted.is_set()  # the restart waits for the scenario
            assert restarted.wait(WAIT_S)
            restarting.join(WAIT_S)
            assert not pool.round_of(waited).result.value.mismatches  # type: ignore[union-attr]
        finally:
            pool.stop()
            adapter.close()


@pytest.mark.timing
def test_a_pool_stopped_under_its_own_processs_restart_ends_and_plays_nothing(tmp_path) -> None:
    """The last scenario of a worker runs alone (it holds the target) when the session's pools
    stop: a round still waiting for the target gives up instead of waiting for that scenario,
    which waits for it (a worker that never ends)."""
    gate = ScenarioGate(tmp_path)
    played = []

    class NoTarget(SweepPool):
        def _play_one(self, outcome):  # type: ignore[override]
            played.append(outcome)
            raise AssertionError("a round played under a restart")

    pool = NoTarget(None, None, paytable("xocdia"), None, Decimal("1.00"), (), 1, gate)  # type: ignore[arg-type]
    with gate.alone():  # a restart scenario of this process, the last one
        pool.play([("r", "r", "w", "w")])
        stopping = threading.Thread(target=pool.stop)
        stopping.start()
        stopping.join(WAIT_S)
        assert not stopping.is_alive()
    assert played == []

"""Work played at the process's own tables, and at tables a finished process lends.

A run of N tables in play over K processes gives each process N/K tables. Most processes are
done long before the run: what is left is a few long chains on one table each (a game's sweep,
a random money session), while the tables of the finished processes stand idle. A finished
process lends its tables (`LentTables.lend`: a file each in the run's shared folder); a pool
with work waiting borrows one (an exclusive flock, tried and never waited on) and gives it back
when its queue is empty. At any moment each of the run's N tables is played by one process at
most, so the run never has more than N tables in play.

`TablePool` is the pool: work runs in the order it was submitted, on the process's own tables
from the start and on borrowed ones while there is work waiting. What a piece of work does,
and how it is judged, does not depend on the table count: only when it runs.
"""

import os
import queue
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from livecert.harness.workers import try_lock

try:
    import fcntl
except ImportError:  # Windows: no run over workers, so nothing is lent
    fcntl = None  # type: ignore[assignment]

LENT_SUFFIX = ".lent"
BORROW_POLL_S = 0.2  # how often a pool with work waiting looks for a lent table


class LentTables:
    """The run's tables that finished processes lend: `worker` owns tables
    `worker * per_process` to the next `per_process` ones."""

    def __init__(self, folder: Path, worker: int, per_process: int) -> None:
        self.folder, self.worker, self.per_process = folder, worker, per_process

    def lend(self) -> None:
        """This process is done: its tables go to the pools still playing."""
        first = self.worker * self.per_process
        for table in range(first, first + self.per_process):
            (self.folder / f"table-{table}{LENT_SUFFIX}").touch()

    def borrow(self) -> int | None:
        """A lent table nobody plays now, held (a descriptor) until `give_back`; None if all
        lent tables are in play, or none is lent yet."""
        if fcntl is None:
            return None
        for marker in sorted(self.folder.glob(f"table-*{LENT_SUFFIX}")):
            try:
                descriptor = try_lock(marker, fcntl.LOCK_EX, create=False)
            except OSError:
                continue  # the run's folder is being removed: the run is over
            if descriptor is not None:
                return descriptor
        return None

    @staticmethod
    def give_back(descriptor: int) -> None:
        os.close(descriptor)


_STOP = object()


class TablePool:
    """An executor for work that each needs a table: `own` threads at the process's tables,
    and a thread more for each table borrowed while work waits."""

    def __init__(self, own: int, lent: LentTables | None = None, name: str = "livecert") -> None:
        self.own, self.lent, self.name = max(1, own), lent, name
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self.borrowed = 0  # tables borrowed over the pool's life (the evidence of the lending)

    def submit(self, work: Callable[..., Any], *args: Any) -> Future:
        future: Future = Future()
        with self._lock:  # never behind the stop markers of a shutdown
            if self._stopped.is_set():
                raise RuntimeError("the pool is stopped")
            self._queue.put((future, work, args))
            if not self._threads:
                self._start()
        return future

    def map(self, work: Callable[..., Any], items: Iterable[Any]) -> list[Any]:
        """Every item's result, in order; the first error raised as the work raised it."""
        futures = [self.submit(work, item) for item in items]
        return [future.result() for future in futures]

    def _start(self) -> None:
        for index in range(self.own):
            self._spawn(self._at_own_table, f"{self.name}-{index}")
        if self.lent is not None:
            self._spawn(self._borrowing, f"{self.name}-borrowing")

    def _spawn(self, target: Callable[..., None], name: str, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    @staticmethod
    def _run(item: tuple[Future, Callable[..., Any], tuple]) -> None:
        future, work, args = item
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(work(*args))
        except BaseException as error:  # the caller's result() raises it
            future.set_exception(error)

    def _at_own_table(self) -> None:
        while (item := self._queue.get()) is not _STOP:
            self._run(item)

    def _borrowing(self) -> None:
        """While the pool runs: whenever work waits, borrow a lent table and play there."""
        assert self.lent is not None
        while not self._stopped.wait(BORROW_POLL_S):
            if self._queue.empty():
                continue
            descriptor = self.lent.borrow()
            if descriptor is None:
                continue
            with self._lock:
                if self._stopped.is_set():  # what waits now is the shutdown's own markers
                    self.lent.give_back(descriptor)
                    return
                self.borrowed += 1
                self._spawn(self._at_borrowed_table, f"{self.name}-lent", descriptor)

    def _at_borrowed_table(self, descriptor: int) -> None:
        """Play what waits, then give the table back (its owner's process is over)."""
        assert self.lent is not None
        try:
            while not self._stopped.is_set():
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    return
                if item is _STOP:
                    self._queue.put(item)  # an own thread's: passed on
                    return
                self._run(item)
        finally:
            self.lent.give_back(descriptor)

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        """No work starts after this (waiting work cancelled if asked); work running ends."""
        with self._lock:
            self._stopped.set()
        if cancel_futures:
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is not _STOP:
                    item[0].cancel()
        with self._lock:
            threads = list(self._threads)
            for _ in range(self.own):
                self._queue.put(_STOP)
        if wait:
            for thread in threads:
                if thread is not threading.current_thread():
                    thread.join()

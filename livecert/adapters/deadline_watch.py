"""The watchdog that holds a request to its total deadline, whichever phase it is in.

requests and urllib3 have no total deadline; urllib3's documentation advises a watcher thread
that cuts a slow request off. One daemon thread shuts the socket of a request whose deadline
passed down; the connection pools of `bounded_session.py` tell the current request's watch which
connection it holds (`WATCHED_POOLS`).
"""

import contextlib
import heapq
import itertools
import logging
import os
import socket
import threading
import time
from typing import Any

from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool


class _Watch:
    """One request's watch: the connection it holds, shut down if the deadline comes first."""

    def __init__(self, at: float) -> None:
        self.at = at
        self.cut = False
        self.done = False
        self._lock = threading.Lock()
        self._connection: Any = None

    def attach(self, connection: Any) -> None:
        with self._lock:
            self._connection = connection

    def detach(self) -> None:
        """The connection went back to its pool (the answer was read): never cut it now."""
        with self._lock:
            self._connection = None

    def cancel(self) -> None:
        with self._lock:
            self.done, self._connection = True, None

    def fire(self) -> None:
        """Shut the connection down: a read blocked on it ends at once. Marked `cut` only when
        a socket was cut (an answer whose connection went back to its pool is whole)."""
        with self._lock:
            if self.done:
                return
            sock = getattr(self._connection, "sock", None)
            if sock is not None:
                self.cut = True
                # the plain socket's shutdown, also under TLS (an already closed socket has
                # nothing left to cut)
                with contextlib.suppress(OSError):
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Watchdog:
    """One daemon thread firing the watches whose deadline passed, earliest first."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """No watch and no thread yet (also in a forked child: the thread stayed behind)."""
        self._wake = threading.Condition()
        self._heap: list[tuple[float, int, _Watch]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def watch(self, at: float) -> _Watch:
        watch = _Watch(at)
        with self._wake:
            heapq.heappush(self._heap, (at, next(self._order), watch))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="livecert-deadlines", daemon=True
                )
                self._thread.start()
            if self._heap[0][2] is watch:
                self._wake.notify()
        return watch

    def _run(self) -> None:
        with self._wake:
            while True:
                while self._heap and self._heap[0][2].done:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._wake.wait()
                    continue
                wait = self._heap[0][0] - time.monotonic()
                if wait > 0:
                    self._wake.wait(wait)
                    continue
                heapq.heappop(self._heap)[2].fire()


WATCHDOG = _Watchdog()
os.register_at_fork(after_in_child=WATCHDOG.reset)
current = threading.local()  # the watch of the request this thread is sending


def _not_about_a_cut(record: logging.LogRecord) -> bool:
    """Drop what urllib3 logs about headers a deadline cut short ("Failed to parse headers",
    with a traceback): the run's own error says what happened, once."""
    watch = getattr(current, "watch", None)
    return not (watch is not None and watch.cut)


logging.getLogger("urllib3.connection").addFilter(_not_about_a_cut)


class _Watched:
    """A connection pool telling the current request's watch which connection it holds."""

    def _get_conn(self, timeout: float | None = None) -> Any:
        connection = super()._get_conn(timeout)  # type: ignore[misc]
        watch = getattr(current, "watch", None)
        if watch is not None:
            watch.attach(connection)
            connection.livecert_watch = watch
        return connection

    def _put_conn(self, conn: Any) -> None:
        watch = getattr(conn, "livecert_watch", None)
        if watch is not None:
            watch.detach()
            conn.livecert_watch = None
        super()._put_conn(conn)  # type: ignore[misc]


class _WatchedHTTPPool(_Watched, HTTPConnectionPool):
    pass


class _WatchedHTTPSPool(_Watched, HTTPSConnectionPool):
    pass


WATCHED_POOLS = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}

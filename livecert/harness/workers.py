"""What the workers of one run (`--workers`, pytest-xdist processes) share, and how they keep
out of each other's way on the one target.

Scenarios on different tables and players share no state on the target, so they run at once.
A scenario that restarts the target (REG-INTR-01) would break every request in flight on the
other workers: it runs alone. `ScenarioGate` is a readers-writer lock over a file (flock): a
scenario holds it shared, a restart scenario exclusively, and a turnstile lets a waiting
restart in before scenarios that come after it (otherwise the others, taking it shared in turn,
could keep it waiting to the end of the run).

The embedded reference runs in the run's first process (the controller), once for all workers,
so the certificate names one target. Only that process can restart it: a worker asks it over a
Unix socket (`RestartRelay` serves, `RelayedRestart` asks), and the restart is the same SIGKILL
and start on the same database as a serial run's.
"""

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from livecert.adapters.evidence import ExchangeRecorder
from livecert.harness.embedded import EmbeddedServer, EmbeddedServerError
from livecert.harness.restart import RestartError, record_restart

try:
    import fcntl
except ImportError:  # Windows: no run over workers (pytest-xdist's processes share no lock)
    fcntl = None  # type: ignore[assignment]

RESTART = b"restart\n"
_ANSWER_LIMIT = 4096


def try_lock(path: Path, mode: int, create: bool = True) -> int | None:
    """`path` locked (flock `mode`) without waiting, as a descriptor to close to let it go;
    None when another holds it so that `mode` would wait."""
    descriptor = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o600)
    try:
        fcntl.flock(descriptor, mode | fcntl.LOCK_NB)
    except OSError:
        os.close(descriptor)
        return None
    return descriptor


class ScenarioGate:
    """The workers' lock on the target: `shared()` for a scenario, `alone()` for one that
    restarts it. Files under `folder`, made by the controller and removed with it."""

    def __init__(self, folder: Path) -> None:
        self._turnstile = folder / "turnstile.lock"
        self._target = folder / "target.lock"

    @contextlib.contextmanager
    def _held(self, path: Path, mode: int) -> Iterator[None]:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(descriptor, mode)
            yield
        finally:
            os.close(descriptor)

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        with self._held(self._turnstile, fcntl.LOCK_EX):
            pass  # a restart waiting holds the turnstile: wait behind it
        with self._held(self._target, fcntl.LOCK_SH):
            yield

    @contextlib.contextmanager
    def alone(self) -> Iterator[None]:
        with self._held(self._turnstile, fcntl.LOCK_EX), self._held(self._target, fcntl.LOCK_EX):
            yield

    def restart_waiting(self) -> bool:
        """A restart waits for the target, or runs (it holds the turnstile): work played ahead
        lets it in first."""
        held = try_lock(self._turnstile, fcntl.LOCK_EX)
        if held is None:
            return True
        os.close(held)
        return False

    def round_hold(self) -> int | None:
        """The target held shared for a round a scenario left running (the sweep's rounds
        played ahead), as a descriptor to close when the round is done; None while a restart
        holds the target. Without the turnstile, so a round its scenario waits on never waits
        behind a restart that waits on that scenario; never blocking, so a pool that stops is
        never stuck behind a restart of its own process."""
        return try_lock(self._target, fcntl.LOCK_SH)


class RestartRelay:
    """The controller's side: restarts the embedded reference when a worker asks, one at a
    time, and answers `ok` or what went wrong (a thread serving a Unix socket)."""

    def __init__(self, server: EmbeddedServer, path: Path) -> None:
        self.server, self.path = server, path
        self._lock = threading.Lock()
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._socket.bind(str(path))
        self._socket.listen()
        self._thread = threading.Thread(target=self._serve, name="livecert-restart", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return  # closed: the run is over
            with connection:
                if connection.recv(len(RESTART)) != RESTART:
                    continue
                with self._lock:
                    answer = self._restart()
                connection.sendall(answer.encode("utf-8")[:_ANSWER_LIMIT])

    def _restart(self) -> str:
        try:
            self.server.restart()  # the worker that asked records it as evidence
        except EmbeddedServerError as error:
            return f"error {error}"
        return "ok"

    def close(self) -> None:
        self._socket.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


class RelayedRestart:
    """A worker's restart hook for the embedded reference: the controller restarts it."""

    what = "a SIGKILL and a restart of the embedded reference on the same database"
    kind = "the harness's own: SIGKILL, then the embedded reference started on its database"

    def __init__(self, path: Path, timeout: float, recorder: ExchangeRecorder) -> None:
        self.path, self.timeout, self.recorder = path, timeout, recorder

    def restart(self) -> None:
        shown = "kill -9 <the embedded reference> && python -m livecert.reference --db <the same>"
        started = time.monotonic()
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
                connection.settimeout(self.timeout)
                connection.connect(str(self.path))
                connection.sendall(RESTART)
                answer = connection.recv(_ANSWER_LIMIT).decode("utf-8", "replace")
        except OSError as error:
            answer = f"error the run's first process did not answer: {error}"
        elapsed = (time.monotonic() - started) * 1000
        if answer != "ok":
            why = answer.removeprefix("error ") or "no answer"
            record_restart(self.recorder, shown, None, "", elapsed, why)
            raise RestartError(f"the embedded reference did not restart: {why}")
        record_restart(self.recorder, shown, 0, "", elapsed)

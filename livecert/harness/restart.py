"""Restarting the target mid-round, for interrupted games (REG-INTR-01, GLI-19 §4.16).

Only the lab can restart its server, so it gives the harness a hook: a command
(`--restart-hook`) or a mapping's `restart_target` operation. The embedded reference is restarted
by the harness itself (SIGKILL, then started again on the same database, port and tokens). The
hook is the lab's set-up, not the target's behaviour: one that fails or hangs is a set-up error
(`RestartError`, the verdict `incomplete`), never a finding. After it the harness waits, bounded,
until the target answers again. Each restart is recorded as evidence (a RUN exchange).
"""

import contextlib
import os
import shlex
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import NoReturn, Protocol

from livecert.adapters import Refused, TargetError
from livecert.adapters.errors import CredentialsError
from livecert.adapters.evidence import Exchange, ExchangeRecorder
from livecert.harness.embedded import EmbeddedServer, EmbeddedServerError
from livecert.harness.findings import HarnessError

OPERATION = "restart the target"
DEFAULT_TIMEOUT = 120.0  # seconds for the hook, then as long again for the target to answer
POLL_INTERVAL = 0.2


class RestartError(HarnessError):
    """The restart hook failed or hung, or the target did not answer again in time: the lab's
    set-up went wrong, never a finding against the target; the verdict is `incomplete`."""


class RestartHook(Protocol):
    """Restarts the target now; raises RestartError when that cannot be done."""

    what: str  # the hook in words, for the evidence and for errors
    kind: str  # what kind of hook, for the certificate

    def restart(self) -> None: ...


def _record(recorder: ExchangeRecorder, shown: str, status: int | None, output: str, ms: float,
            error: str | None = None) -> None:  # fmt: skip
    recorder.add(
        Exchange(
            recorder.next_seq(), OPERATION, "lab", "RUN", shown, None, status, output, ms, error
        )
    )


class CommandRestart:
    """The lab's `--restart-hook COMMAND`: run without a shell (split like a shell would), with a
    deadline; exit status 0 means the target was restarted (or is coming back)."""

    def __init__(self, command: str, timeout: float, recorder: ExchangeRecorder) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as error:
            raise RestartError(f"--restart-hook={command!r} cannot be split: {error}") from None
        if not self.argv:
            raise RestartError("--restart-hook is empty: give the command that restarts it")
        self.command, self.timeout, self.recorder = command, timeout, recorder
        self.what, self.kind = f"the restart hook {command!r}", "the lab's --restart-hook command"

    def restart(self) -> None:
        """Run the hook until it exits (not until every process it started does: a server it
        starts in the background keeps running, and may keep its output); past the deadline
        the hook and what it started are killed."""
        started = time.monotonic()
        with tempfile.TemporaryFile() as sink:
            try:
                process = subprocess.Popen(
                    self.argv,
                    stdin=subprocess.DEVNULL,
                    stdout=sink,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # its own group, to end whole if it hangs
                )
            except OSError as error:
                self._failed(started, f"could not be run: {error}")
            try:
                status = process.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                self._failed(started, f"did not end within {self.timeout:g} s")
            sink.seek(0)
            output = sink.read()[-2000:].decode(errors="replace")
        _record(self.recorder, self.command, status, output, _ms(started))
        if status != 0:
            raise RestartError(f"{self.what} exited {status}: {output[-300:]!r}")

    def _failed(self, started: float, problem: str) -> NoReturn:
        _record(self.recorder, self.command, None, "", _ms(started), problem)
        raise RestartError(f"{self.what} {problem}")


def _ms(started: float) -> float:
    return (time.monotonic() - started) * 1000


class EmbeddedRestart:
    """The harness's own hook for the embedded reference: SIGKILL (a crash), then the server
    started again on the same database, port and tokens."""

    what = "a SIGKILL and a restart of the embedded reference on the same database"
    kind = "the harness's own: SIGKILL, then the embedded reference started on its database"

    def __init__(self, server: EmbeddedServer, recorder: ExchangeRecorder) -> None:
        self.server, self.recorder = server, recorder

    def restart(self) -> None:
        pid = self.server.process.pid if self.server.process else "?"
        shown = (  # the tokens are the same as before; never written in the evidence
            f"kill -9 {pid} && python -m livecert.reference --port "
            f"{self.server.url.rsplit(':', 1)[-1]} --db <the same database>"
        )
        started = time.monotonic()
        try:
            self.server.restart()
        except EmbeddedServerError as error:
            _record(self.recorder, shown, None, "", (time.monotonic() - started) * 1000, str(error))
            raise RestartError(f"the embedded reference did not restart: {error}") from None
        _record(self.recorder, shown, 0, "", (time.monotonic() - started) * 1000)


class OperationRestart:
    """A mapping's `restart_target` operation (an admin endpoint, or a command hook): the
    adapter records it. A refusal is the set-up failing; a connection the restart broke is
    expected, and the wait that follows says whether the target came back."""

    what = kind = "the mapping's restart_target operation"

    def __init__(self, restart_target: Callable[[], None]) -> None:
        self.restart_target = restart_target
        self.broke: str | None = None  # a target error the call met (the restart under way)

    def restart(self) -> None:
        self.broke = None
        try:
            self.restart_target()
        except Refused as refused:
            raise RestartError(f"{self.what} was refused: {refused}") from None
        except TargetError as error:
            self.broke = str(error)


def wait_until_answers(
    probe: Callable[[], object],
    bound: float,
    what: str,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Call `probe` (a read of the target) until it answers, at most `bound` seconds; the target
    not answering again is the restart's failure (set-up), not a finding."""
    deadline = time.monotonic() + bound
    while True:
        try:
            probe()
            return
        except CredentialsError as error:  # it answers, but no longer to the run's credentials
            raise RestartError(
                f"after {what} the target refuses the run's credentials: {error}"
            ) from None
        except TargetError as error:
            if time.monotonic() >= deadline:
                raise RestartError(
                    f"the target did not answer within {bound:g} s after {what}: {error}"
                ) from None
        sleep(POLL_INTERVAL)


def restart_and_wait(hook: RestartHook, probe: Callable[[], object], bound: float) -> None:
    """Restart the target through `hook`, then wait (at most `bound` seconds) until `probe`
    answers."""
    hook.restart()
    wait_until_answers(probe, bound, hook.what)

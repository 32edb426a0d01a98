"""Restarting the target mid-round, for interrupted games (REG-INTR-01, GLI-19 §4.16).

Only the lab can restart its server, so it gives the harness a hook: a command
(`--restart-hook`) or a mapping's `restart_target` operation. The embedded reference is restarted
by the harness itself (SIGKILL, then started again on the same database, port and tokens). The
hook is the lab's set-up, not the target's behaviour: one that fails or hangs is a set-up error
(`RestartError`, the verdict `incomplete`), never a finding. After it the harness waits, bounded,
until the target answers again. Each restart is recorded as evidence (a RUN exchange), with
the run's secrets masked in the command and its output.

A hook's exit status proves nothing: the restart must be observed. It is where the target's
`/v1/info` names a new `instance` (the running server process) after the hook, or where the
harness saw the target down after calling it (a connection refused or broken, with no status).
A restart not observed makes the scenario not testable (`observe_restart`), never passed.
"""

import contextlib
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import NoReturn, Protocol

from livecert.adapters import Refused, RunCut, TargetError, TargetInfo
from livecert.adapters.errors import CredentialsError, Unsupported
from livecert.adapters.evidence import Exchange, ExchangeRecorder
from livecert.adapters.secrets import SECRETS
from livecert.harness.embedded import EmbeddedServer, EmbeddedServerError
from livecert.harness.findings import HarnessError
from livecert.harness.restart_options import split_hook

OPERATION = "restart the target"
POLL_INTERVAL = 0.2
IDENTITY = (("name", "name"), ("version", "version"), ("contract_version", "contract version"))
NOT_OBSERVED = "the restart could not be observed: {why}; serve `instance` in /v1/info"


class RestartError(HarnessError):
    """The restart hook failed or hung, or the target did not answer again in time: the lab's
    set-up went wrong, never a finding against the target; the verdict is `incomplete`."""


class RestartHook(Protocol):
    """Restarts the target now; raises RestartError when that cannot be done."""

    what: str  # the hook in words, for the evidence and for errors
    kind: str  # what kind of hook, for the certificate

    def restart(self) -> str | None:
        """Restart the target; answer the outage the hook itself saw (a connection the restart
        broke), if it saw one."""
        ...


def record_restart(recorder: ExchangeRecorder, shown: str, status: int | None, output: str,
                   ms: float, error: str | None = None) -> None:  # fmt: skip
    """A restart as evidence (the recorder masks the run's secrets when it hands it over)."""
    recorder.add(
        Exchange(
            recorder.next_seq(), OPERATION, "lab", "RUN", shown, None, status, output, ms, error
        )
    )


class CommandRestart:
    """The lab's `--restart-hook COMMAND`: run without a shell (split like a shell would), with a
    deadline; exit status 0 says it is done, not that the target restarted (that is observed)."""

    def __init__(self, command: str, timeout: float, recorder: ExchangeRecorder) -> None:
        try:
            self.argv = split_hook(command)
        except ValueError as error:
            raise RestartError(str(error)) from None
        self.command, self.timeout, self.recorder = command, timeout, recorder
        self.what = f"the restart hook {SECRETS.mask(command)!r}"
        self.kind = "the lab's --restart-hook command"

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
        record_restart(self.recorder, self.command, status, output, _ms(started))
        if status != 0:
            raise RestartError(f"{self.what} exited {status}: {SECRETS.mask(output[-300:])!r}")

    def _failed(self, started: float, problem: str) -> NoReturn:
        record_restart(self.recorder, self.command, None, "", _ms(started), problem)
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
            elapsed = (time.monotonic() - started) * 1000
            record_restart(self.recorder, shown, None, "", elapsed, str(error))
            raise RestartError(f"the embedded reference did not restart: {error}") from None
        record_restart(self.recorder, shown, 0, "", (time.monotonic() - started) * 1000)


class OperationRestart:
    """A mapping's `restart_target` operation (an admin endpoint, or a command hook): the
    adapter records it. A refusal or any other answered status is the set-up failing; only a
    connection the restart broke (no status) is the restart under way, and an outage seen."""

    what = kind = "the mapping's restart_target operation"

    def __init__(self, restart_target: Callable[[], None]) -> None:
        self.restart_target = restart_target

    def restart(self) -> str | None:
        try:
            self.restart_target()
        except Refused as refused:
            raise RestartError(f"{self.what} was refused: {refused}") from None
        except TargetError as error:
            if error.answered is not None:
                raise RestartError(
                    f"{self.what} was answered {error.answered}: {error.detail}"
                ) from None
            if error.connection_lost:
                return f"the connection of {self.what} broke: {error.detail}"
        return None  # no answer in time (a timeout) shows nothing: the wait and instance tell


def wait_until_answers(
    probe: Callable[[], object],
    bound: float,
    what: str,
    sleep: Callable[[float], None] = time.sleep,
) -> str | None:
    """Call `probe` (a read of the target) until it answers, at most `bound` seconds; answer the
    first outage seen (no answer: refused, reset), if any. The target not answering again, or
    answering a 4xx (it is up, but not to the run), is the restart's failure (set-up), not a
    finding."""
    deadline = time.monotonic() + bound
    outage = None
    while True:
        try:
            probe()
            return outage
        except CredentialsError as error:  # it answers, but no longer to the run's credentials
            raise RestartError(
                f"after {what} the target refuses the run's credentials: {error}"
            ) from None
        except RunCut:  # the run's end, not the target's
            raise
        except TargetError as error:
            if error.answered is not None and 400 <= error.answered < 500:
                raise RestartError(
                    f"after {what} the target answered {error.answered} to "
                    f"{error.operation}: {error.detail}"
                ) from None
            if error.connection_lost:  # refused or reset, not merely slow: the target down
                outage = outage or f"the target did not answer {error.operation}: {error.detail}"
            if time.monotonic() >= deadline:
                raise RestartError(
                    f"the target did not answer within {bound:g} s after {what}: {error}"
                ) from None
        sleep(POLL_INTERVAL)


def restart_and_wait(hook: RestartHook, probe: Callable[[], object], bound: float) -> str | None:
    """Restart the target through `hook`, then wait (at most `bound` seconds) until `probe`
    answers; answer the outage seen (by the hook or the wait), if any."""
    broke = hook.restart()
    seen = wait_until_answers(probe, bound, hook.what)
    return broke or seen


def observe_restart(before: TargetInfo, after: TargetInfo, outage: str | None) -> str:
    """How the restart was seen: a new `instance`, else the outage. Another server answering
    after it is a set-up error (RestartError); a restart not seen makes the scenario not
    testable (Unsupported): a hook's word that it restarted proves nothing."""
    said = [
        f"{what} {getattr(before, field)!r} before, {getattr(after, field)!r} after"
        for field, what in IDENTITY
        if getattr(before, field) != getattr(after, field)
    ]
    if said:
        raise RestartError(
            "after the restart another server answers (" + "; ".join(said) + "): the hook must "
            "restart the same server"
        )
    if before.instance is not None and after.instance is not None:
        if before.instance != after.instance:
            return f"the instance was {before.instance!r}, now {after.instance!r}"
        why = f"the target names the same instance {after.instance!r} before and after the hook"
        raise Unsupported(OPERATION, NOT_OBSERVED.format(why=why))
    if outage:
        return outage
    why = "the target names no instance and was never seen down after the hook"
    raise Unsupported(OPERATION, NOT_OBSERVED.format(why=why))

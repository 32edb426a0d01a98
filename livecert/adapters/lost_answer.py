"""A real network fault for REG-IDEMP-01: one bet request reaches the target, its answer is lost.

`LostAnswerRelay` is a TCP relay on a loopback port the harness opens for one request: it forwards
one connection to the target byte for byte (a TLS handshake passes through untouched, so the
target's certificate is checked against its own name), and once the harness says the request
follows (`request_follows`), everything the target sends back is dropped. The relay reads the
target's answer to its end (the request says `Connection: close`) or a short bound, then closes
the harness's side: the target applied the request, the harness never saw the answer. Bound to
127.0.0.1 only, one connection, every wait bounded, stopped when done.

`send_answer_lost` sends one request through a relay with urllib3 (a connection to the relay that
speaks to the target under its own name: Host header, TLS server name and hostname check), either
waiting until the target has answered (the answer lost on its way back) or returning as soon as
the request is sent (the harness gives up while the target is still at work: a re-send races the
first request).
"""

import contextlib
import socket
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from requests.utils import DEFAULT_CA_BUNDLE_PATH
from urllib3.connection import HTTPConnection, HTTPSConnection

from livecert.adapters.errors import AdapterError

RELAY_BOUND_S = 10.0  # the longest the relay waits for any one thing (a connection, an answer)
_CHUNK = 65536


class RelayFailed(Exception):
    """The slip could not be sent through the relay (the target unreachable, a TLS check)."""


class RelayError(AdapterError):
    """The harness's own relay did not do its part (it never passed the whole request on): a
    harness error, the run incomplete, never a finding against the target."""


@dataclass
class DroppedAnswer:
    """What the relay saw of the answer it kept from the harness."""

    answered: bool  # the target's answer came to its end (it sent one and closed)
    dropped_bytes: int
    first_line: str  # the answer's status line where readable (plain HTTP), else ""
    problem: str = ""  # why the relay could not do its job (no connection, target unreachable)
    in_flight: bool = False  # the harness left as soon as its request was passed on
    closed: bool = False  # the target closed its side (with or without an answer)

    @property
    def status(self) -> int | None:
        """The status the target answered with, where its status line was readable (plain
        HTTP; over TLS the relay sees only ciphertext): None otherwise."""
        parts = self.first_line.split(" ", 2)
        if len(parts) < 2 or not parts[1].isdigit():
            return None
        return int(parts[1])

    def describe(self) -> str:
        if self.problem:
            return f"the harness's fault relay failed: {self.problem}"
        shown = f" ({self.first_line})" if self.first_line else ""
        if self.answered:
            return (
                f"answer dropped on purpose by the harness's loopback fault relay: the target "
                f"answered{shown}, {self.dropped_bytes} bytes never passed on"
            )
        why = (
            "the target closed the connection without an answer"
            if self.closed
            else "the harness left before the target's answer"
            if self.in_flight
            else "the target's answer did not end within the relay's bound"
        )
        return (
            f"answer dropped on purpose by the harness's loopback fault relay: {why}; "
            f"{self.dropped_bytes} bytes of it seen{shown}"
        )


class LostAnswerRelay:
    """Relays one connection from 127.0.0.1:`port` to `upstream`, dropping the answer."""

    def __init__(self, upstream: tuple[str, int], bound_s: float = RELAY_BOUND_S) -> None:
        self.upstream = upstream
        self.bound_s = bound_s
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(bound_s)
        self.port: int = self._listener.getsockname()[1]
        self._dropping = threading.Event()
        self._done = threading.Event()
        self._client_gone = threading.Event()
        self._all_passed = False  # the harness closed its side and all it sent was passed on
        self.result = DroppedAnswer(False, 0, "")
        self._thread = threading.Thread(target=self._run, name="lost-answer-relay", daemon=True)
        self._thread.start()

    def request_follows(self) -> None:
        """From now on nothing the target sends reaches the harness (called after the TLS
        handshake, before the request is written: the answer can only come after it)."""
        self._dropping.set()

    def wait(self, timeout: float | None = None) -> DroppedAnswer:
        """Wait until the relay is done (the target answered, or its bound ran out)."""
        self._thread.join(self.bound_s * 2 + 1 if timeout is None else timeout)
        return self.result

    def forwarded(self, timeout: float) -> bool:
        """Wait until the harness closed its side; True when all it sent was passed to the
        target, or the target answered it whole (which it can only do once it had it: a send
        that failed after that, such as the harness's TLS close alert, lost nothing)."""
        if not self._client_gone.wait(timeout):
            return False
        if self._all_passed:
            return True
        self._done.wait(timeout)
        return self.result.answered

    def close(self) -> None:
        """Wait until the relay is done (within its bounds) and stop it."""
        self._thread.join(self.bound_s * 2 + 1)
        self._listener.close()

    def abort(self) -> None:
        """Stop the relay at once (the harness could not send its request)."""
        self._done.set()
        with contextlib.suppress(OSError):  # wakes a relay still waiting for a connection
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        self._listener.close()
        self._thread.join(self.bound_s * 2 + 1)

    def _run(self) -> None:
        try:
            client, _ = self._listener.accept()
        except OSError as error:
            self.result.problem = f"the harness never connected to it ({error})"
            return
        finally:
            self._listener.close()
        if self._done.is_set():
            client.close()
            return
        try:
            upstream = socket.create_connection(self.upstream, timeout=self.bound_s)
        except OSError as error:
            self.result.problem = f"cannot reach the target at {self.upstream} ({error})"
            client.close()
            return
        with client, upstream:
            pump = threading.Thread(target=self._forward, args=(client, upstream), daemon=True)
            pump.start()
            self._back(upstream, client)
            pump.join(self.bound_s)

    def _forward(self, client: socket.socket, upstream: socket.socket) -> None:
        """Harness to target, byte for byte, until the harness closes or the relay is done."""
        client.settimeout(0.05)
        deadline = time.monotonic() + self.bound_s
        while not self._done.is_set() and time.monotonic() < deadline:
            try:
                data = client.recv(_CHUNK)
            except TimeoutError:
                continue
            except OSError:
                break
            if not data:
                self._all_passed = True
                break
            try:
                upstream.sendall(data)
            except OSError:
                break
        self._client_gone.set()

    def _back(self, upstream: socket.socket, client: socket.socket) -> None:
        """Target to harness: passed on until `request_follows`, then read to its end and
        dropped; the harness's side is closed once the answer is complete."""
        upstream.settimeout(0.05)
        deadline = time.monotonic() + self.bound_s
        seen = b""
        try:
            while not self._done.is_set() and time.monotonic() < deadline:
                try:
                    data = upstream.recv(_CHUNK)
                except TimeoutError:
                    continue
                except OSError:
                    break
                if not data:  # answered only if it sent something: a bare close is no answer
                    self.result.answered = self._dropping.is_set() and bool(seen)
                    self.result.closed = True
                    break
                if not self._dropping.is_set():  # the TLS handshake: passed on
                    with contextlib.suppress(OSError):
                        client.sendall(data)
                    continue
                self.result.dropped_bytes += len(data)
                seen = (seen + data)[:200]
        finally:
            self._done.set()
            if seen.startswith(b"HTTP/"):
                self.result.first_line = seen.split(b"\r\n", 1)[0].decode("latin-1")
            with contextlib.suppress(OSError):
                client.shutdown(socket.SHUT_RDWR)


def send_answer_lost(
    base_url: str,
    method: str,
    path: str,
    body: str,
    headers: dict[str, str],
    *,
    verify: bool | str,
    wait_for_answer: bool,
    timeout: float,
) -> LostAnswerRelay:
    """Send one request to `base_url` + `path` through a fresh relay that drops its answer.

    Returns the relay, still running when `wait_for_answer` is False (the caller closes it); raises
    RelayFailed when the request could not be sent or the relay could not reach the target. With
    `wait_for_answer` the target's whole answer was read and dropped before this returns; without,
    this returns once the relay has passed the whole request on.
    """
    url = urlsplit(base_url)
    secure = url.scheme == "https"
    host = url.hostname or ""
    port = url.port or (443 if secure else 80)
    relay = LostAnswerRelay((host, port))
    relay.result.in_flight = not wait_for_answer
    connection: HTTPConnection
    if secure:
        connection = HTTPSConnection(
            "127.0.0.1",
            relay.port,
            timeout=timeout,
            server_hostname=host,
            cert_reqs="CERT_REQUIRED" if verify else "CERT_NONE",
            ca_certs=verify if isinstance(verify, str) else DEFAULT_CA_BUNDLE_PATH,
        )
    else:
        connection = HTTPConnection("127.0.0.1", relay.port, timeout=timeout)
    target = url.path.rstrip("/") + path
    try:
        connection.connect()
        relay.request_follows()
        connection.request(
            method,
            target,
            body=body.encode(),
            headers={**headers, "Host": url.netloc, "Connection": "close"},
        )
    except OSError as error:
        connection.close()
        relay.abort()
        raise RelayFailed(relay.result.problem or f"{type(error).__name__}: {error}") from None
    except BaseException:
        connection.close()
        relay.abort()
        raise
    if wait_for_answer:
        relay.wait()  # the relay closes the harness's side once the target has answered
        connection.close()
    else:
        connection.close()  # the harness gives up; the relay passes on all it was sent
        if not relay.forwarded(relay.bound_s) and not relay.result.problem:
            relay.close()
            raise RelayError(
                "the harness's fault relay did not pass the whole slip on to the target (within "
                f"its bound of {relay.bound_s:g} s): the re-send could not be judged"
            )
    if relay.result.problem:
        relay.close()
        raise RelayFailed(relay.result.problem)
    return relay

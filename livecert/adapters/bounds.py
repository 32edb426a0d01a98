"""How long one request may take and how large its answer may be, whatever the target does.

A socket timeout bounds each read, not the request: a target sending its answer one byte a
second keeps every read short and the run waiting forever. So every request has a total
deadline (connect, send, status line, headers and the whole body) and a cap on its answer's
size, and a run may have an end (`--max-duration`) that cuts the request in flight.

requests and urllib3 have no total deadline; urllib3's documentation advises a watcher thread
that cuts a slow request off. `BoundedTransport` (mounted on every session an adapter sends
with) is that: one watchdog thread shuts the socket of a request whose deadline passed down,
whichever phase the request is in, and the body is read in chunks and given up past the cap.
"""

import contextlib
import heapq
import itertools
import logging
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import DecodeError, HTTPError, ReadTimeoutError
from urllib3.poolmanager import ProxyManager

from livecert.adapters.lean_session import LeanSession
from livecert.adapters.rate import RateGate, RequestRate

MIB = 1024 * 1024
DEFAULT_REQUEST_DEADLINE = 30.0  # seconds for a whole request (connect, send, the whole answer)
DEFAULT_MAX_ANSWER_BYTES = 16 * MIB
_CHUNK = 64 * 1024
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(|B|KB|KiB|K|MB|MiB|M|GB|GiB|G)\s*$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1024, "kib": 1024, "kb": 1000, "m": MIB, "mib": MIB, "mb": 10**6}
_UNITS |= {"g": 1024 * MIB, "gib": 1024 * MIB, "gb": 10**9}


def parse_size(text: str) -> int:
    """Bytes from a size a lab writes: 16777216, 16MiB, 64KiB, 20MB (ValueError otherwise)."""
    found = _SIZE.match(str(text))
    if not found or float(found.group(1)) <= 0:
        raise ValueError(
            f"{text!r} is not a size; expected bytes or a number with a unit, e.g. 16MiB, 64KiB"
        )
    return int(float(found.group(1)) * _UNITS[found.group(2).lower()])


def show_size(size: int) -> str:
    """A size as a lab reads it back (16 MiB, 64 KiB, 1000 bytes)."""
    for unit, name in ((MIB, "MiB"), (1024, "KiB")):
        if size >= unit and size % unit == 0:
            return f"{size // unit} {name}"
    return f"{size} bytes"


@dataclass(frozen=True)
class Bounds:
    """The bounds of every request an adapter sends: its total deadline in seconds, the largest
    answer it reads, and the run's end (seconds since the epoch, so a subprocess can be told
    it; None: the run may take as long as it takes) with the --max-duration it came from."""

    request_deadline: float = DEFAULT_REQUEST_DEADLINE
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES
    run_ends_at: float | None = None
    max_duration: float | None = None
    rate: RateGate | None = field(default=None, compare=False)  # --rate-limit, the run's one

    @classmethod
    def for_run(
        cls,
        request_deadline: float = DEFAULT_REQUEST_DEADLINE,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        max_duration: float | None = None,
        ends_at: float | None = None,
        rate_limit: RequestRate | None = None,
        rate_shared_by: Path | None = None,
    ) -> "Bounds":
        """The bounds of a run starting now: it ends `max_duration` seconds from now, or at
        `ends_at` when the process that started it says when (it counts the time before); its
        requests keep to `rate_limit`, counted in the file `rate_shared_by` when several
        processes of the run send them."""
        if max_duration is not None and ends_at is None:
            ends_at = time.time() + max_duration
        gate = RateGate(rate_limit, rate_shared_by) if rate_limit is not None else None
        return cls(request_deadline, max_answer_bytes, ends_at, max_duration, gate)

    def run_left(self) -> float | None:
        """Seconds until the run's end (None: no end)."""
        return None if self.run_ends_at is None else self.run_ends_at - time.time()

    def deadline(self, timeout: tuple[float, float]) -> "Deadline":
        """The deadline of a request starting now: its own, or the run's end if that is sooner.
        Under --rate-limit the request first waits its turn (its own deadline starts after)."""
        if self.rate is not None and not self.rate.wait(self.run_left()):
            # the run ended before the turn came: a deadline already past, by the run's end
            return Deadline(time.monotonic(), timeout, self.max_answer_bytes, True, self)
        allowed, by_run = self.request_deadline, False
        run_left = self.run_left()
        if run_left is not None and run_left < allowed:
            allowed, by_run = run_left, True
        return Deadline(time.monotonic() + allowed, timeout, self.max_answer_bytes, by_run, self)


DEFAULT_BOUNDS = Bounds()


@dataclass(frozen=True)
class Deadline:
    """One request's bounds, passed to requests as its `timeout` (BoundedTransport reads it):
    the monotonic instant it ends, the socket timeouts, the answer cap, and whether the run's
    end (not the request's own deadline) set it."""

    at: float
    timeout: tuple[float, float]
    max_answer_bytes: int
    by_run: bool
    bounds: Bounds

    def left(self) -> float:
        return self.at - time.monotonic()

    def why(self) -> str:
        """What ran out, and how to change it, in a lab's words."""
        if self.by_run:
            return f"no whole answer before the run's end: {self.limit()}"
        return f"no whole answer within {self.limit()}"

    def limit(self) -> str:
        """The bound that set this deadline, and how to change it."""
        if self.by_run:
            duration = self.bounds.max_duration
            return "the run was cut by --max-duration" + (
                f" ({duration:g} s)" if duration is not None else ""
            )
        return f"{self.bounds.request_deadline:g} s (total deadline; --request-deadline to change)"


def _bytes(count: int) -> str:
    return f"{count} byte{'' if count == 1 else 's'}"


class DeadlinePassed(requests.Timeout):
    """The request's total deadline (or the run's end) passed before its whole answer came;
    `partial` is what of its body came (kept as the exchange's evidence)."""

    def __init__(
        self,
        deadline: Deadline,
        status: int | None,
        partial: bytes = b"",
        sent: bool = True,
    ) -> None:
        said = ""
        if status is not None:
            said = f"; it answered {status}, and {_bytes(len(partial))} of its body came"
        super().__init__(deadline.why() + said if sent else f"not sent: {deadline.limit()}")
        self.deadline, self.status, self.partial = deadline, status, partial


class AnswerCutShort(requests.exceptions.ChunkedEncodingError):
    """The target closed the connection before its answer's end: fewer bytes than its
    Content-Length declared, or a chunked body without its last chunk. `partial` is what came
    (decoded), `sent` how many bytes of the body came on the wire."""

    def __init__(self, status: int, partial: bytes, sent: int, declared: int | None) -> None:
        end = (
            f"after {sent} of the {_bytes(declared)} its Content-Length declared"
            if declared is not None
            else f"after {_bytes(sent)} of its body, before the body's end"
        )
        super().__init__(f"answered {status} and closed the connection {end}")
        self.status, self.partial = status, partial


class AnswerStalled(requests.ConnectionError):
    """The target began its answer, then sent nothing for a whole read timeout (--timeout)."""

    def __init__(self, status: int, partial: bytes, sent: int, read: float) -> None:
        super().__init__(
            f"answered {status}, then sent nothing for {read:g} s after {_bytes(sent)} of its "
            "body (--timeout bounds each read)"
        )
        self.status, self.partial = status, partial


class AnswerTooLarge(requests.RequestException):
    """The answer is larger than the cap on an answer's size: it was not read further."""

    def __init__(self, cap: int, status: int, declared: int | None) -> None:
        size = f"declared {declared} bytes" if declared is not None else "it went on past it"
        super().__init__(
            f"answered {status} with a body larger than {show_size(cap)} ({size}; the cap on an "
            "answer's size; --max-answer-size to change)"
        )
        self.cap, self.status = cap, status


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


_WATCHDOG = _Watchdog()
os.register_at_fork(after_in_child=_WATCHDOG.reset)
_current = threading.local()  # the watch of the request this thread is sending


def _not_about_a_cut(record: logging.LogRecord) -> bool:
    """Drop what urllib3 logs about headers a deadline cut short ("Failed to parse headers",
    with a traceback): the run's own error says what happened, once."""
    watch = getattr(_current, "watch", None)
    return not (watch is not None and watch.cut)


logging.getLogger("urllib3.connection").addFilter(_not_about_a_cut)


class _Watched:
    """A connection pool telling the current request's watch which connection it holds."""

    def _get_conn(self, timeout: float | None = None) -> Any:
        connection = super()._get_conn(timeout)  # type: ignore[misc]
        watch = getattr(_current, "watch", None)
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


_WATCHED_POOLS = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}


class BoundedTransport(HTTPAdapter):
    """requests' transport, holding a request sent with a `Deadline` as its timeout to that
    deadline and its answer to the cap (any other timeout: requests' own behaviour)."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _WATCHED_POOLS

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if type(manager) is ProxyManager:  # a SOCKS proxy keeps its own pools: per-read bounds
            manager.pool_classes_by_scheme = _WATCHED_POOLS
        return manager

    def send(  # type: ignore[override]
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: Any = None,
        verify: Any = True,
        cert: Any = None,
        proxies: Any = None,
    ) -> requests.Response:
        if not isinstance(timeout, Deadline):
            return super().send(request, stream, timeout, verify, cert, proxies)
        deadline = timeout
        left = deadline.left()
        if left <= 0:
            raise DeadlinePassed(deadline, None, sent=False)
        connect, read = deadline.timeout
        watch = _WATCHDOG.watch(deadline.at)
        _current.watch = watch
        response: requests.Response | None = None
        chunks: list[bytes] = []  # the body as it came, kept if it comes no further
        try:
            response = super().send(
                request, True, (min(connect, left), min(read, left)), verify, cert, proxies
            )
            _current.watch = None  # the body is read on this connection, no new one taken
            if watch.cut:  # cut while the headers came: their end was the cut, not the target's
                response.close()
                raise DeadlinePassed(deadline, None)
            declared = response.headers.get("Content-Length", "")
            cap = deadline.max_answer_bytes
            if declared.isdigit() and int(declared) > cap:
                response.close()
                raise AnswerTooLarge(cap, response.status_code, int(declared))
            try:
                body = _read_body(response, deadline, cap, chunks)
            except (HTTPError, OSError) as error:  # the body did not come whole
                # (requests' own errors are OSErrors too: the cap's and the deadline's pass on)
                if isinstance(error, requests.RequestException) or watch.cut:
                    raise
                if deadline.left() <= 0:  # cut by the deadline: DeadlinePassed, below
                    raise
                response.close()
                raise _body_error(error, response, b"".join(chunks), min(read, left)) from error
            if watch.cut:  # a cut read can look like an answer's end (headers ended by it)
                raise DeadlinePassed(deadline, response.status_code, body)
            response._content = body  # what requests itself keeps as the body
            return response
        except (requests.RequestException, HTTPError, OSError) as error:
            if isinstance(error, AnswerTooLarge | DeadlinePassed | AnswerCutShort):
                raise
            if watch.cut or deadline.left() <= 0:
                if response is not None:
                    response.close()
                status = response.status_code if response is not None else None
                raise DeadlinePassed(deadline, status, b"".join(chunks)) from error
            raise
        finally:
            _current.watch = None
            watch.cancel()


def _body_error(
    error: BaseException, response: requests.Response, partial: bytes, read: float
) -> requests.RequestException:
    """What a failed read of a body was: a stall past the read timeout, a body that cannot be
    decoded (requests' own errors, as before), or the connection closed before its end."""
    status, sent = response.status_code, response.raw.tell()
    if isinstance(error, ReadTimeoutError | socket.timeout):
        return AnswerStalled(status, partial, sent, read)
    if isinstance(error, DecodeError):
        return requests.exceptions.ContentDecodingError(error, response=response)
    declared = response.headers.get("Content-Length", "")
    return AnswerCutShort(status, partial, sent, int(declared) if declared.isdigit() else None)


def _read_body(
    response: requests.Response, deadline: Deadline, cap: int, chunks: list[bytes]
) -> bytes:
    """The whole body, read as it comes (`read1`: a body dripping a byte at a time is kept to
    the last byte that came, where a read of a whole chunk would hold them all back) into
    `chunks`, given up past the cap or the deadline."""
    received = 0
    while piece := response.raw.read1(_CHUNK, decode_content=True):
        received += len(piece)
        if received > cap:
            response.close()
            raise AnswerTooLarge(cap, response.status_code, None)
        chunks.append(piece)
        if deadline.left() <= 0:
            response.close()
            raise DeadlinePassed(deadline, response.status_code, b"".join(chunks))
    return b"".join(chunks)


class RedirectElsewhere(requests.RequestException):
    """A redirect to another origin (scheme, host or port) than the request's: not followed.
    The run's credentials go to the target it was given only (requests drops Authorization on
    such a redirect, and the other host's 401 would read as the target refusing the token)."""

    def __init__(self, response: requests.Response, to: str) -> None:
        super().__init__(
            f"answered {response.status_code}, a redirect to another host ({to}): not "
            "followed, since the run sends its credentials to the target it was given only; "
            "if that is the target, give its URL as --target-url",
            response=response,
        )
        self.status = response.status_code


def _origin(url: str) -> tuple[str, str | None, int | None]:
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, parts.hostname, parts.port or default


class BoundedSession(LeanSession):
    """The harness's session: follows a redirect within the target's origin only. A request
    sent with allow_redirects=False (a mapping's calls) is answered its 3xx as it came: requests
    then reads the redirect's target only to note it, and nothing goes there."""

    _following = threading.local()

    def resolve_redirects(  # type: ignore[override]
        self, resp: requests.Response, req: requests.PreparedRequest, *args: Any, **kwargs: Any
    ) -> Iterator[Any]:
        following = not kwargs.get("yield_requests", False)
        self._following.on = following
        try:
            yield from super().resolve_redirects(resp, req, *args, **kwargs)
        finally:
            self._following.on = False

    def get_redirect_target(self, resp: requests.Response) -> str | None:
        location = super().get_redirect_target(resp)
        if location is not None and getattr(self._following, "on", False):
            to = urljoin(resp.url, location)
            if _origin(to) != _origin(resp.url):
                resp.close()
                raise RedirectElsewhere(resp, to)
        return location


CA_BUNDLE_VARIABLES = ("LIVECERT_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")


def trusted_authorities() -> str | None:
    """The CA file a lab names for its targets (--ca-bundle sets LIVECERT_CA_BUNDLE; requests'
    own variables are read as requests reads them), or None: the system's authorities."""
    return next((os.environ[name] for name in CA_BUNDLE_VARIABLES if os.environ.get(name)), None)


def bounded_session(base_url: str, **pool: int) -> requests.Session:
    """A session sending through BoundedTransport, with no proxy but the environment's for the
    target (read once: requests reads it per request when trust_env is on)."""
    session = BoundedSession()
    session.mount("http://", BoundedTransport(**pool))
    session.mount("https://", BoundedTransport(**pool))
    session.trust_env = False
    session.proxies.update(requests.utils.get_environ_proxies(base_url))
    if ca_bundle := trusted_authorities():
        session.verify = ca_bundle
    session.headers.update({"User-Agent": "livecert-harness", "Accept": "application/json"})
    return session

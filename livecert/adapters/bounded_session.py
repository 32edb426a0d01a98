"""The harness's HTTP session: every request held to its `Deadline` and its answer to the cap
(`bounds.py`), redirects followed within the target's origin only, and a plain request sent
straight through urllib3.

`BoundedTransport` is requests' transport with the bounds: the watchdog of `deadline_watch.py`
shuts the socket of a request whose deadline passed, whichever phase it is in, and the body is
read in chunks and given up past the cap. `BoundedSession` sends a request with nothing to merge
(`LeanSession`) without requests' per-request machinery when nothing of it applies: no proxy, a
URL requests would send as it is, a text body, redirects followed. That machinery (preparing the
request, `Session.send`, `HTTPAdapter.send`, building the answer and its cookie jar) was about
half the client's CPU of a request, as much as the harness's checks of a sweep round; the
request on the wire is the same, byte for byte, and so are the answer and requests' errors. An
answer that redirects or sets a cookie is handed back to requests, which follows or keeps it.
"""

import os
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import timedelta
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
import urllib3.exceptions as urllib3_errors
from requests.adapters import HTTPAdapter
from requests.cookies import extract_cookies_to_jar
from requests.exceptions import (
    ConnectTimeout,
    InvalidHeader,
    InvalidURL,
    ProxyError,
    ReadTimeout,
    RetryError,
    SSLError,
)
from requests.models import PreparedRequest
from requests.structures import CaseInsensitiveDict
from requests.utils import check_header_validity, get_encoding_from_headers
from urllib3.exceptions import DecodeError, HTTPError, LocationValueError, ReadTimeoutError
from urllib3.poolmanager import ProxyManager
from urllib3.util import Timeout

from livecert.adapters.bounds import (
    AnswerCutShort,
    AnswerStalled,
    AnswerTooLarge,
    Deadline,
    DeadlinePassed,
    RedirectElsewhere,
)
from livecert.adapters.deadline_watch import WATCHDOG, WATCHED_POOLS, current
from livecert.adapters.lean_session import LeanSession

_CHUNK = 64 * 1024
# a URL requests sends as it is: http(s), a lower-case host name or address, a port written
# without a leading zero, a path of unreserved characters (no query, no percent-encoding, no
# userinfo, no dot segment)
_AS_IT_IS = re.compile(r"https?://[a-z0-9.-]+(?::[1-9][0-9]{0,4})?(/[A-Za-z0-9_~/.-]*)")
_SETS_COOKIE = ("set-cookie", "set-cookie2")


class BoundedTransport(HTTPAdapter):
    """requests' transport, holding a request sent with a `Deadline` as its timeout to that
    deadline and its answer to the cap (any other timeout: requests' own behaviour)."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = WATCHED_POOLS
        self._direct_pools: dict[tuple[str, Any], tuple[Any, Any]] = {}  # (key, pool)

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if type(manager) is ProxyManager:  # a SOCKS proxy keeps its own pools: per-read bounds
            manager.pool_classes_by_scheme = WATCHED_POOLS
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
        return self._bounded(
            timeout,
            lambda socket_timeout: HTTPAdapter.send(
                self, request, True, socket_timeout, verify, cert, proxies
            ),
        )

    def send_direct(
        self,
        method: str,
        url: str,
        body: bytes | None,
        headers: Mapping[str, str],
        deadline: Deadline,
        verify: Any,
    ) -> requests.Response:
        """A plain request (`BoundedSession.send_plain` says which) sent as `send` sends it,
        without a prepared request: the same pool and TLS settings, the same bounds, requests'
        own errors; the answer's cookies are left to the caller."""
        at = url.index("/", url.index("//") + 2)
        pool = self._pool(url[:at], verify)
        path = url[at:]
        return self._bounded(
            deadline,
            lambda timeout: self._open(pool, method, url, path, body, headers, timeout, verify),
        )

    def close(self) -> None:
        """As requests' own: the pools let go (the next request takes a new one)."""
        self._direct_pools.clear()
        super().close()

    def _pool(self, origin: str, verify: Any) -> Any:
        """The connection pool requests sends to `origin` through with `verify`'s TLS settings:
        kept while the pool manager holds it under the key it was found by (requests builds a
        key of some thirty fields and looks at the CA path again for every request), and
        found again once the manager let it go, as requests would find it."""
        kept = self._direct_pools.get((origin, verify))
        # the manager's own lookup, which keeps its least recently used order as requests' does
        if kept is not None and self.poolmanager.pools.get(kept[0]) is kept[1]:
            return kept[1]
        target = PreparedRequest()
        target.url = origin + "/"  # all `get_connection_with_tls_context` reads of it
        try:
            pool = self.get_connection_with_tls_context(target, verify)
        except LocationValueError as error:
            raise InvalidURL(error) from None
        held = self.poolmanager.pools  # not iterable itself: its keys are a list taken under lock
        same_host = [k for k in held.keys() if k.key_host == pool.host]  # noqa: SIM118
        key = next((k for k in same_host if held.get(k) is pool), None)
        self._direct_pools[(origin, verify)] = (key, pool)
        return pool

    def _open(
        self,
        pool: Any,
        method: str,
        url: str,
        path: str,
        body: bytes | None,
        headers: Mapping[str, str],
        socket_timeout: tuple[float, float],
        verify: Any,
    ) -> requests.Response:
        """What `HTTPAdapter.send` does for a request with no proxy and no client certificate,
        and `build_response` after it but for the cookie jar."""
        self.cert_verify(pool, url, verify, None)
        try:
            raw = pool.urlopen(
                method=method,
                url=path,
                body=body,
                headers=headers,
                redirect=False,
                assert_same_host=False,
                preload_content=False,
                decode_content=False,
                retries=self.max_retries,
                timeout=Timeout(connect=socket_timeout[0], read=socket_timeout[1]),
                chunked=False,
            )
        except Exception as error:
            mapped = _as_requests_error(error)
            if mapped is error:
                raise
            raise mapped from error
        answer = requests.Response()
        answer.status_code = raw.status
        answer.headers = CaseInsensitiveDict(raw.headers)
        answer.encoding = get_encoding_from_headers(answer.headers)
        answer.raw = raw
        answer.reason = raw.reason
        answer.url = url
        answer.connection = self
        return answer

    def _bounded(
        self, deadline: Deadline, open_: Callable[[tuple[float, float]], requests.Response]
    ) -> requests.Response:
        """`open_` (a request sent, its answer's head read) held to `deadline`: the socket cut
        when it passes, the body read whole within it and the cap."""
        left = deadline.left()
        if left <= 0:
            raise DeadlinePassed(deadline, None, sent=False)
        connect, read = deadline.timeout
        watch = WATCHDOG.watch(deadline.at)
        current.watch = watch
        response: requests.Response | None = None
        chunks: list[bytes] = []  # the body as it came, kept if it comes no further
        try:
            response = open_((min(connect, left), min(read, left)))
            current.watch = None  # the body is read on this connection, no new one taken
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
            current.watch = None
            watch.cancel()


def _as_requests_error(error: Exception) -> Exception:
    """The error requests' `HTTPAdapter.send` raises for what urllib3 raised sending a request
    (any other: itself), so a direct request fails as one requests sent."""
    wire = urllib3_errors
    if isinstance(error, wire.ProtocolError | OSError):
        return requests.ConnectionError(error)
    if isinstance(error, wire.MaxRetryError):
        reason = error.reason
        if isinstance(reason, wire.ConnectTimeoutError) and not isinstance(
            reason, wire.NewConnectionError
        ):
            return ConnectTimeout(error)
        if isinstance(reason, wire.ResponseError):
            return RetryError(error)
        if isinstance(reason, wire.ProxyError):
            return ProxyError(error)
        if isinstance(reason, wire.SSLError):
            return SSLError(error)
        return requests.ConnectionError(error)
    if isinstance(error, wire.ClosedPoolError):
        return requests.ConnectionError(error)
    if isinstance(error, wire.ProxyError):
        return ProxyError(error)
    if isinstance(error, wire.SSLError):
        return SSLError(error)
    if isinstance(error, ReadTimeoutError):
        return ReadTimeout(error)
    if isinstance(error, wire.InvalidHeader):
        return InvalidHeader(error)
    return error


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
    # a body not compressed is whole when its declared length came: urllib3 has given its
    # connection back then, and the read that would find its end is not needed
    uncompressed = "Content-Encoding" not in response.headers
    while piece := response.raw.read1(_CHUNK, decode_content=True):
        received += len(piece)
        if received > cap:
            response.close()
            raise AnswerTooLarge(cap, response.status_code, None)
        chunks.append(piece)
        if deadline.left() <= 0:
            response.close()
            raise DeadlinePassed(deadline, response.status_code, b"".join(chunks))
        if uncompressed and response.raw.length_remaining == 0:
            break
    return b"".join(chunks)


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

    def send_plain(
        self,
        method: str,
        url: str,
        data: Any,
        headers: CaseInsensitiveDict,
        timeout: Any,
        allow_redirects: bool,
    ) -> requests.Response:
        """A request with nothing to merge, sent straight through urllib3 when nothing of
        requests' machinery applies to it (else by requests, as `LeanSession` sends it): the
        bytes requests would send, its errors, its answer; an answer that redirects or sets a
        cookie handed to requests to follow or keep."""
        direct = (
            allow_redirects
            and isinstance(timeout, Deadline)
            and not self.proxies
            and self.cert is None
            and (data is None or (isinstance(data, str) and data.isascii()))
            and _AS_IT_IS.fullmatch(url) is not None
            and "/." not in url
            and "//" not in url[url.index("//") + 2 :]
        )
        # the transport looked up only for a URL requests would not change (a stray space
        # before the scheme, which requests strips, has none: requests' own error then)
        transport = self.get_adapter(url) if direct else None
        if not isinstance(transport, BoundedTransport):
            return super().send_plain(method, url, data, headers, timeout, allow_redirects)
        for header in headers.items():
            check_header_validity(header)  # as requests prepares a request's headers
        body = data.encode("ascii") if data else None
        # requests' Content-Length (in the request's own headers, merged for it alone): a
        # body's length, none for a bodiless GET or HEAD
        if body is not None:
            headers["Content-Length"] = str(len(body))
        elif method not in ("GET", "HEAD") and "Content-Length" not in headers:
            headers["Content-Length"] = "0"
        started = time.perf_counter()
        answer = transport.send_direct(method, url, body, headers, timeout, self.verify)
        answer.elapsed = timedelta(seconds=time.perf_counter() - started)
        answer.content  # noqa: B018 (read as `Session.send` reads it: the answer marked consumed)
        if answer.is_redirect or any(name in answer.headers for name in _SETS_COOKIE):
            request = self.prepare_plain(method, url, data, headers)
            return self._ended_by_requests(answer, request, timeout)
        return answer

    def _ended_by_requests(
        self, answer: requests.Response, request: PreparedRequest, deadline: Deadline
    ) -> requests.Response:
        """What requests does with an answer after its transport (`build_response`, then
        `Session.send`): the cookies it sets kept on it and in the session, a redirect followed
        (`resolve_redirects`, within the target's origin), the hops in its history."""
        answer.request = request
        extract_cookies_to_jar(answer.cookies, request, answer.raw)
        extract_cookies_to_jar(self.cookies, request, answer.raw)
        hops = list(
            self.resolve_redirects(
                answer, request, stream=False, timeout=deadline, verify=self.verify, proxies={}
            )
        )
        if not hops:
            return answer
        last = hops.pop()
        last.history = [answer, *hops]
        return last

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

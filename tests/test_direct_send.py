"""A plain request goes straight through urllib3 (livecert/adapters/bounded_session.py): the
bytes on the wire must be requests' own, and whatever requests' machinery applies to (a proxy,
a URL it would requote, params, a body not ASCII text, an answer not followed) goes through
requests. What comes back (redirects, cookies, errors) is checked against requests' own session
in test_lean_session.py and test_wire_messages.py, which now take this path."""

import contextlib
import gzip
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import requests
from fake_target import fake_target, send, send_json
from requests.structures import CaseInsensitiveDict

from livecert.adapters.bounded_session import BoundedTransport, bounded_session
from livecert.adapters.bounds import DEFAULT_BOUNDS

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"


@contextmanager
def recording_wire() -> Iterator[tuple[str, list[bytes], list[int]]]:
    """A loopback server keeping each request's bytes as they came (head and body) and the
    client's port it came from, answering each `{}` on a kept-alive connection: what a client
    sent, not what a parser made of it."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    seen: list[bytes] = []
    peers: list[int] = []
    done = threading.Event()

    def answer(connection: socket.socket) -> None:
        with connection:
            connection.settimeout(5)
            buffered = b""
            while True:
                while b"\r\n\r\n" not in buffered:
                    more = connection.recv(65536)
                    if not more:
                        return
                    buffered += more
                head, _, rest = buffered.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                while len(rest) < length:
                    rest += connection.recv(65536)
                seen.append(head + b"\r\n\r\n" + rest[:length])
                peers.append(connection.getpeername()[1])
                buffered = rest[length:]
                connection.sendall(ANSWER)

    def serve() -> None:
        while not done.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            threading.Thread(target=answer, args=(connection,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", seen, peers
    finally:
        done.set()
        thread.join(5)
        listener.close()


def _requests_own(url: str, **pool: int) -> requests.Session:
    """requests' own session and transport, set up as bounded_session sets the harness's."""
    session = requests.Session()
    session.trust_env = False
    session.mount("http://", BoundedTransport(**pool))
    session.headers.update({"User-Agent": "livecert-harness", "Accept": "application/json"})
    return session


SLIP = '{"bets":[{"selection":"BIG","stake":"1.00"},{"selection":"SMALL","stake":"0.01"}]}'
# what the canonical adapter sends: a read, writes with a body, a write without one
SENT = [
    ("GET", "/v1/info", None, {}),
    ("GET", "/v1/players/p-1/balance", None, {"Authorization": "Bearer t0ken-1"}),
    (
        "POST",
        "/v1/rounds/r-1/bets",
        SLIP,
        {"Authorization": "Bearer t", "Idempotency-Key": "k-1", "Content-Type": "application/json"},
    ),
    ("POST", "/v1/rounds/r_1.x~/close", "{}", {"Content-Type": "application/json"}),
    ("POST", "/v1/tables/t-1/rounds", None, {"Authorization": "Bearer d"}),
    ("POST", "/v1/x", "", {}),
    ("DELETE", "/v1/bets/b-1", None, {"Accept": None}),  # None: the session's header unsent
    ("HEAD", "/v1/info", None, {}),
    ("PUT", "/v1/x", '{"a":"b"}', {"X-Extra": "1"}),
]


@pytest.mark.parametrize(("method", "path", "data", "headers"), SENT)
def test_a_direct_request_sends_the_bytes_requests_sends(
    method: str, path: str, data: str | None, headers: dict
) -> None:
    with recording_wire() as (url, seen, _):
        for session in (_requests_own(url), bounded_session(url)):
            with session:
                answer = session.request(
                    method,
                    url + path,
                    data=data,
                    headers=headers,
                    timeout=DEFAULT_BOUNDS.deadline((5, 5)),
                )
                assert answer.status_code == 200
                assert answer.content == (b"" if method == "HEAD" else b"{}")
        requests_sent, direct_sent = seen
    assert direct_sent == requests_sent
    assert direct_sent.startswith(f"{method} {path} HTTP/1.1\r\n".encode())


def _count_requests_transport(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each request requests' own transport sends, by URL (the direct path never calls it)."""
    sent: list[str] = []
    through = requests.adapters.HTTPAdapter.send

    def send(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        sent.append(request.url)
        return through(self, request, *args, **kwargs)

    monkeypatch.setattr(requests.adapters.HTTPAdapter, "send", send)
    return sent


def _echo(handler) -> None:  # type: ignore[no-untyped-def]
    send_json(handler, 200, {"path": handler.path})


def test_a_plain_request_with_a_deadline_goes_direct(monkeypatch: pytest.MonkeyPatch) -> None:
    through_requests = _count_requests_transport(monkeypatch)
    with fake_target(_echo) as url, bounded_session(url) as session:
        deadline = DEFAULT_BOUNDS.deadline((5, 5))
        answer = session.request("POST", url + "/v1/rounds/r-1/close", data="{}", timeout=deadline)
        assert answer.json() == {"path": "/v1/rounds/r-1/close"}
        assert answer.url == url + "/v1/rounds/r-1/close" and answer.history == []
    assert through_requests == []


@pytest.mark.parametrize(
    ("path", "settings"),
    [
        ("/v1/x", {"allow_redirects": False}),  # a mapping's call: its 3xx answered as it came
        ("/v1/x", {"params": {"round": "r 1"}}),
        ("/v1/x", {"data": "caf\u00e9"}),  # text past ASCII: requests encodes it
        ("/v1/x", {"data": b"raw"}),
        ("/v1/bets/b 1", {}),  # requests requotes it
        ("/v1/bets/b%201", {}),
        ("/v1/a/../b", {}),  # a dot segment: urllib3 removes it
        ("/v1//x", {}),
        ("/v1/x", {"timeout": (5, 5)}),  # a socket timeout, no deadline: requests' own
    ],
)
def test_what_requests_would_change_or_hold_goes_through_requests(
    monkeypatch: pytest.MonkeyPatch, path: str, settings: dict
) -> None:
    through_requests = _count_requests_transport(monkeypatch)
    settings = {"timeout": DEFAULT_BOUNDS.deadline((5, 5)), **settings}
    with fake_target(_echo) as url, bounded_session(url) as session:
        answer = session.request("POST", url + path, **settings)
        assert answer.status_code == 200
    assert len(through_requests) == 1


def test_a_session_with_a_proxy_or_a_client_certificate_goes_through_requests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    through_requests = _count_requests_transport(monkeypatch)
    with fake_target(_echo) as url:
        for setting in ("proxies", "cert"):
            with bounded_session(url) as session:
                if setting == "proxies":  # a proxy for another scheme: requests still asked
                    session.proxies["https"] = "http://proxy.invalid:3128"
                else:
                    session.cert = __file__  # never read over http
                session.request("GET", url + "/v1/info", timeout=DEFAULT_BOUNDS.deadline((5, 5)))
    assert len(through_requests) == 2


def test_a_refused_connection_fails_as_requests_fails_it() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{unused.getsockname()[1]}"  # bound, not listening: refused
        failed = []
        for session in (_requests_own(url), bounded_session(url)):
            with session, pytest.raises(requests.RequestException) as caught:
                session.request("GET", url + "/v1/info", timeout=DEFAULT_BOUNDS.deadline((5, 5)))
            failed.append((type(caught.value), type(caught.value.args[0])))
    assert failed[0] == failed[1]
    assert failed[1][0] is requests.ConnectionError


def test_a_url_requests_would_tidy_goes_through_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stray space before the scheme (requests strips it) and a port written with a leading
    zero (requests writes it without) are requests' to send, as before."""
    through_requests = _count_requests_transport(monkeypatch)
    with fake_target(_echo) as url, bounded_session(url) as session:
        port = url.rsplit(":", 1)[1]
        for written in (f" {url}/v1/x", f"http://127.0.0.1:0{port}/v1/x"):
            answer = session.request("GET", written, timeout=DEFAULT_BOUNDS.deadline((5, 5)))
            assert (answer.status_code, answer.url) == (200, url + "/v1/x")
        # a short port with a leading zero (whatever answers there, or nothing)
        with contextlib.suppress(requests.RequestException):
            session.request("GET", "http://127.0.0.1:080/", timeout=DEFAULT_BOUNDS.deadline((2, 2)))
    assert len(through_requests) == 3


def test_a_compressed_answer_comes_back_whole_either_way() -> None:
    """A gzip body unpacking past one read's 64 KiB, with its Content-Length: the body read as
    it comes stops at its declared length only when it is not compressed."""
    whole = ('{"bets":[' + ",".join(['{"selection":"BIG","stake":"1.00"}'] * 4000) + "]}").encode()

    def compressed(handler) -> None:  # type: ignore[no-untyped-def]
        send(handler, 200, gzip.compress(whole), "application/json", {"Content-Encoding": "gzip"})

    with fake_target(compressed) as url:
        for session in (_requests_own(url), bounded_session(url)):
            with session:
                answer = session.request(
                    "GET", url + "/v1/x", timeout=DEFAULT_BOUNDS.deadline((5, 5))
                )
                assert len(answer.content) == len(whole) > 64 * 1024
                assert answer.content == whole


def test_a_header_with_a_line_break_fails_as_requests_fails_it() -> None:
    with fake_target(_echo) as url:
        failed = []
        for session in (_requests_own(url), bounded_session(url)):
            with session, pytest.raises(requests.RequestException) as caught:
                session.request(
                    "GET",
                    url + "/v1/info",
                    headers={"Authorization": "Bearer t\r\nX-Injected: 1"},
                    timeout=DEFAULT_BOUNDS.deadline((5, 5)),
                )
            failed.append(type(caught.value))
    assert failed == [requests.exceptions.InvalidHeader] * 2


def test_a_url_without_a_host_fails_in_the_transport_as_requests_fails_it() -> None:
    deadline = DEFAULT_BOUNDS.deadline((5, 5))
    prepared = requests.models.PreparedRequest()
    prepared.prepare_method("GET")
    prepared.url, prepared.headers, prepared.body = "http:///v1/x", CaseInsensitiveDict(), None
    with pytest.raises(requests.exceptions.InvalidURL):
        requests.adapters.HTTPAdapter().send(prepared, timeout=5)
    with pytest.raises(requests.exceptions.InvalidURL):
        BoundedTransport().send_direct("GET", "http:///v1/x", None, {}, deadline, True)


def test_a_session_closed_and_used_again_takes_a_new_connection() -> None:
    """The direct path keeps the pool it sends through until the session closes; the next
    request then goes through a new one, on a new connection, as requests' own does."""
    with recording_wire() as (url, _, peers):
        for session in (_requests_own(url), bounded_session(url)):
            peers.clear()
            for _ in range(2):
                for _ in range(2):  # the same connection within the session
                    session.request("GET", url + "/v1/x", timeout=DEFAULT_BOUNDS.deadline((5, 5)))
                session.close()
            assert peers[0] == peers[1] != peers[2] == peers[3]


def test_a_pool_the_manager_let_go_is_not_sent_through_again() -> None:
    """With more origins than the pools kept, urllib3 lets the oldest pool go (without closing
    it); requests then sends through a new pool, on a new connection, and so must the direct
    path, not through the pool it found before."""
    with recording_wire() as (first, _, peers), recording_wire() as (second, _, _):
        ports = []
        for session in (_requests_own(first, **ONE), bounded_session(first, **ONE)):
            peers.clear()
            for url in (first, second, first):
                session.request("GET", url + "/v1/x", timeout=DEFAULT_BOUNDS.deadline((5, 5)))
            session.close()
            ports.append(peers[0] != peers[1])
        assert ports == [True, True]


ONE = {"pool_connections": 1}  # one pool kept: another origin's lets the first go

"""The adapters' session prepares a plain request itself (livecert/adapters/lean_session.py):
it must send exactly what requests' own `Session.request` sends, and leave anything it does not
handle (a cookie the target set, params, JSON, auth) to requests."""

from http.server import BaseHTTPRequestHandler

import pytest
import requests
from fake_target import fake_target, redirect, send, send_json
from requests.models import PreparedRequest

from livecert.adapters.bounded_session import BoundedTransport, bounded_session
from livecert.adapters.bounds import DEFAULT_BOUNDS
from livecert.adapters.lean_session import LeanSession

BASE = "http://127.0.0.1:9"  # never reached: `send` is replaced by a capture
# a player's slip: its token, its content type and its key
SLIP_HEADERS = {
    "Authorization": "Bearer t",
    "Content-Type": "application/json",
    "Idempotency-Key": "k",
}


def _captured(session: requests.Session, *args, **kwargs) -> tuple[PreparedRequest, dict]:
    """The prepared request `session.request(*args, **kwargs)` hands to `send`, and the
    settings it sends it with."""
    seen: list = []
    session.send = lambda prepared, **settings: seen.append((prepared, settings)) or prepared  # type: ignore[method-assign]
    session.request(*args, **kwargs)
    [(prepared, settings)] = seen
    return prepared, settings


def _pair() -> tuple[requests.Session, requests.Session]:
    """requests' own session and a lean one, set up alike (as bounded_session sets its own)."""
    sessions = []
    for kind in (requests.Session, LeanSession):
        session = kind()
        session.trust_env = False
        session.headers.update({"User-Agent": "livecert-harness", "Accept": "application/json"})
        sessions.append(session)
    return sessions[0], sessions[1]


@pytest.mark.parametrize(
    ("method", "path", "data", "headers"),
    [
        ("get", "/v1/info", None, {}),
        ("GET", "/v1/players/p-1/balance", None, {"Authorization": "Bearer t0ken-1"}),
        (
            "POST",
            "/v1/rounds/r-1/bets",
            '{"bets":[{"selection":"BIG","stake":"1.00"}]}',
            SLIP_HEADERS,
        ),
        ("POST", "/v1/rounds/r-1/close", "{}", {"Accept": None, "X-Extra": "é"}),  # None: unsent
        ("DELETE", "/v1/bets/b 1?x=a b", None, {}),  # a URL requests requotes
        ("POST", "/v1/raw", b"\x00\xff raw bytes", {"Content-Type": "application/octet-stream"}),
    ],
)
def test_a_plain_request_is_prepared_as_requests_prepares_it(
    method: str, path: str, data, headers: dict
) -> None:
    full, lean = _pair()
    expected, expected_settings = _captured(
        full, method, BASE + path, data=data, headers=headers, timeout=7
    )
    actual, actual_settings = _captured(
        lean, method, BASE + path, data=data, headers=headers, timeout=7
    )
    assert (actual.method, actual.url, actual.body) == (
        expected.method, expected.url, expected.body,
    )  # fmt: skip
    assert dict(actual.headers) == dict(expected.headers)
    assert list(actual.headers) == list(expected.headers)  # in the same order
    assert actual_settings["timeout"] == expected_settings["timeout"] == 7
    assert actual_settings.get("allow_redirects", True) is True


def test_a_cookie_the_target_set_is_sent_back_as_requests_would() -> None:
    full, lean = _pair()
    for session in (full, lean):
        session.cookies.set("SESSION", "abc123", domain="127.0.0.1", path="/")
    expected, _ = _captured(full, "GET", BASE + "/v1/info")
    actual, _ = _captured(lean, "GET", BASE + "/v1/info")
    assert actual.headers["Cookie"] == expected.headers["Cookie"] == "SESSION=abc123"


@pytest.mark.parametrize(
    "extra",
    [
        {"params": {"round": "r 1"}},
        {"json": {"a": 1}},
        {"auth": ("user", "secret")},
        {"cookies": {"c": "1"}},
    ],
)
def test_what_needs_merging_goes_through_requests(extra: dict) -> None:
    full, lean = _pair()
    expected, _ = _captured(full, "POST", BASE + "/v1/x", headers={"A": "1"}, **extra)
    actual, _ = _captured(lean, "POST", BASE + "/v1/x", headers={"A": "1"}, **extra)
    assert (actual.url, actual.body, dict(actual.headers)) == (
        expected.url, expected.body, dict(expected.headers),
    )  # fmt: skip


def test_the_adapters_sessions_are_lean_and_keep_their_bounds() -> None:
    session = bounded_session(BASE)
    assert isinstance(session, LeanSession) and not session.trust_env
    assert type(session.get_adapter(BASE)).__name__ == "BoundedTransport"


# -- sending: what requests' own Session.send would answer, on a real loopback server ----------


def _answer(handler: BaseHTTPRequestHandler) -> None:
    """/login sets a cookie; /echo shows the cookie sent; /old and /hop redirect (/hop twice);
    /json answers JSON."""
    path = handler.path
    if path == "/login":
        send(handler, 200, b"ok", "text/plain", {"Set-Cookie": "SESSION=s3cr3t-value; Path=/"})
    elif path in ("/old", "/hop"):
        redirect(handler, "/hop2" if path == "/hop" else "/json")
    elif path == "/hop2":
        redirect(handler, "/json")
    else:
        send_json(handler, 200, {"path": path, "cookie": handler.headers.get("Cookie")})


def _sessions(url: str) -> tuple[requests.Session, requests.Session]:
    """requests' own session with the harness's transport, and the harness's lean one."""
    full = requests.Session()
    full.trust_env = False
    full.mount("http://", BoundedTransport())
    return full, bounded_session(url)


def _seen(answer: requests.Response) -> tuple:
    return (
        answer.status_code,
        answer.url,
        answer.content,
        [(a.status_code, a.url) for a in answer.history],
        answer.next.url if answer.next is not None else None,
        answer.headers.get("Content-Type"),
        answer.encoding,
    )


# path, following redirects: the final status and path, the hops passed, the next hop's path
SENT = [
    ("/json", True, 200, "/json", [], None),
    ("/old", True, 200, "/json", [(302, "/old")], None),
    ("/hop", True, 200, "/json", [(302, "/hop"), (302, "/hop2")], None),
    ("/old", False, 302, "/old", [], "/json"),
    ("/hop", False, 302, "/hop", [], "/hop2"),
]


@pytest.mark.parametrize("bounded", [True, False], ids=["deadline", "timeout"])
@pytest.mark.parametrize(("path", "follow", "status", "last", "hops", "next_hop"), SENT)
def test_an_answer_comes_back_as_requests_sends_it(
    path: str, follow: bool, status: int, last: str, hops: list, next_hop: str | None, bounded: bool
) -> None:
    with fake_target(_answer) as url:
        answers = []
        for session in _sessions(url):
            timeout = DEFAULT_BOUNDS.deadline((5, 5)) if bounded else (5, 5)
            answer = session.request("GET", url + path, timeout=timeout, allow_redirects=follow)
            assert answer.elapsed.total_seconds() > 0
            assert answer._content_consumed  # read whole, its connection back in the pool
            answers.append(_seen(answer))
        assert answers[0] == answers[1]  # the lean session's, as requests' own
        seen_status, seen_url, _, seen_hops, seen_next, _, _ = answers[1]
        assert (seen_status, seen_url) == (status, url + last)
        assert seen_hops == [(code, url + hop) for code, hop in hops]
        assert seen_next == (None if next_hop is None else url + next_hop)


def test_a_cookie_an_answer_sets_is_kept_and_sent_back() -> None:
    with fake_target(_answer) as url:
        for session in _sessions(url):
            deadline = DEFAULT_BOUNDS.deadline((5, 5))
            login = session.request("POST", url + "/login", data="{}", timeout=deadline)
            assert login.cookies.get("SESSION") == "s3cr3t-value"  # the answer's own cookies
            assert session.cookies.get("SESSION") == "s3cr3t-value"
            echoed = session.request("GET", url + "/echo", timeout=DEFAULT_BOUNDS.deadline((5, 5)))
            assert echoed.json()["cookie"] == "SESSION=s3cr3t-value"
            assert echoed.cookies.get("SESSION") is None  # that answer set none


def test_a_cookie_set_on_the_way_of_a_redirect_is_kept() -> None:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        if handler.path == "/start":
            redirect(handler, "/echo", {"Set-Cookie": "HOP=1; Path=/"})
        else:
            _answer(handler)

    with fake_target(answer) as url:
        for session in _sessions(url):
            deadline = DEFAULT_BOUNDS.deadline((5, 5))
            last = session.request("GET", url + "/start", timeout=deadline)
            assert last.json()["cookie"] == "HOP=1"
            assert session.cookies.get("HOP") == "1"


class _Recording(requests.adapters.HTTPAdapter):
    """A transport that sends nothing: it keeps what it was asked to send with, and answers
    200 with an empty JSON body."""

    def __init__(self) -> None:
        super().__init__()
        self.settings: list[dict] = []

    def send(self, request, **settings):  # type: ignore[override]
        self.settings.append(settings)
        answer = requests.Response()
        answer.status_code, answer._content, answer.url = 200, b"{}", request.url
        answer.request = request
        return answer


@pytest.mark.parametrize(
    "setting",
    [
        {},
        {"proxies": {"http": "http://proxy.example:3128"}},
        {"verify": "/etc/ssl/certs/lab-ca.pem"},
        {"verify": False},
        {"cert": ("/lab/client.pem", "/lab/client.key")},
        {"stream": True},
    ],
    ids=["defaults", "proxies", "ca-bundle", "no-verify", "client-cert", "stream"],
)
def test_the_transport_is_asked_with_the_settings_requests_would_give_it(setting: dict) -> None:
    asked = []
    for session in _pair():
        for name, value in setting.items():
            if name == "proxies":
                session.proxies.update(value)
            else:
                setattr(session, name, value)
        transport = _Recording()
        session.mount("http://", transport)
        session.request("POST", BASE + "/v1/x", data="{}", timeout=7)
        [settings] = transport.settings
        asked.append(settings)
    assert asked[0] == asked[1]


def test_a_session_with_a_hook_is_sent_through_requests() -> None:
    called: list[str] = []
    full, lean = _pair()
    for session in (full, lean):
        session.mount("http://", _Recording())
        session.hooks["response"].append(lambda answer, **_: called.append(answer.url))
        session.request("GET", BASE + "/v1/info", timeout=7)
    assert called == [BASE + "/v1/info"] * 2


def test_a_prepared_request_sent_with_a_hook_has_its_hook_called() -> None:
    called: list[str] = []
    for session in _pair():
        session.mount("http://", _Recording())
        prepared = requests.Request("GET", BASE + "/v1/info").prepare()
        prepared.hooks = {"response": [lambda answer, **_: called.append(answer.url)]}
        session.send(prepared, timeout=7)
    assert called == [BASE + "/v1/info"] * 2


def test_a_redirect_loop_ends_as_requests_ends_it() -> None:
    def loop(handler: BaseHTTPRequestHandler) -> None:
        redirect(handler, handler.path + "x")

    with fake_target(loop) as url:
        ended = []
        for session in _sessions(url):
            session.max_redirects = 3
            with pytest.raises(requests.TooManyRedirects) as caught:
                session.request("GET", url + "/a", timeout=DEFAULT_BOUNDS.deadline((5, 5)))
            last = caught.value.response
            ended.append((str(caught.value), last.url, [a.url for a in last.history]))
        assert ended[0] == ended[1]
        assert ended[1][1] == url + "/axxx"  # the fourth answer, after three redirects


@pytest.mark.parametrize("sets_cookie", [False, True])
def test_an_answer_is_built_as_requests_builds_it(sets_cookie: bool) -> None:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        cookie = {"Set-Cookie": "K=v; Path=/"} if sets_cookie else {}
        send(handler, 201, b"{}", "application/json; charset=latin-1", cookie)

    with fake_target(answer) as url:
        built = []
        for transport in (requests.adapters.HTTPAdapter(), BoundedTransport()):
            prepared = requests.Request("GET", url + "/b").prepare()
            raw = transport.send(prepared, stream=True, timeout=5).raw
            made = transport.build_response(prepared, raw)
            built.append(
                (made.status_code, dict(made.headers), made.encoding, made.reason, made.url,
                 made.request is prepared, made.connection is transport,
                 made.cookies.get_dict())
            )  # fmt: skip
        assert built[0] == built[1]
        assert built[1][-1] == ({"K": "v"} if sets_cookie else {})

"""The adapters' session prepares a plain request itself (livecert/adapters/lean_session.py):
it must send exactly what requests' own `Session.request` sends, and leave anything it does not
handle (a cookie the target set, params, JSON, auth) to requests."""

import pytest
import requests
from requests.models import PreparedRequest

from livecert.adapters.bounds import bounded_session
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

"""Cookie casinos as labs meet them: a call whose cookie the casino does not take is sent to
its login page (a 302), which is a refusal by default, not a target error
(livecert/adapters/mapping/calls.py, sessions.py)."""

import re
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from test_mapping import (
    Seen,
    _cookie_casino,
    _provisioned,
    adapter_for,
    load_problems,
    scripted,
)

from livecert.adapters import Refused
from livecert.adapters.errors import TargetError
from livecert.adapters.secrets import SECRETS


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_API_KEY", "s3cret-key")


def _redirecting(to: str):
    """A casino that knows one session cookie, and sends any other call to `to`."""

    def script(request: Seen):
        if request.path == "/login.php":
            return 200, {"Set-Cookie": "PHPSESSID=sess-42; Path=/"}, {"user": "u7"}
        if request.headers.get("Cookie") == "PHPSESSID=sess-42":
            return 200, {}, {"cash": "10.00"}
        return 302, {"Location": to}, {}

    return script


@pytest.mark.parametrize("credential", ["forged-cookie", "", "sess-other"])
def test_a_redirect_to_the_login_page_refuses_an_access_checks_credential(
    tmp_path: Path, credential: str
) -> None:
    """No `sessions.*.expired` rule is needed: the login page is the one the file logs players
    in with (create_player's request, whose answer reads the cookie)."""
    with scripted(_redirecting("/login.php?back=balance.php")) as (url, _):
        adapter = adapter_for(tmp_path, url, _cookie_casino)
        player = adapter.create_player(Decimal("10.00"))
        assert adapter.balance(player) == Decimal("10.00")
        with pytest.raises(Refused) as refused:
            adapter.with_credential(credential).balance(player)
    assert (refused.value.status, refused.value.code) == (302, "LOGIN_REQUIRED")


@pytest.mark.parametrize("to", ["/maintenance.html", "/shop/login.php"])
def test_a_redirect_elsewhere_stays_a_target_error(tmp_path: Path, to: str) -> None:
    """Only the login page is a refusal (its path, whole): a redirect anywhere else says
    nothing of access, even to a page whose path ends like it."""
    with scripted(_redirecting(to)) as (url, _):
        adapter = adapter_for(tmp_path, url, _cookie_casino)
        player = adapter.create_player(Decimal("10.00"))
        with pytest.raises(TargetError, match=f"redirecting to '{re.escape(to)}'"):
            adapter.with_credential("forged-cookie").balance(player)


def test_the_players_own_call_sent_to_the_login_page_is_a_target_error(tmp_path: Path) -> None:
    """The player's own session sent to the login page is not a refusal to judge: the run
    cannot go on with that player (never a finding)."""

    def logged_out(request: Seen):
        if request.path == "/login.php":
            return 200, {"Set-Cookie": "PHPSESSID=sess-42; Path=/"}, {"user": "u7"}
        return 302, {"Location": "/login.php"}, {}

    with scripted(logged_out) as (url, _):
        adapter = adapter_for(tmp_path, url, _cookie_casino)
        player = adapter.create_player(Decimal("10.00"))
        with pytest.raises(TargetError, match=r"redirecting to '/login\.php'"):
            adapter.balance(player)


def test_a_variable_said_not_secret_is_shown_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`secret: false` is honoured (it was accepted and ignored): a program's path reads plainly
    in the evidence, while every other variable stays masked."""
    monkeypatch.setenv("CASINO_PYTHON_T1", "/opt/casino-python-3871/bin/python3")
    monkeypatch.setenv("CASINO_DB_PASSWORD_T1", "db-pass-5512-secret")

    def variables(data: dict) -> None:
        data["variables"] = {
            **data.get("variables", {}),
            "python": {"env": "CASINO_PYTHON_T1", "secret": False},
            "db": {"env": "CASINO_DB_PASSWORD_T1"},
        }

    with scripted(lambda _: (200, {}, {})) as (url, _):
        adapter_for(tmp_path, url, variables)
    shown = SECRETS.mask("ran /opt/casino-python-3871/bin/python3 with db-pass-5512-secret")
    assert shown == "ran /opt/casino-python-3871/bin/python3 with $CASINO_DB_PASSWORD_T1"


def test_a_default_with_no_path_on_a_judged_field_is_refused_like_a_constant(
    tmp_path: Path,
) -> None:
    """`status: {default: settled}` read nothing and held every "reported settled" check by
    construction, where `const` was refused; both are refused now, and the docs say which to
    use where."""

    def defaulted(data: dict) -> None:
        data["shapes"]["bet"]["status"] = {"default": "settled"}

    problems = load_problems(tmp_path, defaulted)
    assert any(
        "shapes.bet.status: a default with no path is a constant status" in p for p in problems
    ), problems


def test_a_player_made_by_a_login_logs_in_again_as_from_another_device(tmp_path: Path) -> None:
    """Rounds of one player at once race only from several sessions where the casino runs a
    session's requests one at a time (PHP's session lock): a player the run made (the lab's
    command, then the login) logs in again with the same account, without a new account, even
    after another player was made since."""
    sessions = iter(f"sess-{n}" for n in range(1, 10))

    def script(request: Seen):
        user = dict(parse_qsl(request.body)).get("user")
        return 200, {"Set-Cookie": f"PHPSESSID={next(sessions)}; Path=/"}, {"user": user}

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, _provisioned)
        player = adapter.create_player(Decimal("25.00"))
        adapter.create_player(Decimal("30.00"))  # another player's captures since
        second = adapter.another_login(player)
        commands = [e for e in adapter.recorder.snapshot() if e.method == "RUN"]
    assert (second.player_id, second.token) == ("u-25.00", "sess-3")
    assert dict(parse_qsl(seen[2].body)) == {"user": "u-25.00", "password": "pw-00.52"}
    assert len(commands) == 2  # one account each, none made for the second login

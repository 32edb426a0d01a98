"""Pre-provisioned accounts (livecert/adapters/mapping/accounts.py, harness/read_balances.py):
a casino with no API to create a player lends the lab accounts whose balances are read.

The shape reproduced: players log in with a form (user, password) and are known by the session
cookie the login sets; each account holds what the casino gave it (5,000.00 here), never what a
scenario asks for.
"""

import re
from decimal import Decimal
from pathlib import Path

import pytest
from test_mapping import Seen, adapter_for, load_problems, scripted

from livecert.adapters.errors import MappingAnswerError, TargetError, Unsupported
from livecert.adapters.evidence import exchanges_as_text
from livecert.adapters.mapping.accounts import Account, AccountsError, parse_accounts
from livecert.adapters.model import PlayerHandle, TableLimits
from livecert.certify.doctor import Diagnosis, _accounts_check
from livecert.harness.read_balances import (
    ACCOUNTS_NEEDED,
    over_the_balance_read,
    plain_total,
    real_balance,
)

ROOT = Path(__file__).resolve().parent.parent
D1000 = Decimal("1000.00")
PASSWORDS = {"alice": "pw-a:1", "bob": "pw-b", "carol": "pw-c"}


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_API_KEY", "s3cret-key")
    monkeypatch.setenv("CASINO_ACCOUNTS", ",".join(f"{u}:{p}" for u, p in PASSWORDS.items()))


def _accounts(data: dict, logins_at_once: int = 1) -> None:
    data["accounts"] = {"env": "CASINO_ACCOUNTS", "logins_at_once": logins_at_once}
    data["operations"]["create_player"] = {
        "role": "anonymous",
        "request": {
            "method": "POST",
            "path": "/login.php",
            "form": {"user": "${account.user}", "password": "${account.password}"},
        },
        "answer": {"fields": {"player_id": "$.user", "token": {"cookie": "PHPSESSID"}}},
    }
    data["operations"]["balance"] = {
        "role": "player",
        "request": {"method": "GET", "path": "/balance.php"},
        "answer": {"fields": {"balance": {"path": "cash", "as": "money"}}},
    }
    data["roles"]["player"] = {"cookies": {"PHPSESSID": "${player.token}"}}


class Casino:
    """Accounts holding 5,000.00 each; a login answers a fresh session cookie, a logout ends
    it (a session that does not exist is refused)."""

    def __init__(self) -> None:
        self.cash = dict.fromkeys(PASSWORDS, Decimal("5000.00"))
        self.sessions: dict[str, str] = {}

    def __call__(self, request: Seen):
        if request.path == "/login.php":
            form = dict(pair.split("=", 1) for pair in request.body.split("&"))
            user = form["user"]
            session = f"sess-{user}-{len(self.sessions)}"
            self.sessions[session] = user
            return 200, {"Set-Cookie": f"PHPSESSID={session}; Path=/"}, {"user": user}
        cookie = re.search(r"PHPSESSID=([^;]+)", request.headers.get("Cookie", ""))
        user = self.sessions.get(cookie.group(1)) if cookie else None
        if user is None:
            return 401, {}, {"error": "login required"}
        if request.path == "/logout.php":
            del self.sessions[cookie.group(1)]
            return 200, {}, {}
        return 200, {}, {"cash": str(self.cash[user])}


def test_accounts_are_read_from_user_password_pairs() -> None:
    text = "alice:pw:with:colons,\n bob:pw-b\n"
    assert parse_accounts(text, "X") == [Account("alice", "pw:with:colons"), Account("bob", "pw-b")]
    for bad, says in (
        ("alice", "account 1 is not `user:password`"),
        ("alice:a,alice:b", "lists the account 'alice' twice"),
        (" , ", "lists no account"),
    ):
        with pytest.raises(AccountsError, match=re.escape(says)):
            parse_accounts(bad, "X")


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            lambda d: (_accounts(d), d["accounts"].update(env="NOT_SET_ANYWHERE")),
            "accounts: the environment variable NOT_SET_ANYWHERE is not set",
        ),
        (
            lambda d: (
                _accounts(d),
                d["operations"]["create_player"]["request"]["form"].update(cash="${balance}"),
            ),
            "${balance}",
        ),
        (
            lambda d: d["operations"]["create_player"]["request"].update(
                json={"user": "${account.user}"}
            ),
            "${account.user}",
        ),
        (
            lambda d: (_accounts(d), d["accounts"].update(logins_at_once=0)),
            "accounts.logins_at_once",
        ),
        (
            lambda d: (
                _accounts(d),
                d["operations"]["create_player"]["request"].update(form={"user": "alice"}),
            ),
            "must send ${account.user}",
        ),
    ],
)
def test_what_a_mapping_may_say_of_accounts(tmp_path: Path, change, problem: str) -> None:
    problems = load_problems(tmp_path, change)
    assert any(problem in p for p in problems), problems


def test_accounts_holding_a_byte_that_is_not_utf8_are_the_lab_s_to_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python reads such a byte in the environment as a lone surrogate, which no login could
    carry: refused at load, naming the variable and the byte."""
    monkeypatch.setenv("CASINO_ACCOUNTS", "alice:pw-\udcff")
    problems = load_problems(tmp_path, _accounts)
    assert (
        "accounts: the environment variable CASINO_ACCOUNTS holds the byte 0xff, which is not "
        "UTF-8: no request can carry it" in problems
    ), problems


def test_a_player_is_a_listed_account_and_its_balance_reads_as_the_scenario_asked(
    tmp_path: Path,
) -> None:
    casino = Casino()
    with scripted(casino) as (url, seen):
        adapter = adapter_for(tmp_path, url, _accounts)
        player = adapter.create_player(Decimal("100.00"))
        assert player.player_id == "alice"
        assert adapter.balance(player) == Decimal("100.00")  # 5,000.00 held, 4,900.00 surplus
        assert adapter.balance_offset(player) == Decimal("4900.00")
        casino.cash["alice"] -= Decimal("10.00")  # a round lost
        assert adapter.balance(player) == Decimal("90.00")
        with pytest.raises(Unsupported, match=r"no free account holds that much \(bob 5000\.00"):
            adapter.create_player(Decimal("5000.01"))
        # the accounts that held too little stay free: a scenario asking less is lent one
        assert adapter.create_player(Decimal("1.00")).player_id == "bob"
    logins = [s for s in seen if s.path == "/login.php"]
    assert logins[0].body == "user=alice&password=pw-a%3A1"
    # the password and the session are masked in every exchange
    shown = exchanges_as_text(adapter.recorder.snapshot())
    assert "pw-a" not in shown and "$ACCOUNT_PASSWORD" in shown
    assert "sess-alice" not in shown


def test_a_slip_over_the_balance_is_over_the_balance_the_account_holds(tmp_path: Path) -> None:
    limits = TableLimits(max_bet=Decimal("10000.00"), max_slip=Decimal("20000.00"))
    with scripted(Casino()) as (url, _seen):
        adapter = adapter_for(tmp_path, url, _accounts)
        player = adapter.create_player(Decimal("100.00"))
        shown = adapter.balance(player)

        def sent(slip, within=limits):
            return over_the_balance_read(adapter, player, slip, shown, within)

        over = sent([("BIG", Decimal("60.00")), ("BIG", Decimal("40.01"))])
        assert over == [("BIG", Decimal("60.00")), ("BIG", Decimal("4940.01"))]
        assert sum(s for _, s in over) == Decimal("5000.01")  # one cent over what it holds
        assert sent([("BIG", "100.01")]) == [("BIG", "5000.01")]
        # within the balance, over what the account holds already, or no amount: as written
        for same in (
            [("BIG", Decimal("99.00")), ("BIG", "abc"), ("BIG", "1e3"), ("BIG", "-5.00")],
            [("BIG", "1000000000000.00")],
        ):
            assert sent(same) == same
        assert plain_total([("BIG", "1e3"), ("BIG", "2.50"), ("BIG", "-1")]) == Decimal("2.50")
        assert real_balance(adapter, player, Decimal("-0.01")) == Decimal("4899.99")
        # raised where no maximum is declared, or beyond one, a refusal may be for the limit
        for within, says in (
            (None, "a table limit the target does not declare"),
            (TableLimits(min_bet=Decimal("0.01")), "a table limit the target does not declare"),
            (TableLimits(max_bet=D1000), "beyond the table's declared limits"),
        ):
            with pytest.raises(Unsupported, match=re.escape(says)):
                sent([("BIG", "100.01")], within)
    # a balance that is set: nothing to add
    plain = PlayerHandle("p", "k")
    assert over_the_balance_read(object(), plain, [("BIG", "100.01")], Decimal(100)) == [
        ("BIG", "100.01")
    ]


def test_an_account_is_lent_again_only_once_its_balance_is_reconciled(tmp_path: Path) -> None:
    casino = Casino()
    with scripted(casino) as (url, _seen):
        adapter = adapter_for(tmp_path, url, _accounts)
        first = [adapter.create_player(Decimal("10.00")) for _ in PASSWORDS]
        assert [p.player_id for p in first] == ["alice", "bob", "carol"]
        with pytest.raises(Unsupported, match=r"every account .* \(3\) is in use"):
            adapter.create_player(Decimal("10.00"))
        adapter.release_players()  # the scenario is over: balances noted
        casino.cash["alice"] += Decimal("7.00")  # a late settlement moves alice's money
        again = adapter.create_player(Decimal("10.00"))
        assert again.player_id == "bob"  # alice moved while no scenario held her: set aside
        [note] = adapter.account_notes()  # shown once, as the scenario's evidence
        assert note.startswith("account alice set aside for the run: its balance moved from")
        assert "5000.00 to 5007.00" in note and adapter.account_notes() == []
        # a scenario may give back only its own players (the others stay lent)
        third = adapter.create_player(Decimal("10.00"))
        adapter.release_players([third])
        assert adapter.create_player(Decimal("10.00")).player_id == third.player_id


def test_an_account_holds_as_many_logins_at_once_as_the_mapping_says(tmp_path: Path) -> None:
    with scripted(Casino()) as (url, _seen):
        adapter = adapter_for(tmp_path, url, lambda d: _accounts(d, logins_at_once=2))
        player = adapter.create_player(Decimal("10.00"))
        second = adapter.another_login(player)
        assert second.player_id == player.player_id and second.token != player.token
        with pytest.raises(Unsupported, match="may hold 2 login"):
            adapter.another_login(player)
        # both sessions read the one account's balance, shown the same way
        assert adapter.balance(second) == adapter.balance(player) == Decimal("10.00")


def test_without_accounts_there_is_no_second_login(tmp_path: Path) -> None:
    adapter = adapter_for(tmp_path, "http://127.0.0.1:9")
    with pytest.raises(Unsupported, match="lists no accounts"):
        adapter.another_login(PlayerHandle("p", "k"))
    assert adapter.balance_offset(PlayerHandle("p", "k")) == 0


def test_the_accounts_a_run_needs_are_the_most_players_one_scenario_makes() -> None:
    def most(paths) -> int:
        texts = [p.read_text(encoding="utf-8") for p in paths]
        return max(int(n) for text in texts for n in re.findall(r"Given (\d+) players", text))

    features = ROOT / "features"
    assert most([features / "table" / "instant_rounds.feature"]) == ACCOUNTS_NEEDED["instant"]
    assert most(features.rglob("*.feature")) == ACCOUNTS_NEEDED["live"]


def _logout(data: dict) -> None:
    _accounts(data, logins_at_once=2)
    data["operations"]["end_session"] = {
        "role": "player",
        "request": {"method": "POST", "path": "/logout.php"},
    }


def test_a_session_the_player_ended_is_a_second_login_logged_out(tmp_path: Path) -> None:
    casino = Casino()
    with scripted(casino) as (url, seen):
        adapter = adapter_for(tmp_path, url, _logout)
        player = adapter.create_player(Decimal("10.00"))
        ended = adapter.expired_credential(player)
        assert ended != player.token and ended not in casino.sessions
        assert casino.sessions[player.token] == "alice"  # the player's own session stays
        assert adapter.balance(player) == Decimal("10.00")
        adapter.another_login(player)  # the ended login no longer counts against the two
    assert [s.path for s in seen].count("/logout.php") == 1
    assert ended not in exchanges_as_text(adapter.recorder.snapshot())  # a credential: masked


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (_accounts, "the mapping has no end_session"),
        (  # no accounts, and players not made by a login (a token read from the body)
            lambda d: (
                _logout(d),
                d.pop("accounts"),
                d["operations"].update(
                    create_player={
                        "role": "anonymous",
                        "request": {"method": "POST", "path": "/login.php", "form": {"user": "a"}},
                        "answer": {"fields": {"player_id": "$.user", "token": "$.user"}},
                    }
                ),
            ),
            "the mapping lists no accounts, and the player was not made by a login",
        ),
        (lambda d: (_logout(d), d["accounts"].update(logins_at_once=1)), "may hold 1 login"),
    ],
)
def test_an_ended_session_needs_a_logout_and_a_second_login(tmp_path: Path, change, says) -> None:
    def restore_player(data: dict) -> None:
        change(data)
        data["operations"].setdefault(
            "create_player",
            {
                "role": "anonymous",
                "request": {"method": "POST", "path": "/login.php", "form": {"user": "alice"}},
                "answer": {"fields": {"player_id": "$.user", "token": {"cookie": "PHPSESSID"}}},
            },
        )

    with scripted(Casino()) as (url, _seen):
        adapter = adapter_for(tmp_path, url, restore_player)
        player = adapter.create_player(Decimal("1.00"))
        with pytest.raises(Unsupported, match=re.escape(says)):
            adapter.expired_credential(player)


@pytest.mark.parametrize(("listed", "status"), [(3, "warn"), (20, "ok")])
def test_the_doctor_says_how_many_accounts_a_run_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listed: int, status: str
) -> None:
    monkeypatch.setenv("CASINO_ACCOUNTS", ",".join(f"u{n}:p{n}" for n in range(listed)))
    diagnosis = Diagnosis()
    _accounts_check(adapter_for(tmp_path, "http://127.0.0.1:9", _accounts), diagnosis)
    [check] = diagnosis.checks
    assert check.status == status
    assert f"accounts: {listed} listed in CASINO_ACCOUNTS; a run needs 20 at once" in check.what
    assert "one account may hold 1 login(s) at once" in check.what
    if status == "warn":
        assert "list at least 20 accounts" in check.advice


def test_who_may_create_a_player_is_not_asked_where_players_are_lent(tmp_path: Path) -> None:
    """A login page takes anyone's request: the access matrix's "create a test player" would
    find every role allowed; where players are lent accounts it is not testable."""
    with scripted(Casino()) as (url, seen):
        adapter = adapter_for(tmp_path, url, _accounts)
        for acting in (adapter.as_role("dealer"), adapter.with_credential("forged")):
            with pytest.raises(Unsupported, match="lends"):
                acting.create_player(Decimal("10.00"))
    assert seen == []


def test_the_account_holding_least_but_enough_is_lent_first(tmp_path: Path) -> None:
    casino = Casino()
    casino.cash.update(alice=Decimal("900.00"), bob=Decimal("50.00"), carol=Decimal("120.00"))
    with scripted(casino) as (url, _seen):
        adapter = adapter_for(tmp_path, url, _accounts)
        [adapter.create_player(Decimal("1.00")) for _ in PASSWORDS]  # every balance learnt
        adapter.release_players()
        assert adapter.create_player(Decimal("100.00")).player_id == "carol"  # 20.00 surplus
        assert adapter.create_player(Decimal("40.00")).player_id == "bob"


def test_an_account_that_cannot_log_in_stays_free_and_two_logins_as_one_player_stop(
    tmp_path: Path,
) -> None:
    casino = Casino()
    broken = {"on": True}

    def flaky(request: Seen):
        if request.path == "/login.php" and broken["on"]:
            return 500, {}, {"error": "down"}
        return casino(request)

    with scripted(flaky) as (url, _seen):
        adapter = adapter_for(tmp_path, url, _accounts)
        with pytest.raises(TargetError):
            adapter.create_player(Decimal("1.00"))
        broken["on"] = False
        assert adapter.create_player(Decimal("1.00")).player_id == "bob"  # alice went last
        assert adapter.create_player(Decimal("1.00")).player_id == "carol"
        assert adapter.create_player(Decimal("1.00")).player_id == "alice"  # still lendable


def test_a_login_answering_a_player_already_lent_is_the_mappings_error(tmp_path: Path) -> None:
    def everyone_is_alice(request: Seen):
        if request.path == "/login.php":
            return 200, {"Set-Cookie": f"PHPSESSID=s{len(request.body)}; Path=/"}, {"user": "a"}
        return 200, {}, {"cash": "5000.00"}

    with scripted(everyone_is_alice) as (url, _seen):
        adapter = adapter_for(tmp_path, url, _accounts)
        adapter.create_player(Decimal("1.00"))
        with pytest.raises(MappingAnswerError, match="which another lent account already is"):
            adapter.create_player(Decimal("1.00"))


def test_a_second_login_answering_the_same_session_is_no_second_login(tmp_path: Path) -> None:
    def one_session(request: Seen):
        if request.path == "/login.php":
            return 200, {"Set-Cookie": "PHPSESSID=only; Path=/"}, {"user": "alice"}
        return 200, {}, {"cash": "5000.00"}

    with scripted(one_session) as (url, _seen):
        adapter = adapter_for(tmp_path, url, lambda d: _accounts(d, logins_at_once=3))
        player = adapter.create_player(Decimal("1.00"))
        with pytest.raises(Unsupported, match="holds one session at a time"):
            adapter.another_login(player)

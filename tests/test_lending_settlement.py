"""No account is lent with an unsettled bet (livecert/adapters/mapping/accounts.py,
lent_players.py): a table that runs rounds on its own timer may still be playing a round a
scenario bet on when the scenario ends; the lent account goes back to the pool only once its
bets read settled on the target, else it is set aside for the run, saying why.

Design under test: while an account's bets are not read settled it is neither lent nor free, so
a scenario lending meanwhile is given another account (never this one, and never made to wait).
"""

from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
from test_accounts import Casino, _accounts, _environment  # noqa: F401 (autouse)
from test_mapping import Seen, a_round, adapter_for, scripted

from livecert.adapters.errors import TargetError, Unsupported
from livecert.adapters.mapping import MappingAdapter, load_mapping
from livecert.adapters.mapping.accounts import Account, AccountPool, Settlement
from livecert.adapters.model import BetView, PlayerHandle, RoundView

# accounts lent back once their bets settle, read until a deadline
pytestmark = pytest.mark.timing

ROOT = Path(__file__).resolve().parent.parent

D10 = Decimal("10.00")
OPEN_BET = "its bet b1 on round r1 (the round shows it closed)"


class Books:
    """A fake target's accounts: a login is the player named for the account; every balance
    read is logged, so a test sees when it was taken."""

    def __init__(self) -> None:
        self.cash = {"alice": Decimal("5000.00"), "bob": Decimal("5000.00")}
        self.log: list[str] = []

    def login(self, account: Account) -> PlayerHandle:
        return PlayerHandle(account.user, f"t-{account.user}")

    def read(self, player: PlayerHandle) -> Decimal:
        self.log.append(f"balance {player.player_id}")
        return self.cash[player.player_id]


class Clock:
    """A clock that moves only when slept on: the deadline is reached in reads, not seconds."""

    def __init__(self) -> None:
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def _pool(books: Books, *users: str) -> AccountPool:
    return AccountPool([Account(u, "pw") for u in users], 1, "X")


def _settlement(unsettled, clock: Clock, within_s: float = 2.0) -> Settlement:
    return Settlement(unsettled, within_s, "as the table declares", 0.5, clock.clock, clock.sleep)


def test_an_account_whose_bet_settles_late_is_free_only_once_it_reads_settled() -> None:
    """The bet reads settled on the third read: before it the account is not lent (another
    is), and its balance is read only after, so it reconciles when lent again."""
    books, clock = Books(), Clock()
    pool = _pool(books, "alice", "bob")
    alice = pool.lend(D10, books.login, books.read)
    books.cash["alice"] -= D10  # the bet on round r1, still playing when the scenario ends
    meanwhile: list[str] = []

    def unsettled(player: PlayerHandle) -> str | None:
        books.log.append(f"settlement {player.player_id}")
        reads = books.log.count("settlement alice")
        if reads == 1:  # another scenario lends now: it is given bob, never alice
            meanwhile.append(pool.lend(D10, books.login, books.read).player_id)
        elif reads == 2:  # and a third finds no account free, alice being awaited
            with pytest.raises(Unsupported, match=r"waiting for its bets to settle \(1\)"):
                pool.lend(D10, books.login, books.read)
        if reads < 3:
            return OPEN_BET
        books.cash["alice"] += Decimal("20.00")  # the round settles: a win paid
        return None

    pool.give_back(books.read, [alice], _settlement(unsettled, clock))
    assert meanwhile == ["bob"]
    # alice's balance: read when lent, then only once her bet read settled
    of_alice = [entry for entry in books.log if entry.endswith("alice")]
    assert of_alice == ["balance alice"] + ["settlement alice"] * 3 + ["balance alice"]
    again = pool.lend(D10, books.login, books.read)
    assert again.player_id == "alice" and pool.notes() == []  # reconciled: 5010.00 both times
    assert pool.offset(again) == Decimal("5000.00")


def test_an_account_whose_bet_never_settles_is_set_aside_saying_which_bet() -> None:
    books, clock = Books(), Clock()
    pool = _pool(books, "alice")
    alice = pool.lend(D10, books.login, books.read)
    reads: list[float] = []

    def unsettled(player: PlayerHandle) -> str:
        reads.append(clock.now)
        return OPEN_BET

    pool.give_back(books.read, [alice], _settlement(unsettled, clock, within_s=2.0))
    assert reads == [0.0, 0.5, 1.0, 1.5, 2.0]  # read every 0.5 s until the 2 s declared
    assert books.log == ["balance alice"]  # read when lent, never after
    assert pool.notes() == [
        f"account alice set aside for the run: {OPEN_BET} was still unsettled 2 s after the "
        "scenario ended (as the table declares)"
    ]
    with pytest.raises(Unsupported, match=r"set aside \(1\)"):
        pool.lend(D10, books.login, books.read)


def test_an_account_whose_settlement_cannot_be_read_is_set_aside() -> None:
    books, clock = Books(), Clock()
    pool = _pool(books, "alice", "bob")
    alice = pool.lend(D10, books.login, books.read)

    def unreadable(player: PlayerHandle) -> str:
        raise TargetError("read the round", "HTTP 500")

    pool.give_back(books.read, [alice], _settlement(unreadable, clock))
    [note] = pool.notes()
    assert note.startswith("account alice set aside for the run: its bets' settlement could not")
    assert "HTTP 500" in note and books.log == ["balance alice"] and clock.now == 0.0
    assert pool.lend(D10, books.login, books.read).player_id == "bob"


# -- through the mapping adapter: the round read from the target -------------------------------


class RoundCasino(Casino):
    """Test_accounts' casino with one live round, r1, whose bets stay open until it has been
    read `settles_after` times; then it reads settled, each bet won (20.00 returned on 10.00).
    `round_fails` answers 500 to every read of it."""

    def __init__(self, settles_after: int | None, round_fails: bool = False) -> None:
        super().__init__()
        self.settles_after, self.round_fails = settles_after, round_fails
        self.bets: list[dict] = []
        self.reads = 0

    def _state(self) -> str:
        settled = self.settles_after is not None and self.reads >= self.settles_after
        return "done" if settled else "open"

    def __call__(self, request: Seen):
        if request.path == "/tables/t1/rounds":
            return 200, {}, a_round()
        if request.path == "/rounds/r1":
            if self.round_fails:
                return 500, {}, {"error": "down"}
            self.reads += 1
            if self._state() == "done" and self.bets[0]["status"] == "open":
                for bet in self.bets:  # settled: each bet won, paid once
                    bet.update(status="settled", outcome="win", net=10)
                    self.cash[bet["player"]] += Decimal("20.00")
            return 200, {}, a_round(self._state(), bets=self.bets, dice=[6, 6, 5])
        if request.path in ("/rounds/r1/bets", "/history"):
            return self._as_player(request)
        return super().__call__(request)

    def _as_player(self, request: Seen):
        user = next(u for s, u in self.sessions.items() if s in request.headers.get("Cookie", ""))
        if request.path == "/history":  # the bet record: the bets as the target books them
            return 200, {}, {"bets": [b for b in self.bets if b["player"] == user]}
        self.cash[user] -= D10
        bet = {"id": "b1", "round": "r1", "player": user, "pick": "big", "amount": 10}
        self.bets.append({**bet, "status": "open", "outcome": None, "net": None})
        return 200, {}, {"bets": [bet | {"status": "open"}]}


def _polled(timeout_ms: int, record: bool = False):
    """Accounts, and an enter_result the mapping polls: the settle time it declares."""

    def change(data: dict) -> None:
        _accounts(data)
        poll = {"while": {"state": ["closed"]}, "interval_ms": 1, "timeout_ms": timeout_ms}
        data["operations"]["enter_result"]["poll"] = poll
        if record:
            data["operations"]["bet_record"] = {
                "role": "player",
                "request": {"method": "GET", "path": "/history"},
                "answer": {"fields": {"bets": {"path": "bets", "shape": "bet"}}},
            }

    return change


def _bet_then_release(tmp_path, casino: RoundCasino, change) -> tuple[list[Seen], object]:
    """Alice bets 10.00 on round r1 and the scenario ends: the requests since, and the adapter."""
    with scripted(casino) as (url, seen):
        adapter = adapter_for(tmp_path, url, change)
        alice = adapter.create_player(D10)
        round_id = adapter.open_round("t1").round_id
        adapter.place_bets(alice, round_id, [("BIG", D10)])
        start = len(seen)
        adapter.release_players()
        return seen[start:], adapter


def test_the_adapter_gives_an_account_back_once_its_round_reads_settled(tmp_path) -> None:
    casino = RoundCasino(settles_after=3)
    after, adapter = _bet_then_release(tmp_path, casino, _polled(timeout_ms=5000))
    assert [s.path for s in after] == ["/rounds/r1"] * 3 + ["/balance.php"]
    assert adapter._accounts._returned["alice"] == Decimal("5010.00")  # the balance settled
    assert adapter.account_notes() == []


def test_the_adapter_sets_aside_an_account_whose_round_never_settles(tmp_path) -> None:
    after, adapter = _bet_then_release(tmp_path, RoundCasino(None), _polled(timeout_ms=50))
    assert {s.path for s in after} == {"/rounds/r1"}  # its balance is never read back
    assert adapter.account_notes() == [
        "account alice set aside for the run: its bet b1 on round r1 (the round shows it "
        "betting) was still unsettled 0.05 s after the scenario ended (the mapping polls "
        "enter_result up to 50 ms)"
    ]


def test_the_adapter_sets_aside_an_account_whose_round_cannot_be_read(tmp_path) -> None:
    casino = RoundCasino(3, round_fails=True)
    after, adapter = _bet_then_release(tmp_path, casino, _polled(timeout_ms=5000))
    assert [s.path for s in after] == ["/rounds/r1"]  # set aside at once, no balance read
    [note] = adapter.account_notes()
    assert note.startswith("account alice set aside for the run: its bets' settlement could not")


def test_where_the_round_cannot_be_read_the_bet_record_says(tmp_path) -> None:
    casino = RoundCasino(3, round_fails=True)
    change = _polled(timeout_ms=5000, record=True)
    with scripted(casino) as (url, seen):
        adapter = adapter_for(tmp_path, url, change)
        alice = adapter.create_player(D10)
        adapter.place_bets(alice, adapter.open_round("t1").round_id, [("BIG", D10)])
        casino.bets[0].update(status="settled", outcome="lose", net=-10)  # booked lost
        start = len(seen)
        adapter.release_players()
        after = [s.path for s in seen[start:]]
    assert after == ["/rounds/r1", "/history", "/balance.php"]
    assert adapter._accounts._returned["alice"] == Decimal("4990.00")
    assert adapter.account_notes() == []


def test_a_live_round_reads_settled_only_once_its_settlement_was_pushed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a table that pushes its rounds, the round's result alone does not settle a bet: its
    settlement pushed to the player does (else the bet record must say). The settle time is
    what the example's streams declare: timeout_ms 5000 for the close, again for the result,
    then settle_ms 1000."""
    monkeypatch.setenv("SOCKETIO_TABLE_ADMIN_TOKEN", "t")
    mapping = load_mapping(ROOT / "examples" / "socketio_table" / "mapping.yaml")
    adapter = MappingAdapter(mapping, "http://127.0.0.1:9")
    within, _every, basis = adapter._settle_time()
    assert within == 11.0 and "timeout_ms (5000 ms)" in basis and "settle_ms (1000 ms)" in basis
    acked = BetView("b1", "r1", "alice", "BIG", D10, None, None, None, None)
    won = replace(acked, status="settled", outcome="win", returned=Decimal("20.00"))

    def seen(state: str, bet: BetView) -> bool | None:
        view = RoundView("r1", "t1", "sicbo", state, None, (bet,), None, echoed=True)
        return adapter._round_says(view, bet)[0]

    assert seen("betting", acked) is False
    assert seen("settled", acked) is None  # the result came, the settlement not yet
    assert seen("settled", won) is True
    # a round the target answers (not the stream's assembly) that is settled settles its bets
    answered = RoundView("r1", "t1", "sicbo", "settled", None, (acked,), None)
    assert adapter._round_says(answered, acked)[0] is True

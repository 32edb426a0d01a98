"""Pre-provisioned accounts: a casino with no API to create a player lends the lab a list of
accounts (credentials from the environment) whose balances are read, never set.

Each scenario's players are taken from the list and given back when it ends, but only once every
bet the account placed during the scenario reads settled on the target (a `Settlement`: the
mapping adapter reads the round, else the bet record, `lent_players.py`): a table that runs its
rounds on its own timer may still be playing a round the scenario bet on when the scenario ends,
and that round's settlement must not land inside the next scenario. The pool reads again every
`every_s` until the settle time the table declares (`within_s`) has passed; meanwhile the
account is neither lent nor free, so a scenario lending then is given another account. An
account whose bet is still unsettled then, or whose settlement cannot be read, is set aside for
the rest of the run, saying why. Its balance is read only once its bets are settled.

An account is lent again only after its balance is reconciled: the balance read when it was given
back must be the balance read when it is lent again (anyone else playing on it would otherwise
move money under the next scenario's checks); an account whose balance moved in between is set
aside for the rest of the run, with the reason.

The harness's scenarios ask for a player "with a balance of 100.00": where the balance is read,
the account must hold at least that, and every balance it shows the scenario is the one read less
the account's surplus (its offset), so that the scenario's amounts hold as written; a stake that
must be over the balance is made over the balance read (`over_balance`).
"""

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from livecert.adapters.errors import AdapterError, MappingAnswerError, Unsupported
from livecert.adapters.model import PlayerHandle

READ_EVERY_S = 0.25  # how often a settlement is read again, where the table polls at no pace


class AccountsError(ValueError):
    """The accounts the environment lists cannot be read (one message naming what to fix)."""


@dataclass(frozen=True)
class Account:
    user: str
    password: str


@dataclass
class _Lent:
    account: Account
    offset: Decimal  # the balance read less the balance the scenario asked for
    logins: list[PlayerHandle] = field(default_factory=list)
    pending: int = 0  # logins being made


@dataclass(frozen=True)
class Settlement:
    """How the pool knows a lent account's bets are settled before it takes the account back.

    `unsettled(player)` is None once every bet the player placed while lent reads settled on the
    target, else the first one that does not ("its bet B on round R (the round shows it
    betting)"); it raises AdapterError where the settlement cannot be read. `within_s` is how
    long after the scenario's end the table may take to settle (what it declares, `basis` says
    how); `clock` and `sleep` are the pace's (a test's own)."""

    unsettled: Callable[[PlayerHandle], str | None]
    within_s: float
    basis: str
    every_s: float = READ_EVERY_S
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep


def parse_accounts(text: str, where: str) -> list[Account]:
    """`user:password` pairs, one per line or separated by commas (a password may hold `:`)."""
    accounts = []
    for number, part in enumerate(p.strip() for p in text.replace("\n", ",").split(",")):
        if not part:
            continue
        user, colon, password = part.partition(":")
        if not colon or not user.strip() or not password:
            raise AccountsError(
                f"{where}: account {number + 1} is not `user:password` (each account as "
                "user:password, separated by commas or new lines)"
            )
        accounts.append(Account(user.strip(), password))
    if not accounts:
        raise AccountsError(f"{where} lists no account (user:password, separated by commas)")
    users = [a.user for a in accounts]
    twice = sorted({u for u in users if users.count(u) > 1})
    if twice:
        raise AccountsError(f"{where} lists the account {twice[0]!r} twice")
    return accounts


class AccountPool:
    """The accounts a run may lend, who holds each, and the balance each was given back with."""

    def __init__(self, accounts: list[Account], logins_at_once: int, where: str) -> None:
        self.accounts = accounts
        self.logins_at_once = logins_at_once
        self.where = where
        self._lock = threading.Lock()
        self._free = list(accounts)
        self._lent: dict[str, _Lent] = {}  # player id -> the account lent as that player
        self._returned: dict[str, Decimal] = {}  # user -> the balance read when given back
        self.set_aside: dict[str, str] = {}  # user -> why it is lent no more
        self._settling: set[str] = set()  # users given back, their bets not read settled yet
        self._unread: list[str] = []  # set-aside notes not yet shown
        self._said: set[str] = set()  # notes shown once a run

    def lend(
        self,
        wanted: Decimal,
        login: Callable[[Account], PlayerHandle],
        read: Callable[[PlayerHandle], Decimal],
    ) -> PlayerHandle:
        """A free account logged in (`login`), its balance read (`read`): the player, whose
        balances are shown less the surplus over `wanted`. The free accounts are tried those
        known to hold least (but enough) first, so the surplus is small; one holding too little
        stays free for a scenario asking less."""
        with self._lock:
            candidates = self._candidates(wanted)
        too_small = []
        for account in candidates:
            with self._lock:
                if account not in self._free:
                    continue  # taken meanwhile
                self._free.remove(account)
            try:
                handle = login(account)
                balance = read(handle)
            except BaseException:
                with self._lock:
                    self._free.append(account)  # not lent: free again, for the next scenario
                raise
            before = self._returned.get(account.user)
            if before is not None and balance != before:
                self._set_aside(
                    account,
                    f"its balance moved from {before} to {balance} while no scenario held it",
                )
                continue
            with self._lock:
                if balance < wanted:
                    self._returned[account.user] = balance
                    self._free.append(account)
                    too_small.append(f"{account.user} {balance}")
                    continue
                if handle.player_id in self._lent:
                    self._free.append(account)
                    raise MappingAnswerError(
                        "create a test player",
                        "operations.create_player.answer.fields.player_id",
                        f"the account {account.user} logged in as player {handle.player_id!r}, "
                        "which another lent account already is: the login does not read whose "
                        "account it is",
                        repr(handle.player_id),
                    )
                self._lent[handle.player_id] = _Lent(account, balance - wanted, [handle])
            return handle
        if too_small:
            raise Unsupported(
                f"create a player with a balance of {wanted}",
                f"no free account holds that much ({', '.join(too_small[:5])}): its balance is "
                "read, not set: give the accounts more",
            )
        raise Unsupported(
            "create a player",
            f"every account {self.where} lists ({len(self.accounts)}) is in use by this "
            f"scenario or another, waiting for its bets to settle ({len(self._settling)}) or "
            f"set aside ({len(self.set_aside)}): the scenario needs more accounts",
        )

    def _candidates(self, wanted: Decimal) -> list[Account]:
        """The free accounts in the order to try: those known (from when they were given back)
        to hold enough, least first; then those not known yet; those known to hold too little
        last (a balance may have grown)."""
        known = self._returned

        def order(account: Account) -> tuple[int, Decimal]:
            held = known.get(account.user)
            if held is None:
                return (1, Decimal(0))
            return (0, held) if held >= wanted else (2, held)

        return sorted(self._free, key=order)

    def _set_aside(self, account: Account, why: str) -> None:
        with self._lock:
            self._settling.discard(account.user)
            self.set_aside[account.user] = why
            self._unread.append(f"account {account.user} set aside for the run: {why}")

    def note_once(self, note: str) -> None:
        """A note for the scenario's evidence, shown once a run (not once a scenario)."""
        with self._lock:
            if note not in self._said:
                self._said.add(note)
                self._unread.append(note)

    def notes(self) -> list[str]:
        """The accounts set aside since the last call, and why (evidence for the scenario)."""
        with self._lock:
            notes, self._unread = self._unread, []
        return notes

    def offset(self, player: PlayerHandle) -> Decimal:
        lent = self._lent.get(player.player_id)
        return lent.offset if lent else Decimal(0)

    def another_login(
        self, player: PlayerHandle, login: Callable[[Account], PlayerHandle]
    ) -> PlayerHandle:
        """One more login of the player's account, where the mapping says it may hold several."""
        lent = self._lent.get(player.player_id)
        if lent is None:
            raise Unsupported("log the player in again", "the player is not a listed account")
        with self._lock:
            if len(lent.logins) + lent.pending >= self.logins_at_once:
                raise Unsupported(
                    "log the player in again",
                    f"an account may hold {self.logins_at_once} login(s) at once "
                    "(accounts.logins_at_once)",
                )
            lent.pending += 1  # the slot, held while the login is made
        try:
            handle = login(lent.account)
        finally:
            with self._lock:
                lent.pending -= 1
        if handle.player_id != player.player_id:
            raise Unsupported(
                "log the player in again",
                f"a second login of {lent.account.user} is player {handle.player_id!r}, not "
                f"{player.player_id!r}",
            )
        if any(handle.token == one.token for one in lent.logins):
            raise Unsupported(
                "log the player in again",
                f"a second login of {lent.account.user} answered a session it already holds: "
                "the account holds one session at a time",
            )
        with self._lock:
            lent.logins.append(handle)
        return handle

    def forget_login(self, player: PlayerHandle, login: PlayerHandle) -> None:
        """A login of the player's account that has ended: it counts no more."""
        lent = self._lent.get(player.player_id)
        with self._lock:
            if lent is not None and login in lent.logins[1:]:
                lent.logins.remove(login)

    def give_back(
        self,
        read: Callable[[PlayerHandle], Decimal],
        players: list[PlayerHandle] | None = None,
        settlement: Settlement | None = None,
    ) -> None:
        """The accounts lent as `players` (every one, by default) back to the pool once their
        bets read settled (`settlement`; at once without one), with the balance read then (to
        reconcile when lent again). One whose bet is still unsettled past the table's settle
        time, or whose settlement or balance cannot be read, is set aside. Meanwhile the account
        is neither lent nor free: a scenario lending then is given another (this call returns
        only once each account is back or set aside)."""
        with self._lock:
            ids = set(self._lent) if players is None else {p.player_id for p in players}
            lent = [self._lent.pop(i) for i in list(self._lent) if i in ids]  # in lending order
            self._settling |= {one.account.user for one in lent}
        if settlement is None:
            for one in lent:
                self._take_back(one, read)
            return
        deadline = settlement.clock() + settlement.within_s
        waiting = lent
        while waiting:
            left: list[tuple[_Lent, str]] = []
            for one in waiting:
                try:
                    open_bet = settlement.unsettled(one.logins[0])
                except AdapterError as error:  # not known settled: lent no more
                    self._set_aside(one.account, f"its bets' settlement could not be read: {error}")
                    continue
                if open_bet is None:
                    self._take_back(one, read)
                else:
                    left.append((one, open_bet))
            now = settlement.clock()
            if left and now >= deadline:
                for one, open_bet in left:
                    self._set_aside(
                        one.account,
                        f"{open_bet} was still unsettled {settlement.within_s:g} s after the "
                        f"scenario ended ({settlement.basis})",
                    )
                return
            if left:
                settlement.sleep(min(settlement.every_s, deadline - now))
            waiting = [one for one, _ in left]

    def _take_back(self, one: _Lent, read: Callable[[PlayerHandle], Decimal]) -> None:
        """The account free again, with its balance read now; set aside if it cannot be."""
        try:
            balance = read(one.logins[0])
        except AdapterError as error:  # not reconciled: lent no more
            self._set_aside(one.account, f"its balance could not be read back: {error}")
            return
        with self._lock:
            self._returned[one.account.user] = balance
            self._settling.discard(one.account.user)
            self._free.append(one.account)


def accounts_of(mapping: Any) -> AccountPool | None:
    """The pool of the accounts the mapping's `accounts` lists (read from the environment when
    the file was loaded), or None where players are created."""
    spec = mapping.data.get("accounts")
    if not spec:
        return None
    where = f"the environment variable {spec['env']}"
    return AccountPool(list(mapping.accounts), int(spec.get("logins_at_once", 1)), where)

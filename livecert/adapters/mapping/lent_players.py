"""Players lent as accounts, through a mapping file: the mapping adapter's side of
`accounts.py` (logging an account in, a second login, a session ended, giving accounts back once
the bets they placed read settled on the target).

A bet's settlement is read, in this order: (1) its round (`get_round`, or as a live table's
stream showed it): a round not finished is unsettled; a finished one settles the bet by the
bet's status where the round shows one (`open`: not yet), else by its own state; (2) where the
round cannot say (a live table's finished round whose bet's settlement was not pushed to its
player yet) or cannot be read, the player's bet record (`bet_record`): the bet's status, else its
round's state; (3) neither says: still unsettled, read again until the table's settle time has
passed. Neither can be read at all: the settlement is unknown, and the account set aside.
Every mapping that places bets maps `get_round` (the loader requires it); one that did not
would give its accounts back at once, as before, saying so once in the account notes.

The mixin needs the adapter's `_accounts` (an AccountPool or None), `_calls`, `_run`,
`_read_balance`, `_absence`, `mapping`, `_player_from`, `_holdings`, `_live`, `get_round` and
`bet_record`.
"""

from decimal import Decimal
from typing import Any

from livecert.adapters.errors import AdapterError, Unsupported
from livecert.adapters.mapping.accounts import (
    READ_EVERY_S,
    Account,
    AccountPool,
    Settlement,
)
from livecert.adapters.mapping.history import FINISHED
from livecert.adapters.model import BetRecord, BetView, PlayerHandle, RoundView

POLL_TIMEOUT_MS = 10_000  # how long a mapping's `poll` waits where it names no timeout_ms
POLL_INTERVAL_MS = 50  # and how often it reads (polling.py)
UNREAD = (
    "lent accounts are given back as soon as their scenario ends, their balance read then: the "
    "mapping has neither get_round nor bet_record, so whether their bets are settled cannot be "
    "read (a bet settling later moves the balance, and the account is set aside when next lent)"
)


class LentAccounts:
    """What the mapping adapter does with lent accounts, and with players it made by logging
    in (a second login of them)."""

    _accounts: AccountPool | None
    _calls: Any
    _reader: Any
    _made_logins: dict[str, dict[str, Any]]
    mapping: Any

    def balance_offset(self, player: PlayerHandle) -> Decimal:
        """How much more the player's account held than the scenario asked for (0 where the
        balance is set): a stake that must be over the balance is over it by this much more."""
        return self._accounts.offset(player) if self._accounts else Decimal(0)

    def _log_in(self, account: Account) -> PlayerHandle:
        """A listed account logged in by `create_player` (its password masked everywhere)."""
        self._calls.sessions.secret(account.password, "$ACCOUNT_PASSWORD")
        values = {"account": {"user": account.user, "password": account.password}}
        fields = self._run("create_player", f"log the account {account.user} in", values)
        return self._player_from(fields)

    def another_login(self, player: PlayerHandle) -> PlayerHandle:
        """One more session of the player's account at once: a lent account's (as many as
        accounts.logins_at_once), or the login of a player the run made (its account made by
        the lab's command), sent again with what it was filled from."""
        if self._accounts is None:
            return self._log_in_again(player)
        return self._accounts.another_login(player, self._log_in)

    def _captured(self) -> dict[str, Any]:
        return dict(self._calls.captured)

    def _log_in_again(self, player: PlayerHandle) -> PlayerHandle:
        """A second login of a player the run made: create_player's own request (not its
        hooks: the account exists) with the values and captures of the first."""
        made = self._made_logins.get(player.player_id)
        if made is None:
            raise Unsupported(
                "log the player in again",
                "the mapping lists no accounts, and the player was not made by a login "
                "(create_player reads no cookie)",
            )
        login = self.mapping.operation("create_player") or {}  # its request alone, no hooks
        answer = self._calls.perform_as(
            "log the player in again", login, {"balance": made["balance"]}, made["captured"]
        )
        fields = self._reader.answer("create_player", "log the player in again", login, answer, {})
        handle = self._player_from(fields)
        if handle.player_id != player.player_id or handle.token == player.token:
            raise Unsupported(
                "log the player in again",
                f"a second login of {player.player_id} answered player {handle.player_id!r}"
                + (" with the session it holds" if handle.token == player.token else ""),
            )
        return handle

    def expired_credential(self, player: PlayerHandle) -> str:
        """A session of the player's account that has ended (operation `end_session`): a
        second login, ended at once, so the player's own session still reads the balance."""
        if self.mapping.operation("end_session") is None:
            raise Unsupported("end a session of the player", self._absence("end_session"))
        if self._accounts is None and player.player_id not in self._made_logins:
            raise Unsupported(
                "end a session of the player",
                "the mapping lists no accounts, and the player was not made by a login: no "
                "second login of the player can be made to end (the player's own session "
                "must stay, to read the balance)",
            )
        second = self.another_login(player)
        self._run("end_session", "end a session of the player", {"player": second})
        if self._accounts is not None:
            self._accounts.forget_login(player, second)
        return second.token

    def account_notes(self) -> list[str]:
        """What happened to the lent accounts since the last call (set aside, and why)."""
        return self._accounts.notes() if self._accounts is not None else []

    def release_players(self, players: list[PlayerHandle] | None = None) -> None:
        """The scenario (or its `players`) done: their accounts back to the list once the bets
        they placed read settled, balances noted then to reconcile when lent again."""
        if self._accounts is not None:
            within, every, basis = self._settle_time()
            settlement = Settlement(self._unsettled_bet, within, basis, every)
            self._accounts.give_back(self._read_balance, players, settlement)

    def _settle_time(self) -> tuple[float, float, str]:
        """How long after a scenario's end its last round may take to settle, as the table
        declares it, how often to read, and how that was found (for the evidence)."""
        live = getattr(self, "_live", None)
        if live is not None:  # a round still betting: its close, its result, its settlements
            wait, settle = round(live.timeout * 1000), round(live.settle * 1000)
            basis = (
                f"the table's stream may take timeout_ms ({wait} ms) for a round's close and "
                f"again for its result, then settle_ms ({settle} ms) for its settlements"
            )
            return 2 * live.timeout + live.settle, READ_EVERY_S, basis
        specs = {
            name: self.mapping.operation(name) or {} for name in ("close_betting", "enter_result")
        }
        polls = {name: spec["poll"] for name, spec in specs.items() if spec.get("poll")}
        if not polls:
            basis = "the table moves a round only when asked (no stream, no poll): read once"
            return 0.0, READ_EVERY_S, basis
        waits = {name: poll.get("timeout_ms", POLL_TIMEOUT_MS) for name, poll in polls.items()}
        every = min(poll.get("interval_ms", POLL_INTERVAL_MS) for poll in polls.values())
        basis = "the mapping polls " + " and ".join(f"{n} up to {ms} ms" for n, ms in waits.items())
        return sum(waits.values()) / 1000, every / 1000, basis

    def _unsettled_bet(self, player: PlayerHandle) -> str | None:
        """The first bet the player placed while lent that does not read settled, described,
        or None; AdapterError where one's settlement cannot be read at all."""
        seen: set[tuple[str, str, str]] = self.__dict__.setdefault("_lent_bets_settled", set())
        readable = any(self.mapping.operation(n) for n in ("get_round", "bet_record"))
        for round_id, holders in list(self._holdings.items()):
            held = holders.get(player.player_id)
            keys = {(round_id, player.player_id, b.bet_id): b for b in (held[1] if held else [])}
            bets = [bet for key, bet in keys.items() if key not in seen]
            if not bets:
                continue
            if not readable:
                self._accounts.note_once(UNREAD)  # type: ignore[union-attr]
            else:
                open_bet = self._unsettled_in(player, round_id, bets)
                if open_bet is not None:
                    return open_bet
            seen.update(keys)
        return None

    def _unsettled_in(self, player: PlayerHandle, round_id: str, bets: list[BetView]) -> str | None:
        """The first of the player's `bets` in round `round_id` not read settled, described."""
        failed: list[AdapterError] = []
        view = self._read_or_none("get_round", failed, round_id, player)
        record: list[BetRecord | None] = []  # read once, only where the round cannot say
        for bet in bets:
            settled, shows = None, "nothing shows it settled"
            if view is not None:
                settled, shows = self._round_says(view, bet)
            if settled is None and self.mapping.operation("bet_record"):
                if not record:
                    record.append(self._read_or_none("bet_record", failed, player, round_id))
                if record[0] is not None:
                    settled, shows = _record_says(record[0], bet, round_id)
            if settled is None and failed and view is None:
                raise failed[0]  # neither the round nor the record could be read
            if not settled:
                return f"its bet {bet.bet_id} on round {round_id} ({shows})"
        return None

    def _read_or_none(self, name: str, failed: list[AdapterError], *args: Any) -> Any:
        """What the adapter's `name` answers, or None where the mapping lacks it or the read
        fails (the failure kept, for when nothing else can say)."""
        if not self.mapping.operation(name):
            return None
        try:
            return getattr(self, name)(*args)
        except AdapterError as error:
            failed.append(error)
            return None

    def _round_says(self, view: RoundView, bet: BetView) -> tuple[bool | None, str]:
        """Whether the round shows the bet settled (None: it cannot say), and what it shows."""
        if view.state not in FINISHED:
            return False, f"the round shows it {view.state}"
        shown = next((b for b in view.bets if b.bet_id == bet.bet_id), None)
        if shown is not None and shown.status is not None:
            return shown.status != "open", f"the round shows the bet {shown.status}"
        events = (self.mapping.data.get("streams") or {}).get("events", {})
        if view.echoed and "settled" in events:  # the table pushes settlements: none came yet
            return None, f"the round shows it {view.state}, the bet's settlement not pushed"
        return True, f"the round shows it {view.state}"


def _record_says(record: BetRecord, bet: BetView, round_id: str) -> tuple[bool | None, str]:
    """Whether the player's bet record shows the bet settled (None: it cannot say), and what."""
    shown = next((b for b in record.bets if b.bet_id == bet.bet_id), None)
    if shown is not None and shown.status is not None:
        return shown.status != "open", f"its bet record shows it {shown.status}"
    listed = record.round(round_id)
    if listed is not None:
        return listed.state in FINISHED, f"its bet record shows the round {listed.state}"
    return None, "neither its round nor its bet record shows it settled"

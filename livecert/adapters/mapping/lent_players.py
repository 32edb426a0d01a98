"""Players lent as accounts, through a mapping file: the mapping adapter's side of
`accounts.py` (logging an account in, a second login, a session ended, giving accounts back).

The mixin needs the adapter's `_accounts` (an AccountPool or None), `_calls`, `_run`,
`_read_balance`, `_absence`, `mapping` and `_player_from`.
"""

from decimal import Decimal
from typing import Any

from livecert.adapters.errors import Unsupported
from livecert.adapters.mapping.accounts import Account, AccountPool
from livecert.adapters.model import PlayerHandle


class LentAccounts:
    """What the mapping adapter does with lent accounts."""

    _accounts: AccountPool | None
    _calls: Any
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
        """One more session of the player's account at once (accounts.logins_at_once)."""
        if self._accounts is None:
            raise Unsupported("log the player in again", "the mapping lists no accounts")
        return self._accounts.another_login(player, self._log_in)

    def expired_credential(self, player: PlayerHandle) -> str:
        """A session of the player's account that has ended (operation `end_session`): a
        second login, ended at once, so the player's own session still reads the balance."""
        if self.mapping.operation("end_session") is None:
            raise Unsupported("end a session of the player", self._absence("end_session"))
        if self._accounts is None:
            raise Unsupported(
                "end a session of the player",
                "the mapping lists no accounts: no second login of the player can be made to "
                "end (the player's own session must stay, to read the balance)",
            )
        second = self._accounts.another_login(player, self._log_in)
        self._run("end_session", "end a session of the player", {"player": second})
        self._accounts.forget_login(player, second)
        return second.token

    def account_notes(self) -> list[str]:
        """What happened to the lent accounts since the last call (set aside, and why)."""
        return self._accounts.notes() if self._accounts is not None else []

    def release_players(self, players: list[PlayerHandle] | None = None) -> None:
        """The scenario (or its `players`) done: their accounts back to the list, balances
        noted to reconcile when lent again."""
        if self._accounts is not None:
            self._accounts.give_back(self._read_balance, players)

"""The mapping adapter: drives a vendor-shaped API as a mapping file describes it, no Python.

Each adapter operation the steps call is one operation of the mapping file: its requests sent
and judged by `calls.py` (in the role's session, from `sessions.py`), and its answer read back
into the harness's model by `reading.py` (shapes, value tables, money format, selection table
and outcome rules). This module holds the operations themselves: what each one sends, polling
until a round reaches a state, slips in the vendor's codes, settlement derived from balances.
"""

import copy
import threading
from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any

from livecert.adapters.bounds import DEFAULT_BOUNDS, Bounds
from livecert.adapters.errors import MappingAnswerError, Refused, Unsupported, check_token
from livecert.adapters.evidence import ExchangeRecorder
from livecert.adapters.http import DEFAULT_TIMEOUT
from livecert.adapters.mapping.accounts import accounts_of
from livecert.adapters.mapping.bet_slips import BetSlips
from livecert.adapters.mapping.calls import Calls
from livecert.adapters.mapping.document import (
    ABSENCE_MEANS,
    LIVE_ROUND_OPERATIONS,
    MappingError,
    MappingFile,
)
from livecert.adapters.mapping.history import RoundHistory
from livecert.adapters.mapping.instant_play import (
    InstantRounds,
    plain_stake,
    settled_from_balance,
)
from livecert.adapters.mapping.lent_players import LentAccounts
from livecert.adapters.mapping.live import LiveTable
from livecert.adapters.mapping.live_ops import LiveOperations
from livecert.adapters.mapping.polling import PolledRounds
from livecert.adapters.mapping.reading import Reader
from livecert.adapters.mapping.template import BASIC_FILTERS, lookup_value
from livecert.adapters.mapping.wire_money import MoneyFormat, WireMoneyError
from livecert.adapters.model import (
    BetRecord,
    BetView,
    PlayerHandle,
    RoundView,
    TargetInfo,
    limits_from,
)
from livecert.adapters.secrets import SECRETS

DEALER_ACTIONS = {
    "pause": "pause_round",
    "resume": "resume_round",
    "cancel": "cancel_round",
    "void": "void_round",
}


class MappingAdapter(
    BetSlips, PolledRounds, LiveOperations, InstantRounds, LentAccounts, RoundHistory
):
    """A TargetAdapter for any HTTP API a mapping file describes."""

    def __init__(
        self,
        mapping: MappingFile,
        base_url: str | None = None,
        timeout: tuple[float, float] = DEFAULT_TIMEOUT,
        recorder: ExchangeRecorder | None = None,
        bounds: Bounds = DEFAULT_BOUNDS,
    ) -> None:
        self.mapping = mapping
        data = mapping.data
        url = base_url or data.get("base_url")
        if not url:
            raise MappingError(mapping.source, ["base_url: missing, and no --target-url given"])
        self.base_url = url.rstrip("/")
        self.timeout = timeout
        self.recorder = recorder or ExchangeRecorder()
        declares = data["declares"]
        money = dict(data.get("money", {}))
        self.money = MoneyFormat(minor_unit=declares["minor_unit"], **money)
        filters = {
            **BASIC_FILTERS,
            "money": lambda v, _: None if v is None else self.money.write(Decimal(v)),
            "lookup": lambda v, table: lookup_value(data.get("values", {}), table, v),
        }
        # shared by the clones an access check acts through (as_role, with_credential)
        self._calls = Calls(mapping, self.base_url, timeout, self.recorder, filters, bounds)
        self._reader = Reader(mapping, self.money)
        self._forced: tuple[str, str] | None = None  # ("role", name) or ("token", value)
        self._table_games: dict[str, str] = {}
        # round -> player -> (handle, bets placed): for settlement derived from balances
        self._holdings: dict[str, dict[str, tuple[PlayerHandle, list[BetView]]]] = {}
        self._lock = threading.Lock()
        self._playing: set[str] = set()  # players with an instant round read from the balance
        self._accounts = accounts_of(mapping)  # pre-provisioned accounts, lent per scenario
        # player -> what their login was filled from (a lab command's user and password): a
        # player the run made by logging in can log in again, as from another device
        self._made_logins: dict[str, dict[str, Any]] = {}
        self._making = threading.Lock()
        streams = data.get("streams")  # a live table that pushes its rounds (live.py)
        self._live = (
            LiveTable(streams, self.base_url, self._calls, self._reader, self.recorder, filters)
            if streams
            else None
        )

    # -- credentials and access checks ---------------------------------------------------------

    def info(self) -> TargetInfo:
        declares = self.mapping.data["declares"]
        implementation = dict(declares.get("implementation", {}))
        instance = None
        if self.mapping.operation("info"):
            fields = self._run("info", "read the implementation's identity", {})
            implementation.update({k: str(v) for k, v in fields.items() if v is not None})
            instance = implementation.pop("instance", None)  # a restart seen (REG-INTR-01)
        return TargetInfo(
            name=implementation.get("name", self.mapping.name),
            version=implementation.get("version", "unknown"),
            contract_version="mapping:" + self.mapping.sha256[:12],
            games=tuple(declares["games"]),
            currency=declares["currency"],
            minor_unit=declares["minor_unit"],
            rounding=declares["rounding"],
            max_rtp={g: Decimal(v) for g, v in declares["max_rtp"].items()},
            capabilities=tuple(declares.get("capabilities", [])),
            limits=limits_from(declares.get("limits")),
            instance=instance,
        )

    def check_credentials(self) -> None:
        """Log in every session the roles use; CredentialsError names the one refused."""
        self._calls.sessions.log_in_every_role(self._calls.context({}))

    def as_role(self, role: str) -> "MappingAdapter":
        """This adapter sending `role`'s credentials for every call (access checks)."""
        clone = copy.copy(self)
        clone._forced = ("role", role)
        return clone

    def with_credential(self, token: str) -> "MappingAdapter":
        """This adapter sending `token` as the player credential for every call, and no session;
        "" sends no credential at all."""
        clone = copy.copy(self)
        clone._forced = ("token", token)
        return clone

    def settles_from_balance(self, operation: str) -> bool:
        """True where the mapping reads `operation`'s settlement from the balance: the balance
        then says what was returned, so it cannot also prove money was conserved."""
        spec = self.mapping.operation(operation) or {}
        return spec.get("settlement") == "from-balance"

    def _own_balance(self, player: PlayerHandle) -> Decimal:
        """The player's balance read with the run's own credential, never an access check's
        (settlement read from the balance around a call: a forced credential refused there
        would pass for the call refused). A refusal of it is no finding: not testable."""
        own = self
        if self._forced is not None:
            own = copy.copy(self)
            own._forced = None
        try:
            return own.balance(player)
        except Refused as refused:
            raise Unsupported(
                "read the balance around the round",
                f"the target refused the player's own balance read ({refused}): the settlement "
                "it is read from cannot be known",
            ) from None

    def close(self) -> None:
        if self._live is not None:
            self._live.close()
        self._calls.close()

    def _run(
        self,
        name: str,
        operation: str,
        values: dict[str, Any],
        none_yet: bool = False,
        waiting: bool = False,
    ) -> Any:
        """Perform the mapping's operation `name`; answer its fields or its shape (or None, with
        `none_yet`, when the answer holds no object: a table between rounds)."""
        spec = self.mapping.operation(name)
        if spec is None:
            raise Unsupported(operation, self._absence(name))
        setup = values  # the hooks' values: the run's own player
        if self._forced and isinstance(values.get("player"), PlayerHandle):
            token = self._forced[1] if self._forced[0] == "token" else ""
            values = {**values, "player": PlayerHandle(values["player"].player_id, token)}
        answer = self._calls.perform(operation, spec, setup, values, self._forced)
        return self._reader.answer(name, operation, spec, answer, values, none_yet, waiting)

    def _absence(self, name: str) -> str:
        """Why an operation the mapping lacks stops a scenario, naming what is missing."""
        if name in LIVE_ROUND_OPERATIONS:
            missing = [op for op in LIVE_ROUND_OPERATIONS if self.mapping.operation(op) is None]
            return f"{ABSENCE_MEANS[name]} (its mapping has no {', '.join(missing)})"
        return ABSENCE_MEANS.get(name, f"the mapping has no operation {name}")

    def live_round_absence(self) -> str | None:
        """Why no live round can be played here (the target plays instant rounds only), or
        None where the mapping drives one."""
        if all(self.mapping.operation(op) for op in LIVE_ROUND_OPERATIONS):
            return None
        return self._absence("open_round")

    # -- the adapter operations ----------------------------------------------------------------

    def release_players(self, players: list[PlayerHandle] | None = None) -> None:
        """The scenario (or its `players`) done: lent accounts given back once their bets read
        settled (lent_players.py), then, at a live table, the streams those settlements come
        on left (else every player of the run stays joined, each pushed every round)."""
        try:
            super().release_players(players)
        finally:
            if self._live is not None:
                self._live.leave(players)

    def create_player(self, balance: Decimal) -> PlayerHandle:
        """A new player with `balance`, or, where the mapping lists accounts, a free account
        logged in whose balance (read) holds at least that."""
        if self._accounts is not None:
            if self._forced is not None:  # an access check: a login page takes anyone
                raise Unsupported(
                    "create a test player",
                    "players are accounts the casino lends (accounts), logged in, not created: "
                    "who may create one cannot be asked",
                )
            return self._accounts.lend(balance, self._log_in, self._read_balance)
        values = {"balance": self._write(balance)}
        if not self.mapping.logs_players_in():
            return self._player_from(self._run("create_player", "create a test player", values))
        # a login a second one may repeat: its captures (the account's user and password) are
        # kept as this call filled them, one player made at a time (captures are the run's)
        with self._making:
            fields = self._run("create_player", "create a test player", values)
            player = self._player_from(fields)
            self._made_logins[player.player_id] = {**values, "captured": self._captured()}
        return player

    def _player_from(self, fields: dict) -> PlayerHandle:
        token = str(fields.get("token") or "")
        if token:
            SECRETS.register_player_token(token)  # masked from the answer that created it
            check_token(token, "take a player's token", in_header=False)  # goes where the file says
        return PlayerHandle(str(fields["player_id"]), token)

    def _write(self, amount: Decimal | str) -> Any:
        """An amount in the wire money format. Text in the contract's notation ("-1.00",
        "1.001") is an amount the target must judge by its value: written in its own format.
        Other text ("abc", "+10.00", "010.00", "1e3") is sent as written: its notation is what
        is tried, and harness/stake_notation.py says where its refusal may be demanded."""
        if isinstance(amount, str):
            if not plain_stake(amount):
                return amount
            amount = Decimal(amount)
        try:
            return self.money.write(amount)
        except WireMoneyError as error:
            raise Unsupported("write an amount", f"{error} in this API's money format") from None

    def create_table(self, game: str) -> str:
        """A new table, or the target's fixed table of the game (`create_table.fixed`: a target
        with no table API; every scenario then plays at that one table)."""
        fixed = (self.mapping.operation("create_table") or {}).get("fixed")
        if fixed is not None and self._forced is not None:
            raise Unsupported(
                f"create a {game} table",
                "the target's tables are fixed (create_table.fixed): no table is created, so "
                "who may create one cannot be asked",
            )
        if fixed is not None:
            table_id = fixed[game]
            self._table_games[table_id] = game
            return table_id
        fields = self._run("create_table", f"create a {game} table", {"game": game})
        table_id = str(fields["table_id"])
        self._table_games[table_id] = game
        return table_id

    def open_round(self, table_id: str, countdown_ms: int | None = None) -> RoundView:
        values = {
            "table_id": table_id,
            "countdown_ms": countdown_ms,
            "game": self._table_games.get(table_id),
        }
        return self._round_op("open_round", "open a round", values)

    def _round_values(self, round_id: str, **more: Any) -> dict:
        return {"round_id": round_id, "game": self._reader.round_games.get(round_id), **more}

    def close_betting(self, round_id: str) -> RoundView:
        return self._round_op("close_betting", "close betting", self._round_values(round_id))

    def record_reshake(self, round_id: str, reason: str) -> RoundView:
        values = self._round_values(round_id, reason=reason)
        return self._round_op("record_reshake", "record a re-shake", values)

    def record_event(self, round_id: str, event: str) -> RoundView:
        if (self.mapping.operation("record_event") or {}).get("stream") == "by-table":
            view = self._stream_of(f"record the dealer event {event}").view(round_id)
            phase = "betting" if view.game == "xocdia" else "closed"  # XD-RND-01, SB-RND-03
            if event != "shake" or view.state != phase:
                raise Unsupported(
                    f"record the dealer event {event}",
                    f"{self.dealer_acts_alone()}; no other dealer event can be asked of it",
                )
            return view  # the shake is the table's own, during betting: nothing to send
        values = self._round_values(round_id, event=event)
        return self._round_op("record_event", f"record the dealer event {event}", values)

    def dealer_action(self, round_id: str, action: str, reason: str | None = None) -> RoundView:
        name = DEALER_ACTIONS.get(action)
        if name is None:
            raise Unsupported(f"{action} the round", "no such dealer action")
        values = self._round_values(round_id, reason=reason)
        return self._round_op(name, f"{action} the round", values)

    def _outcome_values(self, outcome: Sequence[int] | Sequence[str]) -> dict[str, Any]:
        """The result as the templates see it: `dice`, or `tokens` in the vendor's symbols."""
        values = list(outcome)
        outcomes = self.mapping.data.get("outcomes", {})
        if values and isinstance(values[0], str):
            red, white = outcomes.get("red", "r"), outcomes.get("white", "w")
            tokens = [red if t == "r" else white if t == "w" else t for t in values]
            return {"dice": None, "tokens": tokens, "outcome": values}
        return {"dice": values, "tokens": None, "outcome": values}

    def enter_result(self, round_id: str, outcome: Sequence[int] | Sequence[str]) -> RoundView:
        if "wait" in (self.mapping.operation("enter_result") or {}):
            self._forcible(round_id, outcome)
        self._reader.entered[round_id] = tuple(outcome)
        context = self._round_values(round_id, **self._outcome_values(outcome))
        spec = self.mapping.operation("enter_result") or {}
        if spec.get("settlement") != "from-balance":
            return self._round_op("enter_result", "enter the result", context)
        holders = self._holdings.get(round_id, {})
        crowded = [pid for pid, (_, bets) in holders.items() if len(bets) > 1]
        if crowded:
            raise Unsupported(
                "enter the result",
                "the target reports no settlement per bet (the mapping derives it from the "
                f"balance), and player {crowded[0]} holds {len(holders[crowded[0]][1])} bets in "
                "the round: they cannot be told apart",
            )
        before = {pid: self._own_balance(handle) for pid, (handle, _) in holders.items()}
        shown = self._round_op("enter_result", "enter the result", context)
        if shown.state != "settled":
            return shown  # nothing to derive: the bets stay as the target shows them
        reported = {b.bet_id: b for b in shown.bets}
        derived = {}
        for pid, (handle, bets) in holders.items():
            returned = self._own_balance(handle) - before[pid]
            bet = reported.get(bets[0].bet_id, bets[0])
            derived[bet.bet_id] = settled_from_balance(bet, returned)
        bets = tuple(derived.get(b.bet_id, b) for b in shown.bets) or tuple(derived.values())
        return replace(shown, bets=bets)

    @property
    def capabilities(self) -> tuple[str, ...]:
        return tuple(self.mapping.data["declares"].get("capabilities", []))

    def offers(self, game: str, code: str) -> bool:
        """True unless the mapping marks the selection as not offered by the target."""
        table = self.mapping.selections.get(game)
        return table is None or table.offered(code)

    def send_raw_slip(self, player: PlayerHandle, round_id: str, text: str, content_type: str):
        raise Unsupported(
            "place a raw bet slip", "a mapping adapter sends slips only in the vendor's format"
        )

    def get_round(self, round_id: str, player: PlayerHandle | None = None) -> RoundView:
        if (self.mapping.operation("get_round") or {}).get("stream") == "round":
            return self._stream_of("read the round").view(round_id)
        name = (
            "get_round_as_player"
            if player and self.mapping.operation("get_round_as_player")
            else "get_round"
        )
        return self._reader.round(
            self._run(name, "read the round", self._round_values(round_id, player=player))
        )

    def balance(self, player: PlayerHandle) -> Decimal:
        """The player's balance; a listed account's shown less its surplus over what the
        scenario asked for (accounts.py)."""
        return self._read_balance(player) - self.balance_offset(player)

    def _read_balance(self, player: PlayerHandle) -> Decimal:
        fields = self._run("balance", "read the balance", {"player": player})
        if not isinstance(fields.get("balance"), Decimal):  # the loader requires the field
            raise MappingAnswerError(
                "read the balance",
                "operations.balance.answer.fields.balance",
                "the mapping reads no balance from the answer",
                repr(fields),
            )
        return fields["balance"]

    def withdraw_bet(self, player: PlayerHandle, bet_id: str) -> None:
        self._run("withdraw_bet", "withdraw a bet", {"player": player, "bet_id": bet_id})

    def bet_record(self, player: PlayerHandle, round_id: str | None = None) -> BetRecord:
        fields = self._run(
            "bet_record", "read the bet record", {"player": player, "round_id": round_id}
        )
        record = self._reader.record(fields, player)
        offset = self.balance_offset(player)
        if not offset:
            return record
        rounds = tuple(
            replace(
                r,
                balance_before=None if r.balance_before is None else r.balance_before - offset,
                balance_after=None if r.balance_after is None else r.balance_after - offset,
            )
            for r in record.rounds
        )
        return replace(record, rounds=rounds)

    def connect(self, player: PlayerHandle) -> None:
        if (self.mapping.operation("connect") or {}).get("stream") == "open":
            self._stream_of("reconnect the player").rejoin(player)
            return
        self._run("connect", "reconnect the player", {"player": player})

    def disconnect(self, player: PlayerHandle) -> None:
        if (self.mapping.operation("disconnect") or {}).get("stream") == "close":
            self._stream_of("disconnect the player").drop(player)
            return
        self._run("disconnect", "disconnect the player", {"player": player})

    def restart_target(self) -> None:
        """The lab's restart of its server mid-round (REG-INTR-01): the mapping's optional
        restart_target operation (an admin endpoint, or a `command` hook before a probe)."""
        self._run("restart_target", "restart the target", {})

    def can_restart(self) -> bool:
        """True where the mapping has a restart_target operation."""
        return self.mapping.operation("restart_target") is not None

    def statistics(self, table_id: str) -> list[dict]:
        values = {"table_id": table_id, "game": self._table_games.get(table_id)}
        fields = self._run("statistics", "read the statistics chart", values)
        return list(fields.get("results") or [])

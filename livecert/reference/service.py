"""The game server's behaviour, independent of HTTP: roles, the round's life, bets, settlement.

Each public method validates completely before it writes, and writes in one store transaction,
so a refusal (an ApiError) moves no money and creates nothing.

Service combines the parts, one module each: rounds (the round's life), settlement (results,
cancels and voids), betting (slips and withdrawals), idempotency (its seeded faults), records
(statistics and the bet record), history (a table's finished rounds) and players; identity, info
and the operator's actions are here. At start-up it makes the drawn tables (drawn.py) if asked.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any

from livecert.reference import __version__
from livecert.reference.base import Identity, _new_id
from livecert.reference.betting import Betting
from livecert.reference.config import (
    CAPABILITIES,
    MAX_COUNTDOWN_MS,
    NO_LIMITS,
    Config,
)
from livecert.reference.drawn import fill_drawn_tables
from livecert.reference.errors import ApiError, forbidden, unauthorized, validation
from livecert.reference.games import GAMES, KNOWN_GAMES
from livecert.reference.history import History
from livecert.reference.idempotency import Idempotency
from livecert.reference.inputs import (
    MAX_NAME,
    MAX_SELECTION,
    MAX_STAKE,
    MAX_TEXT,
    _object,
    _optional_string,
)
from livecert.reference.money import MoneyError, format_amount, parse_amount
from livecert.reference.players import Players
from livecert.reference.records import Records
from livecert.reference.rounds import Rounds
from livecert.reference.settlement import Settlement
from livecert.reference.store import Store
from livecert.reference.views import Json

# what app.py and the tests read here, the string limits (the contract's maxLength) among them
__all__ = [
    "CONTRACT_VERSION",
    "MAX_NAME",
    "MAX_SELECTION",
    "MAX_STAKE",
    "MAX_TEXT",
    "Identity",
    "Service",
]

# this server process, new each start: /v1/info's `instance`, by which a restart is seen
INSTANCE = secrets.token_hex(8)

CONTRACT_VERSION = "1.1.0"
RESTARTED = "the server restarted"  # the reason of a round returned at start-up


class Service(Rounds, Settlement, Betting, Idempotency, Records, History, Players):
    """The reference game server; one instance per app, sharing one Store."""

    def __init__(self, config: Config, store: Store) -> None:
        self.config = config
        self.store = store
        self.faults = config.faults
        self.now = config.clock
        self.rejoined = set()  # FAULT rejoin-settles-twice: the bets of players who re-joined
        if "interrupted-round-lost" in self.faults:
            with store.transaction():
                store.delete_unfinished_rounds()  # FAULT interrupted-round-lost
        if "interrupted-bet-lost" in self.faults:
            with store.transaction():
                store.delete_last_unfinished_bets()  # FAULT interrupted-bet-lost
        if config.return_interrupted:  # the other compliant way: each stake returned at start
            with store.transaction():
                for rid in store.unfinished_round_ids():
                    self._finish_refunded(rid, "cancelled", RESTARTED, self.now())
        if config.drawn_rounds > 0:
            fill_drawn_tables(
                store, config.drawn_rounds, config.shaker_seed, self.faults, self.now()
            )

    # -- identity ------------------------------------------------------------------------------
    def identify(self, token: str | None) -> Identity:
        """The role a bearer token stands for, or 401."""
        if not token:
            raise unauthorized()
        if hmac.compare_digest(token.encode(), self.config.operator_token.encode()):
            return Identity("operator")
        if hmac.compare_digest(token.encode(), self.config.dealer_token.encode()):
            return Identity("dealer")
        with self.store.reading():
            row = self.store.player_by_token(token)
        if row is None:
            raise unauthorized("the bearer token is not known")
        return Identity("player", row["id"])

    def require(self, ident: Identity, role: str) -> None:
        if role == "dealer" and ident.role == "player" and "player-can-deal" in self.faults:
            return  # FAULT player-can-deal
        if ident.role != role:
            raise forbidden(f"this action needs the {role} role; the token is a {ident.role}'s")

    # -- info ----------------------------------------------------------------------------------
    def info(self) -> Json:
        declared = self._declarations()
        if "info-money-as-numbers" in self.faults:  # FAULT info-money-as-numbers: JSON numbers
            declared["max_rtp"] = {g: float(v) for g, v in declared["max_rtp"].items()}
            for bounds in declared.get("limits", {}).values():
                bounds.update({n: float(v) for n, v in bounds.items()})
        return declared

    def _declarations(self) -> Json:
        return {
            "implementation": {
                "name": "livecert-reference",
                "version": __version__,
                "vendor": "livecert",
            },
            "contract_version": CONTRACT_VERSION,
            "games": list(GAMES),
            "currency": self.config.currency,
            "minor_unit": 2,
            "rounding": self.config.rounding,
            "max_rtp": {name: game.max_rtp(self.faults) for name, game in GAMES.items()},
            "capabilities": [c for c in CAPABILITIES if c not in self.config.without],
            "countdown_ms": {"min": 0, "max": MAX_COUNTDOWN_MS},
            "instance": INSTANCE,
            **(
                {
                    "limits": {
                        g: {n: format_amount(v) for n, v in self.limits.items()} for g in GAMES
                    }
                }
                if self.limits
                else {}
            ),
        }

    @property
    def limits(self) -> dict[str, int]:
        """The table limits in minor units (REG-LIMIT-01), or none when told to keep none."""
        return {} if NO_LIMITS in self.config.without else self.config.table_limits

    @staticmethod
    def whoami(ident: Identity) -> Json:
        return {"role": ident.role, "player_id": ident.player_id}

    # -- operator ------------------------------------------------------------------------------
    def create_player(self, ident: Identity, body: Any) -> Json:
        self.require(ident, "operator")
        body = _object(body, "player")
        balance_text = body.get("balance")
        if not isinstance(balance_text, str):
            raise validation('`balance` is required: a decimal string such as "100.00"')
        try:
            balance = parse_amount(balance_text, allow_zero=True)
        except MoneyError as exc:
            raise validation(f"invalid balance: {exc}") from None
        name = _optional_string(body, "name", MAX_NAME)
        pid, token = _new_id("p"), secrets.token_urlsafe(24)
        with self.store.transaction():
            self.store.insert_player(pid, token, name, balance, self.now())
        return {
            "player_id": pid,
            "name": name,
            "balance": format_amount(balance),
            "connected": True,
            "token": token,
        }

    def create_table(self, ident: Identity, body: Any) -> Json:
        self.require(ident, "operator")
        body = _object(body, "table")
        game = body.get("game")
        if not isinstance(game, str) or game not in KNOWN_GAMES:
            raise validation(f"`game` must be one of {', '.join(KNOWN_GAMES)}")
        if game not in GAMES:
            raise ApiError(422, "GAME_NOT_OFFERED", f"this server does not offer {game}")
        name = _optional_string(body, "name", MAX_NAME)
        tid = _new_id("t")
        with self.store.transaction():
            self.store.insert_table(tid, game, name, self.now())
        return {"table_id": tid, "game": game, "name": name}

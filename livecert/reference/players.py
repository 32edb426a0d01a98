"""A player's own view of themselves: balance and connection."""

from __future__ import annotations

from livecert.reference.base import Identity, ServicePart
from livecert.reference.views import Json, _player_view


class Players(ServicePart):
    """The player reads their balance and connects or disconnects."""

    # -- player --------------------------------------------------------------------------------
    def get_player(self, ident: Identity) -> Json:
        self.require(ident, "player")
        with self.store.reading():
            return _player_view(self.store.player(ident.player_id))

    def set_connected(self, ident: Identity, connected: bool) -> Json:
        self.require(ident, "player")
        with self.store.transaction():
            was_connected = bool(self.store.player(ident.player_id)["connected"])
            self.store.set_connected(ident.player_id, connected)
            if not connected and "disconnect-voids-bets" in self.faults:
                self._void_player_bets(ident.player_id)  # FAULT disconnect-voids-bets
            if connected and not was_connected and "rejoin-settles-twice" in self.faults:
                # FAULT rejoin-settles-twice: the open bets of a player re-joining mid-round
                self.rejoined.update(
                    b["id"] for b in self.store.open_bets_of_player(ident.player_id)
                )
            return _player_view(self.store.player(ident.player_id))

    def _void_player_bets(self, pid: str) -> None:
        """Refund every open bet of the player (status void); only disconnect-voids-bets."""
        now = self.now()
        bets = self.store.open_bets_of_player(pid)
        self.store.finish_bets(
            [("void", "refund", 0, bet["stake"], now, bet["id"]) for bet in bets]
        )
        self.store.credit([(sum(bet["stake"] for bet in bets), pid)])

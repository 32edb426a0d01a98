"""Idempotency operator: a slip sent again under its key answered as new bets."""

from dataclasses import replace

from livecert.adapters.model import BetView, PlayerHandle
from livecert.harness.mutants.registry import clauses_in, operator
from livecert.harness.mutants.settled import StakesTaken


@operator(
    "resend-as-new-bet",
    family="idempotency",
    summary="a slip re-sent with its idempotency key is taken again as new bets",
    validates=clauses_in("REG-IDEMP-01"),
    # the stake taken twice moves the balance by more than the bets the player placed
    declares=lambda clause: ("REG-IDEMP-01", "REG-MONEY-01"),
)
class ResendAsNewBet(StakesTaken):
    def resent(
        self, player: PlayerHandle, round_id: str, key: str, views: list[BetView]
    ) -> list[BetView]:
        again = [replace(v, bet_id=f"{v.bet_id}-again") for v in views]
        self.took(player.player_id, views)
        self.altered(f"a slip re-sent under its key answered with new bet ids ({len(views)})")
        return again

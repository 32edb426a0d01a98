"""The adapter protocol: the one seam between the steps and any target.

Steps call these operations in a player's and dealer's terms; an adapter turns them into whatever
the target speaks. The canonical HTTP adapter speaks the certification contract; a mapping
adapter can speak a vendor's own API; a self-test can drive an in-process server.
"""

from collections.abc import Sequence
from decimal import Decimal
from typing import Protocol, runtime_checkable

from livecert.adapters.evidence import ExchangeRecorder
from livecert.adapters.model import BetRecord, BetView, PlayerHandle, RoundView, TargetInfo

BetRequest = tuple[str, Decimal]  # (selection code, stake)


@runtime_checkable
class TargetAdapter(Protocol):
    """What the harness needs from a target; every method raises TargetError or Refused."""

    recorder: ExchangeRecorder
    base_url: str

    def info(self) -> TargetInfo: ...

    def check_credentials(self) -> None:
        """Raise CredentialsError unless the operator and dealer credentials are accepted."""

    def create_player(self, balance: Decimal) -> PlayerHandle: ...

    def create_table(self, game: str) -> str: ...

    def open_round(self, table_id: str, countdown_ms: int | None = None) -> RoundView: ...

    def close_betting(self, round_id: str) -> RoundView: ...

    def place_bets(
        self,
        player: PlayerHandle,
        round_id: str,
        bets: Sequence[BetRequest],
        idempotency_key: str | None = None,
    ) -> list[BetView]: ...

    def record_reshake(self, round_id: str, reason: str) -> RoundView: ...

    def record_event(self, round_id: str, event: str) -> RoundView: ...

    def dealer_action(self, round_id: str, action: str, reason: str | None = None) -> RoundView:
        """pause, resume, cancel or void a round."""

    def enter_result(self, round_id: str, outcome: Sequence[int] | Sequence[str]) -> RoundView: ...

    def get_round(self, round_id: str, player: PlayerHandle | None = None) -> RoundView: ...

    def balance(self, player: PlayerHandle) -> Decimal: ...

    def withdraw_bet(self, player: PlayerHandle, bet_id: str) -> None: ...

    def bet_record(self, player: PlayerHandle, round_id: str | None = None) -> BetRecord: ...

    def connect(self, player: PlayerHandle) -> None: ...

    def disconnect(self, player: PlayerHandle) -> None: ...

    def statistics(self, table_id: str) -> list[dict]: ...

    def close(self) -> None: ...

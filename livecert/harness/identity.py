"""Every answer names what was asked: the round, bet, player and table compared with the request.

A target (or a proxy in front of it) that answers for another round than the one asked, or with
bets that are not the slip's, must not be certified on settlements it never made for the round
the harness played. `IdentityGuard` wraps the adapter the steps use: after each operation it
compares the ids the answer names with those of the request, and each bet it has seen created
(by id) with the slip that created it, wherever the bet shows again.

Through the canonical adapter a mismatch is the contract's finding CONTRACT-03 (the answer is
outside the contract, so the rule its scenario was about is not judged). Through a mapping or
plugin adapter there is no contract: the mismatch fails the duty of the operation instead (a bet
answer REG-COMMIT-01, a result REG-SETTLE-01, a round or a record REG-RECALL-01). Either way the
exchange is in the scenario's evidence.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from livecert.adapters.base import TargetAdapter
from livecert.adapters.model import BetRecord, BetView, PlayerHandle, RoundView
from livecert.contract import CONTRACT_IDENTITY, ContractViolation
from livecert.harness.checks import CheckLedger
from livecert.harness.findings import ClauseFailure

# the duty an answer's identity serves, when the target does not speak the contract
DUTY_OF_OPERATION = {
    "place_bets": "REG-COMMIT-01",
    "enter_result": "REG-SETTLE-01",
    "play_round": "REG-SETTLE-01",
    "bet_record": "REG-RECALL-01",
}
READ_DUTY = "REG-RECALL-01"  # a round's answer shows its id (REG-RECALL-01's "its ID")


class IdentityViolation(ContractViolation):
    """An answer through the canonical adapter names something other than what was asked."""

    def __init__(self, operation: str, message: str) -> None:
        super().__init__(operation, 200, message, clause=CONTRACT_IDENTITY)


class IdentityFailure(ClauseFailure):
    """The same mismatch through a mapping or plugin adapter: the operation's duty fails."""

    def __init__(self, operation: str, message: str, clause: str) -> None:
        super().__init__(f"{operation} answered for something not asked: {message}", [clause])
        self.operation = operation


@dataclass(frozen=True)
class SlipBet:
    """What the slip that created a bet said (and the answer confirmed)."""

    round_id: str
    player_id: str
    selection: str
    stake: Decimal


class IdentityGuard:
    """The adapter as the steps see it, every answer's ids compared with the request's."""

    def __init__(self, adapter: TargetAdapter, contract: bool) -> None:
        self._adapter = adapter
        self._contract = contract
        self._bets: dict[str, SlipBet] = {}  # every bet id the run has seen created
        self.ledger: CheckLedger | None = None  # the current scenario's checks

    def __getattr__(self, name: str) -> Any:
        return getattr(self._adapter, name)

    def __repr__(self) -> str:
        return f"IdentityGuard({self._adapter!r})"

    @property
    def inner(self) -> TargetAdapter:
        return self._adapter

    # -- judging -------------------------------------------------------------------------------

    def _clause(self, operation: str) -> str:
        if self._contract:
            return CONTRACT_IDENTITY
        return DUTY_OF_OPERATION.get(operation, READ_DUTY)

    def _judge(self, operation: str, problems: list[str], what: str) -> None:
        clause = self._clause(operation)
        if not problems:
            if self.ledger is not None:
                self.ledger.held([clause], f"{operation}: {what}")
            return
        message = "; ".join(problems[:10])
        if self._contract:
            raise IdentityViolation(operation, f"it names what was not asked: {message}")
        failure = IdentityFailure(operation, message, clause)
        if self.ledger is not None:
            self.ledger.record_failure(failure, judge_untagged=True)
        raise failure

    def _bet_problems(self, bet: BetView, round_id: str | None = None) -> list[str]:
        problems = []
        if round_id is not None and bet.round_id and bet.round_id != round_id:
            problems.append(f"bet {bet.bet_id} names round {bet.round_id!r}, asked {round_id!r}")
        known = self._bets.get(bet.bet_id)
        if known is None:
            return problems
        # what a bet's id names wherever it shows again: its round and its player (what else
        # the answer says of it, its stake or its outcome, is the record's or the settlement's
        # business, judged by their own checks)
        shown = SlipBet(
            bet.round_id or known.round_id,
            bet.player_id or known.player_id,
            known.selection,
            known.stake,
        )
        for name in ("round_id", "player_id"):
            if getattr(shown, name) != getattr(known, name):
                problems.append(
                    f"bet {bet.bet_id} shows {name} {getattr(shown, name)!r}, but the slip that "
                    f"created it said {getattr(known, name)!r}"
                )
        return problems

    def _round(self, operation: str, asked: str, view: RoundView) -> RoundView:
        if view.echoed:  # assembled from a stream by the harness: it names nothing itself
            return view
        problems = []
        if view.round_id != asked:
            problems.append(f"the answer is for round {view.round_id!r}, asked {asked!r}")
        for bet in view.bets:
            problems += self._bet_problems(bet, asked)
        self._judge(operation, problems, f"round {asked} and its {len(view.bets)} bet(s)")
        return view

    # -- the operations that name something ----------------------------------------------------

    def open_round(self, table_id: str, countdown_ms: int | None = None) -> RoundView:
        view = self._adapter.open_round(table_id, countdown_ms=countdown_ms)
        if view.echoed:
            return view
        problems = []
        if view.table_id and view.table_id != table_id:
            problems.append(f"the round opened at table {view.table_id!r}, asked {table_id!r}")
        self._judge("open_round", problems, f"a round at table {table_id}")
        return view

    def place_bets(
        self,
        player: PlayerHandle,
        round_id: str,
        bets: Sequence[Any],
        idempotency_key: str | None = None,
    ) -> list[BetView]:
        views = self._adapter.place_bets(player, round_id, bets, idempotency_key=idempotency_key)
        problems = []
        if len(views) != len(bets):
            problems.append(f"a slip of {len(bets)} bet(s) was answered with {len(views)}")
        ids = [v.bet_id for v in views]
        if len(set(ids)) != len(ids) or not all(ids):
            problems.append(f"the answer's bet ids are not distinct ids: {ids[:10]}")
        for view, (code, stake) in zip(views, bets, strict=False):
            slip = SlipBet(round_id, player.player_id, code, stake)
            shown = (view.round_id, view.player_id, view.selection, view.stake)
            wanted = (round_id, player.player_id, code, stake)
            for name, got, want in zip(
                ("round", "player", "selection", "stake"), shown, wanted, strict=True
            ):
                if name == "stake" and not isinstance(want, Decimal):
                    continue  # a stake sent as text (bad input): the target judges the amount
                if name in ("round", "player") and got == "":
                    continue  # an acknowledgement naming no round or player: nothing to compare
                if got != want:
                    problems.append(f"bet {view.bet_id} names {name} {got!r}, the slip {want!r}")
            if isinstance(stake, Decimal) and view.bet_id not in self._bets:
                self._bets[view.bet_id] = slip
        self._judge("place_bets", problems, f"{len(views)} bet(s) of round {round_id}")
        return views

    @property
    def play_round(self) -> Callable[..., RoundView]:
        """The inner adapter's instant round, its answers checked; absent (AttributeError, so
        `hasattr` says no) where the inner adapter has none."""
        if not hasattr(self._adapter, "play_round"):
            raise AttributeError("play_round")
        return self._play_round

    def _play_round(
        self,
        player: PlayerHandle,
        table_id: str,
        bets: Sequence[Any],
        outcome: Sequence[Any],
        idempotency_key: str | None = None,
        **options: Any,
    ) -> RoundView:
        """An instant round: the answer is at the table asked, and every bet it shows is one of
        the slip's (its selection, its stake) and the player's. (A slip played one request per
        bet is answered as rounds of their own, so a bet's round is not compared here.)"""
        view = self._adapter.play_round(  # type: ignore[attr-defined]
            player, table_id, bets, outcome, idempotency_key=idempotency_key, **options
        )
        problems = []
        if view.table_id not in ("", "None", table_id):
            problems.append(f"the round was played at table {view.table_id!r}, asked {table_id!r}")
        slip: dict[str, set] = {}
        for code, stake in bets:
            slip.setdefault(code, set()).add(stake if isinstance(stake, Decimal) else None)
        for bet in view.bets:
            stakes = slip.get(bet.selection)
            if stakes is None:
                problems.append(f"bet {bet.bet_id} is on {bet.selection!r}, not on the slip")
            elif None not in stakes and bet.stake not in stakes:
                problems.append(
                    f"bet {bet.bet_id} stakes {bet.stake} on {bet.selection}, the slip "
                    f"{', '.join(str(s) for s in sorted(stakes))}"
                )
            if bet.player_id not in ("", "None", player.player_id):
                problems.append(
                    f"bet {bet.bet_id} names player {bet.player_id!r}, asked {player.player_id!r}"
                )
        self._judge(
            "play_round", problems, f"round {view.round_id} and its {len(view.bets)} bet(s)"
        )
        return view

    def _round_call(
        self, operation: str, round_id: str, call: Callable[[], RoundView]
    ) -> RoundView:
        return self._round(operation, round_id, call())

    def close_betting(self, round_id: str) -> RoundView:
        return self._round_call(
            "close_betting", round_id, lambda: self._adapter.close_betting(round_id)
        )

    def record_reshake(self, round_id: str, reason: str) -> RoundView:
        return self._round_call(
            "record_reshake", round_id, lambda: self._adapter.record_reshake(round_id, reason)
        )

    def record_event(self, round_id: str, event: str) -> RoundView:
        return self._round_call(
            "record_event", round_id, lambda: self._adapter.record_event(round_id, event)
        )

    def dealer_action(self, round_id: str, action: str, reason: str | None = None) -> RoundView:
        return self._round_call(
            "dealer_action", round_id, lambda: self._adapter.dealer_action(round_id, action, reason)
        )

    def enter_result(self, round_id: str, outcome: Sequence[Any]) -> RoundView:
        return self._round_call(
            "enter_result", round_id, lambda: self._adapter.enter_result(round_id, outcome)
        )

    def get_round(self, round_id: str, player: PlayerHandle | None = None) -> RoundView:
        return self._round_call(
            "get_round", round_id, lambda: self._adapter.get_round(round_id, player)
        )

    def bet_record(self, player: PlayerHandle, round_id: str | None = None) -> BetRecord:
        record = self._adapter.bet_record(player, round_id)
        problems = []
        if record.player_id and record.player_id != player.player_id:
            problems.append(f"the record is {record.player_id!r}'s, asked {player.player_id!r}'s")
        for bet in record.bets:
            problems += self._bet_problems(bet, round_id)
        for entry in record.rounds:
            if round_id is not None and entry.round_id != round_id:
                problems.append(f"the record shows round {entry.round_id!r}, asked {round_id!r}")
        asked = f"round {round_id}" if round_id else "every round"
        self._judge("bet_record", problems, f"{player.player_id}'s record of {asked}")
        return record

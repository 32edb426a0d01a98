"""The exhaustive sweep: one round per outcome with a bet on every selection, checked bet by bet.

Used by the sweep scenarios and by the benchmark, so the benchmark measures exactly what a
certification run does: create a player, open a round, place one slip of every selection, close
betting, enter the result (whose answer carries every settlement).
"""

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from livecert.adapters.base import TargetAdapter
from livecert.adapters.model import BetView, PlayerHandle, RoundView, TargetInfo
from livecert.harness.dealer import open_round
from livecert.harness.settlement_check import SettlementRow, check_bet
from livecert.rules import Paytable
from livecert.rules.conditions import Outcome

SWEEP_STAKE = Decimal("1.00")


@dataclass
class OutcomeReport:
    """One outcome of the sweep: the round the target settled and every bet checked."""

    outcome: Outcome
    round: RoundView
    rows: list[SettlementRow]

    @property
    def mismatches(self) -> list[SettlementRow]:
        return [r for r in self.rows if not r.matches]


@dataclass
class SweepLedger:
    """What the target actually returned per selection over the outcomes played (for RTP)."""

    game: str
    returned: dict[Outcome, dict[str, Decimal]] = field(default_factory=dict)
    stake: Decimal = SWEEP_STAKE

    def add(self, report: OutcomeReport) -> None:
        self.returned[tuple(report.outcome)] = {
            r.code: (r.actual_returned if r.actual_returned is not None else Decimal(0))
            for r in report.rows
        }

    def measured_rtp(self, code: str) -> Fraction:
        total = sum((Fraction(by_code[code]) for by_code in self.returned.values()), Fraction(0))
        return total / (len(self.returned) * Fraction(self.stake))


@dataclass
class SweepRound:
    """A round with one bet on every selection, waiting for its result."""

    player: PlayerHandle
    round_id: str
    placed: list[BetView]


def bet_on_every_selection(
    adapter: TargetAdapter, paytable: Paytable, table_id: str, stake: Decimal = SWEEP_STAKE
) -> SweepRound:
    """Create a player with just enough balance, open a round, place one slip of every selection."""
    codes = [s.code for s in paytable.selections]
    player = adapter.create_player(stake * len(codes))
    opened = open_round(adapter, paytable.game, table_id)
    placed = adapter.place_bets(player, opened.round_id, [(c, stake) for c in codes])
    return SweepRound(player, opened.round_id, placed)


def settle_sweep_round(
    adapter: TargetAdapter,
    paytable: Paytable,
    info: TargetInfo,
    sweep_round: SweepRound,
    outcome: Outcome,
) -> OutcomeReport:
    """Close betting, enter `outcome`, and check every bet of the round against the oracle."""
    adapter.close_betting(sweep_round.round_id)
    settled = adapter.enter_result(sweep_round.round_id, outcome)
    by_id = {b.bet_id: b for b in settled.bets}
    rows = [
        # a bet missing from the answer is checked as placed (still open): a mismatch
        check_bet(paytable, by_id.get(bet.bet_id, bet), outcome, info.minor_unit, info.rounding)
        for bet in sweep_round.placed
    ]
    return OutcomeReport(outcome, settled, rows)


def play_outcome(
    adapter: TargetAdapter,
    paytable: Paytable,
    info: TargetInfo,
    table_id: str,
    outcome: Outcome,
    stake: Decimal = SWEEP_STAKE,
) -> OutcomeReport:
    """One whole sweep round: bet on every selection, enter `outcome`, check every settlement."""
    sweep_round = bet_on_every_selection(adapter, paytable, table_id, stake)
    return settle_sweep_round(adapter, paytable, info, sweep_round, outcome)

"""The exhaustive sweep: one round per outcome with a bet on every selection, checked bet by bet.

Used by the sweep scenarios and by the benchmark, so the benchmark measures exactly what a
certification run does: create a player, open a round, place one slip of every selection, close
betting, enter the result (whose answer carries every settlement).
"""

from collections.abc import Collection
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from livecert.adapters.base import TargetAdapter
from livecert.adapters.errors import Refused
from livecert.adapters.model import BetView, PlayerHandle, RoundView, TargetInfo
from livecert.harness.dealer import open_round
from livecert.harness.findings import LATE_TRIES, HarnessError
from livecert.harness.forced_result import forcing_failed, result_played
from livecert.harness.settlement_check import SettlementRow, check_bet
from livecert.rules import Paytable, Selection, all_outcomes, load_paytable
from livecert.rules.conditions import Outcome

SWEEP_STAKE = Decimal("1.00")
INSTANT_ROUND = "instant-round"  # a target capability: one request bets and settles a round


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

    def __repr__(self) -> str:
        # short: Allure writes every step argument's repr, and this holds 216 x 110 amounts
        return f"SweepLedger({self.game}, {len(self.returned)} outcomes played)"

    def played(self, code: str) -> bool:
        """True when every outcome played had a bet on `code` (the target offers it)."""
        return bool(self.returned) and all(code in by_code for by_code in self.returned.values())

    def measured_rtp(self, code: str) -> Fraction:
        total = sum((Fraction(by_code[code]) for by_code in self.returned.values()), Fraction(0))
        return total / (len(self.returned) * Fraction(self.stake))


@dataclass
class SweepRound:
    """A round with one bet on every selection, waiting for its result; on a target that bets
    and settles in one request (`instant-round`), the slip waits here until the result is known."""

    player: PlayerHandle
    round_id: str
    placed: list[BetView]
    table_id: str = ""
    pending: list[tuple[str, Decimal]] = field(default_factory=list)
    opened: RoundView | None = None  # the round as the target answered its opening


def offered_codes(adapter: TargetAdapter, paytable: Paytable) -> list[str]:
    """The selections the target offers: all of them, unless its adapter declares some missing
    (a mapping row set to null)."""
    offers = getattr(adapter, "offers", None)
    codes = [s.code for s in paytable.selections]
    return [c for c in codes if offers(paytable.game, c)] if offers else codes


HELD_BACK = "mapping or target: the code never won where it must"  # why a code is held back


def selection_tables(adapter: object) -> dict[str, Any]:
    """A mapping adapter's selection tables by game (our codes to the vendor's, and the codes
    the run holds back); none for an adapter that sends our codes as they are."""
    return getattr(getattr(adapter, "mapping", None), "selections", None) or {}


def held_back(adapter: TargetAdapter, game: str) -> list[str]:
    """The selections of `game` the run holds back as "mapping or target" (a mapping's codes
    refused or never won in the run's first moments): not offered, and not measured."""
    table = selection_tables(adapter).get(game)
    return sorted(getattr(table, "held", None) or {}) if table is not None else []


def sweep_clauses(paytable: Paytable) -> set[str]:
    """The clauses whose selections the sweep bets on: the paytable clauses of the game, and its
    triple-loss clause (Sic Bo's SB-PAY-16), whose selections are those that lose on a triple."""
    clauses = {s.clause for s in paytable.selections}
    if paytable.triple_loss_clause and any(s.loses_on_triple for s in paytable.selections):
        clauses.add(paytable.triple_loss_clause)
    return clauses


def selection_clauses(paytable: Paytable, selection: Selection) -> set[str]:
    """The sweep clauses a selection's settlement proves: its own, and the triple-loss clause
    when it loses on a triple."""
    if selection.loses_on_triple and paytable.triple_loss_clause:
        return {selection.clause, paytable.triple_loss_clause}
    return {selection.clause}


def sweep_only_problem(named: Collection[str]) -> str | None:
    """What is wrong with the clauses `--sweep-only` names, if anything: each must be a paytable
    clause (one that selections belong to, or the triple-loss clause) of one of the games."""
    known = sweep_clauses(load_paytable("sicbo")) | sweep_clauses(load_paytable("xocdia"))
    unknown = sorted(set(named) - known)
    if not unknown:
        return None
    return (
        f"--sweep-only names {', '.join(unknown)}, which no selection of the paytables belongs "
        "to; name paytable clauses such as SB-PAY-08, SB-PAY-16 or XD-PAY-03"
    )


def swept_codes(
    adapter: TargetAdapter, paytable: Paytable, only: Collection[str] = ()
) -> list[str]:
    """The selections the sweep bets on: every one the target offers or, when `only` names
    paytable clauses of this game (`--sweep-only`), those of the named clauses among them."""
    codes = offered_codes(adapter, paytable)
    named = set(only) & sweep_clauses(paytable)
    if not named:
        return codes
    return [c for c in codes if selection_clauses(paytable, paytable.selection(c)) & named]


def clauses_not_offered(adapter: TargetAdapter, paytable: Paytable) -> dict[str, str]:
    """Clauses none of whose selections the target offers, with the reason: not testable."""
    offered = set(offered_codes(adapter, paytable))
    held = set(held_back(adapter, paytable.game))
    by_clause: dict[str, list[str]] = {}
    for s in paytable.selections:
        by_clause.setdefault(s.clause, []).append(s.code)
    return {
        clause: (
            f"not testable: the run held back {', '.join(sorted(held & set(codes)))} ({HELD_BACK})"
            if held & set(codes)
            else f"not testable on this target: it does not offer {', '.join(codes)}"
        )
        for clause, codes in by_clause.items()
        if not offered & set(codes)
    }


def instant(adapter: TargetAdapter, info: TargetInfo) -> bool:
    """True when the target declares one request that bets and settles (and its adapter has it)."""
    return INSTANT_ROUND in info.capabilities and hasattr(adapter, "play_round")


def bet_on_every_selection(
    adapter: TargetAdapter,
    paytable: Paytable,
    table_id: str,
    stake: Decimal = SWEEP_STAKE,
    one_request: bool = False,
    only: Collection[str] = (),
) -> SweepRound:
    """Create a player with just enough balance, open a round, place one slip of every selection
    the target offers, or of those of the clauses `only` names (or, `one_request`, keep the slip
    for the request that also settles it)."""
    codes = swept_codes(adapter, paytable, only)
    player = adapter.create_player(stake * len(codes))
    slip = [(c, stake) for c in codes]
    if one_request:
        return SweepRound(player, "", [], table_id, slip)
    late_rounds = 0
    while True:
        opened = open_round(adapter, paytable.game, table_id)
        try:
            placed = adapter.place_bets(player, opened.round_id, slip)
        except Refused as refused:
            # the table's clock closed the round before the slip reached it (a long slip, a
            # busy machine): where none of it was taken, the slip goes to the table's next
            # round, a few times at most, each refusal kept in the round's exchanges; a slip
            # sent a bet at a time and closed midway stands where it is (the harness's error)
            late_rounds += 1
            if not refused.late or refused.taken or late_rounds == LATE_TRIES:
                raise
            continue
        return SweepRound(player, opened.round_id, placed, table_id, opened=opened)


def settle_sweep_round(
    adapter: TargetAdapter,
    paytable: Paytable,
    info: TargetInfo,
    sweep_round: SweepRound,
    outcome: Outcome,
) -> OutcomeReport:
    """Enter `outcome` (betting closed by the dealer before) and check every bet of the round
    against the oracle; an instant round bets and settles here, in one request."""
    if sweep_round.pending:
        return _settle_in_one_request(adapter, paytable, info, sweep_round, outcome)
    settled = adapter.enter_result(sweep_round.round_id, outcome)
    by_id = {b.bet_id: b for b in settled.bets}
    rows = [
        # a bet missing from the answer is checked as placed (still open): a mismatch
        check_bet(paytable, by_id.get(bet.bet_id, bet), outcome, info.minor_unit, info.rounding)
        for bet in sweep_round.placed
    ]
    return OutcomeReport(outcome, settled, rows)


def _settle_in_one_request(
    adapter: TargetAdapter,
    paytable: Paytable,
    info: TargetInfo,
    sweep_round: SweepRound,
    outcome: Outcome,
) -> OutcomeReport:
    """The slip and the result in one request; every bet of the slip must come back settled."""
    settled = adapter.play_round(  # type: ignore[attr-defined]
        sweep_round.player, sweep_round.table_id, sweep_round.pending, outcome
    )
    by_code = {b.selection: b for b in settled.bets}
    rows = []
    for code, stake in sweep_round.pending:
        bet = by_code.get(code)
        if bet is None:  # checked as a bet the answer left out: a mismatch
            bet = BetView(
                bet_id="(missing)",
                round_id=settled.round_id,
                player_id=sweep_round.player.player_id,
                selection=code,
                stake=stake,
                status="missing from the answer",
                outcome=None,
                win=None,
                returned=None,
            )
        rows.append(check_bet(paytable, bet, outcome, info.minor_unit, info.rounding))
    whole = {c for c, _ in sweep_round.pending} >= set(offered_codes(adapter, paytable))
    _played_as_forced(paytable, info, settled, by_code, rows, outcome, whole)
    return OutcomeReport(outcome, settled, rows)


def _played_as_forced(
    paytable: Paytable,
    info: TargetInfo,
    settled: RoundView,
    by_code: dict[str, BetView],
    rows: list[SettlementRow],
    outcome: Outcome,
    whole: bool,
) -> None:
    """A HarnessError where the bets were settled on another result than the one forced (the
    one the answer reports, or, for a slip of every selection the target offers, which tells
    the results apart, any other): the forcing failed, not the payouts. A narrower slip
    (--sweep-only) reporting no result says nothing: a payout wrong there may look like another
    result."""
    if all(r.matches for r in rows):
        return  # settled as on the forced result (a misreported result: the general clause's)
    minor, rounding = info.minor_unit, info.rounding

    def settled_as(other: Outcome) -> bool:
        return all(
            r.code in by_code
            and check_bet(paytable, by_code[r.code], other, minor, rounding).matches
            for r in rows
        )

    outcomes = all_outcomes(paytable) if whole else None
    problem = forcing_failed(outcome, result_played(settled), settled_as, outcomes)
    if problem:
        raise HarnessError(problem)


def play_outcome(
    adapter: TargetAdapter,
    paytable: Paytable,
    info: TargetInfo,
    table_id: str,
    outcome: Outcome,
    stake: Decimal = SWEEP_STAKE,
    only: Collection[str] = (),
) -> OutcomeReport:
    """One whole sweep round: bet on every selection (of the clauses `only` names, if any),
    close betting, enter `outcome`, check every settlement."""
    one_request = instant(adapter, info)
    sweep_round = bet_on_every_selection(adapter, paytable, table_id, stake, one_request, only)
    if not one_request:
        adapter.close_betting(sweep_round.round_id)
    return settle_sweep_round(adapter, paytable, info, sweep_round, outcome)

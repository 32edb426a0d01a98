"""An instant round played on another result than the one forced is the forcing's failure, never
payout findings (livecert/harness/forced_result.py): by the result the answer reports, or, for
the sweep's slip of every selection where the answer reports none, by its settlements.

The stand-in tables settle every bet exactly as the oracle says for the result they really
played; the harness forced another.
"""

from decimal import Decimal

import pytest

from livecert.adapters import PlayerHandle
from livecert.adapters.model import BetView, RoundView, TargetInfo
from livecert.harness.checks import CheckLedger
from livecert.harness.findings import HarnessError
from livecert.harness.forced_result import forcing_failed, result_played
from livecert.harness.instant import play
from livecert.harness.settlement_check import judge_slip
from livecert.harness.sweep import SweepRound, settle_sweep_round
from livecert.rules import expected_settlement, load_paytable

SICBO = load_paytable("sicbo")
PLAYER = PlayerHandle("p1", "k")
INFO = TargetInfo(
    name="stand-in",
    version="1",
    contract_version="1",
    games=("sicbo",),
    currency="EUR",
    minor_unit=2,
    max_rtp={},
    rounding="down",
    capabilities=("instant-round", "batch-bets"),
)
STAKE = Decimal("1.00")


class Table:
    """Plays `played` whatever is forced; reports it or not; `wrong` codes return nothing."""

    def __init__(self, played: tuple, report: bool, wrong: tuple[str, ...] = ()) -> None:
        self.played, self.report, self.wrong = played, report, wrong
        self.report_as = played

    def offers(self, game: str, code: str) -> bool:
        return True

    def play_round(self, player, table_id, bets, outcome, idempotency_key=None) -> RoundView:
        views = []
        for code, stake in bets:
            due = expected_settlement(SICBO, code, self.played, stake, 2, "down")
            win, back = (Decimal(0), Decimal(0)) if code in self.wrong else (due.win, due.returned)
            outcome_said = "lose" if code in self.wrong else due.outcome
            views.append(
                BetView(
                    "b", "r1", player.player_id, code, stake, "settled", outcome_said, win, back
                )
            )
        shown = self.report_as
        result = {"dice": list(shown), "total": sum(shown)} if self.report else None
        return RoundView("r1", table_id, "sicbo", "settled", result, tuple(views))


def _sweep(table: Table, forced: tuple, codes=None):
    slip = [(c, STAKE) for c in (codes or [s.code for s in SICBO.selections])]
    waiting = SweepRound(PLAYER, "", [], "t1", slip)
    return settle_sweep_round(table, SICBO, INFO, waiting, forced)


def test_bets_settled_as_on_the_result_reported_are_the_forcings_failure() -> None:
    """Played on 1-2-3 (and saying so) where 6-5-4 was forced: the forcing failed; judging the
    settlements on 6-5-4 would fail every bet that differs, none of them the target's fault."""
    slip = [("BIG", STAKE), ("SMALL", STAKE)]
    taken = play(Table((1, 2, 3), report=True), "P1", PLAYER, "t1", slip, (6, 5, 4))
    assert taken.accepted  # taken: what must have been refused is judged on that alone
    ledger = CheckLedger(["REG-SETTLE-01", "SB-PAY-01", "SB-PAY-02"])
    says = r"settled exactly as on \(1, 2, 3\), not on the result forced \(6, 5, 4\)"
    with pytest.raises(HarnessError, match=says):
        judge(ledger, taken)
    assert ledger.ran_for("REG-SETTLE-01") == 0  # nothing booked


def test_bets_settled_as_forced_are_judged_whatever_result_is_reported() -> None:
    """A result misreported is the general clause's finding, not the forcing's failure."""
    slip = [("BIG", STAKE)]
    table = Table((6, 5, 4), report=True)
    table.report_as = (1, 2, 3)
    taken = play(table, "P1", PLAYER, "t1", slip, (6, 5, 4))
    ledger = CheckLedger(["REG-SETTLE-01", "SB-PAY-02"])
    assert judge(ledger, taken) == []
    assert ledger.clauses["REG-SETTLE-01"].held == 1


def judge(ledger: CheckLedger, taken) -> list:
    return judge_slip(
        ledger,
        SICBO,
        taken.slip,
        taken.round.bets,
        taken.outcome,
        2,
        "down",
        result_played(taken.round),
    )


def test_a_sweep_settled_as_another_result_says_so_by_its_settlements() -> None:
    with pytest.raises(HarnessError, match=r"exactly as on \(1, 2, 3\)"):
        _sweep(Table((1, 2, 3), report=False), (6, 5, 4))
    # the result forced, settled right: nothing to say
    assert all(r.matches for r in _sweep(Table((6, 5, 4), report=False), (6, 5, 4)).rows)


def test_a_wrong_payout_is_a_finding_never_another_result() -> None:
    """One selection paid wrong fits no result: the rows fail, the forcing is not blamed."""
    report = _sweep(Table((6, 5, 4), report=False, wrong=("BIG",)), (6, 5, 4))
    assert [r.code for r in report.rows if not r.matches] == ["BIG"]


def test_a_narrowed_sweep_says_nothing_of_the_forcing() -> None:
    """Totals only, Total 15 paying nothing: all totals lose, as on a triple of ones. A slip of
    a few selections cannot tell a wrong payout from another result: judged as a finding."""
    totals = [f"TOTAL_{t}" for t in range(4, 18)]
    table = Table((6, 5, 4), report=False, wrong=("TOTAL_15",))
    report = _sweep(table, (6, 5, 4), totals)
    assert [r.code for r in report.rows if not r.matches] == ["TOTAL_15"]


def test_bets_that_fit_no_result_say_nothing_of_the_forcing() -> None:
    assert forcing_failed((6, 5, 4), (1, 2, 3), lambda _o: False) is None
    assert forcing_failed((6, 5, 4), None, lambda _o: False, [(1, 2, 3)]) is None
    assert forcing_failed((6, 5, 4), None, lambda o: o == (1, 2, 3)) is None  # no outcomes given
    assert forcing_failed((6, 5, 4), (4, 5, 6), lambda o: o == (4, 5, 6)) is None  # same dice


def test_a_sweep_reporting_other_dice_but_settled_as_forced_is_judged() -> None:
    """Every bet right on the forced result, the dice misreported: the report is returned for
    the general clause to judge (SB-GEN-01), never a harness error."""
    table = Table((6, 5, 4), report=True)
    table.report_as = (1, 2, 3)
    report = _sweep(table, (6, 5, 4))
    assert all(r.matches for r in report.rows)
    assert report.round.result["dice"] == [1, 2, 3]

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
from livecert.harness.findings import HarnessError
from livecert.harness.forced_result import forcing_problem, forcing_problem_by_settlements
from livecert.harness.instant import play
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
        result = {"dice": list(self.played), "total": sum(self.played)} if self.report else None
        return RoundView("r1", table_id, "sicbo", "settled", result, tuple(views))


def _sweep(table: Table, forced: tuple, codes=None):
    slip = [(c, STAKE) for c in (codes or [s.code for s in SICBO.selections])]
    waiting = SweepRound(PLAYER, "", [], "t1", slip)
    return settle_sweep_round(table, SICBO, INFO, waiting, forced)


def test_a_round_reporting_another_result_is_the_forcings_failure() -> None:
    with pytest.raises(
        HarnessError, match=r"played \(1, 2, 3\), not the result forced \(6, 5, 4\)"
    ):
        play(Table((1, 2, 3), report=True), "P1", PLAYER, "t1", [("BIG", STAKE)], (6, 5, 4))
    # the same dice in another order are the same result
    same = play(Table((4, 6, 5), report=True), "P1", PLAYER, "t1", [("BIG", STAKE)], (6, 5, 4))
    assert same.accepted
    assert forcing_problem(same.round, (6, 5, 4)) is None


def test_a_sweep_settled_as_another_result_says_so_by_its_settlements() -> None:
    with pytest.raises(HarnessError, match=r"exactly those of \(1, 2, 3\)"):
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


def test_settlements_no_result_fits_say_nothing() -> None:
    assert forcing_problem_by_settlements((6, 5, 4), [(1, 2, 3)], lambda _o: False) is None
    assert forcing_problem_by_settlements((6, 5, 4), [(1, 2, 3)], lambda o: o == (6, 5, 4)) is None

"""Sic Bo steps: the dealer's dice, the round's result, the exhaustive sweep and the RTP checks."""

from decimal import Decimal
from fractions import Fraction

import allure
import pytest
from pytest_bdd import given, parsers, then, when

from fixtures.scene import Scene
from livecert.adapters import Refused
from livecert.harness.findings import ClauseFailure
from livecert.harness.run_record import RunRecord
from livecert.harness.settlement_check import SETTLE_DUTY, rows_as_table
from livecert.harness.sweep import (
    OutcomeReport,
    SweepLedger,
    SweepRound,
    bet_on_every_selection,
    play_outcome,
    settle_sweep_round,
)
from livecert.harness.vocabulary import parse_dice, paytable
from livecert.rules import (
    all_outcomes,
    as_percent,
    expected_settlement,
    round_to_minor,
    theoretical_rtp,
)
from steps.common import FeatureOracleDisagreement

GENERAL = "SB-GEN-01"
RTP_DUTY = "REG-RTP-01"
DICE = r"(?P<dice>-?\d+(?:[ -]-?\d+)*)"


@pytest.fixture(scope="session")
def sweep_ledgers() -> dict[str, SweepLedger]:
    """Per game, what the target returned for every selection on every outcome played so far."""
    return {}


def _ledger(ledgers: dict[str, SweepLedger], game: str) -> SweepLedger:
    return ledgers.setdefault(game, SweepLedger(game))


# -- the dealer -----------------------------------------------------------------------------------


@when(parsers.re(rf"the dealer enters {DICE}"))
def dealer_enters(scene: Scene, dice: str) -> None:
    outcome = parse_dice(dice)
    if isinstance(scene.sweep_round, SweepRound):
        report = settle_sweep_round(
            scene.adapter, paytable(), scene.target.info, scene.sweep_round, outcome
        )
        scene.round, scene.outcome, scene.sweep_report = report.round, outcome, report
        return
    scene.enter_result(outcome)


@when(parsers.re(rf"the dealer tries to enter {DICE}"))
def dealer_tries_to_enter(scene: Scene, dice: str) -> None:
    round_view = scene.open_round()
    if round_view.state == "betting":
        scene.round = scene.adapter.close_betting(round_view.round_id)
    try:
        scene.round = scene.adapter.enter_result(round_view.round_id, parse_dice(dice))
    except Refused as refused:
        scene.refusal = refused


@then("the result is refused")
def result_refused(scene: Scene) -> None:
    if scene.refusal is None:
        state = scene.round.state if scene.round else "unknown"
        raise ClauseFailure(
            f"the target accepted an impossible result (the round is now {state!r})", [GENERAL]
        )


@then(parsers.re(r"the (?P<label>.+?) bet is still open"))
def bet_still_open(scene: Scene, label: str) -> None:
    placed = scene.bet(label)
    view = scene.adapter.get_round(scene.open_round().round_id, scene.player(placed.player))
    bet = view.bet(placed.view.bet_id)
    assert bet.status == "open", f"the {label} bet is {bet.status!r}, expected still 'open'"


@then(parsers.re(rf"the round's result shows {DICE} with a total of (?P<total>\d+)"))
def result_shows(scene: Scene, dice: str, total: str) -> None:
    assert scene.round is not None
    expected = {"dice": list(parse_dice(dice)), "total": int(total)}
    actual = scene.round.result or {}
    shown = {"dice": actual.get("dice"), "total": actual.get("total")}
    if shown != expected:
        raise ClauseFailure(f"the round's result is {shown}, expected {expected}", [GENERAL])


# -- stakes and rounding -------------------------------------------------------------------------


@then(
    parsers.re(
        r"the (?P<label>.+?) bet wins (?P<exact>\d+\.\d+) before rounding, rounded by the "
        r"declared rule"
    )
)
def bet_wins_rounded(scene: Scene, label: str, exact: str) -> None:
    placed = scene.bet(label)
    info = scene.target.info
    oracle = expected_settlement(
        paytable(), placed.code, scene.outcome, placed.stake, info.minor_unit, info.rounding
    )
    if oracle.outcome != "win" or oracle.exact_win != Fraction(exact):
        raise FeatureOracleDisagreement(
            f"the feature says {label} wins {exact} exactly, the oracle says {oracle.outcome} "
            f"{oracle.exact_win}"
        )
    win = round_to_minor(Fraction(exact), info.minor_unit, info.rounding)
    actual = scene.current_view(placed)
    allure.attach(
        f"stake {placed.stake}, exact win {exact}, declared rounding {info.rounding!r} to "
        f"{info.minor_unit} decimals -> expected win {win}; target: {actual.outcome} win "
        f"{actual.win} returned {actual.returned}",
        name="rounding",
        attachment_type=allure.attachment_type.TEXT,
    )
    scene.rounded_win = win
    if (actual.outcome, actual.win, actual.returned) != ("win", win, placed.stake + win):
        raise ClauseFailure(
            f"{label} staked {placed.stake}: exact win {exact} under the declared rule "
            f"{info.rounding!r} must be {win} (returned {placed.stake + win}); the target "
            f"said {actual.outcome} win {actual.win} returned {actual.returned}",
            (*oracle.clauses, SETTLE_DUTY),
        )


@then(parsers.re(r"the player's balance is (?P<start>\d+\.\d+) plus the rounded win"))
def balance_plus_rounded_win(scene: Scene, start: str) -> None:
    assert scene.rounded_win is not None, "no rounded win was established in this scenario"
    expected = Decimal(start) + scene.rounded_win
    actual = scene.adapter.balance(scene.player("player"))
    assert actual == expected, f"the player's balance is {actual}, expected {expected}"


# -- the sweep ------------------------------------------------------------------------------------


@given(parsers.re(r"a player bets (?P<stake>\d+\.\d+) on every Sic Bo selection"))
def bet_on_everything(scene: Scene, stake: str) -> None:
    scene.sweep_round = bet_on_every_selection(
        scene.adapter, paytable(), scene.table(), Decimal(stake)
    )


def _check_report(report: OutcomeReport, facts: RunRecord, ledger: SweepLedger) -> None:
    """Attach the evidence table, record the counts, and fail with the broken clauses."""
    allure.attach(
        rows_as_table(report.rows),
        name=f"settlements on {report.outcome}",
        attachment_type=allure.attachment_type.TEXT,
    )
    facts.write(
        "sweep",
        game="sicbo",
        outcome=list(report.outcome),
        selections=len(report.rows),
        checked=len(report.rows),
        mismatches=len(report.mismatches),
        mismatched=[r.code for r in report.mismatches],
    )
    ledger.add(report)
    shown = report.round.result or {}
    expected_result = {"dice": list(report.outcome), "total": sum(report.outcome)}
    result_problem = {"dice": shown.get("dice"), "total": shown.get("total")} != expected_result
    if report.mismatches or result_problem:
        clauses = [c for r in report.mismatches for c in r.clauses]
        lines = [r.describe() for r in report.mismatches[:20]]
        if result_problem:
            clauses.append(GENERAL)
            lines.append(f"the round's result is {shown}, expected {expected_result}")
        raise ClauseFailure(
            f"{len(report.mismatches)} of {len(report.rows)} settlements differ from the "
            f"paytable on {report.outcome}:\n" + "\n".join(lines),
            clauses,
        )


@then("every bet is settled as the paytable says")
def every_bet_settled(
    scene: Scene, facts: RunRecord, sweep_ledgers: dict[str, SweepLedger]
) -> None:
    assert isinstance(scene.sweep_report, OutcomeReport), "no sweep round was settled"
    _check_report(scene.sweep_report, facts, _ledger(sweep_ledgers, "sicbo"))


# -- return to player -----------------------------------------------------------------------------


@given("every roll of three dice has been played with a bet on every Sic Bo selection")
def every_roll_played(
    scene: Scene, facts: RunRecord, sweep_ledgers: dict[str, SweepLedger]
) -> None:
    """Play the rolls the sweep scenarios did not (all of them when run alone)."""
    ledger = _ledger(sweep_ledgers, "sicbo")
    table = paytable()
    missing = [o for o in all_outcomes(table) if tuple(o) not in ledger.returned]
    for outcome in missing:
        report = play_outcome(scene.adapter, table, scene.target.info, scene.table(), outcome)
        ledger.returned[tuple(outcome)] = {
            r.code: r.actual_returned or Decimal(0) for r in report.rows
        }
    facts.write(
        "rtp_rolls_played", game="sicbo", by_this_scenario=len(missing), total=len(ledger.returned)
    )


def _percent(value: Fraction) -> str:
    return f"{as_percent(value, 4)}%"


@then("the measured return of every selection equals its theoretical return")
def measured_equals_theory(
    scene: Scene, facts: RunRecord, sweep_ledgers: dict[str, SweepLedger]
) -> None:
    ledger, table = _ledger(sweep_ledgers, "sicbo"), paytable()
    rows, broken = [], []
    for selection in table.selections:
        theory = theoretical_rtp(table, selection.code)
        measured = ledger.measured_rtp(selection.code)
        rows.append(
            {
                "code": selection.code,
                "clause": selection.clause,
                "theoretical": str(theory),
                "measured": str(measured),
                "theoretical_percent": _percent(theory),
                "measured_percent": _percent(measured),
            }
        )
        if measured != theory:
            broken.append((selection, theory, measured))
    facts.write("rtp", game="sicbo", rolls=len(ledger.returned), rows=rows)
    allure.attach(
        "\n".join(
            f"{r['code']} | {r['theoretical_percent']} | {r['measured_percent']}" for r in rows
        ),
        name="RTP per selection (theoretical | measured)",
        attachment_type=allure.attachment_type.TEXT,
    )
    if broken:
        raise ClauseFailure(
            f"{len(broken)} selections return other than the paytable over "
            f"{len(ledger.returned)} rolls: "
            + "; ".join(
                f"{s.code} {_percent(m)} instead of {_percent(t)}" for s, t, m in broken[:10]
            ),
            [RTP_DUTY],
        )


@then(parsers.re(r"the highest return is the declared maximum RTP of (?P<stated>\d+\.\d+)%"))
def highest_is_declared(
    scene: Scene, stated: str, facts: RunRecord, sweep_ledgers: dict[str, SweepLedger]
) -> None:
    ledger, table = _ledger(sweep_ledgers, "sicbo"), paytable()
    measured = {s.code: ledger.measured_rtp(s.code) for s in table.selections}
    best_code = max(measured, key=lambda c: measured[c])
    best = as_percent(measured[best_code], 2)
    declared = scene.target.info.max_rtp.get("sicbo")
    facts.write(
        "rtp_max",
        game="sicbo",
        stated=stated,
        declared=str(declared),
        measured=str(best),
        measured_exact=str(measured[best_code]),
        selection=best_code,
    )
    if Decimal(stated) != Decimal(table.declared_max_rtp_percent):
        raise FeatureOracleDisagreement(
            f"the feature states {stated}% but the paytable file says "
            f"{table.declared_max_rtp_percent}%"
        )
    problems = []
    if declared is None or Decimal(declared) != Decimal(stated):
        problems.append(f"the target declares {declared}%, the rules state {stated}%")
    if best != Decimal(stated):
        problems.append(f"the highest measured return is {best}% ({best_code}), not {stated}%")
    if problems:
        raise ClauseFailure("; ".join(problems), [table.rtp_clause, RTP_DUTY])

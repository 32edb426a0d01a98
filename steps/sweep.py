"""The exhaustive sweep and return to player, for both games.

One scenario per outcome bets on every selection in one round and checks each settlement
against the oracle; the RTP scenarios then compare what the target returned over every outcome
with the theoretical return, and the best selection's with the declared maximum RTP.
"""

from collections.abc import Iterator
from decimal import Decimal
from fractions import Fraction

import allure
import pytest
from pytest_bdd import given, parsers, then

from livecert.harness.findings import ClauseFailure, HarnessError
from livecert.harness.run_record import RunRecord
from livecert.harness.settlement_check import rows_as_table
from livecert.harness.sweep import (
    HELD_BACK,
    SWEEP_STAKE,
    OutcomeReport,
    SweepLedger,
    SweepRound,
    bet_on_every_selection,
    clauses_not_offered,
    held_back,
    instant,
    play_outcome,
    settle_sweep_round,
    sweep_clauses,
)
from livecert.harness.sweep_pool import PlayedRound, SweepPool
from livecert.harness.vocabulary import parse_dice, parse_tokens, paytable
from livecert.harness.workers import ScenarioGate
from livecert.rules import all_outcomes, as_percent, theoretical_rtp
from livecert.suite.fixtures.attachments import attach_text
from livecert.suite.fixtures.options import sweep_only as named_sweep_clauses
from livecert.suite.fixtures.scene import Scene
from livecert.suite.fixtures.workers import lent_tables, run_tables, shared_folder
from livecert.suite.steps.common import FeatureOracleDisagreement, under_a_profile

RTP_DUTY = "REG-RTP-01"
GAME_NAMES = {"Sic Bo": "sicbo", "Xoc Dia": "xocdia"}


@pytest.fixture(scope="session")
def sweep_only(pytestconfig: pytest.Config) -> frozenset[str]:
    """The paytable clauses the sweep is narrowed to (`--sweep-only`); empty: every selection."""
    return named_sweep_clauses(pytestconfig)


def narrowed(game: str, only: frozenset[str]) -> list[str]:
    """The clauses of `game` the sweep is narrowed to; empty when it bets on every selection."""
    return sorted(only & sweep_clauses(paytable(game)))


@pytest.fixture(scope="session")
def sweep_pools() -> Iterator[dict[tuple[str, Decimal], SweepPool]]:
    """Per game and stake, the sweep's rounds played ahead on several tables (--workers)."""
    pools: dict[tuple[str, Decimal], SweepPool] = {}
    yield pools
    for pool in pools.values():
        pool.stop()


def _example_outcome(item: pytest.Item, game: str) -> tuple | None:
    """The outcome a sweep scenario's example row names (its dice or tokens), if it names one."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    example = params.get("_pytest_bdd_example") or {}
    if not item.get_closest_marker("sweep") or not item.get_closest_marker(game):
        return None
    if game == "sicbo" and "dice" in example:
        return parse_dice(example["dice"])
    if game == "xocdia" and "tokens" in example:
        return parse_tokens(example["tokens"])
    return None


def _pool(
    scene: Scene,
    request: pytest.FixtureRequest,
    pools: dict[tuple[str, Decimal], SweepPool],
    stake: Decimal,
    only: frozenset[str],
) -> SweepPool | None:
    """The pool playing this game's sweep ahead, started on the first use with every outcome
    the process's sweep scenarios of the game name, at this process's tables and at those
    finished processes lend; None with one table in play in the whole run."""
    if run_tables(request.config) <= 1:
        return None
    scene.table()  # a game the target does not offer is skipped here, as when played in turn
    key = (scene.game, stake)
    if key not in pools:
        folder = shared_folder(request.config)
        pool = pools[key] = SweepPool(
            scene.adapter, scene.recorder, paytable(scene.game), scene.target.info, stake, only,
            request.config.getoption("--tables-in-play"),
            ScenarioGate(folder) if folder is not None else None, lent_tables(request.config),
        )  # fmt: skip
        named = (_example_outcome(item, scene.game) for item in request.session.items)
        pool.play(outcome for outcome in named if outcome is not None)
    return pools[key]


@pytest.fixture(scope="session")
def sweep_ledgers() -> dict[str, SweepLedger]:
    """Per game, what the target returned for every selection on every outcome played so far."""
    return {}


def _ledger(ledgers: dict[str, SweepLedger], game: str) -> SweepLedger:
    return ledgers.setdefault(game, SweepLedger(game))


def settle_sweep(scene: Scene, outcome: tuple) -> bool:
    """If the scene holds a sweep round, enter `outcome` for it; True when it did."""
    if not isinstance(scene.sweep_round, SweepRound):
        return False
    if not scene.sweep_round.pending:  # a live round: the dealer closed betting before
        scene.expect_state(("closed",), scene.window_clauses(), "the result is entered")
    played = scene.played_round
    if isinstance(played, PlayedRound) and played.result is not None:
        if tuple(outcome) != tuple(played.outcome):
            raise HarnessError(f"the round played ahead was for {played.outcome}, not {outcome}")
        report = played.result.take(scene.recorder)
    else:
        report = settle_sweep_round(
            scene.adapter, paytable(scene.game), scene.target.info, scene.sweep_round, outcome
        )
    scene.round, scene.outcome, scene.sweep_report = report.round, outcome, report
    return True


def result_problem(game: str, outcome: tuple, shown: dict) -> str | None:
    """How the round's recorded result differs from what the dealer entered, if it does."""
    if game == "sicbo":
        expected = {"dice": list(outcome), "total": sum(outcome)}
        actual = {"dice": shown.get("dice"), "total": shown.get("total")}
    else:
        red = sum(1 for t in outcome if t == "r")
        expected = {"tokens": list(outcome), "red": red, "white": 4 - red}
        actual = {k: shown.get(k) for k in ("tokens", "red", "white")}
    return None if actual == expected else f"the round's result is {actual}, expected {expected}"


@given(parsers.re(r"a player bets (?P<stake>\d+\.\d+) on every (?P<name>Sic Bo|Xoc Dia) selection"))
def bet_on_everything(
    scene: Scene,
    stake: str,
    name: str,
    sweep_only: frozenset[str],
    sweep_pools: dict[tuple[str, Decimal], SweepPool],
    request: pytest.FixtureRequest,
) -> None:
    """The player's bets: sent now, or, with several tables in play, taken from the round the
    pool played ahead for this scenario's outcome (its requests and answers, the same)."""
    scene.game = GAME_NAMES[name]
    outcome = _example_outcome(request.node, scene.game)
    stake = str(scene.twin(Decimal(stake), "bet on every selection"))  # the sweep checks its own
    pool = _pool(scene, request, sweep_pools, Decimal(stake), sweep_only) if outcome else None
    if pool is not None and outcome is not None:
        scene.played_round = pool.round_of(outcome)
        scene.sweep_round = scene.played_round.bets.take(scene.recorder)
    else:
        one_request = instant(scene.adapter, scene.target.info)
        scene.sweep_round = bet_on_every_selection(
            scene.adapter, paytable(scene.game), scene.table(), Decimal(stake), one_request,
            sweep_only,
        )  # fmt: skip
    scene.round = scene.sweep_round.opened


def _check_report(scene: Scene, report: OutcomeReport, facts: RunRecord, ledger: SweepLedger):
    """Judge every settlement on its own clauses, attach the evidence table, record the counts,
    and fail with the broken clauses."""
    game = scene.game
    attach_text(
        rows_as_table(report.rows),
        name=f"settlements on {report.outcome}",
        attachment_type=allure.attachment_type.TEXT,
    )
    facts.write(
        "sweep",
        game=game,
        outcome=list(report.outcome),
        selections=len(report.rows),
        checked=len(report.rows),
        mismatches=len(report.mismatches),
        mismatched=[r.code for r in report.mismatches],
    )
    ledger.add(report)
    for row in report.rows:
        if row.matches:
            scene.checks.held(row.clauses, row.describe())
        else:
            scene.checks.failed(row.clauses, row.describe())
    problem = result_problem(game, report.outcome, report.round.result or {})
    general = paytable(game).general_clause
    if problem:
        scene.checks.failed([general], problem)
    else:
        scene.checks.held([general], f"the round's result shows {report.outcome}")
    if report.mismatches or problem:
        clauses = [c for r in report.mismatches for c in r.clauses]
        lines = [r.describe() for r in report.mismatches[:20]]
        if problem:
            clauses.append(general)
            lines.append(problem)
        failure = ClauseFailure(
            f"{len(report.mismatches)} of {len(report.rows)} settlements differ from the "
            f"paytable on {report.outcome}:\n" + "\n".join(lines),
            clauses,
        )
        failure.booked = True  # each row was judged above
        raise failure


@then("every bet is settled as the paytable says")
def every_bet_settled(
    scene: Scene, facts: RunRecord, sweep_ledgers: dict[str, SweepLedger]
) -> None:
    if not isinstance(scene.sweep_report, OutcomeReport):
        raise HarnessError("the scenario settled no sweep round before checking it")
    scene.unproven.update(clauses_not_offered(scene.adapter, paytable(scene.game)))
    _check_report(scene, scene.sweep_report, facts, _ledger(sweep_ledgers, scene.game))


# -- return to player -----------------------------------------------------------------------------


@given(
    parsers.re(
        r"every (?:roll of three dice|result of four tokens) has been played with a bet on "
        r"every (?P<name>Sic Bo|Xoc Dia) selection"
    )
)
def every_outcome_played(
    scene: Scene,
    name: str,
    facts: RunRecord,
    sweep_ledgers: dict[str, SweepLedger],
    sweep_only: frozenset[str],
    sweep_pools: dict[tuple[str, Decimal], SweepPool],
    request: pytest.FixtureRequest,
) -> None:
    """Play the outcomes the sweep scenarios did not (all of them when run alone)."""
    scene.game = GAME_NAMES[name]
    ledger, table = _ledger(sweep_ledgers, scene.game), paytable(scene.game)
    missing = [o for o in all_outcomes(table) if tuple(o) not in ledger.returned]
    pool = _pool(scene, request, sweep_pools, SWEEP_STAKE, sweep_only) if missing else None
    if pool is not None:
        pool.play(missing)
    try:
        for outcome in missing:
            if pool is None:
                report = play_outcome(
                    scene.adapter, table, scene.target.info, scene.table(), outcome,
                    only=sweep_only,
                )  # fmt: skip
            else:
                played = pool.round_of(outcome)  # every step's evidence this scenario's
                for step in played.steps()[:-1]:
                    step.take(scene.recorder)
                report = played.steps()[-1].take(scene.recorder)
                if played.result is None:  # a step before the result failed without raising
                    raise HarnessError(f"the round for {outcome} was not played to its result")
            ledger.add(report)
    except BaseException:
        if pool is not None:
            pool.cancel_ahead()  # the rest would be played for nobody, beside other scenarios
        raise
    facts.write(
        "rtp_outcomes_played",
        game=scene.game,
        by_this_scenario=len(missing),
        total=len(ledger.returned),
    )


def _percent(value: Fraction) -> str:
    return f"{as_percent(value, 4)}%"


def _narrowed_reason(only: list[str], what: str) -> str:
    return (
        f"the sweep bet only on the selections of {', '.join(only)} (--sweep-only): {what} "
        "was not measured over every selection"
    )


def _not_swept(scene: Scene, only: list[str], what: str) -> str | None:
    """Why `what` was not measured over every selection, if it was not: the sweep narrowed
    (--sweep-only), or selections the run holds back as "mapping or target"."""
    if only:
        return _narrowed_reason(only, what)
    held = held_back(scene.adapter, scene.game)
    if held:
        return (
            f"{what} was not measured over every selection: the run held back "
            f"{', '.join(held)} ({HELD_BACK})"
        )
    return None


@then("the measured return of every selection equals its theoretical return")
def measured_equals_theory(
    scene: Scene,
    facts: RunRecord,
    sweep_ledgers: dict[str, SweepLedger],
    sweep_only: frozenset[str],
) -> None:
    """Every selection's measured return against its theory. On a narrowed sweep the duty is
    over selections that were not played: a swept selection off its theory fails it, but it
    never passes there."""
    ledger, table = _ledger(sweep_ledgers, scene.game), paytable(scene.game)
    not_swept = _not_swept(scene, narrowed(scene.game, sweep_only), "the return of every selection")
    rows, broken = [], []
    for selection in (s for s in table.selections if ledger.played(s.code)):
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
        elif not not_swept:
            scene.checks.held(
                [RTP_DUTY], f"{selection.code} returns {_percent(measured)} as in theory"
            )
    facts.write("rtp", game=scene.game, rolls=len(ledger.returned), rows=rows)
    attach_text(
        "\n".join(
            f"{r['code']} | {r['theoretical_percent']} | {r['measured_percent']}" for r in rows
        ),
        name="RTP per selection (theoretical | measured)",
        attachment_type=allure.attachment_type.TEXT,
    )
    if not_swept and not broken:
        scene.unproven[RTP_DUTY] = not_swept
        return
    if not rows:
        raise HarnessError("no selection was played on every outcome: nothing to measure")
    scene.checks.check(
        not broken,
        [RTP_DUTY],
        f"{len(broken)} {'selection returns' if len(broken) == 1 else 'selections return'} "
        "other than the paytable over "
        f"{len(ledger.returned)} outcomes: "
        + "; ".join(f"{s.code} {_percent(m)} instead of {_percent(t)}" for s, t, m in broken),
        f"every selection returns its theoretical share over {len(ledger.returned)} outcomes",
    )


NO_DECLARED_MAX = (
    "not testable: the table declares no maximum RTP (its mapping has no declares.max_rtp), so "
    "the maximum cannot be compared with a declared one"
)


def _no_declared_max(scene: Scene) -> str:
    """Why the declared maximum RTP is not compared: none declared, or one sent outside the
    contract's schema (a number, not a decimal string: CONTRACT-02's finding), so not read."""
    return scene.target.declared.reason(f"max_rtp.{scene.game}") or NO_DECLARED_MAX


@then(parsers.re(r"the highest return is the declared maximum RTP of (?P<stated>\d+\.\d+)%"))
def highest_is_declared(
    scene: Scene,
    stated: str,
    facts: RunRecord,
    sweep_ledgers: dict[str, SweepLedger],
    sweep_only: frozenset[str],
) -> None:
    ledger, table = _ledger(sweep_ledgers, scene.game), paytable(scene.game)
    measured = {
        s.code: ledger.measured_rtp(s.code) for s in table.selections if ledger.played(s.code)
    }
    only = narrowed(scene.game, sweep_only)
    not_swept = _not_swept(scene, only, "the highest return")
    if not measured and not not_swept:
        raise HarnessError("no selection was played on every outcome: nothing to measure")
    declared = scene.target.info.max_rtp.get(scene.game)
    if Decimal(stated) != Decimal(table.declared_max_rtp_percent):
        if not under_a_profile():
            raise FeatureOracleDisagreement(
                f"the feature states {stated}% but the paytable file says "
                f"{table.declared_max_rtp_percent}%"
            )
        stated = table.declared_max_rtp_percent  # the profile's published maximum
    declared_right = declared is not None and Decimal(declared) == Decimal(stated)
    declared_problem = f"the target declares {declared}%, the rules state {stated}%"
    clauses = [table.rtp_clause, RTP_DUTY]
    # a table that declares no maximum (a mapping without declares.max_rtp): the declaration
    # is not compared with anything, least of all the harness's own number; the measured
    # maximum is still the game's clause's
    measured_clauses = clauses if declared is not None else [table.rtp_clause]
    if not_swept:
        failures = _judge_narrowed_maximum(
            scene, facts, only or held_back(scene.adapter, scene.game), not_swept, stated,
            declared, measured,
        )  # fmt: skip
        if declared is None:
            scene.unproven[RTP_DUTY] = _no_declared_max(scene)
        elif not declared_right:  # what the target declares needs no sweep
            failures.append(scene.checks.failed(clauses, declared_problem))
        if failures:
            raise failures[0]
        return
    best_code = max(measured, key=lambda c: measured[c])
    best = as_percent(measured[best_code], 2)
    facts.write(
        "rtp_max",
        game=scene.game,
        stated=stated,
        declared=str(declared),
        measured=str(best),
        measured_exact=str(measured[best_code]),
        selection=best_code,
    )
    if declared is None:
        scene.unproven[RTP_DUTY] = _no_declared_max(scene)
    else:
        scene.checks.check(
            declared_right, clauses, declared_problem, f"the target declares the rules' {stated}%"
        )
    scene.checks.check(
        best == Decimal(stated),
        measured_clauses,
        f"the highest measured return is {best}% ({best_code}), not {stated}%",
        f"the highest measured return is {best}% ({best_code})",
    )


def above_maximum(measured: Fraction, stated: str) -> bool:
    """True when a measured return is above the stated maximum, compared to the stated
    maximum's two decimals (as the whole sweep's check compares): 97.2249% is the 97.22%
    maximum, 97.225% is above it."""
    return as_percent(measured, 2) > Decimal(stated)


def _judge_narrowed_maximum(
    scene: Scene,
    facts: RunRecord,
    only: list[str],
    reason: str,
    stated: str,
    declared: str | None,
    measured: dict[str, Fraction],
) -> list[ClauseFailure]:
    """On a narrowed sweep (or one without the selections held back) the highest return over
    every selection is not measured, so it can never pass; but a swept selection returning more
    than the stated maximum proves the game's highest return above it, and that fails the
    clause (the failures are booked, to raise)."""
    table = paytable(scene.game)
    clauses = [table.rtp_clause, RTP_DUTY]
    above = {code: value for code, value in measured.items() if above_maximum(value, stated)}
    facts.write(
        "rtp_max",
        game=scene.game,
        stated=stated,
        declared=str(declared),
        narrowed_to=only,  # no measured maximum: the best of the swept ones is not the game's
        # (or the codes held back, when it is they that were not swept)
        above_stated={code: str(value) for code, value in above.items()},
        not_judged=None if above else reason,
    )
    scene.unproven.update({clause: reason for clause in clauses})
    return [
        scene.checks.failed(
            clauses,
            f"{code} returns {as_percent(value, 2)}%, above the stated maximum of {stated}%, "
            "so the game's highest return is not the maximum (measured on the narrowed sweep)",
        )
        for code, value in above.items()
    ]

"""Steps a player and a dealer share across both games: balances, bets, wins and losses.

Expected amounts come from the feature text (the rules documents' numbers); each check also asks
the oracle, so a feature that disagrees with the paytable is reported as a harness defect rather
than blamed on the target.
"""

from decimal import Decimal

import allure
from pytest_bdd import given, parsers, then

from fixtures.scene import Scene
from livecert.harness.findings import ClauseFailure
from livecert.harness.settlement_check import SETTLE_DUTY
from livecert.harness.vocabulary import paytable
from livecert.rules import expected_settlement

AMOUNT = r"(?P<amount>\d+\.\d+)"


class FeatureOracleDisagreement(RuntimeError):
    """A feature's amount contradicts the oracle: a defect of the harness, not of the target."""


@given(parsers.re(rf"a player with a balance of {AMOUNT}"))
def player_with_balance(scene: Scene, amount: str) -> None:
    scene.player("player", Decimal(amount))


@given(parsers.re(r"(?:a|the) player bets (?P<stake>\d+\.\d+) on (?P<label>.+)"))
def player_bets(scene: Scene, stake: str, label: str) -> None:
    scene.place(label, Decimal(stake))


def _check_settlement(scene: Scene, label: str, outcome: str, win: Decimal) -> None:
    placed = scene.bet(label)
    assert scene.outcome is not None, "no result was entered in this scenario"
    info = scene.target.info
    oracle = expected_settlement(
        paytable(scene.game),
        placed.code,
        scene.outcome,
        placed.stake,
        info.minor_unit,
        info.rounding,
    )
    if (oracle.outcome, oracle.win) != (outcome, win):
        raise FeatureOracleDisagreement(
            f"the feature expects {label} to {outcome} {win} on {scene.outcome}, the oracle says "
            f"{oracle.outcome} {oracle.win}: fix the feature or the paytable"
        )
    actual = scene.current_view(placed)
    returned = (
        placed.stake + win
        if outcome == "win"
        else (placed.stake if outcome == "refund" else Decimal(0))
    )
    allure.attach(
        f"bet: {label} ({placed.code}), stake {placed.stake}, result {scene.outcome}\n"
        f"expected: settled / {outcome}, win {win}, returned {returned} "
        f"(clauses {', '.join(oracle.clauses)}; rounding {info.rounding!r})\n"
        f"actual:   {actual.status} / {actual.outcome}, win {actual.win}, returned "
        f"{actual.returned}",
        name=f"settlement of {label}",
        attachment_type=allure.attachment_type.TEXT,
    )
    problems = []
    if actual.status != "settled":
        problems.append(f"status {actual.status!r}, expected 'settled'")
    if actual.outcome != outcome:
        problems.append(f"outcome {actual.outcome!r}, expected {outcome!r}")
    if actual.win != win:
        problems.append(f"win {actual.win}, expected {win}")
    if actual.returned != returned:
        problems.append(f"returned {actual.returned}, expected {returned}")
    if problems:
        raise ClauseFailure(
            f"{label} ({placed.code}) staked {placed.stake} on {scene.outcome}: "
            + "; ".join(problems),
            (*oracle.clauses, SETTLE_DUTY),
        )


@then(parsers.re(rf"the (?P<label>.+?) bet wins {AMOUNT}"))
def bet_wins(scene: Scene, label: str, amount: str) -> None:
    _check_settlement(scene, label, "win", Decimal(amount))


@then(parsers.re(r"the (?P<label>.+?) bet loses"))
def bet_loses(scene: Scene, label: str) -> None:
    _check_settlement(scene, label, "lose", Decimal("0.00"))


@then(parsers.re(rf"the player's balance is {AMOUNT}"))
def balance_is(scene: Scene, amount: str) -> None:
    actual = scene.adapter.balance(scene.player("player"))
    assert actual == Decimal(amount), f"the player's balance is {actual}, expected {amount}"

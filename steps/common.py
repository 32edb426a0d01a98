"""Steps a player and a dealer share across both games: balances, bets, wins, losses, rounding.

Expected amounts come from the feature text (the rules documents' numbers); each check also asks
the oracle, so a feature that disagrees with the paytable is reported as a harness defect rather
than blamed on the target.
"""

from decimal import Decimal
from fractions import Fraction

import allure
import pytest
from pytest_bdd import given, parsers, then

from fixtures.scene import Scene
from livecert.harness.findings import ClauseFailure
from livecert.harness.settlement_check import SETTLE_DUTY
from livecert.harness.vocabulary import paytable
from livecert.rules import round_to_minor
from livecert.rules.paytable import active_profile

AMOUNT = r"(?P<amount>\d+\.\d+)"


class FeatureOracleDisagreement(RuntimeError):
    """A feature's amount contradicts the oracle: a defect of the harness, not of the target."""


def under_a_profile() -> str | None:
    """The name of the run's rule profile when it is not the rules documents."""
    profile = active_profile()
    return None if profile is None or profile.is_documents else profile.name


def disagree(message: str) -> None:
    """A feature's literal numbers differ from the oracle's. Under the documents that is a harness
    defect (raised). Under a vendor's rule profile it is expected, since the features quote the
    documents' paytable: the step then checks the target against the profile's amount, which the
    oracle computes from the profile file (itself checked against hand-counted tables), and says
    so in the evidence."""
    profile = under_a_profile()
    if not profile:
        raise FeatureOracleDisagreement(message)
    allure.attach(
        f"rule profile {profile}: {message}; the target is checked against the profile's amount",
        name="checked against the rule profile",
        attachment_type=allure.attachment_type.TEXT,
    )


@given(parsers.re(rf"a player with a balance of {AMOUNT}"))
def player_with_balance(scene: Scene, amount: str) -> None:
    scene.player("player", Decimal(amount))


@given(parsers.re(r"(?:a|the) player bets (?P<stake>\d+\.\d+) on (?P<label>.+)"))
def player_bets(scene: Scene, stake: str, label: str) -> None:
    scene.place(label, Decimal(stake))


@given(parsers.re(rf"player (?P<name>[A-Z]) has a balance of {AMOUNT}"))
def named_player_with_balance(scene: Scene, name: str, amount: str) -> None:
    scene.player(name, Decimal(amount))


@given(parsers.re(r"player (?P<name>[A-Z]) bets (?P<stake>\d+\.\d+) on (?P<label>.+)"))
def named_player_bets(scene: Scene, name: str, stake: str, label: str) -> None:
    scene.place(label, Decimal(stake), player=name)


# Clauses that say the bets of a round settle as usual after something happened to it: a failed
# settlement in such a scenario is evidence against them too.
SETTLES_AS_USUAL = (
    "TBL-DISC-02",
    "TBL-MAL-02",
    "XD-RND-01",
    "XD-RND-02",
    "XD-RND-03",
    "XD-RND-04",
    "SB-RND-02",
    "SB-RND-03",
    "SB-RND-04",
    "SB-RND-05",
    "SB-RND-06",
)


def _settles_as_usual(request: pytest.FixtureRequest | None) -> list[str]:
    if request is None:
        return []
    return [m.name for m in request.node.iter_markers() if m.name in SETTLES_AS_USUAL]


def _check_settlement(
    scene: Scene,
    label: str,
    outcome: str,
    win: Decimal,
    player: str = "player",
    request: pytest.FixtureRequest | None = None,
) -> None:
    placed = scene.bet(label, player)
    assert scene.outcome is not None, "no result was entered in this scenario"
    info = scene.target.info
    oracle = scene.expected(placed)
    if (oracle.outcome, oracle.win) != (outcome, win):
        disagree(
            f"the feature expects {label} to {outcome} {win} on {scene.outcome}, the oracle says "
            f"{oracle.outcome} {oracle.win}: fix the feature or the paytable"
        )
        outcome, win = oracle.outcome, oracle.win  # under a rule profile: the profile's amount
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
            (*oracle.clauses, SETTLE_DUTY, *_settles_as_usual(request)),
        )


@then(parsers.re(rf"the (?P<label>.+?) bet wins {AMOUNT}"))
def bet_wins(scene: Scene, label: str, amount: str, request: pytest.FixtureRequest) -> None:
    _check_settlement(scene, label, "win", Decimal(amount), request=request)


@then(parsers.re(r"the (?P<label>.+?) bet loses"))
def bet_loses(scene: Scene, label: str, request: pytest.FixtureRequest) -> None:
    _check_settlement(scene, label, "lose", Decimal("0.00"), request=request)


@then(parsers.re(r"the (?P<label>.+?) bet gets its stake back"))
def bet_refunded(scene: Scene, label: str) -> None:
    _check_settlement(scene, label, "refund", Decimal("0.00"))


def _oracle_balance(scene: Scene, player: str) -> Decimal | None:
    """The balance the oracle expects after a settled round, to catch a feature's typo."""
    if scene.outcome is None or scene.round is None or scene.round.state != "settled":
        return None
    balance = scene.starting_balances[player]
    for placed in (b for b in scene.bets if b.player == player):
        expected = scene.expected(placed)
        balance += expected.returned - placed.stake
    return balance


@then(parsers.re(rf"the player's balance is {AMOUNT}"))
def balance_is(scene: Scene, amount: str) -> None:
    oracle = _oracle_balance(scene, "player")
    if oracle is not None and oracle != Decimal(amount):
        disagree(f"the feature expects a balance of {amount}, the oracle {oracle}: fix the feature")
        amount = str(oracle)  # under a rule profile: the profile's amount
    actual = scene.adapter.balance(scene.player("player"))
    assert actual == Decimal(amount), f"the player's balance is {actual}, expected {amount}"


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
    oracle = scene.expected(placed)
    if oracle.outcome != "win" or oracle.exact_win != Fraction(exact):
        disagree(
            f"the feature says {label} wins {exact} exactly, the oracle says {oracle.outcome} "
            f"{oracle.exact_win}"
        )
        if oracle.outcome != "win":  # the example is about rounding a win there is none of
            profile = under_a_profile()
            pytest.skip(f"not testable under the rule profile {profile}: {label} does not win")
        exact = str(oracle.exact_win)  # under a rule profile: the profile's exact win
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


# -- refused results ------------------------------------------------------------------------------


@then("the result is refused")
def result_refused(scene: Scene) -> None:
    if scene.refusal is None:
        state = scene.round.state if scene.round else "unknown"
        raise ClauseFailure(
            f"the target accepted an impossible result (the round is now {state!r})",
            [paytable(scene.game).general_clause],
        )


@then(parsers.re(r"the (?P<label>.+?) bet is still open"))
def bet_still_open(scene: Scene, label: str) -> None:
    placed = scene.bet(label)
    view = scene.adapter.get_round(scene.open_round().round_id, scene.player(placed.player))
    bet = view.bet(placed.view.bet_id)
    assert bet.status == "open", f"the {label} bet is {bet.status!r}, expected still 'open'"


@then(parsers.re(rf"player (?P<name>[A-Z])'s (?P<label>.+?) bet wins {AMOUNT}"))
def named_bet_wins(
    scene: Scene, name: str, label: str, amount: str, request: pytest.FixtureRequest
) -> None:
    _check_settlement(scene, label, "win", Decimal(amount), player=name, request=request)


@then(parsers.re(r"player (?P<name>[A-Z])'s (?P<label>.+?) bet loses"))
def named_bet_loses(scene: Scene, name: str, label: str, request: pytest.FixtureRequest) -> None:
    _check_settlement(scene, label, "lose", Decimal("0.00"), player=name, request=request)


@then(parsers.re(rf"player (?P<name>[A-Z])'s balance is {AMOUNT}"))
def named_balance_is(scene: Scene, name: str, amount: str) -> None:
    oracle = _oracle_balance(scene, name)
    if oracle is not None and oracle != Decimal(amount):
        disagree(f"the feature expects {name}'s balance of {amount}, the oracle {oracle}")
        amount = str(oracle)  # under a rule profile: the profile's amount
    actual = scene.adapter.balance(scene.player(name))
    assert actual == Decimal(amount), f"{name}'s balance is {actual}, expected {amount}"

"""Xoc Dia steps: the bowl, the shake, the tokens revealed, re-shakes, voids and cancellations.

The dealer's procedure is part of the rules (XD-RND-01..04, XD-VOID-01/02): the scene records a
shake during betting unless the scenario says the dealer forgot it, and a result entered while
betting still runs is the bowl lifted early.
"""

import re
from decimal import Decimal

import pytest
from pytest_bdd import given, parsers, then, when

from fixtures.scene import Scene
from livecert.adapters import Refused
from livecert.harness.findings import ClauseFailure
from livecert.harness.vocabulary import selection_code
from steps.sweep import result_problem, settle_sweep

TOKENS = r"(?P<tokens>\S+(?: \S+)*)"
RESHAKE_REASONS = {"items fell": "items-fell", "a token is standing": "standing-token"}


def parse_tokens(text: str) -> tuple[str, ...]:
    """'w w r r' -> ('w', 'w', 'r', 'r'); kept as written, so a bad token can be refused."""
    return tuple(text.split())


def _clauses(request: pytest.FixtureRequest) -> list[str]:
    return [m.name for m in request.node.iter_markers() if re.match(r"^XD-[A-Z]+-\d\d$", m.name)]


# -- the dealer -----------------------------------------------------------------------------------


@given("the dealer forgets to shake the bowl")
def dealer_forgets_to_shake(scene: Scene) -> None:
    assert scene.round is None, "say that the dealer forgets to shake before the first bet"
    scene.shake_when_opening = False


@given("betting has ended")
@when("betting ends")
def betting_ends(scene: Scene) -> None:
    scene.close_betting()


@when(parsers.re(rf"the dealer lifts the bowl showing {TOKENS}"))
def dealer_reveals(scene: Scene, tokens: str) -> None:
    outcome = parse_tokens(tokens)
    if not settle_sweep(scene, outcome):
        scene.enter_result(outcome)


@when(parsers.re(rf"the dealer lifts the bowl before betting ends, showing {TOKENS}"))
def dealer_reveals_early(scene: Scene, tokens: str) -> None:
    scene.enter_result(parse_tokens(tokens), close_first=False)


@when(parsers.re(rf"the dealer tries to reveal {TOKENS}"))
def dealer_tries_to_reveal(scene: Scene, tokens: str) -> None:
    try:
        scene.enter_result(parse_tokens(tokens))
    except Refused as refused:
        scene.refusal = refused


@when(parsers.re(r"the dealer re-shakes because (?P<why>items fell|a token is standing)"))
def dealer_reshakes(scene: Scene, why: str) -> None:
    scene.close_betting()
    scene.round = scene.adapter.record_reshake(scene.round.round_id, RESHAKE_REASONS[why])


@when("the dealer rearranges overlapping tokens with a stick")
def dealer_rearranges(scene: Scene) -> None:
    scene.close_betting()
    scene.round = scene.adapter.record_event(scene.round.round_id, "rearrange")


@when("the bowl touches a token as the dealer lifts it")
def bowl_touches_token(scene: Scene) -> None:
    scene.close_betting()
    scene.round = scene.adapter.record_event(scene.round.round_id, "bowl-touched-token")


# -- what players and the dealer see --------------------------------------------------------------


@then(
    parsers.re(rf"the round's result shows {TOKENS} with (?P<red>\d) red and (?P<white>\d) white")
)
def result_shows_tokens(scene: Scene, tokens: str, red: str, white: str) -> None:
    assert scene.round is not None
    shown = scene.round.result or {}
    problem = result_problem("xocdia", parse_tokens(tokens), shown)
    if problem or (shown.get("red"), shown.get("white")) != (int(red), int(white)):
        raise ClauseFailure(problem or f"the result shows {shown}", ["XD-GEN-01"])


@then(parsers.re(r"the round is (?P<state>void|cancelled)"))
def round_is(scene: Scene, state: str, request: pytest.FixtureRequest) -> None:
    actual = scene.refresh_round().state
    if actual != state:
        raise ClauseFailure(f"the round is {actual!r}, expected {state!r}", _clauses(request))


@then("every bet of every player is returned and nothing is paid")
def every_bet_returned(scene: Scene, request: pytest.FixtureRequest) -> None:
    expected_status = scene.round.state if scene.round.state in ("void", "cancelled") else "void"
    problems = []
    for placed in scene.bets:
        bet = scene.current_view(placed)
        if (bet.outcome, bet.win, bet.returned) != ("refund", Decimal("0.00"), placed.stake):
            problems.append(
                f"{placed.player}'s {placed.label} bet of {placed.stake}: {bet.status}/"
                f"{bet.outcome}, win {bet.win}, returned {bet.returned}"
            )
        elif bet.status != expected_status:
            problems.append(f"{placed.player}'s {placed.label} bet is {bet.status!r}")
    for name, handle in scene.players.items():
        balance = scene.adapter.balance(handle)
        if balance != scene.starting_balances[name]:
            problems.append(
                f"{name}'s balance is {balance}, expected {scene.starting_balances[name]} "
                "(every stake back, nothing paid)"
            )
    if problems:
        raise ClauseFailure(
            "not every bet was returned exactly: " + "; ".join(problems), _clauses(request)
        )


@then(parsers.re(r"the bet record shows each bet of the round as (?P<status>void|cancelled)"))
def record_shows(scene: Scene, status: str, request: pytest.FixtureRequest) -> None:
    problems = []
    for name, handle in scene.players.items():
        record = {b.bet_id: b for b in scene.adapter.bet_record(handle, scene.round.round_id)}
        for placed in (b for b in scene.bets if b.player == name):
            bet = record.get(placed.view.bet_id)
            if bet is None:
                problems.append(f"{name}'s {placed.label} bet is missing from the bet record")
            elif (bet.status, bet.returned) != (status, placed.stake):
                problems.append(
                    f"{name}'s {placed.label} bet is recorded {bet.status}, returned {bet.returned}"
                )
    if problems:
        raise ClauseFailure("; ".join(problems), _clauses(request))


@then("the bets stand and nothing is settled")
def bets_stand(scene: Scene, request: pytest.FixtureRequest) -> None:
    problems = []
    for placed in scene.bets:
        view = scene.adapter.get_round(scene.round.round_id, scene.players[placed.player])
        bet = view.bet(placed.view.bet_id)
        if bet.status != "open":
            problems.append(f"{placed.label} is {bet.status}/{bet.outcome}")
    if problems:
        raise ClauseFailure("bets did not stand: " + "; ".join(problems), _clauses(request))


@then(parsers.re(r"a new bet of (?P<stake>\d+\.\d+) on (?P<label>.+) is refused"))
def new_bet_refused(scene: Scene, stake: str, label: str, request: pytest.FixtureRequest):
    code = selection_code(label, scene.game)
    handle = scene.player("latecomer", Decimal("100.00"))
    try:
        scene.adapter.place_bets(handle, scene.round.round_id, [(code, Decimal(stake))])
    except Refused:
        balance = scene.adapter.balance(handle)
        assert balance == Decimal("100.00"), f"a refused bet moved the balance to {balance}"
        return
    raise ClauseFailure(
        f"a bet on {label} was accepted after betting had ended (round {scene.round.state})",
        _clauses(request),
    )

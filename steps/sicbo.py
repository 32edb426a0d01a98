"""Sic Bo steps: the dealer enters three dice, and the round shows them and their total."""

from pytest_bdd import parsers, then, when

from livecert.adapters.errors import Unsupported
from livecert.harness.vocabulary import parse_dice
from livecert.suite.fixtures.scene import Scene
from livecert.suite.steps.sweep import result_problem, settle_sweep

GENERAL = "SB-GEN-01"
DICE = r"(?P<dice>-?\d+(?:[ -]-?\d+)*)"


@when(parsers.re(rf"the dealer enters {DICE}"))
def dealer_enters(scene: Scene, dice: str) -> None:
    outcome = parse_dice(dice)
    if not settle_sweep(scene, outcome):
        scene.enter_result(outcome)


@when(parsers.re(rf"the dealer tries to enter {DICE}"))
def dealer_tries_to_enter(scene: Scene, dice: str) -> None:
    scene.refusal = scene.try_result(parse_dice(dice))


@then(parsers.re(rf"the round's result shows {DICE} with a total of (?P<total>\d+)"))
def result_shows(scene: Scene, dice: str, total: str) -> None:
    shown = scene.round.result or {}
    problem = result_problem("sicbo", parse_dice(dice), shown)
    scene.checks.check(
        not problem and shown.get("total") == int(total),
        (GENERAL,),
        problem or f"the total is {shown.get('total')}, not {total}",
        f"the result shows {dice}, total {total}",
    )


@when("the dealer shakes the dice cup")
def dealer_shakes(scene: Scene) -> None:
    """SB-RND-03: when betting ends the dealer shakes."""
    scene.dealer_event_after_close("shake", ("SB-RND-03",), "the shake")


@then("the round shows the dealer's shake")
def round_shows_shake(scene: Scene) -> None:
    shown = scene.refresh_round()
    if shown.events is None:
        raise Unsupported("read the round's events", "the target does not report a round's events")
    scene.checks.check(
        any(event.get("type") == "shake" for event in shown.events),
        ("SB-RND-03",),
        f"the round does not show the dealer's shake: events {list(shown.events)}",
        "the round shows the dealer's shake",
    )

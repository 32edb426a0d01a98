"""Xoc Dia steps: the bowl, the shake, the tokens revealed, re-shakes, voids and cancellations.

The dealer's procedure is part of the rules (XD-RND-01..04, XD-VOID-01/02): the scene records a
shake during betting unless the scenario says the dealer forgot it, and a result entered while
betting still runs is the bowl lifted early.
"""

from pytest_bdd import given, parsers, then, when

from livecert.adapters.errors import Unsupported
from livecert.harness.attempts import refusal
from livecert.harness.findings import HarnessError
from livecert.harness.vocabulary import parse_tokens
from livecert.suite.fixtures.scene import Scene
from livecert.suite.steps.rounds import PAUSED
from livecert.suite.steps.sweep import result_problem, settle_sweep

TOKENS = r"(?P<tokens>\S+(?: \S+)*)"


# -- the dealer -----------------------------------------------------------------------------------


@given("the dealer forgets to shake the bowl")
def dealer_forgets_to_shake(scene: Scene) -> None:
    if scene.round is not None:
        raise HarnessError("say that the dealer forgets to shake before the first bet")
    alone = getattr(scene.adapter, "dealer_acts_alone", lambda: None)()
    if alone:
        raise Unsupported("leave the shake out", alone)
    scene.shake_when_opening = False


@then("the dealer's shake is refused now that betting has ended")
def late_shake_refused(scene: Scene) -> None:
    """XD-RND-01: the bowl is shaken during the betting period; a shake after it cannot make a
    forgotten shake good (XD-VOID-01)."""
    scene.expect_state(("closed",), ("XD-RND-01",), "a late shake")
    round_id = scene.round.round_id
    refused = refusal(lambda: scene.adapter.record_event(round_id, "shake"))
    scene.checks.check(
        refused is not None,
        ("XD-RND-01", "XD-VOID-01"),
        "a shake after the betting period was recorded, so a round the dealer forgot to shake "
        "could still be settled",
        f"a shake after the betting period was refused: {refused}",
    )


@when(parsers.re(rf"the dealer lifts the bowl showing {TOKENS}"))
def dealer_reveals(scene: Scene, tokens: str) -> None:
    outcome = parse_tokens(tokens)
    if not settle_sweep(scene, outcome):
        scene.enter_result(outcome)


@when(parsers.re(rf"the dealer lifts the bowl before betting ends, showing {TOKENS}"))
def dealer_reveals_early(scene: Scene, tokens: str) -> None:
    scene.enter_result(parse_tokens(tokens), early=True)


@when(parsers.re(rf"the dealer tries to reveal {TOKENS}"))
def dealer_tries_to_reveal(scene: Scene, tokens: str) -> None:
    scene.refusal = scene.try_result(parse_tokens(tokens))


@when("the dealer rearranges overlapping tokens with a stick")
def dealer_rearranges(scene: Scene) -> None:
    """XD-RND-02: after the bowl is lifted (betting over), without changing the result."""
    scene.dealer_event_after_close("rearrange", ("XD-RND-02",), "rearranging the tokens")
    scene.phase, scene.late_bet_clauses = "re-shake", ("XD-RND-02", "REG-COMMIT-01")
    scene.left_in("closed", ("XD-RND-02",), "rearranging")


@when("the bowl touches a token as the dealer lifts it")
def bowl_touches_token(scene: Scene) -> None:
    """XD-VOID-02: the bowl is lifted after betting; touching a token cancels the round."""
    scene.ended_as, scene.ended_by = ("cancelled",), ("XD-VOID-02",)
    scene.dealer_event_after_close(
        "bowl-touched-token", ("XD-VOID-02",), "lifting the bowl as it touches a token"
    )


@then("a bowl touching a token is refused while the round is paused")
def bowl_touch_refused_while_paused(scene: Scene) -> None:
    """TBL-MAL-01 (RULES.md D): a paused round makes no progress, not even a cancellation by the
    bowl."""
    round_id = scene.round.round_id
    refused = refusal(lambda: scene.adapter.record_event(round_id, "bowl-touched-token"))
    shown = scene.adapter.get_round(round_id).state if refused is None else "paused"
    scene.checks.check(
        refused is not None,
        PAUSED,
        f"a paused round took the bowl-touch event and is now {shown!r}",
        f"the bowl touch was refused while paused: {refused}",
    )


# -- what players and the dealer see --------------------------------------------------------------


@then(
    parsers.re(rf"the round's result shows {TOKENS} with (?P<red>\d) red and (?P<white>\d) white")
)
def result_shows_tokens(scene: Scene, tokens: str, red: str, white: str) -> None:
    shown = scene.round.result or {}
    problem = result_problem("xocdia", parse_tokens(tokens), shown)
    counts = (shown.get("red"), shown.get("white"))
    scene.checks.check(
        not problem and counts == (int(red), int(white)),
        ("XD-GEN-01",),
        problem or f"the result shows {shown}",
        f"the result shows {tokens}: {red} red, {white} white",
    )

"""Access control: who may do what (REG-ACCESS-01).

Each cell of the matrix acts with one credential (the operator's, the dealer's, the player's,
another player's, none, a forged one, or a session the player ended) through the same adapter
and evidence recorder, and checks that only the allowed cells succeed.
"""

import secrets
from collections.abc import Callable
from decimal import Decimal

import pytest
from pytest_bdd import given, parsers, then, when

from livecert.adapters import PlayerHandle, Refused, TargetAdapter
from livecert.adapters.errors import Unsupported
from livecert.harness.attempts import refusal
from livecert.harness.capabilities import missing_reason
from livecert.harness.vocabulary import paytable
from livecert.suite.fixtures.scene import Scene
from livecert.suite.steps.rounds import DEFAULT_RESULT, GAMES

ACCESS = "REG-ACCESS-01"
ACTIONS = (
    "create a test player",
    "create a table",
    "open a round",
    "close betting",
    "enter the result",
    "pause the round",
    "cancel the round",
    "bet on the round",
    "read a balance",
    "see the player's bets in the round",
)
WHO = (
    "the operator",
    "the dealer",
    "the player",
    "another player",
    "someone with no credentials",
    "someone with a forged token",
    "someone with a session the player ended",
)


@given(parsers.re(r"a (?P<name>Sic Bo|Xoc Dia) round is open at a new table with a player's bet"))
def round_with_a_bet(scene: Scene, name: str) -> None:
    scene.game = GAMES[name]
    scene.own_table = scene.adapter.create_table(scene.game)
    scene.place(paytable(scene.game).selections[0].label, Decimal("10.00"))


def acting(scene: Scene, who: str, action: str) -> tuple[TargetAdapter, PlayerHandle]:
    """The adapter acting as `who`, and the player handle it bets and reads with. "The player"
    who bets is one with no bet in the round yet, so the answer is about who may bet, not about
    several bets in one round (SB-RND-02)."""
    adapter = scene.adapter
    if not (hasattr(adapter, "as_role") and hasattr(adapter, "with_credential")):
        raise Unsupported(f"act as {who}", "the adapter cannot send another role's credentials")
    if who in ("the operator", "the dealer"):
        return adapter.as_role(who.split()[1]), scene.player()
    if who == "the player":
        handle = (
            scene.player("bettor", Decimal("100.00"))
            if action == "bet on the round"
            else (scene.player())
        )
    elif who == "another player":
        handle = scene.player("other", Decimal("100.00"))
    elif who == "someone with a session the player ended":
        ended = getattr(adapter, "expired_credential", None)
        if ended is None:
            raise Unsupported(f"act as {who}", "the adapter cannot end a player's session")
        return adapter.with_credential(ended(scene.player())), scene.player()
    else:
        token = "" if who == "someone with no credentials" else "forged-" + secrets.token_hex(12)
        return adapter.with_credential(token), scene.player()
    return adapter.with_credential(handle.token), handle


def _prepare(scene: Scene, action: str) -> dict[str, str]:
    """What an action needs done first, with the scene's own credentials and outside the judged
    call (so an answer outside the contract there is a finding of its own, not an acceptance).
    Closing betting is the dealer's checked action (fixtures/scene.py), never a silent one."""
    if action == "enter the result":
        scene.close_betting()
    if action == "open a round":
        return {"table": scene.adapter.create_table(scene.game)}
    return {}


def _actions(
    scene: Scene, prepared: dict[str, str]
) -> dict[str, Callable[[TargetAdapter, PlayerHandle], object]]:
    game, round_id = scene.game, scene.round.round_id
    code = paytable(game).selections[0].code
    stake = scene.inside_limits(Decimal("1.00"))  # refused for the role, never for the limits

    def enter_result(a: TargetAdapter, _: PlayerHandle) -> object:
        return a.enter_result(round_id, DEFAULT_RESULT[game])

    def see_bets(a: TargetAdapter, handle: PlayerHandle) -> object:
        seen = {b.bet_id for b in a.get_round(round_id, handle).bets}
        if scene.bets[0].view.bet_id not in seen:
            raise Refused("see the player's bets", 200, "HIDDEN", "the player's bet is not shown")
        return seen

    return {
        "create a test player": lambda a, _: a.create_player(Decimal("10.00")),
        "create a table": lambda a, _: a.create_table(game),
        "open a round": lambda a, _: a.open_round(prepared["table"]),
        "close betting": lambda a, _: a.close_betting(round_id),
        "enter the result": enter_result,
        "pause the round": lambda a, _: a.dealer_action(round_id, "pause", "access check"),
        "cancel the round": lambda a, _: a.dealer_action(round_id, "cancel", "access check"),
        "bet on the round": lambda a, h: a.place_bets(h, round_id, [(code, stake)]),
        "read a balance": lambda a, h: a.balance(h),
        "see the player's bets in the round": see_bets,
    }


ACTION_NEEDS = {"pause the round": "pause"}  # actions that use an optional capability
READS_JUDGED_BY_CONTENT = ("see the player's bets in the round",)


@when(parsers.re(rf"(?P<who>{'|'.join(WHO)}) tries to (?P<action>{'|'.join(ACTIONS)})"))
def someone_tries(scene: Scene, who: str, action: str) -> None:
    needed = ACTION_NEEDS.get(action)
    if needed and needed not in scene.target.info.capabilities:
        pytest.skip(missing_reason(needed))
    adapter, handle = acting(scene, who, action)
    actions = _actions(scene, _prepare(scene, action))
    if action in READS_JUDGED_BY_CONTENT:
        # what is shown is the finding, not that the read was answered: an answer outside the
        # contract cannot be judged and stays a contract finding
        try:
            actions[action](adapter, handle)
            scene.refusal = None
        except Refused as refused:
            scene.refusal = refused
    else:
        scene.refusal = refusal(lambda: actions[action](adapter, handle))
    scene.access_outcome = "refused" if scene.refusal else "allowed"


@then(parsers.re(r"it is (?P<verdict>allowed|refused)"))
def access_verdict(scene: Scene, verdict: str) -> None:
    """REG-ACCESS-01: a player acts only for themselves; dealer and operator actions need their
    own credentials (and docs/contract.md, "Roles", for who may do what)."""
    detail = f" ({scene.refusal})" if scene.refusal else ""
    scene.checks.check(
        scene.access_outcome == verdict,
        (ACCESS,),
        f"it was {scene.access_outcome}, expected {verdict}{detail}",
        f"it was {verdict}{detail}",
    )

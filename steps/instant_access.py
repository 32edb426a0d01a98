"""Instant rounds: who may play (REG-ACCESS-01) and a slip sent twice with one key
(REG-IDEMP-01), through the one request that bets, plays and settles.

A player plays only for themselves: the operator's, the dealer's, a forged or no credential
must not move the player's money, another player's rounds move only their own, and another
player's bet record does not show the player's round.
"""

import uuid
from decimal import Decimal

import pytest
from pytest_bdd import given, parsers, then, when

from livecert.adapters import Refused
from livecert.adapters.errors import Unsupported
from livecert.suite.fixtures.scene import DEFAULT_PLAYER, Scene
from livecert.suite.steps.access import WHO, acting
from livecert.suite.steps.instant import AMOUNT, below_zero, play_here, slip_code

ACCESS = "REG-ACCESS-01"
IDEMPOTENCY = "REG-IDEMP-01"


# -- access ---------------------------------------------------------------------------------------


@when(
    parsers.re(
        rf"(?P<who>{'|'.join(WHO)}) tries to play a round of {AMOUNT.format(name='stake')} on "
        r"(?P<label>.+)"
    )
)
def someone_plays(scene: Scene, who: str, stake: str, label: str) -> None:
    adapter, handle = acting(scene, who, "play an instant round")
    name = next((n for n, h in scene.players.items() if h == handle), DEFAULT_PLAYER)
    tried = play_here(
        scene,
        [(slip_code(scene, label), Decimal(stake))],
        who=name if who in ("the player", "another player") else f"{who} for {name}",
        adapter=adapter,
        handle=handle,
    )
    scene.refusal = tried.refusal
    scene.access_outcome = "allowed" if tried.accepted else "refused"


@then("the player's balance moved only by the player's own rounds")
def only_own_rounds_moved(scene: Scene) -> None:
    """REG-ACCESS-01: a player acts only for themselves; no one else's request moves their
    money (the player's own rounds move it by what the target says they returned)."""
    own = [p for p in scene.instant_plays if p.player == DEFAULT_PLAYER]
    expected = (
        scene.starting_balances[DEFAULT_PLAYER]
        - sum((p.staked for p in own), Decimal(0))
        + sum((p.returned for p in own), Decimal(0))
    )
    actual = scene.adapter.balance(scene.player())
    below = below_zero(scene, {DEFAULT_PLAYER: actual})
    others = [p.describe() for p in scene.instant_plays if p.player != DEFAULT_PLAYER]
    scene.checks.check(
        actual == expected,
        (ACCESS,),
        f"the player's balance is {actual}, expected {expected} after {len(own)} round(s) of "
        f"their own; the others' attempts: {others}",
        f"the player's balance {actual} moved only by their {len(own)} own round(s)",
    )
    if below is not None:
        raise below


@given(
    parsers.re(
        rf"the player has played an instant round of {AMOUNT.format(name='stake')} on "
        r"(?P<label>.+)"
    )
)
def player_has_played(scene: Scene, stake: str, label: str) -> None:
    tried = play_here(scene, [(slip_code(scene, label), Decimal(stake))])
    if not tried.accepted:
        pytest.skip(
            f"not testable on this target: it refused the player's own round ({tried.refusal})"
        )


@when("another player asks for the player's round in their own bet record")
def another_reads_the_round(scene: Scene) -> None:
    round_id = scene.instant_plays[-1].round.round_id
    if not round_id:  # nothing to ask for, and no id an answer could be compared with
        raise Unsupported("ask for the player's round", "the target names no instant round's id")
    other = scene.player("other", Decimal("100.00"))
    try:
        scene.seen_record = scene.adapter.bet_record(other, round_id)
        scene.refusal = None
    except Refused as refused:
        scene.seen_record, scene.refusal = None, refused


@then("the player's round is not shown to them")
def round_not_shown(scene: Scene) -> None:
    mine = scene.instant_plays[-1].round
    record = scene.seen_record
    if record is None:
        scene.checks.held((ACCESS,), f"refused: {scene.refusal}")
        return
    player_id = scene.player().player_id
    shown = [r.round_id for r in record.rounds if r.round_id == mine.round_id]
    shown += [
        b.bet_id for b in record.bets if b.round_id == mine.round_id or b.player_id == player_id
    ]
    scene.checks.check(
        not shown,
        (ACCESS,),
        f"another player's bet record shows the player's round {mine.round_id}: {shown}",
        f"another player's bet record does not show the player's round {mine.round_id}",
    )


# -- idempotency ----------------------------------------------------------------------------------


@when(
    parsers.re(
        rf"the player's device sends a round of {AMOUNT.format(name='stake')} on (?P<label>.+) "
        r"twice with one key"
    )
)
def round_sent_twice(scene: Scene, stake: str, label: str) -> None:
    slip = [(slip_code(scene, label), Decimal(stake))]
    key = f"livecert-{uuid.uuid4()}"
    first = play_here(scene, slip, key=key)
    if not first.accepted:
        pytest.skip(f"not testable on this target: it refused the round ({first.refusal})")
    play_here(scene, slip, first.outcome, "the device again", key, handle=scene.player())


@then("the round was played once")
def played_once(scene: Scene) -> None:
    """REG-IDEMP-01: the second send is the first round (or refused), and the balance moved by
    that one round only."""
    first, again = scene.instant_plays[-2], scene.instant_plays[-1]
    expected = scene.starting_balances[DEFAULT_PLAYER] - first.staked + first.returned
    actual = scene.adapter.balance(scene.player())
    below = below_zero(scene, {DEFAULT_PLAYER: actual})
    scene.checks.check(
        actual == expected,
        (IDEMPOTENCY,),
        f"the balance is {actual}, expected {expected} after one round: the slip was played "
        f"twice ({first.describe()}; then {again.describe()})",
        f"the balance {actual} moved by one round",
    )
    if below is not None:
        raise below
    if again.round is not None and not (again.round.round_id and first.round.round_id):
        return  # no ids to compare (a casino naming no round): the balance alone judged it
    same = again.round is None or again.round.round_id == first.round.round_id
    scene.checks.check(
        same,
        (IDEMPOTENCY,),
        f"the second send played another round: {again.describe()}",
        "the second send answered the first round"
        if again.round
        else f"the second send was refused: {again.refusal}",
    )

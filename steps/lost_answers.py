"""Steps of a bet slip whose answer is lost on the way (REG-IDEMP-01 under a real network fault).

The adapter sends the slip so that the target takes it but the answer never reaches the player's
app (`place_bets_answer_lost`: the canonical adapter drops it in a loopback relay), after the
target answered or while it is still at work; the app then sends the same slip again with the
same idempotency key, through the normal path. The contract (docs/contract.md, "Idempotent bet
slips") says what must follow: the slip is applied once, and the re-send is answered the first
answer (the same bet), also after betting has closed and also while the first is in flight.
"""

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from pytest_bdd import parsers, then, when

from fixtures.scene import PlacedBet, Scene
from livecert.adapters import BetView, Refused
from livecert.adapters.errors import Unsupported
from livecert.harness.vocabulary import selection_code

IDEMPOTENCY = "REG-IDEMP-01"
CONTRACT_SAYS = 'docs/contract.md, "Idempotent bet slips"'


@dataclass
class LostSlip:
    """The slip whose answer was lost, and what the app's re-send brought back."""

    label: str
    code: str
    stake: Decimal
    key: str
    finish: Callable[[], object]  # waits (bounded) until the target answered the lost slip
    resent: list[BetView] | None = None
    refused: Refused | None = None
    when: str = "at once"


def _lose(scene: Scene, stake: str, label: str, in_flight: bool) -> LostSlip:
    send = getattr(scene.adapter, "place_bets_answer_lost", None)
    if send is None:
        raise Unsupported(
            "lose the answer to a bet slip",
            "the adapter cannot send a request through the harness's fault relay (only the "
            "canonical HTTP adapter can)",
        )
    code = selection_code(label, scene.game)
    round_id = scene.open_round().round_id
    key = f"livecert-lost-{uuid.uuid4()}"
    finish = send(scene.player(), round_id, [(code, Decimal(stake))], key, in_flight=in_flight)
    return LostSlip(label, code, Decimal(stake), key, finish)


@when(
    parsers.re(
        r"the answer to the player's bet of (?P<stake>\d+\.\d+) on (?P<label>.+) is lost on "
        r"the way"
    ),
    target_fixture="lost_slip",
)
def answer_lost(scene: Scene, stake: str, label: str) -> LostSlip:
    """The target takes the slip and answers; the answer never reaches the app."""
    return _lose(scene, stake, label, in_flight=False)


@when(
    parsers.re(
        r"the player's app loses its connection while its bet of (?P<stake>\d+\.\d+) on "
        r"(?P<label>.+) is on the way"
    ),
    target_fixture="lost_slip",
)
def connection_lost_in_flight(scene: Scene, stake: str, label: str) -> LostSlip:
    """The slip reaches the target; the app gives up before any answer, the target at work."""
    return _lose(scene, stake, label, in_flight=True)


@when("the player's app sends the bet again")
def app_sends_again(scene: Scene, lost_slip: LostSlip) -> None:
    """The same slip with the same key, through the normal path; then the lost slip is waited
    for (the target's answer to it dropped), so the round is read after both were handled."""
    slip = [(lost_slip.code, lost_slip.stake)]
    round_id = scene.open_round().round_id
    try:
        lost_slip.resent = scene.adapter.place_bets(
            scene.player(), round_id, slip, idempotency_key=lost_slip.key
        )
    except Refused as refused:
        lost_slip.refused = refused
    finally:
        lost_slip.finish()
    if scene.round is not None and scene.round.state != "betting":
        lost_slip.when = f"once the round was {scene.round.state}"
    for view in lost_slip.resent or []:
        scene.bets.append(
            PlacedBet(lost_slip.label, lost_slip.code, lost_slip.stake, "player", view)
        )


@then("the bet is taken once")
def taken_once(scene: Scene, lost_slip: LostSlip) -> None:
    """One bet of the slip in the round, and the re-send answered with that very bet."""
    label, stake = lost_slip.label, lost_slip.stake
    view = scene.adapter.get_round(scene.open_round().round_id, scene.player())
    held = [b for b in view.bets if b.selection == lost_slip.code]
    scene.checks.check(
        [b.stake for b in held] == [stake],
        (IDEMPOTENCY,),
        f"the slip of {stake} on {label} whose answer was lost, sent again with the same key "
        f"{lost_slip.when}, stands {len(held)} times in the round: "
        f"{[(b.bet_id, str(b.stake)) for b in held]}",
        f"the round holds one bet of {stake} on {label}",
    )
    refused = lost_slip.refused
    if refused is not None:
        scene.checks.check(
            False,
            (IDEMPOTENCY,),
            f"the re-send {lost_slip.when} was refused ({refused.status} {refused.code}: "
            f"{refused.message}) though the slip stands as bet {held[0].bet_id}: the same key "
            f"and slip must be answered the first answer again ({CONTRACT_SAYS})",
        )
    named = [(b.bet_id, b.round_id, b.player_id) for b in lost_slip.resent or []]
    asked = [(held[0].bet_id, view.round_id, scene.player().player_id)]
    scene.checks.check(
        named == asked,
        (IDEMPOTENCY,),
        f"the re-send {lost_slip.when} was answered with {named} (bet, round, player), not "
        f"with the bet the round holds {asked}: the same key and slip must be answered the "
        f"first answer again ({CONTRACT_SAYS})",
        f"the re-send {lost_slip.when} was answered with the bet the round holds",
    )

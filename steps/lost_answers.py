"""Steps of a bet slip whose answer is lost on the way (REG-IDEMP-01 under a real network fault).

The adapter sends the slip so that the target takes it but the answer never reaches the player's
app (`place_bets_answer_lost`: the canonical adapter drops it in a loopback relay), after the
target answered or while it is still at work; the app then sends the same slip again with the
same idempotency key, through the normal path. The contract (docs/contract.md, "Idempotent bet
slips") says what must follow: the slip is applied once, and the re-send is answered the first
answer (the same bet), also after betting has closed; a re-send arriving while the first is still
being processed may instead be refused 409 IDEMPOTENCY_CONFLICT, and sent once more after the
first was answered it gets the first answer.

Only a slip the target took can show that a key applies it once: the dropped answer must be a 2xx
and (where it was awaited) the slip must stand in the round once before the re-send. A slip the
target refused makes the re-send a first placement: the scenario is not testable then, never
passed and never a finding (a 5xx, or no answer within the relay's bound, is a target error).
"""

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from pytest_bdd import parsers, then, when

from livecert.adapters import BetView, Refused, TargetError
from livecert.adapters.errors import Unsupported
from livecert.adapters.lost_answer import DroppedAnswer
from livecert.harness.vocabulary import selection_code
from livecert.suite.fixtures.scene import PlacedBet, Scene

IDEMPOTENCY = "REG-IDEMP-01"
CONTRACT_SAYS = 'docs/contract.md, "Idempotent bet slips"'
# the contract's refusal of a re-send that arrives while the first is still being processed
STILL_PROCESSED = (409, "IDEMPOTENCY_CONFLICT")
NOT_JUDGED = "judge a bet slip sent again after its answer was lost"


@dataclass
class LostSlip:
    """The slip whose answer was lost, and what the app's re-send brought back."""

    label: str
    code: str
    stake: Decimal
    key: str
    round_id: str
    in_flight: bool
    finish: Callable[[], DroppedAnswer]  # waits (bounded) until the target answered the lost slip
    resent: list[BetView] | None = None
    refused: Refused | None = None
    when: str = ""

    def __post_init__(self) -> None:
        if not self.when:
            self.when = "while the first was still on its way" if self.in_flight else "at once"

    @property
    def shown(self) -> str:
        return f"the slip of {self.stake} on {self.label} whose answer was lost"


def _require_taken(lost: LostSlip, dropped: DroppedAnswer) -> None:
    """The target took the lost slip: it answered it whole, with a 2xx where the relay could
    read the status. A refused slip makes the re-send a first placement, which shows nothing of
    the key: not testable (a 5xx or no whole answer: a target error, as on any request)."""
    operation = f"place {lost.shown}"
    if not dropped.answered:
        raise TargetError(operation, f"no whole answer to it: {dropped.describe()}")
    status = dropped.status
    if status is not None and status >= 500:
        raise TargetError(operation, f"answered {status}: {dropped.describe()}", answered=status)
    if status is not None and not 200 <= status < 300:
        raise Unsupported(
            NOT_JUDGED,
            f"the target answered {dropped.first_line!r} to {lost.shown}, so it did not take "
            "it: the re-send would be its first placement and shows nothing of the key",
        )


def _held(scene: Scene, lost: LostSlip) -> list[BetView]:
    """The bets of the slip's selection the round holds, read as the player."""
    view = scene.adapter.get_round(lost.round_id, scene.player())
    return [b for b in view.bets if b.selection == lost.code]


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
    lost = LostSlip(label, code, Decimal(stake), key, round_id, in_flight, finish)
    if not in_flight:  # the target has answered: the slip must stand once before the re-send
        _require_taken(lost, finish())
        held = _held(scene, lost)
        if [b.stake for b in held] != [lost.stake]:
            raise Unsupported(
                NOT_JUDGED,
                f"once the target had answered {lost.shown}, the round held it "
                f"{len(held)} times ({[(b.bet_id, str(b.stake)) for b in held]}), not once: "
                "what the re-send adds cannot be told",
            )
    return lost


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


def _resend(scene: Scene, lost: LostSlip) -> None:
    try:
        lost.resent = scene.adapter.place_bets(
            scene.player(), lost.round_id, [(lost.code, lost.stake)], idempotency_key=lost.key
        )
        lost.refused = None
    except Refused as refused:
        lost.resent, lost.refused = None, refused


@when("the player's app sends the bet again")
def app_sends_again(scene: Scene, lost_slip: LostSlip) -> None:
    """The same slip with the same key, through the normal path. A slip lost in flight is then
    waited for (the target's answer to it dropped) and must have been taken; a re-send it met
    still at work may be refused 409 IDEMPOTENCY_CONFLICT (docs/contract.md, "Idempotent bet
    slips"): the app sends once more, after the first was answered."""
    lost = lost_slip
    if scene.round is not None and scene.round.state != "betting":
        lost.when = f"once the round was {scene.round.state}"
    try:
        _resend(scene, lost)
    finally:
        dropped = lost.finish() if lost.in_flight else None
    if dropped is not None:
        _require_taken(lost, dropped)
        refused = lost.refused
        if refused is not None and (refused.status, refused.code) == STILL_PROCESSED:
            _resend(scene, lost)
            lost.when = (
                f"once more after the first was answered (sent while the first was on its way, "
                f"it was refused {refused.status} {refused.code})"
            )
        if dropped.status is None and len(_held(scene, lost)) < 2:
            raise Unsupported(
                NOT_JUDGED,
                "the harness's relay could not read the status of the answer it dropped (over "
                f"TLS it sees only ciphertext), and the round holds {lost.shown} at most "
                "once: nothing shows the target took the first slip, so the re-send may have "
                "been its first placement",
            )
    for view in lost.resent or []:
        scene.bets.append(PlacedBet(lost.label, lost.code, lost.stake, "player", view))


@then("the bet is taken once")
def taken_once(scene: Scene, lost_slip: LostSlip) -> None:
    """One bet of the slip in the round (the scenario's balance step judges the one debit), and
    the re-send answered with that very bet: the same key and slip are answered the first answer
    again (docs/contract.md, "Idempotent bet slips", also after betting has closed, as since
    contract 1.0.0)."""
    lost = lost_slip
    view = scene.adapter.get_round(lost.round_id, scene.player())
    held = [b for b in view.bets if b.selection == lost.code]
    scene.checks.check(
        [b.stake for b in held] == [lost.stake],
        (IDEMPOTENCY,),
        f"{lost.shown}, sent again with the same key {lost.when}, stands {len(held)} times in "
        f"the round: {[(b.bet_id, str(b.stake)) for b in held]}",
        f"the round holds one bet of {lost.stake} on {lost.label}",
    )
    first = held[0].bet_id if held else None
    refused = lost.refused
    if refused is not None:
        scene.checks.check(
            False,
            (IDEMPOTENCY,),
            f"the re-send {lost.when} was refused ({refused.status} {refused.code}: "
            f"{refused.message}) though the slip stands as bet {first}: the same key and slip "
            f"must be answered the first answer again ({CONTRACT_SAYS})",
        )
    named = [(b.bet_id, b.round_id, b.player_id) for b in lost.resent or []]
    asked = [(first, view.round_id, scene.player().player_id)]
    scene.checks.check(
        named == asked,
        (IDEMPOTENCY,),
        f"the re-send {lost.when} was answered with {named} (bet, round, player), not "
        f"with the bet the round holds {asked}: the same key and slip must be answered the "
        f"first answer again ({CONTRACT_SAYS})",
        f"the re-send {lost.when} was answered with the bet the round holds",
    )

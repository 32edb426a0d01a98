"""Steps of idempotent bet slips over time and across players (REG-IDEMP-01).

A key that a target remembers only briefly passes a re-send made within milliseconds; a key
scoped to the table rather than the player passes as long as one player uses it. So a slip is
sent again after drawn delays (during betting, after betting has closed, after settlement, the
last always `TOP_MS` after the first answer), and another player sends a slip with the same key.

What the contract says (docs/contract.md, "Idempotent bet slips"; openapi.yaml, the
`Idempotency-Key` header of placeBets): the key is scoped to the player; the same key with the
same round and slip answers the first answer again and applies nothing, also after betting has
closed. Hence each re-send must be answered the first answer, in every field the adapter shows,
move no balance and add no bet; another player's slip with the key is a slip of theirs, taken as
any other (neither the first player's answer replayed nor refused as a conflict).

The delays are drawn from a seeded generator, the seed printed and shown as the Allure parameter
`seed`, replayed with LIVECERT_MONEY_SEED as the money sessions' are. The waits are spent once per
scenario: each re-send waits only for what is left of its delay after the dealer's work before it.
"""

from __future__ import annotations

import random
import time
import uuid
from dataclasses import dataclass, field
from decimal import Decimal

import allure
import pytest
from pytest_bdd import parsers, then, when

from livecert.adapters import BetView, Refused
from livecert.adapters.errors import Unsupported
from livecert.harness.vocabulary import selection_code
from livecert.suite.fixtures.attachments import attach_text
from livecert.suite.fixtures.scene import DEFAULT_PLAYER, PlacedBet, Scene
from livecert.suite.steps.money import chosen_seed

IDEMPOTENCY = "REG-IDEMP-01"
CONTRACT_SAYS = 'docs/contract.md, "Idempotent bet slips"'
LOW_MS = 100  # the shortest drawn delay of a re-send
TOP_MS = 5_500  # the longest, always reached by the last re-send (the reference's fault range
# idempotency-key-forgotten-after ends at 5,000 ms, below it)
STAGES = ("during betting", "after betting closed", "after settlement")
WHO = r"(?:the player|player (?P<name>[A-Z]))"
# a bet of a slip's answer: the bet the first answer named, as it was placed. Its status and
# amounts are not compared: a re-send after settlement may show the bet as it now stands, and
# "applied once" (RULES.md F) is judged on the balance and the bets the round holds
ANSWER_FIELDS = ("bet_id", "round_id", "player_id", "selection", "stake")


def draw_delays(seed: int) -> tuple[int, ...]:
    """The delays (ms after the first answer) of the three re-sends, one per stage: two drawn
    from the whole range, in order, and the last at its top, so that a key kept for any time
    below `TOP_MS` is seen forgotten whatever the draw."""
    rng = random.Random(seed)
    early, late = sorted(rng.randint(LOW_MS, TOP_MS) for _ in range(2))
    return (early, late, TOP_MS)


@dataclass
class Resend:
    """One re-send of a keyed slip and what the target showed around it."""

    when: str  # "during betting, 1234 ms after the first answer"
    answer: list[BetView] | None
    refused: Refused | None
    balance_before: Decimal
    balance_after: Decimal
    held: list[BetView] | None  # the player's bets of the slip's selection after it; None: unseen


@dataclass
class KeyedSlip:
    """A slip a player sent under a key of its own, its first answer, and what came after."""

    player: str
    label: str
    code: str
    stake: Decimal
    key: str
    round_id: str
    first: list[BetView]
    answered_at: float  # time.monotonic() once the first answer was in
    delays: tuple[int, ...] = ()
    resends: list[Resend] = field(default_factory=list)
    others: dict[str, tuple[list[BetView] | None, Refused | None, str]] = field(
        default_factory=dict
    )  # another player's slip under this key: (answer, refusal, what it was)

    @property
    def shown(self) -> str:
        return f"{self.player}'s slip of {self.stake} on {self.label} (key {self.key})"


@pytest.fixture
def keyed_slips() -> dict[str, KeyedSlip]:
    """The keyed slips of one scenario, by player."""
    return {}


def _bet_fields(views: list[BetView] | None) -> list[tuple]:
    """Every field of a slip's answer the adapter shows, bet by bet."""
    return [tuple(getattr(v, name) for name in ANSWER_FIELDS) for v in views or []]


def _held(scene: Scene, slip: KeyedSlip, player: str) -> list[BetView] | None:
    """`player`'s bets of the slip's selection in its round, as the player reads it; None where
    the target's view is only the harness's own list (a live table's stream)."""
    handle = scene.player(player)
    view = scene.adapter.get_round(slip.round_id, handle)
    if view.echoed:
        return None
    return [b for b in view.bets if b.selection == slip.code and b.player_id == handle.player_id]


def _send(
    scene: Scene, player: str, round_id: str, slip: list[tuple[str, Decimal]], key: str
) -> tuple[list[BetView] | None, Refused | None]:
    try:
        return scene.adapter.place_bets(scene.player(player), round_id, slip, key), None
    except Refused as refused:
        return None, refused


@when(
    parsers.re(
        rf"{WHO}'s app sends a slip of (?P<stake>\d+\.\d+) on (?P<label>.+) with a key of its own"
    ),
    target_fixture="keyed_slip",
)
def keyed_slip_sent(
    scene: Scene, keyed_slips: dict[str, KeyedSlip], name: str | None, stake: str, label: str
) -> KeyedSlip:
    """The player's slip under a fresh key; its answer is the first answer every re-send of it
    must get again. A refusal of it is a finding on the bet's own clauses (scene.act)."""
    player = name or DEFAULT_PLAYER
    code = selection_code(label, scene.game)
    sent = scene.twin(Decimal(stake), f"bet {stake} on {label}")
    round_id = scene.open_round().round_id
    handle = scene.player(player)
    key = f"livecert-keyed-{uuid.uuid4()}"
    first = scene.act(
        scene.bet_clauses(player, code),
        f"{player}'s bet of {sent} on {label} during betting",
        lambda: scene.adapter.place_bets(handle, round_id, [(code, sent)], key),
    )
    slip = KeyedSlip(player, label, code, sent, key, round_id, first, time.monotonic())
    scene.bets += [
        PlacedBet(label, code, sent, player, v, None if sent == Decimal(stake) else Decimal(stake))
        for v in first
    ]
    keyed_slips[player] = slip
    return slip


@when("the re-sends of the slip are drawn over several seconds")
def delays_drawn(scene: Scene, keyed_slip: KeyedSlip, request: pytest.FixtureRequest) -> None:
    """The seed (printed, replayable) and the three delays it draws."""
    seed = chosen_seed()
    keyed_slip.delays = draw_delays(seed)
    replay = f"LIVECERT_MONEY_SEED={seed} pytest features -k '{request.node.name}'"
    print(f"idempotent re-sends seed {seed}; replay with: {replay}")
    allure.dynamic.parameter("seed", seed)
    attach_text(
        f"seed {seed}: re-sends {', '.join(f'{d} ms' for d in keyed_slip.delays)} after the "
        f"first answer ({', '.join(STAGES)}); replay with: {replay}",
        name="drawn delays",
        attachment_type=allure.attachment_type.TEXT,
    )


@when(
    parsers.re(
        r"the player's app sends the slip again "
        r"(?P<stage>during betting|after betting closed|after settlement)"
    )
)
def resent_after_delay(scene: Scene, keyed_slip: KeyedSlip, stage: str) -> None:
    """The same slip with the same key, once the stage's drawn delay has passed since the first
    answer (what the dealer's work before it took is not waited again)."""
    slip = keyed_slip
    if not slip.delays:
        raise LookupError("the re-sends' delays were not drawn before the first re-send")
    delay = slip.delays[STAGES.index(stage)]
    time.sleep(max(0.0, slip.answered_at + delay / 1000 - time.monotonic()))
    before = scene.adapter.balance(scene.player(slip.player))
    sent_after = round((time.monotonic() - slip.answered_at) * 1000)
    answer, refused = _send(scene, slip.player, slip.round_id, [(slip.code, slip.stake)], slip.key)
    after = scene.adapter.balance(scene.player(slip.player))
    when_sent = f"{stage}, {sent_after} ms after the first answer (drawn: {delay} ms)"
    slip.resends.append(
        Resend(when_sent, answer, refused, before, after, _held(scene, slip, slip.player))
    )


@when(parsers.re(r"player (?P<name>[A-Z])'s app sends its slip again"))
def named_resend(scene: Scene, keyed_slips: dict[str, KeyedSlip], name: str) -> None:
    """The same slip with the same key, at once (after other players used the key)."""
    slip = keyed_slips[name]
    before = scene.adapter.balance(scene.player(name))
    answer, refused = _send(scene, name, slip.round_id, [(slip.code, slip.stake)], slip.key)
    after = scene.adapter.balance(scene.player(name))
    when_sent = "after other players sent slips with the key"
    slip.resends.append(Resend(when_sent, answer, refused, before, after, _held(scene, slip, name)))


@when(
    parsers.re(
        r"player (?P<name>[A-Z])'s app sends (?:the same slip|a slip of (?P<stake>\d+\.\d+) on "
        r"(?P<label>.+?)) with player (?P<owner>[A-Z])'s key"
    )
)
def other_player_uses_the_key(
    scene: Scene,
    keyed_slips: dict[str, KeyedSlip],
    name: str,
    owner: str,
    stake: str | None,
    label: str | None,
) -> None:
    """Another player's slip under the owner's key: its answer (or refusal) is kept, judged
    by the Then step; a bet it names as the player's own joins the scene's bets."""
    first = keyed_slips[owner]
    if stake is None or label is None:
        code, sent, label = first.code, first.stake, first.label
        what = f"slip, the same as {owner}'s ({first.stake} on {first.label}),"
    else:
        code = selection_code(label, scene.game)
        sent = scene.twin(Decimal(stake), f"bet {stake} on {label}")
        what = f"slip of {sent} on {label}"
    answer, refused = _send(scene, name, first.round_id, [(code, sent)], first.key)
    first.others[name] = (answer, refused, what)
    mine = scene.player(name).player_id
    known = {b.bet_id for b in first.first}
    for view in answer or []:
        if view.player_id == mine and view.bet_id not in known:
            scene.bets.append(PlacedBet(label, code, sent, name, view))


def _judge_resend(scene: Scene, slip: KeyedSlip, resend: Resend) -> None:
    """A re-send: answered the first answer in every field shown, no balance moved, no bet
    added (docs/contract.md: the first answer again, nothing applied, also after betting has
    closed; a key is the player's own)."""
    when = f"{slip.shown}, sent again {resend.when}"
    refused = resend.refused
    scene.checks.check(
        refused is None,
        (IDEMPOTENCY,),
        f"{when}, was refused ({refused.status} {refused.code}: {refused.message})"
        if refused
        else "",
        f"{when}: answered",
    )
    first, again = _bet_fields(slip.first), _bet_fields(resend.answer)
    differ = [f"{a} instead of {b}" for a, b in zip(again, first, strict=False) if a != b]
    scene.checks.check(
        again == first,
        (IDEMPOTENCY,),
        f"{when}, was answered {len(again)} bets, not the first answer's {len(first)}"
        + (f": {'; '.join(differ)}" if differ else "")
        + f" ({', '.join(ANSWER_FIELDS)}): the same "
        f"key and slip must be answered the first answer again ({CONTRACT_SAYS})",
        f"{when}: answered the first answer",
    )
    scene.checks.check(
        resend.balance_after == resend.balance_before,
        (IDEMPOTENCY,),
        f"{when}, moved the balance from {resend.balance_before} to {resend.balance_after}: the "
        f"same key and slip apply nothing ({CONTRACT_SAYS})",
        f"{when}: the balance stayed {resend.balance_after}",
    )
    if resend.held is None:
        attach_text(
            f"{when}: the target's round shows no bets of its own (a live table's stream), so "
            "how many times the round holds the slip is not judged",
            name="bets held: not shown",
            attachment_type=allure.attachment_type.TEXT,
        )
        return
    held = [(b.bet_id, b.stake) for b in resend.held]
    asked = [(b.bet_id, b.stake) for b in slip.first]
    scene.checks.check(
        held == asked,
        (IDEMPOTENCY,),
        f"{when}, the round holds the player's bets {held} on {slip.label}, not the slip's "
        f"one bet {asked}",
        f"{when}: the round holds the slip's one bet",
    )


@then("every re-send was answered the first answer and applied nothing")
def every_resend_judged(scene: Scene, keyed_slip: KeyedSlip) -> None:
    if not keyed_slip.resends:
        raise LookupError("no re-send of the slip was made before it was judged")
    for resend in keyed_slip.resends:
        _judge_resend(scene, keyed_slip, resend)


@then(
    parsers.re(r"each other player's slip with player (?P<owner>[A-Z])'s key was taken as theirs")
)
def others_taken_as_theirs(scene: Scene, keyed_slips: dict[str, KeyedSlip], owner: str) -> None:
    """Another player's slip under the key is a slip of theirs (the key is scoped to the
    player, docs/contract.md): taken, its answer their own new bet, the round holding it; never
    the owner's answer replayed, never refused for the key."""
    first = keyed_slips[owner]
    if not first.others:
        raise LookupError(f"no other player sent a slip with player {owner}'s key")
    owned = {b.bet_id for b in first.first}
    for name, (answer, refused, what) in first.others.items():
        when = f"player {name}'s {what}, sent with player {owner}'s key {first.key}"
        if refused is not None and scene.target.identity.kind != "canonical":
            # only the contract scopes a key to its player; a vendor whose keys are global
            # refuses the slip and applies nothing twice: no duty of the rules is broken
            raise Unsupported(
                f"{when}",
                f"refused ({refused.code}); the mapping's target may scope a key to more than "
                "one player, and only the certification contract says it is the player's own",
            )
        scene.checks.check(
            refused is None,
            (IDEMPOTENCY,),
            f"{when}, was refused ({refused.status} {refused.code}: {refused.message}): a key is "
            f"scoped to the player ({CONTRACT_SAYS}), so another player's slip with it is a "
            "slip of theirs, not a conflict"
            if refused
            else "",
            f"{when}: taken",
        )
        mine = scene.player(name).player_id
        named = [(b.bet_id, b.player_id) for b in answer or []]
        scene.checks.check(
            len(named) == 1 and named[0][1] == mine and named[0][0] not in owned,
            (IDEMPOTENCY,),
            f"{when}, was answered the bets {named} (bet, player), not one new bet of player "
            f"{name} ({mine})"
            + (f": player {owner}'s answer replayed" if owned & {b for b, _ in named} else "")
            + f"; a key is scoped to the player ({CONTRACT_SAYS})",
            f"{when}: answered a new bet of player {name}",
        )
        [bet] = answer or []
        code = bet.selection
        view = scene.adapter.get_round(first.round_id, scene.player(name))
        if view.echoed:
            continue
        held = [
            (b.bet_id, b.stake) for b in view.bets if b.player_id == mine and b.selection == code
        ]
        scene.checks.check(
            held == [(bet.bet_id, bet.stake)],
            (IDEMPOTENCY,),
            f"{when}, the round holds player {name}'s bets {held}, not the one bet it was "
            f"answered ({bet.bet_id}, {bet.stake})",
            f"{when}: the round holds player {name}'s bet",
        )


@then(parsers.re(r"player (?P<name>[A-Z])'s slip sent again was answered its first answer"))
def named_resend_judged(scene: Scene, keyed_slips: dict[str, KeyedSlip], name: str) -> None:
    slip = keyed_slips[name]
    if not slip.resends:
        raise LookupError(f"player {name}'s slip was not sent again")
    for resend in slip.resends:
        _judge_resend(scene, slip, resend)

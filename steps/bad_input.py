"""Bad input: every malformed or invalid request is refused with a reason and moves nothing
(REG-INPUT-01), and no bet takes a balance below zero (REG-BAL-01).

The raw values (an unknown code, a stake of "abc") come from the feature as the player would type
them; the steps send them unchanged and check the refusal, the balance and the bets on the round.
A raw stake's refusal is demanded only on a written word (harness/stake_notation.py): by its value
everywhere, by its notation ("+10.00", "1e3") only where the contract or the mapping's declared
money format excludes it; the check's message cites that word.
"""

import json
from decimal import Decimal

import pytest
from pytest_bdd import given, parsers, then, when

from livecert.adapters.errors import Unsupported
from livecert.contract import load_contract
from livecert.harness.attempts import refusal
from livecert.harness.capabilities import missing_reason
from livecert.harness.read_balances import (
    below_zero,
    over_the_balance_read,
    plain_total,
    real_balance,
)
from livecert.harness.stake_notation import Notation, denoted, refusal_demand
from livecert.harness.vocabulary import paytable, selection_code
from livecert.suite.fixtures.scene import Scene
from livecert.suite.steps.rounds import DEFAULT_RESULT

INPUT = "REG-INPUT-01"  # malformed or invalid requests are refused with a reason, change nothing
BALANCE = "REG-BAL-01"  # a bet may not take a balance below zero
MONEY = "REG-MONEY-01"  # nothing settled twice

QUOTED = r'"(?P<{name}>[^"]*)"'
# why the scenario's refusal is demanded, cited in the check's message (the scenario's own item)
DEMAND = pytest.StashKey[str]()
ANY_BAD_INPUT = f"{INPUT}: a malformed or invalid request is refused with a reason"


@given(
    parsers.re(r"the player holds a bet of (?P<stake>\d+\.\d+) on (?P<label>.+) in an open round")
)
def holds_a_bet(scene: Scene, stake: str, label: str) -> None:
    scene.place(label, Decimal(stake))


def _attempt(scene: Scene, send) -> None:
    """Note the balance and the bets, send, and keep the refusal (or its absence)."""
    handle = scene.player()
    scene.balance_before_attempt = scene.adapter.balance(handle)
    scene.bets_before_attempt = len(
        scene.adapter.get_round(scene.open_round().round_id, handle).bets
    )
    round_id = scene.open_round().round_id
    scene.refused_by = (INPUT,)  # a slip over the balance also REG-BAL-01 (_attempt_slip)
    scene.refusal = refusal(lambda: send(handle, round_id))


@when(
    parsers.re(
        r"the player tries to bet (?P<stake>\d+\.\d+) on the selection "
        + QUOTED.format(name="code")
    )
)
def bet_on_raw_code(scene: Scene, stake: str, code: str) -> None:
    _attempt(scene, lambda h, r: scene.adapter.place_bets(h, r, [(code, Decimal(stake))]))


@when(
    parsers.re(
        r"the player tries to bet a stake of " + QUOTED.format(name="stake") + r" on (?P<label>.+)"
    )
)
def bet_raw_stake(scene: Scene, stake: str, label: str, request: pytest.FixtureRequest) -> None:
    _attempt_slip(scene, [(selection_code(label, scene.game), stake)], request)


def _attempt_slip(scene: Scene, slip, request: pytest.FixtureRequest) -> None:
    """A slip tried like any attempt; one over the balance is made over the balance the
    player's account really holds, where it is read, not set (read_balances.py). Sent only
    where a written word demands its refusal (`slip_demand`), noted for the check."""
    shown = scene.adapter.balance(scene.player())
    limits = scene.target.info.limits.get(scene.game)
    sent = over_the_balance_read(scene.adapter, scene.player(), slip, shown, limits)
    request.node.stash[DEMAND] = slip_demand(scene, sent, shown)
    _attempt(scene, lambda h, r: scene.adapter.place_bets(h, r, sent))
    if plain_total(slip) > shown:
        scene.refused_by = (INPUT, BALANCE)


def slip_demand(scene: Scene, slip, shown: Decimal) -> str:
    """Whose word demands the slip's refusal: an unknown selection's, else the first raw stake
    whose refusal something written demands (stake_notation.py); Unsupported where none does."""
    known = paytable(scene.game).by_code
    unknown = [code for code, _ in slip if code not in known]
    if unknown:
        return f"{INPUT}: {unknown[0]!r} is no selection of the game"
    notation = Notation.of(scene.adapter, scene.target.identity.checks_contract)
    held = real_balance(scene.adapter, scene.player(), shown)
    minor_unit = scene.target.info.minor_unit
    amounts = [stake if isinstance(stake, Decimal) else denoted(stake) for _, stake in slip]
    not_testable: Unsupported | None = None
    for index, (_, stake) in enumerate(slip):
        if isinstance(stake, Decimal):
            continue
        others = [a for i, a in enumerate(amounts) if i != index and a is not None and a > 0]
        try:
            return refusal_demand(stake, notation, minor_unit, sum(others, Decimal(0)), held)
        except Unsupported as unsupported:
            not_testable = not_testable or unsupported
    if not_testable:
        raise not_testable
    return ANY_BAD_INPUT


@when(
    parsers.re(
        r"the player tries a slip of 10\.00 on (?P<label>.+) and "
        + QUOTED.format(name="stake")
        + r" on the selection "
        + QUOTED.format(name="code")
    )
)
def mixed_slip(
    scene: Scene, label: str, stake: str, code: str, request: pytest.FixtureRequest
) -> None:
    good = selection_code(label, scene.game)
    slip = [(good, Decimal("10.00")), (code, stake), (good, Decimal("1.00"))]
    _attempt_slip(scene, slip, request)


@when("the player's device sends an empty bet slip")
def empty_slip(scene: Scene) -> None:
    _attempt(scene, lambda h, r: scene.adapter.place_bets(h, r, []))


@when("the player's device sends a garbled bet slip")
def garbled_slip(scene: Scene) -> None:
    _attempt(
        scene,
        lambda h, r: scene.adapter.send_raw_slip(
            h, r, '{"bets": [{"selection": "BIG", "stake": "1.00"}', "application/json"
        ),
    )


@when("the player's device sends the bet slip as plain text")
def plain_text_slip(scene: Scene) -> None:
    body = json.dumps({"bets": [{"selection": "BIG", "stake": "1.00"}]})
    _attempt(scene, lambda h, r: scene.adapter.send_raw_slip(h, r, body, "text/plain"))


@when("the player's device sends a stake as a number instead of text")
def number_stake(scene: Scene) -> None:
    body = json.dumps({"bets": [{"selection": "BIG", "stake": 1.5}]})
    _attempt(scene, lambda h, r: scene.adapter.send_raw_slip(h, r, body, "application/json"))


@when("the player's device sends a bet slip larger than the contract allows")
def oversize_slip(scene: Scene) -> None:
    """docs/contract.md, "Request bodies": a body over the contract's stated size
    (`x-max-body-bytes`) is refused and changes nothing. The slip is a good one padded with
    spaces (valid JSON), so its size is the only thing wrong with it."""
    slip = json.dumps({"bets": [{"selection": "BIG", "stake": "1.00"}]})
    body = slip + " " * (load_contract().max_body_bytes + 1 - len(slip))
    _attempt(scene, lambda h, r: scene.adapter.send_raw_slip(h, r, body, "application/json"))


@when("the player's device sends a bet slip naming its stake twice")
def stake_named_twice(scene: Scene) -> None:
    """docs/contract.md, "Request bodies": an object naming a key twice is refused. Which of
    the two stakes a server would book is anyone's guess (RFC 8259: names SHOULD be unique),
    so booking either is a bet the player did not clearly make."""
    body = '{"bets": [{"selection": "BIG", "stake": "5.00", "stake": "1.00"}]}'
    _attempt(scene, lambda h, r: scene.adapter.send_raw_slip(h, r, body, "application/json"))


@given("the dealer has entered the result")
def dealer_has_entered_the_result(scene: Scene) -> None:
    scene.enter_result(DEFAULT_RESULT[scene.game])


@when("the dealer enters the result a second time")
def result_twice(scene: Scene) -> None:
    """REG-INPUT-01: a settled round takes no result; REG-MONEY-01: nothing settled twice."""
    outcome = scene.outcome
    _attempt(scene, lambda h, r: scene.adapter.enter_result(r, outcome))


@when(
    parsers.re(
        r"the dealer tries to (?P<action>close betting on|pause|cancel|enter a result on) a round "
        r"that does not exist"
    )
)
def action_on_unknown_round(scene: Scene, action: str) -> None:
    adapter = scene.adapter

    def send(_handle, _round_id):
        ghost = "no-such-round"
        if action == "close betting on":
            return adapter.close_betting(ghost)
        if action == "enter a result on":
            return adapter.enter_result(ghost, DEFAULT_RESULT[scene.game])
        return adapter.dealer_action(ghost, action, "bad input check")

    _attempt(scene, send)


@when(
    parsers.re(r"the dealer tries to (?P<action>pause|cancel|close betting on) the finished round")
)
def action_on_finished_round(scene: Scene, action: str) -> None:
    scene.expect_state(("settled",), (INPUT,), "an action on the finished round")
    adapter = scene.adapter

    def send(_handle, round_id):
        if action == "close betting on":
            return adapter.close_betting(round_id)
        return adapter.dealer_action(round_id, action, "bad input check")

    _attempt(scene, send)


RESHAKE_REASON = {"sicbo": "dice-overlap", "xocdia": "items-fell"}


@when(
    parsers.re(
        r"the dealer tries to (?P<action>close betting on|pause|resume|record a re-shake on|"
        r"enter the result on) the (?P<which>paused|open) round"
    )
)
def action_in_the_wrong_state(scene: Scene, action: str, which: str) -> None:
    """A dealer action the round's state does not allow (TBL-MAL-01: a paused round makes no
    progress; SB-RND-03: in Sic Bo the shake, its re-shakes and the result come after betting
    ends; docs/contract.md, "Re-shakes while betting is open": a Xoc Dia re-shake during betting
    is allowed, XD-RND-01, so no Xoc Dia row asks for its refusal)."""
    adapter, game = scene.adapter, scene.game
    needs = {"pause"} if which == "paused" or action in ("pause", "resume") else set()
    needs |= {"reshake"} if action == "record a re-shake on" else set()
    for capability in sorted(needs - set(scene.target.info.capabilities)):
        pytest.skip(missing_reason(capability))
    round_id = scene.open_round().round_id
    if which == "open" and scene.own_countdown() and scene.refresh_round().state != "betting":
        # the table's own clock closed the round (a slow bet's answer): no open round is left
        # to try the action on, and a result taken now says nothing of an open round's
        raise Unsupported(
            f"{action} the open round",
            f"the table closed round {round_id} on its own clock before the dealer's attempt",
        )
    if which == "paused":
        scene.round = adapter.dealer_action(round_id, "pause", "bad input check")
    do = {
        "close betting on": lambda: adapter.close_betting(round_id),
        "pause": lambda: adapter.dealer_action(round_id, "pause", "again"),
        "resume": lambda: adapter.dealer_action(round_id, "resume"),
        "record a re-shake on": lambda: adapter.record_reshake(round_id, RESHAKE_REASON[game]),
        "enter the result on": lambda: adapter.enter_result(round_id, DEFAULT_RESULT[game]),
    }[action]
    _attempt(scene, lambda _h, _r: do())


@when(
    parsers.re(r"the dealer tries to open a round with a countdown of (?P<seconds>-?\d+) seconds")
)
def bad_countdown(scene: Scene, seconds: str) -> None:
    fixed = scene.own_countdown()
    if fixed:  # the countdown is never sent: its refusal cannot be asked
        raise Unsupported(f"open a round with a countdown of {seconds} s", fixed)
    table = scene.adapter.create_table(scene.game)
    _attempt(
        scene, lambda _h, _r: scene.adapter.open_round(table, countdown_ms=int(seconds) * 1000)
    )


@when("the dealer records a re-shake for a reason the game does not know")
def unknown_reshake_reason(scene: Scene) -> None:
    if "reshake" not in scene.target.info.capabilities:
        pytest.skip(missing_reason("reshake"))
    scene.expect_state(("closed",), (INPUT,), "a re-shake")
    round_id = scene.round.round_id
    _attempt(scene, lambda _h, _r: scene.adapter.record_reshake(round_id, "cat-on-the-table"))


@when("the dealer records an event the game does not know")
def unknown_event(scene: Scene) -> None:
    _attempt(scene, lambda _h, round_id: scene.adapter.record_event(round_id, "juggling"))


def balance_unmoved(
    scene: Scene, balance: Decimal, moved: tuple[str, ...], demanded: str = "", seen: str = ""
) -> None:
    """The balance after a refused attempt: where it is not where it was, the `moved` clauses
    are broken; below zero, REG-BAL-01 is. `demanded` cites why the attempt was to be refused,
    `seen` what the move shows (a stake truncated to the currency, say)."""
    before = scene.balance_before_attempt
    why = f" (demanded by {demanded})" if demanded else ""
    why += f": {seen}" if seen else ""
    # booked first: a balance taken below zero fails REG-BAL-01 whatever else failed
    below = below_zero(scene.checks, (BALANCE,), scene.adapter, [(scene.player(), balance)])
    scene.checks.check(
        balance == before,
        moved,
        f"the balance moved from {before} to {balance}{why}",
        f"the balance stayed at {balance}",
    )
    if below is not None:
        raise below


@then("it is refused with a reason and nothing moves")
def refused_and_nothing_moves(scene: Scene, request: pytest.FixtureRequest) -> None:
    """REG-INPUT-01: refused with a reason, and nothing changed (no bet added, no balance moved);
    REG-BAL-01: no balance below zero; REG-MONEY-01 (where a result was entered twice): nothing
    settled twice, so the balance did not move. What moved is judged first: an accepted second
    result that paid again is money's finding as much as bad input's. The refusal's check cites
    the word demanding it."""
    demanded = request.node.stash.get(DEMAND, ANY_BAD_INPUT)
    handle = scene.player()
    balance = scene.adapter.balance(handle)
    bets = len(scene.adapter.get_round(scene.round.round_id, handle).bets)
    balance_unmoved(scene, balance, (INPUT, BALANCE, MONEY), demanded)
    scene.checks.check(
        bets == scene.bets_before_attempt,
        (INPUT,),
        f"the player's bets on the round went from {scene.bets_before_attempt} to {bets} "
        f"(demanded by {demanded})",
        f"the player's {bets} bet(s) on the round stayed",
    )
    refusal = scene.refusal
    scene.checks.check(
        refusal is not None and bool(refusal.message) and refusal.code not in ("", "None"),
        scene.refused_by or (INPUT,),
        (
            f"the target accepted it (demanded by {demanded})"
            if refusal is None
            else f"the refusal gives no reason: {refusal}"
        ),
        f"refused with a reason: {refusal} (demanded by {demanded})",
    )

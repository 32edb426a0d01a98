"""Interrupted games (REG-INTR-01, GLI-19 §4.16): the server restarts mid-round, and the round
keeps its confirmed bets and can be completed or returned.

The restart is the lab's hook (`--restart-hook`, a mapping's `restart_target`) or, for the
embedded reference, the harness's own (fixtures/target.py); a hook that fails or hangs, or a
target that does not answer again in time, is a set-up error (`incomplete`), never a finding.
The restart must be seen (a new `instance` in /v1/info, or the target down after the hook):
one not seen leaves the scenario not testable, so its clauses are never passed by it.
The checks here judge REG-INTR-01: after the restart every confirmed bet is in the round as it
was placed (selection, stake, open) and the balance still holds the stakes; the dealer's
completion (a result, or a cancellation) is taken and leaves the bets settled or returned. What
they settle or are refunded to is judged as elsewhere, by the paytable's and the refunds'
clauses (steps/common.py, steps/rounds.py).
"""

import contextlib
from decimal import Decimal

from pytest_bdd import parsers, then, when

from livecert.adapters import Refused
from livecert.harness.findings import HarnessError, ScenarioEnded
from livecert.harness.restart import observe_restart, restart_and_wait
from livecert.harness.round_clauses import CANCEL
from livecert.harness.vocabulary import parse_dice
from livecert.suite.fixtures.scene import UNFINISHED, Scene

INTERRUPTED = ("REG-INTR-01",)
RETURNED = ("cancelled", "void")  # a round returned: every stake refunded, nothing paid
DICE = r"(?P<dice>\d+(?: \d+)*)"


@when("the server restarts")
def server_restarts(scene: Scene) -> None:
    """The lab's restart hook, mid-round; then the harness waits until the target answers, and
    the restart must have been seen: the same server (name, versions), a new instance or an
    outage; else the scenario is not testable (Unsupported, raised by observe_restart)."""
    hook = scene.target.restart
    if hook is None or scene.round is None:
        raise HarnessError(
            "the scenario restarts the server with no restart hook or no round open (its "
            "@needs-restart tag should have skipped it, or a step before should open a round)"
        )
    scene.restarted_from = scene.round.state
    adapter = scene.adapter
    first = next(iter(scene.created.values()), None)

    def answers() -> None:
        adapter.info()
        adapter.check_credentials()
        if first is not None:  # a read that reaches the target whatever the adapter
            with contextlib.suppress(Refused):  # it answered: the next step judges what
                adapter.balance(first)

    before = adapter.info()
    outage = restart_and_wait(hook, answers, scene.target.restart_timeout)
    scene.restart_seen = observe_restart(before, adapter.info(), outage)


def _after_restart(scene: Scene) -> str:
    if scene.restarted_from is None or scene.round is None:
        raise HarnessError("the scenario judges an interrupted round, but no server restarted")
    return scene.round.round_id


@then(parsers.re(r"(?:the player's|player (?P<name>[A-Z])'s) confirmed bets are all still there"))
def bets_kept(scene: Scene, name: str | None) -> None:
    """The player's bets in the round after the restart are exactly those confirmed before it
    (none lost, none added or doubled), as placed, and the balance still holds the stakes. A
    round the target returned on its own at start-up is allowed too ("or returned"): then each
    stake must be back, and the dealer's steps that follow take it as returned."""
    round_id = _after_restart(scene)
    who = name or "player"
    handle = scene.player(who)
    try:
        view = scene.adapter.get_round(round_id, handle)
    except Refused as refused:
        raise scene.checks.failed(
            INTERRUPTED, f"after the restart the target no longer shows round {round_id}: {refused}"
        ) from None
    scene.checks.check(
        view.round_id == round_id,
        INTERRUPTED,
        f"asked for round {round_id} after the restart, the target answered round {view.round_id}",
        f"after the restart the target shows round {round_id}",
    )
    scene.round = view
    returned = view.state in RETURNED
    scene.returned_at_restart = returned
    scene.checks.check(
        view.state in (*UNFINISHED, *RETURNED),
        INTERRUPTED,
        f"after the restart round {round_id} shows {view.state!r}, though the dealer entered no "
        f"result (it was {scene.restarted_from!r} when the server restarted)",
        f"after the restart round {round_id} is {view.state!r}",
    )
    mine = [p for p in scene.bets if p.player == who]
    theirs = [b for b in view.bets if b.player_id == handle.player_id]
    placed_ids = sorted(p.view.bet_id for p in mine)
    shown_ids = sorted(b.bet_id for b in theirs)
    scene.checks.check(
        shown_ids == placed_ids,
        INTERRUPTED,
        f"after the restart round {round_id} holds {who}'s bets {shown_ids}, though {who} "
        f"placed exactly {placed_ids} before it",
        f"after the restart round {round_id} holds exactly {who}'s {len(mine)} bets",
    )
    shown = {b.bet_id: b for b in theirs}
    for placed in mine:
        bet = shown.get(placed.view.bet_id)
        what = f"{who}'s confirmed {placed.label} bet of {placed.stake} ({placed.view.bet_id})"
        as_placed = bet is not None and (bet.selection, bet.stake) == (placed.code, placed.stake)
        if returned:  # the target returned the round itself: each stake back, nothing paid
            kept = as_placed and (bet.status, bet.returned) == (view.state, placed.stake)
        else:
            kept = as_placed and bet.status == "open"
        scene.checks.check(
            kept,
            INTERRUPTED,
            f"{what} "
            + (
                f"is missing from round {round_id} after the restart"
                if bet is None
                else f"shows {bet.selection} {bet.stake} {bet.status} (returned {bet.returned}) "
                "after the restart"
            ),
            f"{what} is in the round after the restart, "
            + (f"returned {placed.stake}" if returned else "open"),
        )
    balance = scene.adapter.balance(handle)
    start = scene.starting_balances[who]
    staked = sum((p.stake for p in mine), Decimal(0))
    expected = start if returned else start - staked
    scene.checks.check(
        balance == expected,
        INTERRUPTED,
        f"after the restart {who}'s balance is {balance}, expected {expected} (start {start}"
        + (", every stake returned)" if returned else f" less the stakes {staked} still in play)"),
        f"after the restart {who}'s balance is {expected}",
    )


def _returned_already(scene: Scene, doing: str) -> bool:
    """True where the target returned the interrupted round itself at start-up (bets_kept
    checked each stake back): the dealer has nothing left to complete, and the scenario's
    steps about a result do not apply."""
    if not scene.returned_at_restart:
        return False
    scene.refresh_round()
    scene.checks.check(
        scene.round.state in RETURNED,
        INTERRUPTED,
        f"round {scene.round.round_id} was returned at the restart, but before {doing} it shows "
        f"{scene.round.state!r}",
        f"round {scene.round.round_id} stays {scene.round.state!r}, returned at the restart",
    )
    return True


def _unfinished_for_the_dealer(scene: Scene, doing: str) -> str:
    """The interrupted round, unfinished, before the dealer completes it; a round the target
    paused for the interruption (TBL-MAL-01) is resumed first, as a dealer would."""
    round_id = _after_restart(scene)
    scene.expect_state(UNFINISHED, INTERRUPTED, doing)
    if scene.round.state == "paused":
        scene.round = scene.act(
            INTERRUPTED,
            "resuming the interrupted round",
            lambda: scene.adapter.dealer_action(round_id, "resume", "the server restarted"),
        )
    return round_id


@when(parsers.re(rf"the dealer completes the interrupted round with {DICE}"))
def dealer_completes(scene: Scene, dice: str) -> None:
    """The result is taken after the restart; the bets' settlement is judged by the steps
    that follow (each bet settled: REG-INTR-01; what to: the paytable's clauses). A round the
    target returned at start-up takes no result: the scenario ends there, judged on its checks,
    the clauses of the settlement not judged in it."""
    if _returned_already(scene, "completing it"):
        why = (
            f"the target returned the interrupted round {scene.round.round_id} itself at "
            "start-up, each stake refunded (allowed: REG-INTR-01), so no result was entered"
        )
        scene.unproven.update({c: why for c in scene.tags if c not in INTERRUPTED})
        raise ScenarioEnded(why)
    round_id = _unfinished_for_the_dealer(scene, "completing the interrupted round")
    outcome = parse_dice(dice)
    scene.outcome = outcome
    scene.round = scene.act(
        INTERRUPTED,
        f"the result {outcome} of the interrupted round",
        lambda: scene.adapter.enter_result(round_id, outcome),
    )


@when("the dealer cancels the interrupted round")
def dealer_cancels_interrupted(scene: Scene) -> None:
    """The cancellation is taken after the restart and returns every bet (that each is
    refunded exactly is the refunds' clauses, in the step that follows). A round the target
    returned at start-up is returned already: the dealer has nothing to cancel."""
    if _returned_already(scene, "cancelling it"):
        scene.ended_as, scene.ended_by = RETURNED, INTERRUPTED  # returned by the target itself
        why = (
            f"the target returned the interrupted round {scene.round.round_id} itself at "
            "start-up (allowed: REG-INTR-01), so there was no round left to cancel"
        )
        if CANCEL in scene.tags:
            scene.unproven[CANCEL] = why
        return
    scene.ended_as, scene.ended_by = ("cancelled",), (CANCEL,)
    round_id = _unfinished_for_the_dealer(scene, "cancelling the interrupted round")
    scene.round = scene.act(
        INTERRUPTED,
        "cancelling the interrupted round",
        lambda: scene.adapter.dealer_action(round_id, "cancel", "the server restarted"),
    )
    scene.left_in("cancelled", INTERRUPTED, "cancellation of the interrupted round")
    shown = {b.bet_id: b for b in scene.round.bets}
    for placed in scene.bets:
        bet = shown.get(placed.view.bet_id)
        if bet is None:  # an answer that lists no bets: read the player's view of the round
            fresh = scene.adapter.get_round(round_id, scene.players[placed.player])
            bet = next((b for b in fresh.bets if b.bet_id == placed.view.bet_id), None)
        scene.checks.check(
            bet is not None and bet.status in RETURNED and bet.outcome == "refund",
            INTERRUPTED,
            f"after the cancellation {placed.player}'s {placed.label} bet "
            + ("is missing" if bet is None else f"is {bet.status}/{bet.outcome}, not returned"),
            f"after the cancellation {placed.player}'s {placed.label} bet is returned",
        )

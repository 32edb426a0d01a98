"""Steps of a round that ends without a settlement: cancelled (TBL-MAL-03, XD-VOID-02) or void
(XD-VOID-01), every stake returned; and the high roller, whose bet at the table's largest stake
makes a duty that fails only from some stake up show at any stake.

Each refund duty is judged where its harm shows: on each bet as the target shows it, and on each
player's wallet. A wallet short of a stake breaks the refund's clause even where the bet shows it
returned; a balance that is not its start less the stakes plus what the target says it returned
is REG-MONEY-01's. Every check of a step runs (judge all you see) and the first failure is raised
at the end, so one broken duty never hides another.
"""

from decimal import Decimal

from pytest_bdd import given, parsers, then, when

from livecert.harness.findings import ClauseFailure, HarnessError
from livecert.harness.round_clauses import CANCEL
from livecert.suite.fixtures.scene import UNFINISHED, PlacedBet, Scene
from livecert.suite.steps.common import _check_balance

MONEY_DUTY = "REG-MONEY-01"
DISCONNECTION = "TBL-DISC-02"
VOID = "XD-VOID-01"
RECALL, DISC_RECORD = "REG-RECALL-01", "TBL-DISC-03"
CANCELLED = (CANCEL,)
# the largest stake bet where a table declares no maximum (docs/contract.md, "Table limits")
DEFAULT_LARGEST_STAKE = Decimal("10000.00")


class StepChecks:
    """The checks of one step, all run: each is booked in the scene's ledger as it is made, and
    the first failure is raised by `done`, after the rest were judged too."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.first: ClauseFailure | None = None

    def check(self, ok: bool, clauses: tuple[str, ...], failure: str, held: str = "") -> None:
        try:
            self.scene.checks.check(ok, clauses, failure, held)
        except ClauseFailure as failed:
            self.first = self.first or failed

    def done(self) -> None:
        if self.first is not None:
            raise self.first


@when("the dealer cancels the round")
def dealer_cancels(scene: Scene) -> None:
    """TBL-MAL-03: a round that cannot be resumed is cancelled."""
    scene.expect_state(UNFINISHED, CANCELLED, "a cancellation")
    round_id = scene.round.round_id
    scene.round = scene.act(
        CANCELLED,
        "a cancellation",
        lambda: scene.adapter.dealer_action(
            round_id, "cancel", "malfunction: no immediate resolution"
        ),
    )
    scene.phase = None
    scene.ended_as, scene.ended_by = ("cancelled",), CANCELLED
    scene.left_in("cancelled", CANCELLED, "cancel")


@then(parsers.re(r"the round is (?P<state>void|cancelled)"))
def round_is(scene: Scene, state: str) -> None:
    """The round ended as the scenario says, judged on the clause of the step that ended it
    (the dealer's cancel TBL-MAL-03, the bowl touching a token XD-VOID-02), or for a void no
    step called for (a result revealed early, a round never shaken), XD-VOID-01."""
    if state == "void" and not scene.ended_by:  # no step ended it: the round's own void
        scene.ended_as, scene.ended_by = ("void",), (VOID,)
    if not scene.ended_by:
        raise HarnessError(f"no step of the scenario ended the round, yet it must be {state}")
    actual = scene.refresh_round().state
    scene.checks.check(
        actual == state,
        scene.ended_by,
        f"the round is {actual!r}, expected {state!r}",
        f"the round is {state}",
    )


def _refund_clauses(
    scene: Scene,
    state: str,
    bets: list[PlacedBet],
    balances: dict[str, Decimal],
) -> tuple[str, ...]:
    """The refund's clauses for `state`; also TBL-DISC-02 where `bets` are of a player who
    disconnected in the round and each has a twin (the same stake) of a player who stayed
    connected, shown returned exactly and back in a wallet holding its start again: the
    difference is then the disconnection's (TBL-DISC-02: confirmed bets stay valid, so they are
    refunded like everyone's), not one of the stake (a refund skipped from some stake up)."""
    clauses = scene.ended_by
    if DISCONNECTION not in scene.tags or any(b.player not in scene.were_offline for b in bets):
        return clauses
    shown = {b.bet_id: b for b in scene.round.bets}

    def refunded_right(twin: PlacedBet) -> bool:
        bet = shown.get(twin.view.bet_id)
        return (
            bet is not None
            and (bet.status, bet.returned) == (state, twin.stake)
            and balances[twin.player] == scene.starting_balances[twin.player]
        )

    connected = [b for b in scene.bets if b.player not in scene.were_offline]
    twinned = all(
        any(t.stake == placed.stake and refunded_right(t) for t in connected) for placed in bets
    )
    return (*clauses, DISCONNECTION) if bets and twinned else clauses


@then("every bet of every player is returned and nothing is paid")
def every_bet_returned(scene: Scene) -> None:
    """Per bet: returned exactly, nothing paid (the refund's clause). Per player, on the wallet:
    every stake back (the refund's clause: a wallet short of a stake the bet shows returned is a
    refund not made); for a void round nothing more (XD-VOID-01: a void round pays nothing, so
    a win credited besides the stake breaks it); and the balance its start less the stakes plus
    what the target says it returned (REG-MONEY-01)."""
    if not scene.ended_as:
        raise HarnessError(
            "say how the round ended (the dealer cancels it, or the round is void) before every "
            "bet is returned"
        )
    state = scene.round.state if scene.round.state in scene.ended_as else scene.ended_as[0]
    checks = StepChecks(scene)
    balances = {name: scene.adapter.balance(handle) for name, handle in scene.players.items()}
    returned_to: dict[str, Decimal] = {name: Decimal(0) for name in scene.players}
    for placed in scene.bets:
        clauses = _refund_clauses(scene, state, [placed], balances)
        bet = scene.shown_bet(placed, clauses)
        returned_to[placed.player] += bet.returned or Decimal(0)
        what = f"{placed.player}'s {placed.label} bet of {placed.stake}"
        shown = (bet.status, bet.outcome, bet.win, bet.returned)
        checks.check(
            shown == (state, "refund", Decimal("0.00"), placed.stake),
            clauses,
            f"{what} shows {bet.status}/{bet.outcome}, win {bet.win}, returned {bet.returned}; "
            f"expected {state}/refund, win 0.00, returned {placed.stake}",
            f"{what} returned",
        )
    for name, balance in balances.items():
        start = scene.starting_balances[name]
        staked = sum((b.stake for b in scene.bets if b.player == name), Decimal(0))
        checks.check(
            balance >= start,
            _refund_clauses(scene, state, [b for b in scene.bets if b.player == name], balances),
            f"{name}'s balance is {balance}, short of its start {start}: not every stake "
            f"({staked} staked) came back to the wallet",
            f"{name}'s balance {balance} holds every stake back (start {start})",
        )
        if state == "void":
            checks.check(
                balance <= start,
                scene.ended_by,
                f"{name}'s balance is {balance}, above its start {start}: the void round paid "
                "more than the stakes back",
                f"{name}'s balance {balance} holds nothing but the stakes back",
            )
        conserved = start - staked + returned_to[name]
        checks.check(
            balance == conserved,
            (MONEY_DUTY,),
            f"{name}'s balance is {balance}, but its start {start} minus the stakes {staked} "
            f"plus what the target says it returned ({returned_to[name]}) is {conserved}",
            f"{name}'s balance {balance} = {start} - {staked} + {returned_to[name]}",
        )
    checks.done()


@then(parsers.re(r"the bet record shows each bet of the round as (?P<status>void|cancelled)"))
def record_shows(scene: Scene, status: str) -> None:
    """Each bet in its player's record as returned: the record's duty (REG-RECALL-01), and the
    disconnected player's review of their bets (TBL-DISC-03) where one disconnected."""
    clauses = (RECALL, *((DISC_RECORD,) if scene.were_offline else ()))
    for name, handle in scene.players.items():
        record = {b.bet_id: b for b in scene.adapter.bet_record(handle, scene.round.round_id).bets}
        for placed in (b for b in scene.bets if b.player == name):
            bet = record.get(placed.view.bet_id)
            shown = None if bet is None else (bet.status, bet.returned)
            scene.checks.check(
                shown == (status, placed.stake),
                clauses,
                f"{name}'s {placed.label} bet is "
                + ("missing from the bet record" if bet is None else f"recorded {shown}"),
                f"{name}'s {placed.label} bet is recorded {status}, returned {placed.stake}",
            )


# -- the high roller ------------------------------------------------------------------------------


def largest_stake(scene: Scene) -> Decimal:
    """The largest stake the game's table declares it takes; DEFAULT_LARGEST_STAKE where it
    declares none."""
    return scene.stake_fit().high or DEFAULT_LARGEST_STAKE


@given(parsers.re(r"player (?P<name>[A-Z]) bets the table's largest stake on (?P<label>.+)"))
def high_roller_bets(scene: Scene, name: str, label: str) -> None:
    """A duty kept below some stake and broken from it up (a refund or a credit skipped for
    large stakes) shows only on a stake above it: the table's largest is above them all. The
    player is made with a balance of exactly that stake."""
    stake = largest_stake(scene)
    scene.player(name, stake)
    scene.place(label, stake, player=name)


@then(
    parsers.re(
        r"player (?P<name>[A-Z])'s balance is its start less its stakes plus what the paytable "
        r"returns"
    )
)
def high_roller_balance(scene: Scene, name: str) -> None:
    """The balance the oracle gives for the stakes bet (the feature cannot write the amount of
    a stake the table chooses), judged as every balance of a settled round is."""
    amount = scene.starting_balances[name]
    for placed in (b for b in scene.bets if b.player == name):
        expected = scene.expected(placed)
        amount += expected.returned - expected.stake
    _check_balance(scene, name, str(amount))

"""A Hypothesis state machine that drives a target through random rounds and checks the money.

Several players bet random stakes on random selections while the dealer opens, closes, re-shakes,
pauses, resumes, cancels, voids and settles rounds, and players drop and reconnect. After every
step each balance must equal its start minus its stakes plus what the oracle says came back, and
never be below zero (REG-MONEY-01, REG-BAL-01). The seed is chosen up front and reported, so any
failure can be replayed exactly.

Every check is counted in the scenario's CheckLedger on its own clause. A refusal the model did
not expect (a bet within the balance during betting, a dealer's action its state allows) is a
finding on the clause of the refused action, not on money: the model leaves that action undone,
as the target did, and goes on judging the money from the balances.
"""

import contextlib
import functools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from livecert.adapters.base import TargetAdapter
from livecert.adapters.errors import Refused, TargetError
from livecert.adapters.model import PlayerHandle, TableLimits, TargetInfo
from livecert.contract import ContractViolation
from livecert.harness.checks import CheckLedger
from livecert.harness.dealer import open_round
from livecert.harness.findings import ClauseFailure
from livecert.harness.read_balances import real_balance, surplus
from livecert.harness.round_clauses import (
    CANCEL,
    PAUSE,
    RESHAKE,
    RESULT,
    SEVERAL_BETS,
    WINDOW,
)
from livecert.rules import all_outcomes, expected_settlement, load_paytable

START = Decimal("50.00")
PLAYERS = ("P1", "P2", "P3")
RESHAKES = {
    "sicbo": ("dice-overlap", "die-not-flat", "too-few-tumbles"),
    "xocdia": ("items-fell", "standing-token"),
}


MONEY, BALANCE, SETTLE, RECALL, RESUME = (
    "REG-MONEY-01",
    "REG-BAL-01",
    "REG-SETTLE-01",
    "REG-RECALL-01",
    "TBL-MAL-02",
)


REFUND_CLAUSE = {"cancel": CANCEL, "void": "XD-VOID-01"}
DISCONNECTION = "TBL-DISC-02"


class MoneyBroken(ClauseFailure):
    """The target disagrees with the model; `clauses` are the duties the step that saw it checks
    (a balance off by a stake is REG-MONEY-01, a bet lost on resuming TBL-MAL-02, ...)."""

    def __init__(self, message: str, clauses: tuple[str, ...] = (MONEY,)) -> None:
        super().__init__(message, clauses)


STOPS = (MoneyBroken, TargetError, ContractViolation)


@dataclass
class MachineWorld:
    """What the machine drives, and the log of what it did (for the evidence)."""

    adapter: TargetAdapter
    info: TargetInfo
    game: str
    table_id: str
    steps: list[str] = field(default_factory=list)
    rounds: int = 0
    bets: int = 0
    failure: Exception | None = None  # the first failure; the session stops there
    resumes_with_bets: int = 0  # resumes checked with open bets (TBL-MAL-02 evidence)
    settled_bets: int = 0  # bets checked against the oracle at a result (REG-SETTLE-01)
    ledger: CheckLedger = field(default_factory=lambda: CheckLedger(()))  # the scenario's checks
    unexpected_refusals: int = 0
    reads_at_once: int = 1  # the balances after a step read at the same time (--workers)

    def balances(self, handles: dict[str, PlayerHandle]) -> dict[str, Decimal]:
        """Every player's balance now: one after another, or all at once (independent reads of
        a state no request is changing; the chain of a session waits one round trip for them)."""
        if self.reads_at_once <= 1 or len(handles) <= 1:
            return {name: self.adapter.balance(handle) for name, handle in handles.items()}
        workers = min(self.reads_at_once, len(handles))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="livecert-read") as pool:
            read = dict(zip(handles, pool.map(self.adapter.balance, handles.values()), strict=True))
        return read

    def refused(self, refused: Refused, clauses: tuple[str, ...], what: str) -> None:
        """A refusal the model did not expect: the refused action's finding; the session goes
        on (the action undone on both sides), judging money from the balances."""
        self.unexpected_refusals += 1
        self.ledger.failed(clauses, f"{what} was refused: {refused}")
        self.steps.append(f"{what}: refused unexpectedly ({refused}); the session goes on")


def stake_range(limits: TableLimits | None, minor_unit: int) -> tuple[int, int]:
    """The stakes the players draw, in minor units: a unit to 60 whole units (above a player's
    start, so that some must be refused for the balance), inside the bet limits the table
    declares (a stake beyond them would be refused for the limit, not the balance)."""
    least, most = 1, 60 * 10**minor_unit
    if limits is not None and limits.min_bet is not None:
        least = max(least, int(limits.min_bet.scaleb(minor_unit)))
    if limits is not None and limits.max_bet is not None:
        most = min(most, int(limits.max_bet.scaleb(minor_unit)))
    return least, max(least, most)


def build_machine(world: MachineWorld) -> type[RuleBasedStateMachine]:
    def stops_at_first_failure(step: Callable[..., None]) -> Callable[..., None]:
        """The first failure ends the session: it is kept in `world.failure` and every later step
        does nothing. Hypothesis would otherwise replay the failing example against a server whose
        state has moved on, and report its own flakiness error instead of the target's."""

        @functools.wraps(step)
        def guarded(self, *args: Any, **kwargs: Any) -> None:
            if world.failure is not None:
                return
            try:
                step(self, *args, **kwargs)
            except STOPS as error:
                if isinstance(error, ClauseFailure):
                    world.ledger.record_failure(error)
                world.failure = error
                world.steps.append(f"stopped: {type(error).__name__}: {error}")

        return guarded

    table = load_paytable(world.game)
    codes = [s.code for s in table.selections]
    outcomes = [tuple(o) for o in all_outcomes(table)]
    least, most = stake_range(world.info.limits.get(world.game), world.info.minor_unit)

    class MoneyMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.handles: dict[str, PlayerHandle] = {}
            self.create_players()
            self.expected = dict.fromkeys(PLAYERS, START)
            self.round_id: str | None = None
            self.state: str | None = None
            self.paused_from: str | None = None
            self.open_bets: dict[str, tuple[str, str, Decimal]] = {}
            self.placed: dict[str, list[str]] = {name: [] for name in PLAYERS}

        @stops_at_first_failure
        def create_players(self) -> None:
            self.handles = {name: world.adapter.create_player(START) for name in PLAYERS}

        def log(self, text: str) -> None:
            world.steps.append(text)

        # -- the dealer ---------------------------------------------------------------------
        @precondition(lambda self: self.round_id is None)
        @rule()
        @stops_at_first_failure
        def open_round(self) -> None:
            opened = open_round(world.adapter, world.game, world.table_id)
            self.round_id, self.state = opened.round_id, "betting"
            world.rounds += 1
            self.log(f"open round {opened.round_id}")

        @precondition(lambda self: self.state == "betting")
        @rule()
        @stops_at_first_failure
        def close(self) -> None:
            try:
                world.adapter.close_betting(self.round_id)
            except Refused as refused:
                return world.refused(refused, (WINDOW[world.game],), "closing betting")
            self.state = "closed"
            self.log("close betting")

        @precondition(lambda self: self.state == "closed" and "reshake" in world.info.capabilities)
        @rule(reason=st.sampled_from(RESHAKES[world.game]))
        @stops_at_first_failure
        def reshake(self, reason: str) -> None:
            try:
                world.adapter.record_reshake(self.round_id, reason)
            except Refused as refused:
                return world.refused(refused, (RESHAKE[reason],), f"a re-shake ({reason})")
            self.log(f"re-shake: {reason}")

        @precondition(
            lambda self: self.state in ("betting", "closed") and "pause" in world.info.capabilities
        )
        @rule()
        @stops_at_first_failure
        def pause(self) -> None:
            try:
                world.adapter.dealer_action(self.round_id, "pause", "malfunction")
            except Refused as refused:
                return world.refused(refused, (PAUSE,), f"a pause while {self.state}")
            self.paused_from, self.state = self.state, "paused"
            self.log("pause")

        @precondition(lambda self: self.state == "paused")
        @rule()
        @stops_at_first_failure
        def resume(self) -> None:
            try:
                resumed = world.adapter.dealer_action(self.round_id, "resume")
            except Refused as refused:
                return world.refused(refused, (RESUME,), "a resume")
            self.state = self.paused_from
            self.log("resume")
            self.bets_still_open(resumed, "after resuming", (RESUME,))
            world.resumes_with_bets += bool(self.open_bets)

        def bets_still_open(self, shown, when: str, clauses: tuple[str, ...]) -> None:
            """Every bet of the round is still open (the round goes on with its bets)."""
            status = {b.bet_id: b.status for b in shown.bets}
            lost = {b: status.get(b) for b in self.open_bets if status.get(b) != "open"}
            if lost:
                raise MoneyBroken(f"{when}, the round's bets are no longer open: {lost}", clauses)
            if self.open_bets:
                world.ledger.held(clauses, f"{when}, the round's {len(self.open_bets)} bets stand")

        @precondition(lambda self: self.state in ("betting", "closed", "paused"))
        @rule(action=st.sampled_from(("cancel", "void")))
        @stops_at_first_failure
        def refund_round(self, action: str) -> None:
            clause = REFUND_CLAUSE[action] if world.game == "xocdia" else CANCEL
            try:
                shown = world.adapter.dealer_action(self.round_id, action, "money machine")
            except Refused as refused:
                return world.refused(refused, (clause,), f"a {action} while {self.state}")
            # the refund is the rule's (every bet returned); the balances then judge the money
            returned = {b.bet_id: b.returned for b in shown.bets}
            short = {
                b: returned.get(b)
                for b, (_n, _c, s) in self.open_bets.items()
                if returned.get(b) != s
            }
            if short:
                raise MoneyBroken(f"after a {action}, bets not returned: {short}", (clause,))
            if self.open_bets and (action == "void" or self.state == "paused"):
                # credited only where the rule's situation is met: a cancel after a pause for a
                # malfunction (TBL-MAL-03), so a target without pause never passes it here
                world.ledger.held((clause,), f"a {action} returned {len(self.open_bets)} bets")
            for name, _code, stake in self.open_bets.values():
                self.expected[name] += stake
            self.finish(action)

        @precondition(lambda self: self.state == "closed")
        @rule(outcome=st.sampled_from(outcomes))
        @stops_at_first_failure
        def result(self, outcome: tuple) -> None:
            try:
                settled = world.adapter.enter_result(self.round_id, outcome)
            except Refused as refused:
                clause = RESULT[world.game]
                return world.refused(refused, (clause,), f"the result {outcome}")
            shown = {b.bet_id: b for b in settled.bets}
            for bet_id, (name, code, stake) in self.open_bets.items():
                want = expected_settlement(
                    table, code, outcome, stake, world.info.minor_unit, world.info.rounding
                )
                self.expected[name] += want.returned
                got = shown.get(bet_id)
                if got is not None and settled.echoed and got.settlement_unshown:
                    continue  # a live table's stream showed no settlement: the balance judges
                if got is None or (got.status, got.returned) != ("settled", want.returned):
                    raise MoneyBroken(
                        f"bet {bet_id} ({code} {stake}) on {outcome}: expected "
                        f"returned {want.returned}, target shows {got}",
                        (SETTLE,),
                    )
                world.ledger.held((SETTLE,), f"bet {bet_id} ({code} {stake}) on {outcome}")
            world.settled_bets += len(self.open_bets)
            self.finish(f"result {outcome}")

        def finish(self, how: str) -> None:
            self.log(f"{how} ({len(self.open_bets)} bets)")
            self.round_id = self.state = self.paused_from = None
            self.open_bets = {}

        # -- players ------------------------------------------------------------------------
        @precondition(lambda self: self.state == "betting")
        @rule(
            slips=st.lists(
                st.tuples(
                    st.sampled_from(PLAYERS),
                    st.sampled_from(codes),
                    st.integers(min_value=least, max_value=most),
                ),
                min_size=1,
                max_size=4,
            )
        )
        @stops_at_first_failure
        def bets(self, slips: list[tuple[str, str, int]]) -> None:
            """A few players bet while the countdown runs (more bets than other steps)."""
            for name, code, units in slips:
                self.bet(name, code, Decimal(units).scaleb(-world.info.minor_unit))

        def room(self, name: str) -> Decimal:
            """What the player may stake: the balance expected, and, where the balance is read
            from an account, the account's surplus over it (read_balances.py)."""
            return self.expected[name] + surplus(world.adapter, self.handles[name])

        def bet(self, name: str, code: str, stake: Decimal) -> None:
            try:
                [view] = world.adapter.place_bets(
                    self.handles[name], self.round_id, [(code, stake)]
                )
            except Refused as refused:
                if stake <= self.room(name):
                    what = f"{name}'s bet of {stake} during betting (balance {self.expected[name]})"
                    again = any(n == name for n, _c, _s in self.open_bets.values())
                    several = world.game == "sicbo" and again  # a first bet of theirs was taken
                    clause = SEVERAL_BETS if several else WINDOW[world.game]
                    return world.refused(refused, (clause,), what)
                world.ledger.held((BALANCE,), f"{name}'s bet of {stake} above the balance refused")
                self.log(f"{name} bet {stake} on {code}: refused, balance too low")
                return
            if stake > self.room(name):
                raise MoneyBroken(
                    f"{name}'s bet of {stake} was taken with a balance of {self.expected[name]}",
                    (BALANCE,),
                )
            self.expected[name] -= stake
            self.open_bets[view.bet_id] = (name, code, stake)
            self.placed[name].append(view.bet_id)
            world.bets += 1
            self.log(f"{name} bet {stake} on {code}")

        @precondition(lambda self: "disconnect" in world.info.capabilities)
        @rule(name=st.sampled_from(PLAYERS), online=st.booleans())
        @stops_at_first_failure
        def connection(self, name: str, online: bool) -> None:
            (world.adapter.connect if online else world.adapter.disconnect)(self.handles[name])
            self.log(f"{name} {'reconnects' if online else 'disconnects'}")
            if self.round_id is not None and self.open_bets:
                # TBL-DISC-02: confirmed bets stay valid, whoever's connection drops
                shown = world.adapter.get_round(self.round_id)
                when = f"after {name} {'reconnected' if online else 'disconnected'}"
                self.bets_still_open(shown, when, (DISCONNECTION,))

        # -- the checks after every step ------------------------------------------------------
        @invariant()
        @stops_at_first_failure
        def money_is_conserved(self) -> None:
            balances = world.balances(self.handles)
            for name, handle in self.handles.items():
                balance = balances[name]
                if real_balance(world.adapter, handle, balance) < 0:
                    raise MoneyBroken(f"{name}'s balance is below zero: {balance}", (BALANCE,))
                if not surplus(world.adapter, handle):  # a lent account's: holds by construction
                    world.ledger.held((BALANCE,), f"{name}'s balance {balance} is not below zero")
                if balance != self.expected[name]:
                    raise MoneyBroken(
                        f"{name}'s balance is {balance}, expected "
                        f"{self.expected[name]} (start minus stakes plus returns)"
                    )
                world.ledger.held((MONEY,), f"{name}'s balance {balance} as the model says")

        @stops_at_first_failure
        def teardown(self) -> None:
            for name, handle in self.handles.items():
                recorded = {b.bet_id for b in world.adapter.bet_record(handle).bets}
                missing = set(self.placed[name]) - recorded
                if missing:
                    raise MoneyBroken(
                        f"{name}'s bet record misses bets {sorted(missing)}", (RECALL,)
                    )
                if self.placed[name]:
                    world.ledger.held((RECALL,), f"{name}'s record shows their bets")
            if self.round_id is not None:
                with contextlib.suppress(Refused):
                    world.adapter.dealer_action(self.round_id, "cancel", "money machine done")
            # the example's accounts back to the list, where players are lent accounts
            release = getattr(world.adapter, "release_players", None)
            if release is not None:
                release(list(self.handles.values()))

    return MoneyMachine


def session_shares(sessions: int, machines: int) -> list[int]:
    """`sessions` shared out among at most `machines` machines, as evenly as can be (none
    empty): 8 over 3 is [3, 3, 2]."""
    count = max(1, min(machines, sessions))
    return [sessions // count + (1 if i < sessions % count else 0) for i in range(count)]


def merged(worlds: list[MachineWorld]) -> MachineWorld:
    """What several machines of one scenario did, together (their counts and their steps,
    each step named by its machine when there are several)."""
    if len(worlds) == 1:
        return worlds[0]
    first = worlds[0]
    whole = MachineWorld(first.adapter, first.info, first.game, first.table_id)
    for index, world in enumerate(worlds, 1):
        whole.steps += [f"[machine {index}] {step}" for step in world.steps]
        whole.rounds += world.rounds
        whole.bets += world.bets
        whole.resumes_with_bets += world.resumes_with_bets
        whole.settled_bets += world.settled_bets
        whole.unexpected_refusals += world.unexpected_refusals
    return whole


def unproven_duties(world: MachineWorld) -> dict[str, str]:
    """The duties a session tags but did not exercise this time, with why (never `passed`)."""
    unproven = {}
    if world.resumes_with_bets == 0:
        unproven[RESUME] = "the random sessions never resumed a paused round holding bets" + (
            "" if "pause" in world.info.capabilities else " (the target declares no pause)"
        )
    if world.settled_bets == 0:
        unproven[SETTLE] = "the random sessions settled no bet"
    if world.bets == 0:
        unproven[RECALL] = "the random sessions placed no bet to recall"
    return unproven


def run_money_machine(world: MachineWorld, seed_value: int, examples: int, steps: int) -> None:
    """Run the machine with a fixed seed; raise MoneyBroken (or the target's error) on failure."""
    machine = build_machine(world)

    def factory() -> RuleBasedStateMachine:
        return machine()

    seeded = seed(seed_value)(factory)
    run_state_machine_as_test(
        seeded,
        settings=settings(
            # under CI, Hypothesis's own "ci" profile (no example database, no deadline, blobs
            # printed); the explicit seed still decides the examples, so CI runs repeat exactly
            settings.get_profile("ci") if os.environ.get("CI") else settings.default,
            max_examples=examples,
            stateful_step_count=steps,
            deadline=None,
            database=None,
            phases=(Phase.explicit, Phase.generate),  # no shrinking against a live server
            suppress_health_check=list(HealthCheck),
            derandomize=False,
        ),
    )
    if world.failure is not None:
        raise world.failure

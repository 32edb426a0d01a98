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

from livecert.adapters.errors import Refused, TargetError, Unsupported
from livecert.adapters.model import PlayerHandle
from livecert.contract import ContractViolation
from livecert.harness.dealer import open_round
from livecert.harness.findings import ClauseFailure
from livecert.harness.money_world import (
    BALANCE,
    DISCONNECTION,
    MONEY,
    PLAYERS,
    RECALL,
    REFUND_CLAUSE,
    RESHAKES,
    RESUME,
    SETTLE,
    SMALL_TOP,
    START,
    MachineWorld,
    MoneyBroken,
    merged,
    session_shares,
    stake_range,
    starts,
    unproven_duties,
)
from livecert.harness.read_balances import real_balance, surplus
from livecert.harness.record_chain import PlayedRound, chain_problems
from livecert.harness.round_clauses import (
    CANCEL,
    PAUSE,
    RESHAKE,
    RESULT,
    SEVERAL_BETS,
    WINDOW,
)
from livecert.rules import all_outcomes, expected_settlement, load_paytable

__all__ = [  # the session's world and helpers, where the steps have always found them
    "START",
    "MachineWorld",
    "MoneyBroken",
    "merged",
    "run_money_machine",
    "session_shares",
    "unproven_duties",
]

# what ends a session at once; Unsupported too (players the target cannot give the balances a
# session needs, say: lent accounts), so that Hypothesis does not replay it while shrinking
STOPS = (MoneyBroken, TargetError, ContractViolation, Unsupported)
# who moved a round into the state a result needs (closed), by the move: a result refused where
# the round shows another state is that move's finding, not the result's (a refusal is judged on
# its own clause; the state it met is the move's). Sic Bo: "the betting period stays closed
# during a re-shake" (RULES.md D, SB-RND-04); Xoc Dia: after the betting period the bowl is
# lifted (XD-RND-01)
RESHAKE_KEEPS_CLOSED = {"sicbo": "SB-RND-04", "xocdia": "XD-RND-01"}


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
    limits = world.info.limits.get(world.game)
    least, most = stake_range(limits, world.info.minor_unit)
    small = min(most, max(least, SMALL_TOP * 10**world.info.minor_unit))
    starting = starts(limits, world.info.minor_unit)
    # half the stakes small (a win's fraction of a minor unit), half from the whole range
    stakes = st.one_of(
        st.integers(min_value=least, max_value=small),
        st.integers(min_value=least, max_value=most),
    )

    class MoneyMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.handles: dict[str, PlayerHandle] = {}
            self.create_players()
            self.expected = dict(starting)
            self.moved_by: tuple[str, str] = ("", "")  # the move that made the state: clause, what
            self.rounds: dict[str, list[PlayedRound]] = {name: [] for name in PLAYERS}
            self.entered: dict[str, tuple[Decimal, Decimal]] = {}  # this round: before, staked
            self.round_id: str | None = None
            self.state: str | None = None
            self.paused_from: str | None = None
            self.open_bets: dict[str, tuple[str, str, Decimal]] = {}
            self.placed: dict[str, list[str]] = {name: [] for name in PLAYERS}

        @stops_at_first_failure
        def create_players(self) -> None:
            self.handles = {name: world.adapter.create_player(starting[name]) for name in PLAYERS}

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
            self.moved_by = (WINDOW[world.game], "closing betting")
            self.log("close betting")

        @precondition(lambda self: self.state == "closed" and "reshake" in world.info.capabilities)
        @rule(reason=st.sampled_from(RESHAKES[world.game]))
        @stops_at_first_failure
        def reshake(self, reason: str) -> None:
            try:
                shown = world.adapter.record_reshake(self.round_id, reason)
            except Refused as refused:
                return world.refused(refused, (RESHAKE[reason],), f"a re-shake ({reason})")
            self.moved_by = (RESHAKE_KEEPS_CLOSED[world.game], f"a re-shake ({reason})")
            self.log(f"re-shake: {reason}")
            if getattr(shown, "state", None) == "betting":
                # betting stays closed during a re-shake (RULES.md D, "re-shakes"): reopened,
                # it is that duty's finding, never the next re-shake's reason when refused
                raise MoneyBroken(
                    f"after a re-shake ({reason}) of a round whose betting had closed, it takes "
                    "bets again",
                    (RESHAKE_KEEPS_CLOSED[world.game],),
                )

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
            self.moved_by = (RESUME, "a resume")
            self.log("resume")
            if self.state == "closed" and resumed.state == "betting":
                # betting reopened after it closed: the betting window's finding, as the
                # malfunction feature judges it (the resume itself was taken)
                raise MoneyBroken(
                    "after resuming a round paused once betting had closed, it takes bets again",
                    (WINDOW[world.game],),
                )
            if resumed.state in ("betting", "closed", "paused") and resumed.state != self.state:
                # TBL-MAL-02: the round "resumes and continues as usual", where it was paused
                raise MoneyBroken(
                    f"after resuming a round paused while {self.state}, it is {resumed.state}",
                    (RESUME,),
                )
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
                return self.result_refused(refused, outcome)
            shown = {b.bet_id: b for b in settled.bets}
            returns: dict[str, Decimal] = {}
            for bet_id, (name, code, stake) in self.open_bets.items():
                want = expected_settlement(
                    table, code, outcome, stake, world.info.minor_unit, world.info.rounding
                )
                self.expected[name] += want.returned
                returns[name] = returns.get(name, Decimal(0)) + want.returned
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
            self.finish(f"result {outcome}", returns)

        def result_refused(self, refused: Refused, outcome: tuple) -> None:
            """A result refused in a round the model holds closed: the result's finding where
            the round shows itself closed (or says nothing); where it shows another state (a
            re-shake or a resume that reopened betting), the finding of the move that left it
            there, on that move's clause."""
            what = f"the result {outcome}"
            shown = world.adapter.get_round(self.round_id).state
            clause, move = self.moved_by
            if shown in ("betting", "paused") and clause:
                what = f"{what} (refused: the round is {shown!r} after {move}, not closed)"
                return world.refused(refused, (clause,), what)
            return world.refused(refused, (RESULT[world.game],), what)

        def finish(self, how: str, returns: dict[str, Decimal] | None = None) -> None:
            """The round ends: each player who bet in it books it (for their record), with
            what the oracle says came back (`returns`; None: every stake, a refund)."""
            for name, (before, staked) in self.entered.items():
                back = staked if returns is None else returns.get(name, Decimal(0))
                self.rounds[name].append(PlayedRound(self.round_id, before, staked, back))
            self.entered = {}
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
                    stakes,
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
            before, staked = self.entered.get(name, (self.expected[name], Decimal(0)))
            self.entered[name] = (before, staked + stake)
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

        def record_chained(self, name: str, record) -> None:
            """Every round the player finished in the session, as their record shows it:
            chained to the one before and, where the balance is set, the oracle's
            (record_chain.py; REG-RECALL-01). The round still open is not judged."""
            exact = not surplus(world.adapter, self.handles[name])
            for each, problems in chain_problems(record, self.rounds[name], exact):
                if problems:
                    raise MoneyBroken(
                        f"{name}'s record of round {each.round_id}: " + "; ".join(problems),
                        (RECALL,),
                    )
                world.ledger.held((RECALL,), f"{name}'s record of {each.round_id} chained")

        @stops_at_first_failure
        def teardown(self) -> None:
            for name, handle in self.handles.items():
                record = world.adapter.bet_record(handle)
                recorded = {b.bet_id for b in record.bets}
                missing = set(self.placed[name]) - recorded
                if missing:
                    raise MoneyBroken(
                        f"{name}'s bet record misses bets {sorted(missing)}", (RECALL,)
                    )
                if self.placed[name]:
                    world.ledger.held((RECALL,), f"{name}'s record shows their bets")
                self.record_chained(name, record)
            if self.round_id is not None:
                with contextlib.suppress(Refused):
                    world.adapter.dealer_action(self.round_id, "cancel", "money machine done")
            # the example's accounts back to the list, where players are lent accounts
            release = getattr(world.adapter, "release_players", None)
            if release is not None:
                release(list(self.handles.values()))

    return MoneyMachine


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

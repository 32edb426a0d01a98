"""Rounds at stakes from the whole range (whole_range.py says why), each amount judged.

Two players play, at a table of their own: the high-stake rounds, in which every paytable row
wins once at the maximum and at a stake drawn near it; then refunded rounds (a cancel after a
pause, and in Xoc Dia a void), each holding stakes whose cents are a drawn window. Then each
player's bet record is read once over every round they played, and every row of it is judged:
its stake, its return, and its balances chained (the balance after one round is the balance
before the next) and equal to the oracle's.

Every check books on its own clause: a settlement on its row's clause and REG-SETTLE-01; a
refund on the refunding action's (TBL-MAL-03, XD-VOID-01); a balance against what the target
said it returned on REG-MONEY-01; the record on REG-RECALL-01, against the money the target
said it moved (a wrong payout is the payout's finding, not the record's nor the wallet's). A
failed check is booked and the rounds go on, so one scenario judges all it sees; the first
failure is raised at the end.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from decimal import Decimal

from livecert.adapters.base import TargetAdapter
from livecert.adapters.errors import Refused
from livecert.adapters.model import BetRecord, PlayerHandle, TableLimits, TargetInfo
from livecert.harness.checks import CheckLedger
from livecert.harness.dealer import open_round
from livecert.harness.findings import ClauseFailure, HarnessError, late_for_the_table
from livecert.harness.read_balances import surplus
from livecert.harness.record_chain import PlayedRound, chain_problems
from livecert.harness.round_clauses import (
    CANCEL,
    LIMIT,
    PAUSE,
    RESULT,
    SEVERAL_BETS,
    WINDOW,
)
from livecert.harness.settlement_check import check_bet
from livecert.harness.whole_range import (
    CENT_WINDOW,
    near_max,
    plan_high_stakes,
    refund_stakes,
    slips,
    stake_bounds,
)
from livecert.rules import load_paytable

MONEY, RECALL = "REG-MONEY-01", "REG-RECALL-01"
VOID = "XD-VOID-01"
PLAYERS = ("H", "N")  # H bets the maximum on every row, N a stake drawn near it


@dataclass
class RangeWorld:
    """The scenario's target, its draws and what was played (for the checks and the evidence)."""

    adapter: TargetAdapter
    info: TargetInfo
    game: str
    ledger: CheckLedger
    rng: random.Random
    steps: list[str] = field(default_factory=list)
    failures: list[ClauseFailure] = field(default_factory=list)
    played: dict[str, list[PlayedRound]] = field(default_factory=dict)
    balances: dict[str, Decimal] = field(default_factory=dict)  # the oracle's, per player
    unproven: dict[str, str] = field(default_factory=dict)

    @property
    def limits(self) -> TableLimits | None:
        return self.info.limits.get(self.game)

    def money(self, units: int) -> Decimal:
        return Decimal(units).scaleb(-self.info.minor_unit)

    def play(self, name: str, round_id: str, staked: Decimal, returned: Decimal, done=True):
        """Book a round `name` played: the oracle's balance moves by what came back."""
        before = self.balances[name]
        self.played[name].append(PlayedRound(round_id, before, staked, returned, done))
        self.balances[name] = before - staked + returned

    def check(self, ok: bool, clauses: tuple[str, ...], failure: str, held: str) -> None:
        """One check, booked; a failure is kept (raised at the end), the rounds go on."""
        if ok:
            self.ledger.held(clauses, held)
        else:
            self.failures.append(self.ledger.failed(clauses, failure))

    def refused(self, clauses: tuple[str, ...], failure: str) -> None:
        """An action the rules allow, refused: its clauses' finding in any scenario that meets
        it (as `Scene.act`), kept and raised at the end."""
        self.failures.append(self.ledger.failed(clauses, failure, judge_untagged=True))


def play_whole_range(world: RangeWorld) -> None:
    """The high-stake rounds, the refunded rounds, then each player's record; raise the first
    failure after all of them were judged."""
    table = load_paytable(world.game)
    least, most = stake_bounds(world.limits, world.info.minor_unit)
    plan = plan_high_stakes(table, world.rng)
    most_rows = max(len(r.rows) for r in plan)
    start = world.money(most * (2 * most_rows + CENT_WINDOW))
    table_id = world.adapter.create_table(world.game)
    handles = {name: world.adapter.create_player(start) for name in PLAYERS}
    world.played = {name: [] for name in PLAYERS}
    world.balances = dict.fromkeys(PLAYERS, start)
    world.steps.append(f"players {', '.join(PLAYERS)} start with {start}; stakes {least}..{most}")
    for planned in plan:
        bets = {
            "H": [(code, world.money(most)) for _row, code in planned.rows],
            "N": [
                (code, world.money(near_max(world.rng, least, most))) for _r, code in planned.rows
            ],
        }
        _high_stake_round(world, table, table_id, handles, bets, planned.outcome)
    actions = ("cancel", "void") if world.game == "xocdia" else ("cancel", "cancel")
    for action in actions:
        stakes = refund_stakes(world.rng, least, most, world.info.minor_unit)
        codes = [s.code for s in table.selections]
        bets = {name: [] for name in PLAYERS}
        for index, units in enumerate(stakes):
            bets[PLAYERS[index % 2]].append((world.rng.choice(codes), world.money(units)))
        _refunded_round(world, table_id, handles, bets, action)
    for name, handle in handles.items():
        conserved = _judge_balance(world, name, handle, start)
        _judge_record(world, name, handle, conserved)
    release = getattr(world.adapter, "release_players", None)
    if release is not None:
        release(list(handles.values()))
    if world.failures:
        raise world.failures[0]


def _place(
    world: RangeWorld,
    handles: dict[str, PlayerHandle],
    round_id: str,
    bets: dict[str, list[tuple[str, Decimal]]],
) -> dict[str, list[tuple[str, str, Decimal]]]:
    """Every player's bets, in slips the table takes; the bet ids taken, per player. A refusal of
    a player's first slip within the limits and the balance during betting is the betting
    window's finding, or REG-LIMIT-01's where a stake or the slip is at a declared limit (one
    there must be taken); of a later one in the round, in Sic Bo, SB-RND-02's (several bets, of
    several types, in one round). Each is judged in any scenario that meets it."""
    batch = "batch-bets" in world.info.capabilities
    placed: dict[str, list[tuple[str, str, Decimal]]] = {name: [] for name in bets}
    for name, wanted in bets.items():
        for index, slip in enumerate(slips(wanted, world.limits, batch)):
            later = index > 0 and world.game == "sicbo"
            at_a_limit = world.limits.at_a_bound([s for _c, s in slip]) if world.limits else None
            clause = SEVERAL_BETS if later else LIMIT if at_a_limit else WINDOW[world.game]
            try:
                views = world.adapter.place_bets(handles[name], round_id, slip)
            except Refused as refused:
                if refused.late:  # a live table closed betting before the slip reached it
                    why = late_for_the_table(f"{name}'s slip", refused.code, refused.late)
                    raise HarnessError(why) from None
                world.refused(
                    (clause,),
                    f"{name}'s {'later ' if later else ''}slip {slip} within the limits "
                    f"{f'(at {at_a_limit}) ' if at_a_limit else ''}and the balance was refused "
                    f"during betting: {refused}",
                )
                continue
            if len(views) != len(slip):
                raise HarnessError(f"a slip of {len(slip)} bets was answered {len(views)} bets")
            taken = zip(views, slip, strict=True)
            placed[name] += [(v.bet_id, code, stake) for v, (code, stake) in taken]
    return placed


def _refused(world: RangeWorld, placed: dict, round_id: str, clause: str, what: str, refused):
    """A dealer's action the rules allow was refused: its own clause's finding; the round's
    bets stay open (staked, nothing back), as the target left them."""
    world.refused((clause,), f"{what} in round {round_id} was refused: {refused}")
    for name, mine in placed.items():
        if mine:
            staked = sum((stake for _b, _c, stake in mine), Decimal(0))
            world.play(name, round_id, staked, Decimal(0), done=False)


def _high_stake_round(world, table, table_id, handles, bets, outcome) -> None:
    opened = open_round(world.adapter, world.game, table_id)
    placed = _place(world, handles, opened.round_id, bets)
    try:
        world.adapter.close_betting(opened.round_id)
    except Refused as refused:
        return _refused(world, placed, opened.round_id, WINDOW[world.game], "closing", refused)
    try:
        settled = world.adapter.enter_result(opened.round_id, outcome)
    except Refused as refused:
        what = f"the result {outcome}"
        return _refused(world, placed, opened.round_id, RESULT[world.game], what, refused)
    shown = {b.bet_id: b for b in settled.bets}
    info = world.info
    for name, mine in placed.items():
        staked = returned = Decimal(0)
        for bet_id, code, stake in mine:
            view = shown.get(bet_id)
            if view is None:
                fresh = world.adapter.get_round(opened.round_id, handles[name])
                view = next((b for b in fresh.bets if b.bet_id == bet_id), None)
            if view is None:
                raise HarnessError(f"round {opened.round_id} does not show {name}'s bet {bet_id}")
            row = check_bet(table, view, outcome, info.minor_unit, info.rounding)
            staked += stake
            # what the target says came back (the oracle's where it said nothing): the balance
            # and the record are judged on the money the target moved, the settlement on its own
            shown_back = view.returned
            returned += row.expected.returned if shown_back is None else shown_back
            if view.settlement_unshown:
                continue  # a live table's stream showed no settlement: the balance judges
            world.check(
                row.matches,
                row.clauses,
                f"{name}'s high stake on {outcome}: {row.describe()}",
                f"{code} staked {stake} wins on {outcome}: {row.expected.returned} returned",
            )
        if mine:
            world.play(name, opened.round_id, staked, returned)
    world.steps.append(f"round {opened.round_id}: {outcome}, bets {bets}")


def _refunded_round(world, table_id, handles, bets, action: str) -> None:
    opened = open_round(world.adapter, world.game, table_id)
    placed = _place(world, handles, opened.round_id, bets)
    paused = action == "cancel" and "pause" in world.info.capabilities
    if paused:  # TBL-MAL-03's situation: no immediate resolution of a malfunction
        try:
            world.adapter.dealer_action(opened.round_id, "pause", "malfunction")
        except Refused as refused:
            world.refused((PAUSE,), f"a pause of round {opened.round_id}: {refused}")
            paused = False
    clause = VOID if action == "void" else CANCEL
    try:
        shown_view = world.adapter.dealer_action(opened.round_id, action, "whole-range refunds")
    except Refused as refused:
        return _refused(world, placed, opened.round_id, clause, f"a {action}", refused)
    shown = {b.bet_id: b for b in shown_view.bets}
    for name, mine in placed.items():
        staked = sum((stake for _b, _c, stake in mine), Decimal(0))
        missing = [b for b, _c, _s in mine if b not in shown]
        if missing:
            fresh = world.adapter.get_round(opened.round_id, handles[name])
            shown.update({b.bet_id: b for b in fresh.bets})
        returned = Decimal(0)
        for bet_id, _code, stake in mine:
            view = shown.get(bet_id)
            returned += stake if view is None or view.returned is None else view.returned
            if view is None or view.settlement_unshown:
                continue  # not shown: the balance and the record judge it
            ok = view.returned == stake
            if ok and not paused and action == "cancel":
                continue  # a cancel with no malfunction is not TBL-MAL-03's situation
            world.check(
                ok,
                (clause,),
                f"a {action} returned {view.returned} of {name}'s stake {stake} (bet {bet_id})",
                f"a {action} returned {name}'s stake {stake}",
            )
        if mine:
            world.play(name, opened.round_id, staked, returned)
    if not paused and action == "cancel":
        world.unproven.setdefault(CANCEL, "the target declares no pause: no cancel followed one")
    world.steps.append(f"round {opened.round_id}: {action}, stakes {bets}")


def _judge_balance(world: RangeWorld, name: str, handle: PlayerHandle, start: Decimal) -> bool:
    """The balance is the start less the stakes plus what the oracle says came back."""
    balance = world.adapter.balance(handle)
    rounds, want = world.played[name], world.balances[name]
    ok = balance == want
    world.check(
        ok,
        (MONEY,),
        f"{name}'s balance is {balance}, expected {want} (start {start}, {len(rounds)} rounds "
        "of stakes and their returns)",
        f"{name}'s balance {balance} after {len(rounds)} rounds at whole-range stakes",
    )
    return ok


def _judge_record(world: RangeWorld, name: str, handle: PlayerHandle, conserved: bool) -> None:
    """Each round of the player's record, chained and (where the wallet holds what the target
    said it moved: else the record showing the wallet's true balances is right, the wallet is
    REG-MONEY-01's finding) against the oracle (record_chain.py)."""
    record: BetRecord = world.adapter.bet_record(handle)
    exact = conserved and not surplus(world.adapter, handle)
    played = world.played[name]
    for index, (each, problems) in enumerate(chain_problems(record, played, exact), 1):
        what = f"{name}'s record of round {index} of {len(played)} ({each.round_id})"
        world.check(
            not problems,
            (RECALL,),
            f"{what}: " + "; ".join(problems),
            f"{what}: staked {each.staked}, {each.before} -> {each.after}",
        )

"""Money integrity under load (REG-MONEY-01): many players, many slips at the same moment.

Every balance must end at its start minus its stakes plus what the oracle says its bets return;
nothing may be lost to a race between two slips of the same player.
"""

import os
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import allure
import pytest
from pytest_bdd import given, parsers, then, when

from livecert.adapters import Refused
from livecert.harness.findings import ClauseFailure
from livecert.harness.money_machine import (
    MachineWorld,
    MoneyBroken,
    merged,
    run_money_machine,
    session_shares,
    unproven_duties,
)
from livecert.harness.range_rounds import RangeWorld, play_whole_range
from livecert.harness.table_pool import TablePool
from livecert.harness.vocabulary import selection_code
from livecert.suite.fixtures.attachments import attach_text
from livecert.suite.fixtures.scene import PlacedBet, Scene
from livecert.suite.fixtures.workers import lent_tables, run_tables
from livecert.suite.steps.rounds import GAMES

MONEY = "REG-MONEY-01"


@given(
    parsers.re(
        r"(?P<count>\d+) players with a balance of (?P<amount>\d+\.\d+) each at a new "
        r"(?P<name>Sic Bo|Xoc Dia) table"
    )
)
def many_players(scene: Scene, count: str, amount: str, name: str) -> None:
    scene.game = GAMES[name]
    scene.own_table = scene.adapter.create_table(scene.game)
    scene.open_round()  # first: a target with no live round makes no players
    for index in range(int(count)):
        scene.player(f"P{index + 1}", Decimal(amount))


@when(
    parsers.re(
        r"each player sends (?P<slips>\d+) slips of (?P<stake>\d+\.\d+) on (?P<label>.+) at the "
        r"same moment"
    )
)
def slips_at_once(scene: Scene, slips: str, stake: str, label: str) -> None:
    code, amount = selection_code(label, scene.game), Decimal(stake)
    round_id = scene.round.round_id
    lock, go = threading.Lock(), threading.Event()
    refusals: list[str] = []

    def send(name: str) -> None:
        go.wait(timeout=10)  # released together, so the slips really race
        try:
            [view] = scene.adapter.place_bets(scene.players[name], round_id, [(code, amount)])
        except Refused as refused:
            with lock:
                refusals.append(f"{name}: {refused}")
            return
        with lock:
            scene.bets.append(PlacedBet(label, code, amount, name, view))

    jobs = [name for name in scene.players for _ in range(int(slips))]
    with ThreadPoolExecutor(max_workers=32) as pool:
        futures = [pool.submit(send, name) for name in jobs]
        go.set()
        for future in futures:
            future.result()
    scene.refusals = refusals


@then("every accepted bet is settled")
def every_accepted_bet_settled(scene: Scene) -> None:
    view = scene.refresh_round()
    by_id = {b.bet_id: b for b in view.bets}
    unknown = [i for i, b in by_id.items() if b.settlement_unshown]
    if unknown:  # a live table's stream showed no settlement of them: nothing to judge
        attach_text(
            f"{len(unknown)} bets show no settlement (e.g. {unknown[:5]}): not judged here",
            name="bets not shown settled",
            attachment_type=allure.attachment_type.TEXT,
        )
        return
    unsettled = [
        p.view.bet_id
        for p in scene.bets
        if by_id.get(p.view.bet_id) is None or by_id[p.view.bet_id].status != "settled"
    ]
    scene.checks.check(
        not unsettled,
        (MONEY,),
        f"{len(unsettled)} accepted bets are not settled: {unsettled[:5]}",
        f"all {len(scene.bets)} accepted bets are settled",
    )


@then("every balance is its start minus its stakes plus its returns")
def balances_conserved(scene: Scene) -> None:
    """REG-MONEY-01, from the target's own answers: what it says it returned, not what the
    paytable says it should have (that is the paytable's clause, judged by the sweep)."""
    problems, house = [], Decimal(0)
    view = scene.round if scene.round and scene.round.state == "settled" else scene.refresh_round()
    shown = {b.bet_id: b for b in view.bets}
    unknown = {i for i, b in shown.items() if b.settlement_unshown}
    judged = 0
    for name, handle in scene.players.items():
        mine = [b for b in scene.bets if b.player == name]
        if any(b.view.bet_id in unknown for b in mine):
            continue  # what it returned is not known: its money cannot be reconciled here
        judged += 1
        returns = sum(
            (shown[b.view.bet_id].returned or Decimal(0) for b in mine if b.view.bet_id in shown),
            Decimal(0),
        )
        staked = sum((b.stake for b in mine), Decimal(0))
        house += staked - returns
        expected = scene.starting_balances[name] - staked + returns
        actual = scene.adapter.balance(handle)
        if actual != expected:
            problems.append(f"{name}: {actual}, expected {expected} ({len(mine)} bets)")
    if unknown:
        attach_text(
            f"{len(scene.players) - judged} players hold bets that show no settlement: their "
            "balances are not reconciled here",
            name="balances not reconciled",
            attachment_type=allure.attachment_type.TEXT,
        )
        if not judged:
            return
    scene.checks.check(
        not problems,
        (MONEY,),
        f"money is not conserved (house take {house}): " + "; ".join(problems[:10]),
        f"{judged} balances conserved (house take {house})",
    )


def announce_seed(what: str, scenario: str, name: str, tables: int = 1) -> tuple[int, str]:
    """The seed of a randomised scenario and the command that replays it (with the run's
    `tables` when they share it out), printed and shown as the Allure parameter `seed`."""
    seed = chosen_seed()
    replay = f"LIVECERT_MONEY_SEED={seed} pytest features -k '{scenario} and {name.split()[0]}'"
    if tables > 1:
        replay += f" --tables-in-play {tables}"
    print(f"{what} seed {seed}; replay with: {replay}")
    allure.dynamic.parameter("seed", seed)
    return seed, replay


# -- the randomised money machine -----------------------------------------------------------------

CI_SEED = 20261129


def chosen_seed() -> int:
    """The seed of a randomised scenario: LIVECERT_MONEY_SEED when set (a replay), a fixed one
    in CI (a red run is red again on the next push), else a fresh one (each local run explores)."""
    chosen = os.environ.get("LIVECERT_MONEY_SEED")
    if chosen:
        return int(chosen)
    return CI_SEED if os.environ.get("CI") else random.randrange(2**32)


@when(
    parsers.re(
        r"three players and the dealer play (?P<examples>\d+) random sessions of up to "
        r"(?P<steps>\d+) steps at a new (?P<name>Sic Bo|Xoc Dia) table"
    )
)
def money_machine(
    scene: Scene, examples: str, steps: str, name: str, facts, request: pytest.FixtureRequest
) -> None:
    """The sessions: one machine, or with several tables in play (--workers) as many
    independent machines as the run has tables, each on a table and players of its own, its
    share of the sessions, and its own seed (the first the scenario's, the next one more):
    Hypothesis runs independent machines in threads, never one machine in several. They play
    at this process's tables, and at those finished processes lend: when, not what."""
    scene.game = GAMES[name]
    tables = request.config.getoption("--tables-in-play")
    shares = session_shares(int(examples), run_tables(request.config))
    seed_value, replay = announce_seed("money machine", "random_sessions", name, len(shares))
    worlds = [
        MachineWorld(
            scene.adapter,
            scene.target.info,
            scene.game,
            scene.adapter.create_table(scene.game),
            ledger=scene.checks,
            reads_at_once=tables,
        )
        for _ in shares
    ]

    def run(index: int) -> MoneyBroken | None:
        try:
            run_money_machine(worlds[index], seed_value + index, shares[index], int(steps))
        except MoneyBroken as broken:
            return broken
        return None

    try:
        if len(worlds) == 1:
            broken = [run(0)]
        else:
            pool = TablePool(tables, lent_tables(request.config), "livecert-money")
            try:
                broken = pool.map(run, range(len(worlds)))  # a target's error raised
            finally:
                pool.shutdown(cancel_futures=True)
        scene.machine_failure = None
        refusals = sum(w.unexpected_refusals for w in worlds)
        if refusals:
            scene.machine_failure = (
                f"{refusals} action(s) refused that the rules allow (each judged on its own "
                f"clause; seed {seed_value}; replay with: {replay})"
            )
            scene.machine_clauses = ()
        first = next(((i, b) for i, b in enumerate(broken) if b is not None), None)
        if first is not None:
            index, failure = first
            scene.machine_failure = (
                f"{failure} (machine {index + 1} of {len(worlds)}, seed {seed_value + index}; "
                f"replay with: {replay})"
            )
            scene.machine_clauses = failure.clauses
    finally:
        whole = merged(worlds)
        scene.unproven.update(unproven_duties(whole))
        attach_text(
            "\n".join(whole.steps[-400:]),
            name=f"machine steps (seed {seed_value})",
            attachment_type=allure.attachment_type.TEXT,
        )
        facts.write(
            "money_machine",
            game=scene.game,
            seed=seed_value,
            machines=len(worlds),
            rounds=whole.rounds,
            bets=whole.bets,
            steps=len(whole.steps),
            failure=scene.machine_failure,
        )


@then("after every step each balance was its start minus its stakes plus its returns")
def machine_kept_money(scene: Scene) -> None:
    """Each check of the sessions was booked on its own clause as it ran; a failure of any of
    them fails the scenario (on those clauses only)."""
    if scene.machine_failure:
        failure = ClauseFailure(scene.machine_failure, scene.machine_clauses)
        failure.booked = True  # booked by the machine's ledger as it happened
        raise failure


# -- stakes from the whole range ------------------------------------------------------------------


@when(
    parsers.re(
        r"two players win on every paytable row at stakes near the maximum and are refunded "
        r"drawn stakes at a new (?P<name>Sic Bo|Xoc Dia) table"
    )
)
def whole_range(scene: Scene, name: str, facts) -> None:
    """The high-stake rounds, the refunded rounds and the records (range_rounds.py), seeded:
    the seed is printed with the command that replays it."""
    scene.game = GAMES[name]
    seed_value, replay = announce_seed("whole-range stakes", "whole_range", name)
    world = RangeWorld(
        scene.adapter, scene.target.info, scene.game, scene.checks, random.Random(seed_value)
    )
    try:
        play_whole_range(world)
    except ClauseFailure as failure:
        scene.machine_failure = f"{failure} (seed {seed_value}; replay with: {replay})"
        scene.machine_clauses = failure.clauses
    finally:
        scene.unproven.update(world.unproven)
        attach_text(
            "\n".join(world.steps),
            name=f"whole-range rounds (seed {seed_value})",
            attachment_type=allure.attachment_type.TEXT,
        )
        facts.write("whole_range", game=scene.game, seed=seed_value, failures=len(world.failures))


@then("every settlement, refund, balance and bet record row was as the rules say")
def whole_range_held(scene: Scene) -> None:
    """Each check was booked on its own clause as it ran; the first failure fails the scenario
    (on its clauses only)."""
    machine_kept_money(scene)

"""Declared table limits (REG-LIMIT-01), on a live round and on an instant one.

Each probe (livecert/harness/limits.py) is one slip at or just beyond a declared limit, tried in
a round of its own: a slip at a limit must be taken, and it is then settled and judged by the
paytable (so the largest stakes a table takes are settled too: a payout that changes with the
size of the stake is found); a slip beyond must be refused and move nothing. Where no limit is
declared the duty is not applicable, and the probes only try a cent and a very large stake.
"""

from collections.abc import Callable

import allure
from pytest_bdd import given, parsers, then, when

from livecert.adapters import Refused, RoundView
from livecert.adapters.errors import Unsupported
from livecert.harness.attempts import refusal
from livecert.harness.findings import ClauseFailure, HarnessError
from livecert.harness.forced_result import result_played
from livecert.harness.instant import play, require_instant, step_of
from livecert.harness.limits import LIMIT_DUTY, NOT_APPLICABLE, Probe, balance_for, plan_probes
from livecert.harness.settlement_check import SETTLE_DUTY, judge_slip
from livecert.harness.sweep import offered_codes
from livecert.harness.vocabulary import paytable
from livecert.suite.fixtures.attachments import attach_text
from livecert.suite.fixtures.scene import DEFAULT_PLAYER, Scene
from livecert.suite.steps.rounds import DEFAULT_RESULT, GAMES

PROBE_CODES = ("BIG", "SMALL", "ODD", "EVEN")  # one code per bet of a slip, in this order
Tried = tuple[RoundView | None, Refused | None]


def _probes(scene: Scene) -> list[Probe]:
    info = scene.target.info
    offered = set(offered_codes(scene.adapter, paytable(scene.game)))
    codes = [c for c in PROBE_CODES if c in offered]
    unread = scene.target.declared.reason(f"limits.{scene.game}")
    if unread:  # sent outside its schema (CONTRACT-02): kept for stakes, never judged here
        raise Unsupported("judge the declared limits", unread)
    limits = info.limits.get(scene.game)
    if not limits or not limits.declared():
        scene.unproven[LIMIT_DUTY] = NOT_APPLICABLE.format(game=scene.game)
    else:
        problem = limits.problem()
        scene.checks.check(
            problem is None,
            (LIMIT_DUTY,),
            f"the declared limits of {scene.game} cannot be kept: {problem}",
            f"the declared limits of {scene.game} are consistent",
        )
    return plan_probes(limits, step_of(info.minor_unit), codes, "batch-bets" in info.capabilities)


@given(
    parsers.re(
        r"a player with enough balance for the declared limits of (?P<kind>a|an instant) "
        r"(?P<name>Sic Bo|Xoc Dia) table"
    )
)
def player_for_the_limits(scene: Scene, kind: str, name: str) -> None:
    scene.game = GAMES[name]
    if kind == "an instant":
        require_instant(scene.adapter, scene.target.info.capabilities)
        scene.own_table = scene.adapter.create_table(scene.game)
    scene.limit_probes = _probes(scene)
    scene.player(DEFAULT_PLAYER, balance_for(scene.limit_probes))


def _live(scene: Scene, probe: Probe) -> Tried:
    """The probe's slip in a round of its own, which then closes and takes the default result."""
    adapter = scene.adapter
    scene.round = None
    round_id = scene.open_round().round_id
    placed = []
    refused = refusal(
        lambda: placed.append(adapter.place_bets(scene.player(), round_id, probe.slip))
    )
    adapter.close_betting(round_id)
    settled = adapter.enter_result(round_id, DEFAULT_RESULT[scene.game])
    scene.round = settled
    return (settled if placed else None), refused


def _instant(scene: Scene, probe: Probe) -> Tried:
    tried = play(
        scene.adapter,
        DEFAULT_PLAYER,
        scene.player(),
        scene.table(),
        probe.slip,
        DEFAULT_RESULT[scene.game],
    )
    return tried.round, tried.refusal


def _try_every_probe(scene: Scene, attempt: Callable[[Scene, Probe], Tried]) -> None:
    info, table = scene.target.info, paytable(scene.game)
    outcome = tuple(DEFAULT_RESULT[scene.game])
    failures, lines = [], []
    for probe in scene.limit_probes:
        before = scene.adapter.balance(scene.player())
        with scene.adapter.beyond_limits():  # the probes' stakes are at and beyond them
            settled, refused = attempt(scene, probe)
        lines.append(f"{probe.describe()}: {'refused: ' + str(refused) if refused else 'taken'}")
        if not probe.take:
            after = scene.adapter.balance(scene.player())
            ok = refused is not None and after == before
            what = "was taken" if refused is None else f"moved the balance {before} to {after}"
            if ok:
                scene.checks.held((LIMIT_DUTY,), f"{probe.describe()} was refused: {refused}")
            else:
                failures.append(scene.checks.failed((LIMIT_DUTY,), f"{probe.describe()} {what}"))
            continue
        if refused is not None:
            if probe.limit:
                failures.append(
                    scene.checks.failed((LIMIT_DUTY,), f"{probe.describe()} was refused: {refused}")
                )
            else:  # a limit it keeps but does not declare: nothing to judge the stake on
                scene.unproven.setdefault(
                    SETTLE_DUTY, f"{probe.describe()} was refused ({refused}): not settled"
                )
            continue
        if probe.limit:
            scene.checks.held((LIMIT_DUTY,), f"{probe.describe()} was taken")
        failures += judge_slip(
            scene.checks,
            table,
            probe.slip,
            settled.bets if settled else (),
            outcome,
            info.minor_unit,
            info.rounding,
            result_played(settled) if settled else None,
        )
    scene.limit_lines = lines
    attach_text("\n".join(lines), "the slips at and beyond the limits", allure.attachment_type.TEXT)
    if failures:
        failure = ClauseFailure(
            "\n".join(str(f) for f in failures), [c for f in failures for c in f.clauses]
        )
        failure.booked = True
        raise failure


@when("the player tries each slip at and beyond the declared limits, each in a round of its own")
def probe_live(scene: Scene) -> None:
    _try_every_probe(scene, _live)


@when("the player plays a round with each slip at and beyond the declared limits")
def probe_instant(scene: Scene) -> None:
    _try_every_probe(scene, _instant)


@then(
    parsers.re(
        r"each slip at a limit was taken and settled by the paytable, and each beyond it was "
        r"refused moving nothing"
    )
)
def limits_kept(scene: Scene) -> None:
    """REG-LIMIT-01: where the table declares limits, a stake outside them is refused and a
    stake at them is taken. Each probe was judged as it was tried (a failure raised there); this
    only makes sure they ran: it books nothing, so no clause is credited for a slip merely tried."""
    if not scene.limit_lines:
        raise HarnessError("the scenario tried no slip at or beyond the limits before judging them")

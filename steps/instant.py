"""Instant rounds: the duties that need no live round, through the one request that bets, plays
and settles (capability `instant-round`).

Bad input is refused with a reason and moves nothing (REG-INPUT-01), no balance goes below zero
(REG-BAL-01), every balance reconciles with the rounds the target accepted, one at a time and at
the same moment (REG-MONEY-01), what each round returned is the paytable's (the row's clause and
REG-SETTLE-01), a player plays only for themselves (REG-ACCESS-01), and a slip sent twice with one
key is played once (REG-IDEMP-01). Every amount is judged from the target's own answers.
"""

import random
from decimal import Decimal

import allure
from pytest_bdd import given, parsers, then, when

from livecert.adapters.errors import Unsupported
from livecert.harness.findings import ClauseFailure, HarnessError
from livecert.harness.forced_result import result_played
from livecert.harness.instant import (
    InstantPlay,
    concurrent_plays,
    losing_outcome,
    play,
    random_outcome,
    random_slip,
    require_instant,
    stake_taken_as,
    stake_up_to,
    step_of,
    winning_outcome,
)
from livecert.harness.read_balances import below_zero as read_below_zero
from livecert.harness.read_balances import (
    not_below_zero,
    over_the_balance_read,
    plain_total,
    surplus,
)
from livecert.harness.settlement_check import SETTLE_DUTY, judge_slip
from livecert.harness.sweep import offered_codes
from livecert.harness.vocabulary import paytable, selection_code
from livecert.suite.fixtures.attachments import attach_text
from livecert.suite.fixtures.scene import DEFAULT_PLAYER, Scene
from livecert.suite.steps.bad_input import balance_unmoved, slip_demand
from livecert.suite.steps.money import announce_seed, chosen_seed
from livecert.suite.steps.rounds import DEFAULT_RESULT, GAMES

INPUT = "REG-INPUT-01"
BALANCE = "REG-BAL-01"
MONEY = "REG-MONEY-01"
QUOTED = r'"(?P<{name}>[^"]*)"'
AMOUNT = r"(?P<{name}>\d+\.\d+)"
GAME = r"(?P<name>Sic Bo|Xoc Dia)"
SESSION_BALANCES = (Decimal("1000000.00"), Decimal("250.00"), Decimal("5.00"))


ANY_OFFERED = "a selection the table offers"
PREFERRED = ("BIG", "SMALL", "ODD", "EVEN")  # an even-money bet first, where offered


def slip_code(scene: Scene, label: str) -> str:
    """The selection a step names, or for "a selection the table offers" the first even-money
    one the target offers (else its first selection): where what is bet on is not the duty's
    question (who may play, a bad stake, rounds at once), a table without Big is judged too."""
    if label != ANY_OFFERED:
        return selection_code(label, scene.game)
    offered = offered_codes(scene.adapter, paytable(scene.game))
    code = next((c for c in PREFERRED if c in offered), offered[0] if offered else None)
    if code is None:
        raise Unsupported("play a round", "the target offers no selection of this game")
    return code


FROM_BALANCE = (
    "the target reports no settlement per round (the mapping reads it from the balance): what a "
    "round returned is the balance's change, so the balances cannot be reconciled with anything "
    "but themselves"
)


def _read_from_balance(scene: Scene) -> bool:
    """True where each round's settlement is the balance's change (REG-MONEY-01 unprovable)."""
    settles = getattr(scene.adapter, "settles_from_balance", None)
    return bool(settles and settles("play_round"))


def _instant_table(scene: Scene, name: str) -> None:
    scene.game = GAMES[name]
    require_instant(scene.adapter, scene.target.info.capabilities)
    scene.own_table = scene.adapter.create_table(scene.game)


@given(
    parsers.re(
        rf"a player with a balance of {AMOUNT.format(name='amount')} at an instant {GAME} table"
    )
)
def player_at_instant_table(scene: Scene, amount: str, name: str) -> None:
    _instant_table(scene, name)
    scene.player(DEFAULT_PLAYER, Decimal(amount))


@given(
    parsers.re(
        rf"(?P<count>\d+) players with a balance of {AMOUNT.format(name='amount')} each at an "
        rf"instant {GAME} table"
    )
)
def players_at_instant_table(scene: Scene, count: str, amount: str, name: str) -> None:
    _instant_table(scene, name)
    for index in range(int(count)):
        scene.player(f"P{index + 1}", Decimal(amount))


def play_here(
    scene: Scene,
    slip,
    outcome=None,
    who: str = DEFAULT_PLAYER,
    key=None,
    adapter=None,
    handle=None,
    must_refuse: bool = False,
) -> InstantPlay:
    """An instant round at the scene's table, kept among the scene's plays; `adapter` and
    `handle` (default: the scene's, and `who`'s) send it with another credential."""
    tried = play(
        adapter or scene.adapter,
        who,
        handle or scene.players[who],
        scene.table(),
        slip,
        outcome or DEFAULT_RESULT[scene.game],
        key,
        must_refuse,
    )
    scene.instant_plays.append(tried)
    return tried


def _bets_on_record(scene: Scene) -> int | None:
    """How many bets the player's record holds, or None when the target has no record to read."""
    try:
        return len(scene.adapter.bet_record(scene.player()).bets)
    except Unsupported:
        return None


def _attempt(scene: Scene, slip, outcome=None) -> None:
    """Note the balance and the record, try the round, and keep the refusal (or its absence)."""
    before = scene.balance_before_attempt = scene.adapter.balance(scene.player())
    scene.bets_before_attempt = _bets_on_record(scene)
    # a slip over the balance must be refused for REG-BAL-01 too; any other bad slip for
    # REG-INPUT-01 only (taking it breaks no balance unless the balance falls below zero)
    scene.refused_by = (INPUT, BALANCE) if plain_total(slip) > before else (INPUT,)
    limits = scene.target.info.limits.get(scene.game)
    sent = over_the_balance_read(scene.adapter, scene.player(), slip, before, limits)
    # only where a written word demands its refusal ("+10.00" by notation, say): else not
    # testable there, with why (stake_notation.py)
    demanded = slip_demand(scene, sent, before)
    attach_text(f"its refusal is demanded by {demanded}", "why it must be refused")
    scene.refusal = play_here(scene, sent, outcome, must_refuse=True).refusal


@when(
    parsers.re(
        rf"the player tries to play a round with {AMOUNT.format(name='stake')} on the selection "
        + QUOTED.format(name="code")
    )
)
def round_on_raw_code(scene: Scene, stake: str, code: str) -> None:
    _attempt(scene, [(code, Decimal(stake))])


@when(
    parsers.re(
        r"the player tries to play a round with a stake of "
        + QUOTED.format(name="stake")
        + r" on (?P<label>.+)"
    )
)
def round_with_raw_stake(scene: Scene, stake: str, label: str) -> None:
    _attempt(scene, [(slip_code(scene, label), stake)])


@when(
    parsers.re(
        rf"the player tries to play a round with {AMOUNT.format(name='first')} and "
        rf"{AMOUNT.format(name='second')} on (?P<label>.+), on a result where (?P=label) loses"
    )
)
def round_over_the_balance(scene: Scene, first: str, second: str, label: str) -> None:
    code = selection_code(label, scene.game)
    outcome = losing_outcome(paytable(scene.game), [code])
    _attempt(scene, [(code, Decimal(first)), (code, Decimal(second))], outcome)


@when(
    parsers.re(
        rf"the player tries to play a round with {AMOUNT.format(name='good')} on (?P<label>.+) "
        r"and " + QUOTED.format(name="stake") + r" on the selection " + QUOTED.format(name="code")
    )
)
def round_with_a_bad_bet(scene: Scene, good: str, label: str, stake: str, code: str) -> None:
    first = slip_code(scene, label)
    _attempt(scene, [(first, Decimal(good)), (code, stake), (first, Decimal("1.00"))])


@when(
    parsers.re(
        rf"the player tries to play a round with {AMOUNT.format(name='good')} on (?P<label>.+) "
        r"and " + QUOTED.format(name="stake") + r" on (?P<other>.+), on a result where "
        r"(?P=other) wins"
    )
)
def round_with_a_negative_winner(
    scene: Scene, good: str, label: str, stake: str, other: str
) -> None:
    """A negative stake beside a larger one (the slip's total positive and within the
    balance), on a result where the negative bet wins and the other loses: taken, the slip
    takes the balance below zero (REG-BAL-01, read after it) as well as breaking REG-INPUT-01."""
    first, second = selection_code(label, scene.game), selection_code(other, scene.game)
    outcome = winning_outcome(paytable(scene.game), second, first)
    _attempt(scene, [(first, Decimal(good)), (second, stake)], outcome)


@when("the player tries to play a round with an empty bet slip")
def round_with_empty_slip(scene: Scene) -> None:
    _attempt(scene, [])


@then("the round is refused with a reason and nothing moves")
def round_refused_and_nothing_moves(scene: Scene) -> None:
    """REG-INPUT-01: refused with a reason, no bet added, no balance moved; REG-BAL-01: a slip
    over the balance refused, and no balance below zero. What moved is judged first."""
    after = scene.adapter.balance(scene.player())
    taken = stake_taken_as(
        scene.instant_plays[-1], scene.balance_before_attempt, after, scene.target.info.minor_unit
    )
    balance_unmoved(scene, after, scene.refused_by, seen=taken)
    if scene.bets_before_attempt is not None:  # no record to read: the balance alone judges
        bets = _bets_on_record(scene)
        scene.checks.check(
            bets == scene.bets_before_attempt,
            (INPUT,),
            f"the player's bet record went from {scene.bets_before_attempt} to {bets} bets",
            f"the player's bet record stayed at {bets} bets",
        )
    tried = scene.instant_plays[-1]
    refusal = tried.refusal
    scene.checks.check(
        refusal is not None and bool(refusal.message) and refusal.code not in ("", "None"),
        scene.refused_by,
        f"the target played it: {tried.describe()}{f'; {taken}' if taken else ''}"
        if refusal is None
        else f"the refusal gives no reason: {refusal}",
        f"refused with a reason: {refusal}",
    )


# -- random sessions ------------------------------------------------------------------------------


@when(
    parsers.re(rf"three players play (?P<rounds>\d+) random instant rounds at a new {GAME} table")
)
def random_instant_sessions(scene: Scene, rounds: str, name: str, facts) -> None:
    _instant_table(scene, name)
    seed, replay = announce_seed("instant sessions", "random_instant_sessions", name)
    rng = random.Random(seed)
    table = paytable(scene.game)
    info = scene.target.info
    codes = offered_codes(scene.adapter, table)
    balances = {}
    for index, start in enumerate(SESSION_BALANCES):
        balances[f"P{index + 1}"] = start
        scene.player(f"P{index + 1}", start)
    unit = step_of(info.minor_unit)
    # a target taking one bet per request plays a slip as rounds of one bet each: a slip over
    # the balance would then be refused only in part, so each slip holds one bet there
    most_bets = 4 if "batch-bets" in info.capabilities else 1
    derived = _read_from_balance(scene)
    tried_over = 0  # slips over the balance played: REG-BAL-01's refusal, tried
    refused_allowed, mismatches = [], []
    try:
        for _ in range(int(rounds)):
            players = [p for p, b in balances.items() if b >= unit]
            if not players:
                break
            who = rng.choice(players)
            over = rng.random() < 0.125
            limits = info.limits.get(scene.game)
            # over the balance the account really holds, where it is read (read_balances.py);
            # with no maximum declared, a slip that large may be refused for a limit: none
            extra = surplus(scene.adapter, scene.players[who])
            if extra and not (limits and (limits.max_bet or limits.max_slip)):
                over = False
            room = balances[who] + (extra if over else 0)
            slip = random_slip(rng, codes, room, info.minor_unit, over, limits, most_bets=most_bets)
            if not slip:
                continue
            tried_over += over
            tried = play_here(scene, slip, random_outcome(rng, table), who)
            actual = scene.adapter.balance(scene.players[who])
            expected = balances[who] - tried.staked + tried.returned
            what = f"{tried.describe()} (seed {seed}; replay with: {replay})"
            if over:
                scene.checks.check(
                    not tried.accepted,
                    (BALANCE,),
                    f"a slip over the balance {balances[who]} was played: {what}",
                    f"a slip over the balance {balances[who]} was refused",
                )
            elif not tried.accepted:
                refused_allowed.append(tried.describe())
            if tried.accepted:
                _judge_settlements(scene, tried, mismatches)
            if derived:  # the returns are the balance's change: nothing to reconcile
                scene.unproven[MONEY] = FROM_BALANCE
            else:
                scene.checks.check(
                    actual == expected,
                    (MONEY,),
                    f"{who}'s balance is {actual}, expected {expected}: {what}",
                    f"{who}'s balance {actual} is its start minus its stakes plus its returns",
                )
            not_below_zero(scene.checks, (BALANCE,), scene.adapter, scene.players[who], actual)
            balances[who] = actual
    finally:
        attach_text(
            "\n".join(p.describe() for p in scene.instant_plays),
            name=f"instant rounds (seed {seed})",
            attachment_type=allure.attachment_type.TEXT,
        )
        facts.write(
            "instant_sessions",
            game=scene.game,
            seed=seed,
            rounds=len(scene.instant_plays),
            accepted=sum(1 for p in scene.instant_plays if p.accepted),
            refused_allowed=len(refused_allowed),
        )
    if not tried_over:
        scene.unproven.setdefault(
            BALANCE,
            "no slip over the balance was played (a lent account's balance held is over what a "
            "slip may stake where the table declares no maximum)",
        )
    if refused_allowed:
        scene.unproven.setdefault(
            MONEY,
            f"the target refused {len(refused_allowed)} round(s) the rules allow, such as "
            f"{refused_allowed[0]}; the balances were judged on the rounds it played",
        )
    if mismatches:
        failure = ClauseFailure(
            f"{len(mismatches)} bets settled other than the paytable (seed {seed}; replay with: "
            f"{replay}):\n" + "\n".join(str(f) for f in mismatches[:20]),
            [c for r in mismatches for c in r.clauses],
        )
        failure.booked = True  # each row was judged as it came
        raise failure


def _judge_settlements(scene: Scene, tried: InstantPlay, mismatches: list) -> None:
    """Each bet of an accepted round, settled as the paytable says (the row's clause and
    REG-SETTLE-01); a bet the answer leaves out or unsettled is a settlement finding."""
    info, table = scene.target.info, paytable(scene.game)
    unsettled = tried.unsettled()
    scene.checks.check(
        not unsettled,
        (SETTLE_DUTY,),
        f"the round does not report {', '.join(unsettled)} settled: {tried.describe()}",
        "every bet of the round is reported settled",
    )
    mismatches += judge_slip(
        scene.checks,
        table,
        tried.slip,
        tried.round.bets,
        tried.outcome,
        info.minor_unit,
        info.rounding,
        result_played(tried.round),
    )


@then("after every round each balance was its start minus its stakes plus its returns")
def sessions_kept_money(scene: Scene) -> None:
    """Each round was judged as it was played (a failure raised there). This books nothing, so
    that no clause is credited for rounds merely played; it only makes sure some were."""
    if not scene.instant_plays:
        raise HarnessError("the scenario played no instant round before judging the balances")


# -- rounds at the same moment --------------------------------------------------------------------


def _stakes(rng: random.Random, low: Decimal, high: Decimal, minor_unit: int) -> Decimal:
    unit = step_of(minor_unit)
    return low + stake_up_to(rng, high - low + unit, minor_unit) - unit


def _logins(scene: Scene, name: str, most: int = 4) -> list:
    """The player's sessions for rounds of one player at the same moment: where the player is
    an account that may hold several logins at once (accounts.logins_at_once), up to `most`, so
    the rounds race as from several devices; otherwise the player's one session."""
    logins = [scene.players[name]]
    another = getattr(scene.adapter, "another_login", None)
    while another is not None and len(logins) < most:
        try:
            logins.append(another(scene.players[name]))
        except Unsupported:
            break
    return logins


def _race(scene: Scene, names: list[str], rounds: int, low: str, high: str, label: str) -> None:
    code = slip_code(scene, label)
    rng = random.Random(chosen_seed())
    table, minor_unit = paytable(scene.game), scene.target.info.minor_unit
    jobs = []
    for name in names:
        logins = _logins(scene, name) if len(names) == 1 else [scene.players[name]]
        for index in range(rounds):
            stake = _stakes(rng, Decimal(low), Decimal(high), minor_unit)
            outcome = random_outcome(rng, table)
            login = logins[index % len(logins)]
            jobs.append(
                lambda n=name, h=login, s=stake, o=outcome: play(
                    scene.adapter, n, h, scene.table(), [(code, s)], o
                )
            )
    scene.instant_plays.extend(concurrent_plays(jobs))
    attach_text(
        "\n".join(p.describe() for p in scene.instant_plays),
        name="instant rounds at the same moment",
        attachment_type=allure.attachment_type.TEXT,
    )


@when(
    parsers.re(
        rf"the player plays (?P<rounds>\d+) instant rounds of {AMOUNT.format(name='low')} to "
        rf"{AMOUNT.format(name='high')} on (?P<label>.+) at the same moment"
    )
)
def one_player_at_once(scene: Scene, rounds: str, low: str, high: str, label: str) -> None:
    _race(scene, [DEFAULT_PLAYER], int(rounds), low, high, label)


@when(
    parsers.re(
        rf"each player plays (?P<rounds>\d+) instant rounds of {AMOUNT.format(name='low')} to "
        rf"{AMOUNT.format(name='high')} on (?P<label>.+) at the same moment"
    )
)
def every_player_at_once(scene: Scene, rounds: str, low: str, high: str, label: str) -> None:
    _race(scene, list(scene.players), int(rounds), low, high, label)


@then("every accepted round is settled")
def every_accepted_round_settled(scene: Scene) -> None:
    accepted = [p for p in scene.instant_plays if p.accepted]
    if _read_from_balance(scene):
        # a bet read from the balance is settled by its reading: only a round the target shows
        # unsettled says anything (a failure; nothing held is booked)
        open_rounds = [p.describe() for p in accepted if p.round.state != "settled"]
        if open_rounds:
            raise scene.checks.failed(
                (MONEY,), f"{len(open_rounds)} accepted rounds are not settled: {open_rounds[:5]}"
            )
        scene.unproven[MONEY] = FROM_BALANCE
        return
    unsettled = [p.describe() for p in accepted if p.unsettled()]
    scene.checks.check(
        not unsettled,
        (MONEY,),
        f"{len(unsettled)} accepted rounds are not reported settled: {unsettled[:5]}",
        f"all {len(accepted)} accepted rounds are settled",
    )
    if len(accepted) < len(scene.instant_plays):
        refused = [p.describe() for p in scene.instant_plays if not p.accepted]
        scene.unproven.setdefault(
            MONEY,
            f"the target refused {len(refused)} of {len(scene.instant_plays)} rounds played at "
            f"once, such as {refused[0]}; the balances were judged on the rounds it played",
        )


def below_zero(scene: Scene, balances: dict[str, Decimal]) -> ClauseFailure | None:
    """REG-BAL-01 on every balance read (`balances`, by player; read_balances.below_zero):
    none held is credited where REG-BAL-01 is not tagged."""
    read = [(scene.players[name], balance) for name, balance in balances.items()]
    return read_below_zero(scene.checks, (BALANCE,), scene.adapter, read)


@then("every balance is its start minus its stakes plus the returns of its rounds")
def instant_balances_conserved(scene: Scene) -> None:
    """REG-MONEY-01 from the target's own answers: what it says each round returned; and
    REG-BAL-01 on every balance read."""
    balances = {name: scene.adapter.balance(h) for name, h in scene.players.items()}
    below = below_zero(scene, balances)
    if _read_from_balance(scene):
        scene.unproven[MONEY] = FROM_BALANCE
        if below is not None:
            raise below
        return
    problems = []
    for name in scene.players:
        mine = [p for p in scene.instant_plays if p.player == name]
        staked = sum((p.staked for p in mine), Decimal(0))
        returned = sum((p.returned for p in mine), Decimal(0))
        expected = scene.starting_balances[name] - staked + returned
        actual = balances[name]
        if actual != expected:
            played = sum(1 for p in mine if p.accepted)
            problems.append(f"{name}: {actual}, expected {expected} ({played} rounds played)")
    scene.checks.check(
        not problems,
        (MONEY,),
        "money is not conserved: " + "; ".join(problems[:10]),
        f"{len(scene.players)} balances reconcile with their rounds",
    )
    if below is not None:
        raise below

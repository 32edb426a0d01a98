"""Steps of a round's life that both games share: the betting window, re-shakes, withdrawals,
pauses, cancellations, disconnections and the bet record.

A failed check here is evidence against the scenario's own clause tags (the betting window,
malfunction, disconnection clauses), so these steps raise ClauseFailure with those tags.
"""

import re
import time
import uuid
from datetime import datetime
from decimal import Decimal

import pytest
from pytest_bdd import given, parsers, then, when

from fixtures.scene import Scene
from livecert.adapters import Refused
from livecert.harness.attempts import refusal
from livecert.harness.dealer import open_round
from livecert.harness.findings import ClauseFailure
from livecert.harness.vocabulary import paytable, selection_code

CLAUSE = re.compile(r"^(SB|XD|TBL|REG)-[A-Z]+-\d\d$")
GAMES = {"Sic Bo": "sicbo", "Xoc Dia": "xocdia"}
RESHAKE_REASONS = {
    "the dice overlap": "dice-overlap",
    "a die is not flat": "die-not-flat",
    "the dice tumbled fewer than three times": "too-few-tumbles",
    "items fell": "items-fell",
    "a token is standing": "standing-token",
}
DEFAULT_RESULT = {"sicbo": (1, 2, 3), "xocdia": ("w", "r", "w", "r")}


@given("betting has ended")
@when("betting ends")
def betting_ends(scene: Scene) -> None:
    scene.close_betting()


@when(parsers.re(rf"the dealer re-shakes because (?P<why>{'|'.join(RESHAKE_REASONS)})"))
def dealer_reshakes(scene: Scene, why: str) -> None:
    scene.close_betting()
    scene.round = scene.adapter.record_reshake(scene.round.round_id, RESHAKE_REASONS[why])


def _clauses(request: pytest.FixtureRequest, relevant: tuple[str, ...] = ()) -> list[str]:
    """What a failed lifecycle check is evidence against: the scenario's clause tags that the
    check is about (`relevant`), or all of its tags when none of them is."""
    tags = [m.name for m in request.node.iter_markers() if CLAUSE.match(m.name)]
    chosen = [t for t in tags if t in relevant]
    return chosen or tags


REFUNDS = ("TBL-MAL-03", "XD-VOID-01", "XD-VOID-02")
RECORD = ("TBL-DISC-03", "REG-RECALL-01")
BETS_STAND = (
    "TBL-DISC-01",
    "TBL-DISC-02",
    "SB-RND-05",
    "SB-RND-06",
    "XD-RND-02",
    "XD-RND-03",
    "XD-RND-04",
)
LATE_BETS = (
    "SB-RND-01",
    "XD-RND-01",
    "SB-RND-05",
    "SB-RND-06",
    "XD-RND-02",
    "XD-RND-03",
    "XD-RND-04",
    "REG-COMMIT-01",
)
PAUSED = ("TBL-MAL-01",)
RESUMED = ("TBL-MAL-02",)
COUNTDOWN = ("SB-RND-01", "XD-RND-01")
STOPS = ("pause", "resume")
TIME_TOLERANCE_MS = 5  # both times come from the target's clock, to the millisecond


@then(parsers.re(r"the round is (?P<state>void|cancelled)"))
def round_is(scene: Scene, state: str, request: pytest.FixtureRequest) -> None:
    actual = scene.refresh_round().state
    if actual != state:
        raise ClauseFailure(
            f"the round is {actual!r}, expected {state!r}", _clauses(request, REFUNDS)
        )


@then("every bet of every player is returned and nothing is paid")
def every_bet_returned(scene: Scene, request: pytest.FixtureRequest) -> None:
    expected_status = scene.round.state if scene.round.state in ("void", "cancelled") else "void"
    problems = []
    for placed in scene.bets:
        bet = scene.current_view(placed)
        if (bet.outcome, bet.win, bet.returned) != ("refund", Decimal("0.00"), placed.stake):
            problems.append(
                f"{placed.player}'s {placed.label} bet of {placed.stake}: {bet.status}/"
                f"{bet.outcome}, win {bet.win}, returned {bet.returned}"
            )
        elif bet.status != expected_status:
            problems.append(f"{placed.player}'s {placed.label} bet is {bet.status!r}")
    for name, handle in scene.players.items():
        balance = scene.adapter.balance(handle)
        if balance != scene.starting_balances[name]:
            problems.append(
                f"{name}'s balance is {balance}, expected {scene.starting_balances[name]} "
                "(every stake back, nothing paid)"
            )
    if problems:
        raise ClauseFailure(
            "not every bet was returned exactly: " + "; ".join(problems),
            _clauses(request, REFUNDS),
        )


@then(parsers.re(r"the bet record shows each bet of the round as (?P<status>void|cancelled)"))
def record_shows(scene: Scene, status: str, request: pytest.FixtureRequest) -> None:
    problems = []
    for name, handle in scene.players.items():
        record = {b.bet_id: b for b in scene.adapter.bet_record(handle, scene.round.round_id).bets}
        for placed in (b for b in scene.bets if b.player == name):
            bet = record.get(placed.view.bet_id)
            if bet is None:
                problems.append(f"{name}'s {placed.label} bet is missing from the bet record")
            elif (bet.status, bet.returned) != (status, placed.stake):
                problems.append(
                    f"{name}'s {placed.label} bet is recorded {bet.status}, returned {bet.returned}"
                )
    if problems:
        raise ClauseFailure("; ".join(problems), _clauses(request, RECORD))


@then("the bets stand and nothing is settled")
def bets_stand(scene: Scene, request: pytest.FixtureRequest) -> None:
    problems = []
    for placed in scene.bets:
        view = scene.adapter.get_round(scene.round.round_id, scene.players[placed.player])
        bet = view.bet(placed.view.bet_id)
        if bet.status != "open":
            problems.append(f"{placed.label} is {bet.status}/{bet.outcome}")
    if problems:
        raise ClauseFailure(
            "bets did not stand: " + "; ".join(problems), _clauses(request, BETS_STAND)
        )


# -- the betting window ---------------------------------------------------------------------------


@given(
    parsers.re(
        r"a (?P<name>Sic Bo|Xoc Dia) round opens with a countdown of (?P<seconds>[\d.]+) seconds?"
    )
)
def round_opens_with_countdown(scene: Scene, name: str, seconds: str) -> None:
    scene.game = GAMES[name]
    scene.open_round(countdown_ms=int(Decimal(seconds) * 1000))


@then(
    parsers.re(
        r"the round shows its betting period ending (?P<seconds>[\d.]+) seconds? after it opened"
    )
)
def betting_period_shown(scene: Scene, seconds: str, request: pytest.FixtureRequest) -> None:
    shown = scene.open_round()
    length = _ms(shown.betting_ends_at) - _ms(shown.opened_at)
    wanted = int(Decimal(seconds) * 1000)
    if abs(length - wanted) > TIME_TOLERANCE_MS:
        raise ClauseFailure(
            f"the round opened at {shown.opened_at} with betting ending at "
            f"{shown.betting_ends_at}: {length} ms, not the {wanted} ms countdown the dealer set",
            _clauses(request, COUNTDOWN),
        )


@then("the betting period goes on for the time that was left when it was paused")
def countdown_continues(scene: Scene, request: pytest.FixtureRequest) -> None:
    """Read on the target's own clock: its pause and resume events and the betting ends."""
    shown = scene.refresh_round()
    at = {e.get("type"): _ms(e.get("at")) for e in shown.events if e.get("type") in STOPS}
    before = scene.before_pause
    left = _ms(before.betting_ends_at) - at["pause"]
    now_left = _ms(shown.betting_ends_at) - at["resume"]
    if abs(now_left - left) > TIME_TOLERANCE_MS:
        raise ClauseFailure(
            f"{left} ms of betting were left when the round was paused, but after resuming it "
            f"ends {now_left} ms after the resume ({shown.betting_ends_at})",
            _clauses(request, RESUMED),
        )


def _ms(stamp: str | None) -> int:
    if not stamp:
        raise ClauseFailure("the round does not show this time", ["REG-RECALL-01"])
    return int(datetime.fromisoformat(stamp).timestamp() * 1000)


@when("the countdown runs out")
def countdown_runs_out(scene: Scene) -> None:
    """Wait (bounded) until the target itself reports the betting period over."""
    round_view = scene.open_round()
    deadline = time.monotonic() + scene.countdown_ms / 1000 + 5
    while time.monotonic() < deadline:
        round_view = scene.refresh_round()
        if round_view.state != "betting":
            return
        time.sleep(0.1)
    raise ClauseFailure(
        f"the round is still taking bets {scene.countdown_ms / 1000 + 5:g} s after a countdown "
        f"of {scene.countdown_ms / 1000:g} s",
        ["SB-RND-01" if scene.game == "sicbo" else "XD-RND-01"],
    )


@when("the dealer closes betting")
def dealer_closes(scene: Scene) -> None:
    scene.close_betting()


@when("the dealer enters a result")
def dealer_enters_a_result(scene: Scene) -> None:
    scene.enter_result(DEFAULT_RESULT[scene.game])


@when(
    parsers.re(
        r"the player tries to bet (?P<stake>\d+\.\d+) on "
        r'(?!the selection ")(?!a round that was never opened)(?P<label>.+)'
    )
)
def player_tries_to_bet(scene: Scene, stake: str, label: str) -> None:
    scene.balance_before_attempt = scene.adapter.balance(scene.player())
    scene.refusal = refusal(lambda: scene.place(label, Decimal(stake)))


@when(parsers.re(r"the player tries to bet (?P<stake>\d+\.\d+) on a round that was never opened"))
def bet_on_unknown_round(scene: Scene, stake: str) -> None:
    handle = scene.player()
    scene.balance_before_attempt = scene.adapter.balance(handle)
    code = paytable(scene.game).selections[0].code
    ghost = f"never-opened-{uuid.uuid4().hex[:8]}"
    scene.refusal = refusal(
        lambda: scene.adapter.place_bets(handle, ghost, [(code, Decimal(stake))])
    )


@then("the bet is refused and the balance is unchanged")
def bet_refused(scene: Scene, request: pytest.FixtureRequest) -> None:
    balance = scene.adapter.balance(scene.player())
    expected = scene.balance_before_attempt
    if scene.refusal is None:
        raise ClauseFailure(
            f"the target took a bet outside the betting period (round {scene.round_state()})",
            _clauses(request, LATE_BETS),
        )
    if balance != expected:
        raise ClauseFailure(
            f"a refused bet moved the balance to {balance}, expected {expected}",
            _clauses(request, LATE_BETS),
        )


@then("the bet is taken")
def bet_taken(scene: Scene) -> None:
    assert scene.refusal is None, f"the bet was refused: {scene.refusal}"
    shown = scene.bets[-1].view.status if scene.bets else "(no bet recorded)"
    assert shown == "open", f"the bet was taken but shows status {shown!r}, not 'open'"


@then(parsers.re(r"a new bet of (?P<stake>\d+\.\d+) on (?P<label>.+) is refused"))
def new_bet_refused(scene: Scene, stake: str, label: str, request: pytest.FixtureRequest):
    code = selection_code(label, scene.game)
    handle = scene.player("latecomer", Decimal("100.00"))
    round_id = scene.round.round_id
    if refusal(lambda: scene.adapter.place_bets(handle, round_id, [(code, Decimal(stake))])):
        balance = scene.adapter.balance(handle)
        assert balance == Decimal("100.00"), f"a refused bet moved the balance to {balance}"
        return
    raise ClauseFailure(
        f"a bet on {label} was accepted while the round was {scene.round_state()}",
        _clauses(request, PAUSED if scene.round_state() == "paused" else LATE_BETS),
    )


@then(parsers.re(r"a new bet of (?P<stake>\d+\.\d+) on (?P<label>.+) is taken"))
def new_bet_taken(scene: Scene, stake: str, label: str, request: pytest.FixtureRequest):
    try:
        scene.place(label, Decimal(stake))
    except Refused as refused:
        raise ClauseFailure(
            f"a bet during the betting period was refused: {refused}",
            _clauses(request, ("TBL-MAL-02", "SB-RND-01", "XD-RND-01")),
        ) from None


# -- withdrawal -----------------------------------------------------------------------------------


@when(parsers.re(r"the player tries to withdraw the (?P<label>.+) bet"))
def try_withdraw(scene: Scene, label: str) -> None:
    placed = scene.bet(label)
    scene.refusal = refusal(
        lambda: scene.adapter.withdraw_bet(scene.players[placed.player], placed.view.bet_id)
    )


@then("the withdrawal is refused")
def withdrawal_refused(scene: Scene, request: pytest.FixtureRequest) -> None:
    if scene.refusal is None:
        raise ClauseFailure(
            "the target let a player withdraw a placed bet", _clauses(request, ("SB-RND-04",))
        )


# -- malfunction ----------------------------------------------------------------------------------


@when("the dealer pauses the round for a malfunction")
def dealer_pauses(scene: Scene) -> None:
    scene.before_pause = scene.open_round()
    scene.round = scene.adapter.dealer_action(
        scene.before_pause.round_id, "pause", "malfunction: the supervisor is informed"
    )


@when("the dealer resumes the round")
def dealer_resumes(scene: Scene) -> None:
    scene.round = scene.adapter.dealer_action(scene.round.round_id, "resume")


@when("the dealer cancels the round")
def dealer_cancels(scene: Scene) -> None:
    scene.round = scene.adapter.dealer_action(
        scene.open_round().round_id, "cancel", "malfunction: no immediate resolution"
    )


@then("a result is refused while the round is paused")
def result_refused_while_paused(scene: Scene, request: pytest.FixtureRequest) -> None:
    round_id = scene.round.round_id
    if refusal(lambda: scene.adapter.enter_result(round_id, DEFAULT_RESULT[scene.game])):
        return
    shown = scene.adapter.get_round(round_id)
    raise ClauseFailure(
        f"a paused round took a result (it is now {shown.state!r})", _clauses(request, PAUSED)
    )


# -- disconnection --------------------------------------------------------------------------------


@when(parsers.re(r"(?:the player|player (?P<name>[A-Z])) disconnects"))
def player_disconnects(scene: Scene, name: str | None) -> None:
    scene.adapter.disconnect(scene.player(name or "player"))


@when(parsers.re(r"(?:the player|player (?P<name>[A-Z])) reconnects"))
def player_reconnects(scene: Scene, name: str | None) -> None:
    scene.adapter.connect(scene.player(name or "player"))


@then("the bet record shows each bet with its outcome and payout")
def record_shows_outcomes(scene: Scene, request: pytest.FixtureRequest) -> None:
    record = scene.adapter.bet_record(scene.player(), scene.round.round_id)
    by_id = {b.bet_id: b for b in record.bets}
    problems = []
    for placed in scene.bets:
        bet = by_id.get(placed.view.bet_id)
        expected = scene.expected(placed)
        shown = (
            None
            if bet is None
            else (
                bet.round_id,
                bet.selection,
                bet.stake,
                bet.status,
                bet.outcome,
                bet.win,
                bet.returned,
            )
        )
        wanted = (
            scene.round.round_id,
            placed.code,
            placed.stake,
            "settled",
            expected.outcome,
            expected.win,
            expected.returned,
        )
        if shown != wanted:
            problems.append(f"{placed.label}: the record shows {shown}, expected {wanted}")
    everything = scene.adapter.bet_record(scene.player())
    foreign = [b.bet_id for b in everything.bets if b.player_id != scene.player().player_id]
    if foreign:
        problems.append(f"the record shows other players' bets {foreign[:5]}")
    balance_problems = []
    summary = record.round(scene.round.round_id)
    balance = scene.adapter.balance(scene.player())
    staked = sum((b.stake for b in scene.bets), Decimal(0))
    if summary is None:
        balance_problems.append("the record has no entry for the round")
    elif (summary.staked, summary.balance_before, summary.balance_after) != (
        staked,
        scene.starting_balances["player"],
        balance,
    ):
        balance_problems.append(
            f"the round shows staked {summary.staked}, balance {summary.balance_before} -> "
            f"{summary.balance_after}; expected {staked}, "
            f"{scene.starting_balances['player']} -> {balance}"
        )
    if problems:
        raise ClauseFailure("; ".join(problems + balance_problems), _clauses(request, RECORD))
    if balance_problems:  # the bets are right: the round's balances break the recall duty only
        raise ClauseFailure("; ".join(balance_problems), _clauses(request, ("REG-RECALL-01",)))


# -- the statistics chart -------------------------------------------------------------------------


@given(parsers.re(r"a new (?P<name>Sic Bo|Xoc Dia) table"))
def new_table(scene: Scene, name: str) -> None:
    """A table of the scenario's own, so the chart holds only the rounds it plays."""
    scene.game = GAMES[name]
    scene.own_table = scene.adapter.create_table(scene.game)


def _play_rounds(scene: Scene, count: int) -> None:
    for index in range(count):
        outcome = chart_result(scene.game, len(scene.chart_played) + index)
        opened = open_round(scene.adapter, scene.game, scene.table())
        scene.adapter.close_betting(opened.round_id)
        settled = scene.adapter.enter_result(opened.round_id, outcome)
        scene.chart_played.append((settled.round_id, outcome))


def chart_result(game: str, index: int) -> tuple:
    """A varied, repeatable result for the index-th round of a chart scenario."""
    if game == "sicbo":
        return (index % 6 + 1, (index // 6) % 6 + 1, (index * 5 + 3) % 6 + 1)
    return tuple("rw"[(index >> bit) & 1] for bit in range(4))


@given(parsers.re(r"the dealer has played (?P<count>\d+) rounds? at it"))
@when(parsers.re(r"the dealer plays (?P<count>\d+) more rounds? at it"))
def dealer_plays_rounds(scene: Scene, count: str) -> None:
    _play_rounds(scene, int(count))


@when("the dealer cancels a round at it")
def dealer_cancels_a_round(scene: Scene) -> None:
    opened = scene.adapter.open_round(scene.table(), countdown_ms=60_000)
    scene.adapter.dealer_action(opened.round_id, "cancel", "malfunction")


@then(
    parsers.re(
        r"the statistics chart shows the results of the last (?P<count>\d+) rounds, newest first"
    )
)
def chart_shows(scene: Scene, count: str, request: pytest.FixtureRequest) -> None:
    expected = [
        {"round_id": rid, "result": list(outcome)}
        for rid, outcome in reversed(scene.chart_played[-int(count) :])
    ]
    key = "dice" if scene.game == "sicbo" else "tokens"
    shown = [
        {"round_id": e.get("round_id"), "result": (e.get("result") or {}).get(key)}
        for e in scene.adapter.statistics(scene.table())
    ]
    if shown != expected:
        first = next(
            (i for i, (a, b) in enumerate(zip(shown, expected, strict=False)) if a != b),
            min(len(shown), len(expected)),
        )
        raise ClauseFailure(
            f"the chart shows {len(shown)} results, expected the last {count} rounds newest "
            f"first ({len(expected)}); first difference at position {first + 1}: "
            f"{shown[first] if first < len(shown) else None} instead of "
            f"{expected[first] if first < len(expected) else None}",
            _clauses(request, ("SB-STAT-01",)),
        )


# -- idempotent bet slips -------------------------------------------------------------------------


@when(
    parsers.re(
        r"the player's slip of (?P<stake>\d+\.\d+) on (?P<label>.+) is sent twice with the same "
        r"idempotency key"
    )
)
def slip_sent_twice(scene: Scene, stake: str, label: str) -> None:
    code = selection_code(label, scene.game)
    handle = scene.player()
    round_view = scene.open_round()
    key = f"livecert-replay-{uuid.uuid4()}"
    for _ in range(2):
        scene.adapter.place_bets(
            handle, round_view.round_id, [(code, Decimal(stake))], idempotency_key=key
        )


@then(parsers.re(r"the round holds exactly one bet of (?P<stake>\d+\.\d+) on (?P<label>.+)"))
def one_bet_held(scene: Scene, stake: str, label: str, request: pytest.FixtureRequest) -> None:
    code = selection_code(label, scene.game)
    view = scene.adapter.get_round(scene.round.round_id, scene.player())
    held = [b for b in view.bets if b.selection == code]
    if [b.stake for b in held] != [Decimal(stake)]:
        raise ClauseFailure(
            f"the round holds {len(held)} bets on {label}: {[str(b.stake) for b in held]}",
            _clauses(request, ("REG-IDEMP-01",)),
        )


@then(parsers.re(r"(?:the player's|player (?P<name>[A-Z])'s) bets are still open"))
def bets_still_open(scene: Scene, name: str | None, request: pytest.FixtureRequest) -> None:
    who = name or "player"
    view = scene.adapter.get_round(scene.round.round_id, scene.player(who))
    shown = {b.bet_id: b for b in view.bets}
    problems = [
        f"{p.label} is {shown[p.view.bet_id].status if p.view.bet_id in shown else 'missing'}"
        for p in scene.bets
        if p.player == who and (p.view.bet_id not in shown or shown[p.view.bet_id].status != "open")
    ]
    if problems:
        raise ClauseFailure(
            f"{who}'s confirmed bets did not stay valid: " + "; ".join(problems),
            _clauses(request, ("TBL-DISC-01", "TBL-DISC-02")),
        )

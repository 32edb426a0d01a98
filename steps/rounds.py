"""Steps of a round's life that both games share: the betting window, re-shakes, withdrawals,
pauses, disconnections and the bet record (cancelled and void rounds: steps/refunds.py).

Each check names the clauses it judges (the scenario's tags decide which of them it may judge
there, fixtures/scene.py). A dealer's action is checked before (the round is in a state the
action belongs to) and after (the state it must leave; where betting must be closed a bet is
tried and must be refused), and does nothing its words do not say.
"""

import time
import uuid
from datetime import datetime
from decimal import Decimal

from pytest_bdd import given, parsers, then, when

from livecert.adapters.errors import Unsupported
from livecert.harness.attempts import refusal
from livecert.harness.dealer import open_round
from livecert.harness.round_clauses import COMMIT, PAUSE, RESHAKE, RESUME, WINDOW
from livecert.harness.vocabulary import paytable, selection_code
from livecert.suite.fixtures.scene import PlacedBet, Scene

GAMES = {"Sic Bo": "sicbo", "Xoc Dia": "xocdia"}
RESHAKE_REASONS = {
    "the dice overlap": "dice-overlap",
    "a die is not flat": "die-not-flat",
    "the dice tumbled fewer than three times": "too-few-tumbles",
    "items fell": "items-fell",
    "a token is standing": "standing-token",
}
NO_WITHDRAWAL = "SB-RND-04"  # bets cannot be withdrawn or cancelled, also not on a re-shake
DEFAULT_RESULT = {"sicbo": (1, 2, 3), "xocdia": ("w", "r", "w", "r")}

BETS_STAND = (
    "TBL-DISC-01",
    "TBL-DISC-02",
    NO_WITHDRAWAL,
    "SB-RND-05",
    "SB-RND-06",
    "XD-RND-02",
    "XD-RND-03",
    "XD-RND-04",
)
PAUSED = (PAUSE,)
RESUMED = (RESUME,)
STOPS = ("pause", "resume")
TIME_TOLERANCE_MS = 5  # both times come from the target's clock, to the millisecond


@given("betting has ended")
@when("betting ends")
def betting_ends(scene: Scene) -> None:
    scene.close_betting()


def reshake_clauses(scene: Scene) -> tuple[str, ...]:
    """What a bet taken after a re-shake breaks (RULES.md D, "re-shakes": the betting period
    stays closed during a re-shake, no new bets): no bet after betting closed (REG-COMMIT-01)
    and, for Sic Bo, SB-RND-04 (the reading's source); for Xoc Dia, whose betting period ends
    before the bowl is lifted, its betting window (XD-RND-01). Never the re-shake's reason
    clause: the re-shake was taken, what is broken is the closed betting period."""
    if scene.game == "sicbo":
        return (NO_WITHDRAWAL, COMMIT)
    return (WINDOW[scene.game], COMMIT)


@when(parsers.re(rf"the dealer re-shakes because (?P<why>{'|'.join(RESHAKE_REASONS)})"))
def dealer_reshakes(scene: Scene, why: str) -> None:
    """A re-shake after betting ended (Sic Bo shakes then, SB-RND-03; a Xoc Dia re-shake in
    these scenarios comes after the betting period too): the round stays closed, no bet taken.
    Two checks of the state it leaves: betting not reopened (the closed betting period's
    clauses, `reshake_clauses`), then the round going on, closed (the re-shake's own clause:
    a re-shake that ends or pauses the round is not the re-shake the rule describes)."""
    reason = RESHAKE_REASONS[why]
    clauses = (RESHAKE[reason],)
    scene.expect_state(("closed",), clauses, "a re-shake")
    round_id = scene.round.round_id
    scene.round = scene.act(
        clauses, f"a re-shake ({reason})", lambda: scene.adapter.record_reshake(round_id, reason)
    )
    scene.phase = "re-shake"
    scene.late_bet_clauses = reshake_clauses(scene)
    scene.checks.check(
        scene.round.state != "betting",
        scene.late_bet_clauses,
        f"after the dealer's re-shake ({reason}) the round is betting again: the betting period "
        "reopened",
        "the re-shake left betting closed",
    )
    scene.left_in("closed", clauses, "re-shake")
    scene.try_late_bet(scene.late_bet_clauses, "after a re-shake")


@when(
    parsers.re(rf"the dealer re-shakes during betting because (?P<why>{'|'.join(RESHAKE_REASONS)})")
)
def dealer_reshakes_during_betting(scene: Scene, why: str) -> None:
    """Xoc Dia: the dealer shakes during the betting period (XD-RND-01) and re-shakes when the
    set-up falls (XD-RND-03) or a token stands (XD-RND-04): betting goes on, its end unchanged."""
    reason = RESHAKE_REASONS[why]
    clauses = (RESHAKE[reason], "XD-RND-01")
    scene.expect_state(("betting",), clauses, "a re-shake during betting")
    before = scene.round
    scene.round = scene.act(
        clauses,
        f"a re-shake during betting ({reason})",
        lambda: scene.adapter.record_reshake(before.round_id, reason),
    )
    scene.left_in("betting", clauses, "re-shake during betting")
    scene.checks.check(
        scene.round.betting_ends_at == before.betting_ends_at,
        clauses,
        f"the re-shake moved the end of betting from {before.betting_ends_at} to "
        f"{scene.round.betting_ends_at}",
        f"betting still ends at {before.betting_ends_at}",
    )


@then("the bets stand and nothing is settled")
def bets_stand(scene: Scene) -> None:
    for placed in scene.bets:
        view = scene.adapter.get_round(scene.round.round_id, scene.players[placed.player])
        shown = {b.bet_id: b for b in view.bets}
        bet = shown.get(placed.view.bet_id)
        scene.checks.check(
            bet is not None and bet.status == "open",
            BETS_STAND,
            f"{placed.label} did not stand: "
            + ("it is missing from the round" if bet is None else f"{bet.status}/{bet.outcome}"),
            f"{placed.label} stands, open",
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
def betting_period_shown(scene: Scene, seconds: str) -> None:
    shown = scene.open_round()
    countdown = (WINDOW[scene.game],)
    length = _ms(scene, shown.betting_ends_at, countdown) - _ms(scene, shown.opened_at, countdown)
    wanted = int(Decimal(seconds) * 1000)
    scene.checks.check(
        abs(length - wanted) <= TIME_TOLERANCE_MS,
        countdown,
        f"the round opened at {shown.opened_at} with betting ending at "
        f"{shown.betting_ends_at}: {length} ms, not the {wanted} ms countdown the dealer set",
        f"betting ends {length} ms after the round opened ({wanted} ms set)",
    )


@then("the betting period goes on for the time that was left when it was paused")
def countdown_continues(scene: Scene) -> None:
    """Read on the target's own clock: its pause and resume events and the betting ends."""
    shown = scene.refresh_round()
    if shown.events is None:
        raise Unsupported("read the round's events", "the target does not report a round's events")
    at = {
        e.get("type"): _ms(scene, e.get("at"), RESUMED)
        for e in shown.events
        if e.get("type") in STOPS
    }
    scene.checks.check(
        set(STOPS) <= set(at),
        RESUMED,
        f"the round does not show its pause and resume: events {list(shown.events)}",
        "the round shows its pause and resume",
    )
    before = scene.before_pause
    left = _ms(scene, before.betting_ends_at, RESUMED) - at["pause"]
    now_left = _ms(scene, shown.betting_ends_at, RESUMED) - at["resume"]
    scene.checks.check(
        abs(now_left - left) <= TIME_TOLERANCE_MS,
        RESUMED,
        f"{left} ms of betting were left when the round was paused, but after resuming it "
        f"ends {now_left} ms after the resume ({shown.betting_ends_at})",
        f"{left} ms left at the pause, {now_left} ms after the resume",
    )


def _ms(scene: Scene, stamp: str | None, clauses: tuple[str, ...]) -> int:
    """A time the round must show for the check judging `clauses`."""
    if not stamp:
        raise scene.checks.failed(clauses, "the round does not show this time")
    return int(datetime.fromisoformat(stamp).timestamp() * 1000)


@when("the countdown runs out")
def countdown_runs_out(scene: Scene) -> None:
    """Wait (bounded) until the target itself reports the betting period over."""
    round_view = scene.open_round()
    deadline = time.monotonic() + scene.countdown_ms / 1000 + 5
    while time.monotonic() < deadline:
        round_view = scene.refresh_round()
        if round_view.state != "betting":
            break
        time.sleep(0.1)
    scene.checks.check(
        round_view.state != "betting",
        (scene.window_clauses()[0],),
        f"the round is still taking bets {scene.countdown_ms / 1000 + 5:g} s after a countdown "
        f"of {scene.countdown_ms / 1000:g} s",
        f"the round is {round_view.state!r} once the countdown ran out",
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
    scene.refusal = scene.try_place(label, Decimal(stake))


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
def bet_refused(scene: Scene) -> None:
    """SB-RND-01 / XD-RND-01: bets only during the betting period; REG-COMMIT-01: one received
    after the outcome is refused."""
    scene.checks.check(
        scene.refusal is not None,
        scene.window_clauses(),
        f"the target took a bet outside the betting period (round {scene.round_state()})",
        f"the bet was refused: {scene.refusal}",
    )
    balance = scene.adapter.balance(scene.player())
    expected = scene.balance_before_attempt
    scene.checks.check(
        balance == expected,
        scene.window_clauses(),
        f"a refused bet moved the balance to {balance}, expected {expected}",
        f"the balance stayed at {balance}",
    )


@then("the bet is taken")
def bet_taken(scene: Scene) -> None:
    """SB-RND-01 / XD-RND-01: a bet during the countdown is taken (SB-RND-02 when the player
    already has a bet in the round: several bets in one round)."""
    clauses = (scene.window_clauses()[0],)
    if scene.refusal is not None and scene.bets:
        clauses = scene.bet_clauses("player", scene.bets[-1].code)
    scene.checks.check(
        scene.refusal is None,
        clauses,
        f"a bet during the betting period was refused: {scene.refusal}",
        "the bet was taken",
        judge_untagged=True,  # an action the rules allow, refused: its finding wherever met
    )
    shown = scene.bets[-1].view.status if scene.bets else "(no bet recorded)"
    scene.checks.check(
        shown == "open",
        clauses,
        f"the bet was taken but shows status {shown!r}, not 'open'",
        "the bet is open",
        judge_untagged=True,
    )


def _late_bet_clauses(scene: Scene) -> tuple[str, ...]:
    """What a bet taken now breaks: in a paused round TBL-MAL-01; after a re-shake the re-shake's
    clauses; otherwise the betting window and REG-COMMIT-01."""
    if scene.phase == "paused":
        return PAUSED
    if scene.phase == "re-shake":
        return scene.late_bet_clauses
    return scene.window_clauses()


@then(parsers.re(r"a new bet of (?P<stake>\d+\.\d+) on (?P<label>.+) is refused"))
def new_bet_refused(scene: Scene, stake: str, label: str) -> None:
    """TBL-MAL-01 (a paused round takes no bet, RULES.md D), SB-RND-04 and REG-COMMIT-01 (no bet
    after betting closed, also not on a re-shake), or SB-RND-01 / XD-RND-01 (bets only during the
    betting period): whichever the round's phase makes it."""
    phase = f"while the round is {scene.phase or 'closed'}"
    code = selection_code(label, scene.game)
    scene.late_bet_refused(_late_bet_clauses(scene), phase, code, Decimal(stake))


@then(parsers.re(r"a new bet of (?P<stake>\d+\.\d+) on (?P<label>.+) is taken"))
def new_bet_taken(scene: Scene, stake: str, label: str) -> None:
    """After a resume from betting, betting goes on (TBL-MAL-02, the betting window)."""
    clauses = scene.bet_clauses("player", selection_code(label, scene.game), *RESUMED)
    refused = scene.try_place(label, Decimal(stake))
    scene.checks.check(
        refused is None,
        clauses,
        f"a bet during the betting period was refused: {refused}",
        f"a bet of {stake} on {label} was taken",
        judge_untagged=True,  # an action the rules allow, refused: its finding wherever met
    )


# -- withdrawal -----------------------------------------------------------------------------------


@when(parsers.re(r"the player tries to withdraw the (?P<label>.+) bet"))
def try_withdraw(scene: Scene, label: str) -> None:
    placed = scene.bet(label)
    scene.refused_by = (NO_WITHDRAWAL,)
    scene.refusal = refusal(
        lambda: scene.adapter.withdraw_bet(scene.players[placed.player], placed.view.bet_id)
    )


@then("the withdrawal is refused")
def withdrawal_refused(scene: Scene) -> None:
    """SB-RND-04: bets placed cannot be withdrawn or cancelled."""
    scene.checks.check(
        scene.refusal is not None,
        (NO_WITHDRAWAL,),
        "the target let a player withdraw a placed bet",
        f"the withdrawal was refused: {scene.refusal}",
    )


# -- malfunction ----------------------------------------------------------------------------------


@when("the dealer pauses the round for a malfunction")
def dealer_pauses(scene: Scene) -> None:
    """TBL-MAL-01: a running round (betting or closed) is paused."""
    scene.expect_state(("betting", "closed"), PAUSED, "a pause")
    scene.before_pause = scene.round
    round_id = scene.round.round_id
    scene.round = scene.act(
        PAUSED,
        "a pause for a malfunction",
        lambda: scene.adapter.dealer_action(
            round_id, "pause", "malfunction: the supervisor is informed"
        ),
    )
    scene.phase = "paused"
    scene.left_in("paused", PAUSED, "pause")


@when("the dealer resumes the round")
def dealer_resumes(scene: Scene) -> None:
    """TBL-MAL-02: the round continues as usual, where it stopped: betting goes on if it was
    paused during betting; a round paused after betting closed stays closed. Betting reopened
    there is judged on the betting window and REG-COMMIT-01 (no bet after betting closed), not
    on TBL-MAL-02: the resume itself was taken."""
    scene.expect_state(("paused",), RESUMED, "a resume")
    round_id = scene.round.round_id
    scene.round = scene.act(
        RESUMED, "a resume", lambda: scene.adapter.dealer_action(round_id, "resume")
    )
    was = scene.before_pause.state if scene.before_pause else "betting"
    scene.phase = None
    if was == "closed":
        # betting reopened is the betting window's finding (and REG-COMMIT-01's), not the
        # resume's: the resume was taken; any other state it leaves is TBL-MAL-02's
        scene.checks.check(
            scene.round.state != "betting",
            scene.window_clauses(),
            "the round was paused after betting closed, and resuming it reopened betting",
            "the resume left betting closed",
            judge_untagged=True,  # the round's state, as left_in
        )
        scene.left_in("closed", RESUMED, "resume of a round paused after betting closed")
        scene.try_late_bet(scene.window_clauses(), "after a resume with betting closed")
    else:
        scene.left_in(was, RESUMED, "resume")


@then("a result is refused while the round is paused")
def result_refused_while_paused(scene: Scene) -> None:
    """TBL-MAL-01 (RULES.md D): while paused a round makes no progress, it takes no result."""
    round_id = scene.round.round_id
    refused = refusal(lambda: scene.adapter.enter_result(round_id, DEFAULT_RESULT[scene.game]))
    shown = scene.adapter.get_round(round_id).state if refused is None else "paused"
    scene.checks.check(
        refused is not None,
        PAUSED,
        f"a paused round took a result (it is now {shown!r})",
        f"a result was refused while paused: {refused}",
    )


# -- the statistics chart -------------------------------------------------------------------------


@given(parsers.re(r"a new (?P<name>Sic Bo|Xoc Dia) table"))
def new_table(scene: Scene, name: str) -> None:
    """A table of the scenario's own, so the chart holds only the rounds it plays."""
    scene.game = GAMES[name]
    scene.own_table = scene.adapter.create_table(scene.game)


def _play_rounds(scene: Scene, count: int) -> None:
    """The dealer plays whole rounds: open, close betting, enter the result."""
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
def chart_shows(scene: Scene, count: str) -> None:
    expected = [
        {"round_id": rid, "result": list(outcome)}
        for rid, outcome in reversed(scene.chart_played[-int(count) :])
    ]
    key = "dice" if scene.game == "sicbo" else "tokens"
    shown = [
        {"round_id": e.get("round_id"), "result": (e.get("result") or {}).get(key)}
        for e in scene.adapter.statistics(scene.table())
    ]
    first = next(
        (i for i, (a, b) in enumerate(zip(shown, expected, strict=False)) if a != b),
        min(len(shown), len(expected)),
    )
    scene.checks.check(
        shown == expected,
        ("SB-STAT-01",),
        f"the chart shows {len(shown)} results, expected the last {count} rounds newest "
        f"first ({len(expected)}); first difference at position {first + 1}: "
        f"{shown[first] if first < len(shown) else None} instead of "
        f"{expected[first] if first < len(expected) else None}",
        f"the chart shows the last {count} rounds, newest first",
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
    for attempt in range(2):
        views = scene.adapter.place_bets(
            handle, round_view.round_id, [(code, Decimal(stake))], idempotency_key=key
        )
        if attempt == 0:  # the slip the player made once: its bet is the scenario's
            scene.bets += [PlacedBet(label, code, Decimal(stake), "player", v) for v in views]


@then(parsers.re(r"the round holds exactly one bet of (?P<stake>\d+\.\d+) on (?P<label>.+)"))
def one_bet_held(scene: Scene, stake: str, label: str) -> None:
    code = selection_code(label, scene.game)
    view = scene.adapter.get_round(scene.round.round_id, scene.player())
    held = [b for b in view.bets if b.selection == code]
    scene.checks.check(
        [b.stake for b in held] == [Decimal(stake)],
        ("REG-IDEMP-01",),
        f"the round holds {len(held)} bets on {label}: {[str(b.stake) for b in held]}",
        f"the round holds one bet of {stake} on {label}",
    )

"""Steps of a player who disconnects in a round (TBL-DISC-01..03): their confirmed bets stay
open while they are away and settle when the round ends; the bet record shows each bet with its
outcome and payout, and only their own. The wallet's side of a disconnected player's settlement
is judged by the balance steps (steps/common.py, and steps/refunds.py for a high roller)."""

from decimal import Decimal

import allure
from pytest_bdd import parsers, then, when

from livecert.suite.fixtures.attachments import attach_text
from livecert.suite.fixtures.scene import Scene

RECORD = ("TBL-DISC-03", "REG-RECALL-01")
ACCESS_DUTY = "REG-ACCESS-01"


@when(parsers.re(r"(?:the player|player (?P<name>[A-Z])) disconnects"))
def player_disconnects(scene: Scene, name: str | None) -> None:
    who = name or "player"
    scene.adapter.disconnect(scene.player(who))
    scene.disconnected.add(who)
    scene.were_offline.add(who)


@when(parsers.re(r"(?:the player|player (?P<name>[A-Z])) reconnects"))
def player_reconnects(scene: Scene, name: str | None) -> None:
    who = name or "player"
    scene.adapter.connect(scene.player(who))
    scene.disconnected.discard(who)


@then("the bet record shows each bet with its outcome and payout")
def record_shows_outcomes(scene: Scene) -> None:
    """Three checks: each bet in the round's record as placed and settled (the record duties);
    the player's whole record shows no other player's bets (REG-ACCESS-01: a player sees only
    their own); the round's staked amount and balances before and after (REG-RECALL-01)."""
    record = scene.adapter.bet_record(scene.player(), scene.round.round_id)
    by_id = {b.bet_id: b for b in record.bets}
    mine = [b for b in scene.bets if b.player == "player"]
    for placed in mine:
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
        scene.checks.check(
            shown == wanted,
            RECORD,
            f"{placed.label}: the record shows {shown}, expected {wanted}",
            f"{placed.label}: the record shows {wanted}",
        )
    everything = scene.adapter.bet_record(scene.player())
    me = scene.player().player_id
    foreign = [b.bet_id for b in everything.bets if b.player_id != me]
    scene.checks.check(
        not foreign,
        (ACCESS_DUTY,),
        f"the player's bet record shows other players' bets {foreign[:5]}",
        f"the player's record of {len(everything.bets)} bet(s) shows only their own",
    )
    summary = record.round(scene.round.round_id)
    balance = scene.adapter.balance(scene.player())
    staked = sum((b.stake for b in mine), Decimal(0))
    start = scene.starting_balances["player"]
    shown_round = (
        None if summary is None else (summary.staked, summary.balance_before, summary.balance_after)
    )
    scene.checks.check(
        shown_round == (staked, start, balance),
        ("REG-RECALL-01",),
        "the record has no entry for the round"
        if summary is None
        else f"the round shows staked {summary.staked}, balance {summary.balance_before} -> "
        f"{summary.balance_after}; expected {staked}, {start} -> {balance}",
        f"the round shows staked {staked}, balance {start} -> {balance}",
    )


@then(parsers.re(r"(?:the player's|player (?P<name>[A-Z])'s) bets are still open"))
def bets_still_open(scene: Scene, name: str | None) -> None:
    who = name or "player"
    view = scene.adapter.get_round(scene.round.round_id, scene.player(who))
    shown = {b.bet_id: b for b in view.bets}
    if view.echoed:  # a live table's stream says nothing of a bet until it settles
        attach_text(
            f"{who}'s bets: the table's stream shows no bet's status before it settles, so "
            "whether they stayed open is not judged here",
            name="bets still open: not shown",
            attachment_type=allure.attachment_type.TEXT,
        )
        return
    for p in (p for p in scene.bets if p.player == who):
        bet = shown.get(p.view.bet_id)
        scene.checks.check(
            bet is not None and bet.status == "open",
            ("TBL-DISC-01", "TBL-DISC-02"),
            f"{who}'s confirmed {p.label} bet did not stay valid: "
            + ("missing" if bet is None else str(bet.status)),
            f"{who}'s {p.label} bet is still open",
        )

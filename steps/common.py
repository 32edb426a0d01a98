"""Steps a player and a dealer share across both games: balances, bets, wins, losses, rounding.

Expected amounts come from the feature text (the rules documents' numbers); each check also asks
the oracle, so a feature that disagrees with the paytable is reported as a harness defect rather
than blamed on the target.
"""

from decimal import Decimal
from fractions import Fraction

import allure
import pytest
from pytest_bdd import given, parsers, then

from livecert.adapters.errors import Unsupported
from livecert.harness.findings import HarnessError
from livecert.harness.round_clauses import WINNINGS_PAID
from livecert.harness.settlement_check import SETTLE_DUTY, settled_clauses
from livecert.harness.vocabulary import paytable
from livecert.rules import round_to_minor
from livecert.rules.paytable import active_profile
from livecert.suite.fixtures.attachments import attach_text
from livecert.suite.fixtures.scene import UNFINISHED, PlacedBet, Scene

AMOUNT = r"(?P<amount>\d+\.\d+)"


class FeatureOracleDisagreement(HarnessError):
    """A feature's amount contradicts the oracle: a defect of the harness, not of the target."""


def under_a_profile() -> str | None:
    """The name of the run's rule profile when it is not the rules documents."""
    profile = active_profile()
    return None if profile is None or profile.is_documents else profile.name


def disagree(message: str) -> None:
    """A feature's literal numbers differ from the oracle's. Under the documents that is a harness
    defect (raised). Under a vendor's rule profile it is expected, since the features quote the
    documents' paytable: the step then checks the target against the profile's amount, which the
    oracle computes from the profile file (itself checked against hand-counted tables), and says
    so in the evidence."""
    profile = under_a_profile()
    if not profile:
        raise FeatureOracleDisagreement(message)
    attach_text(
        f"rule profile {profile}: {message}; the target is checked against the profile's amount",
        name="checked against the rule profile",
        attachment_type=allure.attachment_type.TEXT,
    )


@given(parsers.re(rf"a player with a balance of {AMOUNT}"))
def player_with_balance(scene: Scene, amount: str) -> None:
    scene.await_player("player", Decimal(amount))


@given(parsers.re(r"(?:a|the) player bets (?P<stake>\d+\.\d+) on (?P<label>.+)"))
def player_bets(scene: Scene, stake: str, label: str) -> None:
    scene.place(label, Decimal(stake))


@given(parsers.re(rf"player (?P<name>[A-Z]) has a balance of {AMOUNT}"))
def named_player_with_balance(scene: Scene, name: str, amount: str) -> None:
    scene.player(name, Decimal(amount))


@given(parsers.re(r"player (?P<name>[A-Z]) bets (?P<stake>\d+\.\d+) on (?P<label>.+)"))
def named_player_bets(scene: Scene, name: str, stake: str, label: str) -> None:
    scene.place(label, Decimal(stake), player=name)


# Clauses that say the bets of a round settle as usual after something happened to it: in a
# scenario tagged with one, a bet that is not settled when the round ends breaks it. What the bet
# settles *to* is the paytable's business (its row's clause and REG-SETTLE-01), never theirs.
SETTLES_AS_USUAL = (
    "REG-INTR-01",
    "TBL-DISC-02",
    "TBL-MAL-02",
    "XD-RND-02",
    "XD-RND-03",
    "XD-RND-04",
    "SB-RND-02",
    "SB-RND-03",
    "SB-RND-04",
    "SB-RND-05",
    "SB-RND-06",
)
MONEY_DUTY = "REG-MONEY-01"


def _settles_as_usual(scene: Scene) -> tuple[str, ...]:
    return tuple(c for c in SETTLES_AS_USUAL if c in scene.tags)


DISCONNECTION = "TBL-DISC-02"


def _settled_right_for_a_connected_player(
    scene: Scene, placed: PlacedBet, outcome: str, win: Decimal
) -> bool:
    """True when `placed` is a bet of a player who disconnected in the round, and a player who
    stayed connected holds the same bet (selection and stake) settled as the paytable says."""
    if placed.player not in scene.were_offline or DISCONNECTION not in scene.tags:
        return False
    for other in scene.bets:
        same = (other.code, other.stake) == (placed.code, placed.stake)
        if same and other.player not in scene.were_offline:
            shown = next((b for b in scene.round.bets if b.bet_id == other.view.bet_id), None)
            if shown is None:
                fresh = scene.adapter.get_round(scene.round.round_id, scene.players[other.player])
                shown = next((b for b in fresh.bets if b.bet_id == other.view.bet_id), None)
            return shown is not None and (shown.status, shown.outcome, shown.win) == (
                "settled",
                outcome,
                win,
            )
    return False


def _proven_returns(scene: Scene, unseen: list[PlacedBet]) -> tuple[Decimal, list[str]]:
    """What the target owes for sure on bets whose settlement it never showed: for each one a
    connected player holds the same of (selection and stake) settled as the paytable says, its
    return; and the bets it cannot be proven for."""
    proven, unproven = Decimal(0), []
    for placed in unseen:
        oracle = scene.expected(placed)
        if _settled_right_for_a_connected_player(scene, placed, oracle.outcome, oracle.win):
            proven += oracle.returned
        else:
            unproven.append(placed.label)
    return proven, unproven


def _check_settlement(
    scene: Scene, label: str, outcome: str, win: Decimal, player: str = "player"
) -> None:
    """Two checks: the bet was settled when the round ended (the scenario's lifecycle clause),
    then what it settled to (the paytable row's clause and REG-SETTLE-01)."""
    placed = scene.bet(label, player)
    if scene.outcome is None:
        raise HarnessError("the scenario checks a settlement but entered no result")
    info = scene.target.info
    written = scene.expected(placed, as_written=True)
    if (written.outcome, written.win) != (outcome, win):
        disagree(
            f"the feature expects {label} to {outcome} {win} on {scene.outcome}, the oracle says "
            f"{written.outcome} {written.win}: fix the feature or the paytable"
        )
    # the oracle's amount at the stake bet: the feature's where they agree and it bet its own
    # stake; under a rule profile the profile's; for a stake's twin, the twin's
    oracle = scene.expected(placed)
    outcome, win = oracle.outcome, oracle.win
    actual = scene.shown_bet(placed, (*_settles_as_usual(scene), SETTLE_DUTY))
    paid_by = settled_clauses(oracle, actual, info.minor_unit, info.rounding)
    returned = (
        placed.stake + win
        if outcome == "win"
        else (placed.stake if outcome == "refund" else Decimal(0))
    )
    attach_text(
        f"bet: {label} ({placed.code}), stake {placed.stake}, result {scene.outcome}\n"
        f"expected: settled / {outcome}, win {win}, returned {returned} "
        f"(clauses {', '.join(paid_by)}; rounding {info.rounding!r})\n"
        f"actual:   {actual.status} / {actual.outcome}, win {actual.win}, returned "
        f"{actual.returned}",
        name=f"settlement of {label}",
        attachment_type=allure.attachment_type.TEXT,
    )
    what = f"{label} ({placed.code}) staked {placed.stake} on {scene.outcome}"
    if actual.settlement_unshown:  # nothing to judge here: the balance says what was paid
        attach_text(
            f"{what}: the target showed no settlement of it, so it is not judged here",
            name=f"settlement of {label} not shown",
            attachment_type=allure.attachment_type.TEXT,
        )
        return
    scene.checks.check(
        actual.status == "settled",
        _settles_as_usual(scene) or (SETTLE_DUTY,),
        f"{what}: status {actual.status!r} when the round ended, expected 'settled'",
        f"{what}: settled",
    )
    if _settled_right_for_a_connected_player(scene, placed, outcome, win):
        # the paytable is right for a player who stayed connected: the difference is the
        # disconnection's (TBL-DISC-02: confirmed bets stay valid), not the paytable's
        paid_by = (DISCONNECTION,)
        what += f" by {player}, who disconnected in the round"
    problems = []
    if actual.outcome != outcome:
        problems.append(f"outcome {actual.outcome!r}, expected {outcome!r}")
    if actual.win != win:
        problems.append(f"win {actual.win}, expected {win}")
    if actual.returned != returned:
        problems.append(f"returned {actual.returned}, expected {returned}")
    scene.checks.check(
        not problems,
        paid_by,
        f"{what}: " + "; ".join(problems),
        f"{what}: {outcome}, win {win}, returned {returned}",
    )


@then(parsers.re(rf"the (?P<label>.+?) bet wins {AMOUNT}"))
def bet_wins(scene: Scene, label: str, amount: str) -> None:
    _check_settlement(scene, label, "win", Decimal(amount))


@then(parsers.re(r"the (?P<label>.+?) bet loses"))
def bet_loses(scene: Scene, label: str) -> None:
    _check_settlement(scene, label, "lose", Decimal("0.00"))


@then(parsers.re(r"the (?P<label>.+?) bet gets its stake back"))
def bet_refunded(scene: Scene, label: str) -> None:
    _check_settlement(scene, label, "refund", Decimal("0.00"))


def _oracle_balance(scene: Scene, player: str) -> Decimal | None:
    """The balance the oracle expects after a settled round at the feature's stakes, to catch
    a feature's typo."""
    if scene.outcome is None or scene.round is None or scene.round.state != "settled":
        return None
    balance = scene.starting_balances[player]
    for placed in (b for b in scene.bets if b.player == player):
        expected = scene.expected(placed, as_written=True)
        balance += expected.returned - expected.stake
    return balance


def _check_balance(scene: Scene, player: str, amount: str) -> None:
    """Two checks, in order: the balance is its start minus the stakes plus what the target
    itself says it returned (money conserved: REG-MONEY-01); then it is the feature's amount,
    which, the money being conserved, only a wrong settlement can miss (the bets' clauses)."""
    oracle = _oracle_balance(scene, player)
    if oracle is not None and oracle != Decimal(amount):
        disagree(f"the feature expects {player}'s balance of {amount}, the oracle {oracle}")
        amount = str(oracle)  # under a rule profile: the profile's amount
    amount = str(Decimal(amount) + scene.twin_shift(player))  # where twins of stakes were bet
    mine = [b for b in scene.bets if b.player == player]
    actual = scene.adapter.balance(scene.player(player))
    returned = Decimal(0)
    unseen: list[PlacedBet] = []  # bets whose settlement the target never showed (offline)
    for placed in mine:
        shown = scene.shown_bet(placed, (MONEY_DUTY,))
        returned += shown.returned or Decimal(0)
        if shown.settlement_unshown:
            unseen.append(placed)
    start, staked = scene.starting_balances[player], sum((b.stake for b in mine), Decimal(0))
    conserved = start - staked + returned
    settled = scene.outcome is not None and scene.round and scene.round.state == "settled"
    if unseen and not settled:
        unseen = _still_open(scene, unseen)
        settled = scene.outcome is not None and scene.round.state == "settled"
    if unseen:
        _check_unseen(scene, player, actual, conserved, unseen, amount, bool(settled))
        return
    scene.checks.check(
        actual == conserved,
        (
            MONEY_DUTY,
            *([WINNINGS_PAID[scene.game]] if scene.game in WINNINGS_PAID else []),
            *((DISCONNECTION,) if _offline_with_a_connected_twin(scene, player) else ()),
        ),
        f"{player}'s balance is {actual}, but its start {start} minus the stakes {staked} "
        f"plus what the target says it returned ({returned}) is {conserved}",
        f"{player}'s balance {actual} = {start} - {staked} + {returned}",
    )
    settled_by = _paid_by(scene, mine) if settled else [SETTLE_DUTY]
    scene.checks.check(
        actual == Decimal(amount),
        settled_by,
        f"{player}'s balance is {actual}, expected {amount}",
        f"{player}'s balance is {amount}",
    )


def _offline_with_a_connected_twin(scene: Scene, player: str) -> bool:
    """Whether money conserved for `player` is also the disconnection's duty. TBL-DISC-02
    (RULES.md C): "All confirmed bets stay valid and are settled when the round ends." It does
    not say "once" (REG-MONEY-01 does: "nothing is settled twice"), but a bet settled is
    credited what its settlement says, as a connected player's is; so where a player who
    stayed connected was credited right and the offline one was not, the difference is the
    disconnection's. Hence only where the scenario is tagged TBL-DISC-02, `player` was offline
    in the round (re-joined or not), and every player who stayed connected and bet in it holds
    exactly their start less their stakes plus the returns the target showed: a wallet wrong
    for everyone (winnings credited to nobody) is not the disconnection's."""
    if player not in scene.were_offline or DISCONNECTION not in scene.tags:
        return False
    connected = {b.player for b in scene.bets} - scene.were_offline
    return bool(connected) and all(_conserved_quietly(scene, name) for name in connected)


def _conserved_quietly(scene: Scene, name: str) -> bool:
    """A connected player's balance is their start less their stakes plus what the target showed
    each bet returned; read without a check (a bet not shown, or not shown settled, is False)."""
    bets = [b for b in scene.bets if b.player == name]
    shown = {b.bet_id: b for b in scene.round.bets}
    if any(p.view.bet_id not in shown for p in bets):
        fresh = scene.adapter.get_round(scene.round.round_id, scene.players[name])
        shown.update({b.bet_id: b for b in fresh.bets})
    views = [shown.get(p.view.bet_id) for p in bets]
    if any(v is None or v.returned is None for v in views):
        return False
    returned = sum((v.returned for v in views if v is not None and v.returned), Decimal(0))
    staked = sum((p.stake for p in bets), Decimal(0))
    balance = scene.adapter.balance(scene.players[name])
    return balance == scene.starting_balances[name] - staked + returned


def _still_open(scene: Scene, unseen: list[PlacedBet]) -> list[PlacedBet]:
    """Bets whose settlement the target showed nothing of, before the scenario entered a
    result: where the round, as the table shows it now, still takes or holds its bets they are
    open (nothing returned yet, nothing to see); a round a timer table finished by itself, on a
    result the scenario never chose, leaves the feature's balance (an open bet's) unjudgeable."""
    state = scene.refresh_round().state
    if state in UNFINISHED:
        return []
    if scene.outcome is None:
        raise Unsupported(
            "judge the balance with the bet still open",
            f"the table finished round {scene.round.round_id} by itself ({state}) on a result "
            "the scenario did not choose, before the balance was read",
        )
    return unseen


def _paid_by(scene: Scene, bets: list[PlacedBet]) -> list[str]:
    """The clauses a settled round's balance judges: each bet's paytable row and
    REG-SETTLE-01 (REG-SETTLE-01 alone for a bet the round shows settled but for the rounding
    direction: settlement_check.settled_clauses)."""
    info = scene.target.info
    shown = {b.bet_id: b for b in scene.round.bets} if scene.round else {}
    clauses: list[str] = []
    for placed in bets:
        expected, view = scene.expected(placed), shown.get(placed.view.bet_id)
        if view is None:
            clauses += (*expected.clauses, SETTLE_DUTY)
        else:
            clauses += settled_clauses(expected, view, info.minor_unit, info.rounding)
    return clauses or [SETTLE_DUTY]  # a player with no bet: the settlement duty's alone


def _check_unseen(
    scene: Scene,
    player: str,
    actual: Decimal,
    shown: Decimal,
    unseen: list[PlacedBet],
    amount: str,
    settled: bool,
) -> None:
    """A balance where the target showed no settlement of some bets (a player told nothing
    while disconnected): money conserved cannot be judged on what it showed. What it owes for
    sure (`shown`: the start, less the stakes, plus the returns it showed; plus the return of
    each unseen bet a connected player holds the same of and was paid by the paytable for) is
    the disconnection's duty (TBL-DISC-02); the balance at the feature's amount holds for the
    bets' clauses; anything else cannot be told apart and is not judged."""
    labels = ", ".join(p.label for p in unseen)
    if not settled:
        raise HarnessError(f"{player}'s balance is checked before the round settled")
    proven, unproven = _proven_returns(scene, unseen)
    owed = shown + proven
    scene.checks.check(
        actual >= owed if unproven else actual == owed,
        (DISCONNECTION,),
        f"{player}'s balance is {actual}, but the target owes at least {owed}: the returns it "
        f"showed and, for {labels} (settled while {player} was away), what it paid a connected "
        "player for the same bet",
        f"{player}'s balance {actual} holds what the target owes for sure ({owed})",
    )
    if actual == Decimal(amount):
        mine = [b for b in scene.bets if b.player == player]
        scene.checks.held(_paid_by(scene, mine), f"{player}'s balance is {amount}")
        return
    attach_text(
        f"{player}'s balance is {actual}, expected {amount}; the target showed no settlement of "
        f"{labels}, and {', '.join(unproven)} has no twin a connected player was paid for: the "
        "disconnection's part and the paytable's cannot be told apart, so it is not judged",
        name=f"{player}'s balance not judged",
        attachment_type=allure.attachment_type.TEXT,
    )


@then(parsers.re(rf"the player's balance is {AMOUNT}"))
def balance_is(scene: Scene, amount: str) -> None:
    _check_balance(scene, "player", amount)


# -- stakes and rounding -------------------------------------------------------------------------


@then(
    parsers.re(
        r"the (?P<label>.+?) bet wins (?P<exact>\d+\.\d+) before rounding, rounded by the "
        r"declared rule"
    )
)
def bet_wins_rounded(scene: Scene, label: str, exact: str) -> None:
    placed = scene.bet(label)
    info = scene.target.info
    written = scene.expected(placed, as_written=True)
    if written.outcome != "win" or written.exact_win != Fraction(exact):
        disagree(
            f"the feature says {label} wins {exact} exactly, the oracle says {written.outcome} "
            f"{written.exact_win}"
        )
        if written.outcome != "win":  # the example is about rounding a win there is none of
            profile = under_a_profile()
            pytest.skip(f"not testable under the rule profile {profile}: {label} does not win")
    # the balance step quotes the feature's stake: its rounded win; the target is judged at
    # the stake bet (a twin's exact win has the same fraction of a minor unit)
    scene.rounded_win = round_to_minor(written.exact_win, info.minor_unit, info.rounding)
    oracle = scene.expected(placed)
    exact = str(Decimal(oracle.exact_win.numerator) / oracle.exact_win.denominator)
    win = round_to_minor(oracle.exact_win, info.minor_unit, info.rounding)
    actual = scene.shown_bet(placed, (*oracle.clauses, SETTLE_DUTY))
    attach_text(
        f"stake {placed.stake}, exact win {exact}, declared rounding {info.rounding!r} to "
        f"{info.minor_unit} decimals -> expected win {win}; target: {actual.outcome} win "
        f"{actual.win} returned {actual.returned}",
        name="rounding",
        attachment_type=allure.attachment_type.TEXT,
    )
    scene.checks.check(
        (actual.outcome, actual.win, actual.returned) == ("win", win, placed.stake + win),
        settled_clauses(oracle, actual, info.minor_unit, info.rounding),
        f"{label} staked {placed.stake}: exact win {exact} under the declared rule "
        f"{info.rounding!r} must be {win} (returned {placed.stake + win}); the target "
        f"said {actual.outcome} win {actual.win} returned {actual.returned}",
        f"{label} staked {placed.stake}: exact win {exact} rounded {info.rounding} to {win}",
    )


@then(parsers.re(r"the player's balance is (?P<start>\d+\.\d+) plus the rounded win"))
def balance_plus_rounded_win(scene: Scene, start: str) -> None:
    if scene.rounded_win is None:
        raise HarnessError("no rounded win was established in this scenario")
    if Decimal(start) != scene.starting_balances["player"]:
        raise HarnessError(
            f"the feature starts from {start}, the player from {scene.starting_balances['player']}"
        )
    _check_balance(scene, "player", str(Decimal(start) + scene.rounded_win))


# -- refused results ------------------------------------------------------------------------------


@then("the result is refused")
def result_refused(scene: Scene) -> None:
    """SB-GEN-01 / XD-GEN-01: a die shows 1 to 6, a token red or white; nothing else is a
    result. REG-INPUT-01: an invalid request is refused (and the bets stand: the next step)."""
    state = scene.round.state if scene.round else "unknown"
    scene.checks.check(
        scene.refusal is not None,
        [paytable(scene.game).general_clause, "REG-INPUT-01"],
        f"the target accepted an impossible result {scene.tried_outcome} (the round is now "
        f"{state!r})",
        f"the impossible result {scene.tried_outcome} was refused: {scene.refusal}",
    )


@then(parsers.re(r"the (?P<label>.+?) bet is still open"))
def bet_still_open(scene: Scene, label: str) -> None:
    """After a refused action the bet stands unsettled: the refusal changed nothing (judged on
    the clauses that required the refusal: an impossible result SB-GEN-01 / XD-GEN-01 and
    REG-INPUT-01, a withdrawal SB-RND-04)."""
    placed = scene.bet(label)
    clauses = scene.refused_by
    if not clauses:
        raise HarnessError("the scenario tried no action that should be refused")
    scene.refresh_round(scene.player(placed.player))
    bet = scene.shown_bet(placed, clauses)
    scene.checks.check(
        bet.status == "open",
        clauses,
        f"after the refused action the {label} bet is {bet.status!r}, expected still 'open'",
        f"the {label} bet is still open",
    )


@then(parsers.re(rf"player (?P<name>[A-Z])'s (?P<label>.+?) bet wins {AMOUNT}"))
def named_bet_wins(scene: Scene, name: str, label: str, amount: str) -> None:
    _check_settlement(scene, label, "win", Decimal(amount), player=name)


@then(parsers.re(r"player (?P<name>[A-Z])'s (?P<label>.+?) bet loses"))
def named_bet_loses(scene: Scene, name: str, label: str) -> None:
    _check_settlement(scene, label, "lose", Decimal("0.00"), player=name)


@then(parsers.re(rf"player (?P<name>[A-Z])'s balance is {AMOUNT}"))
def named_balance_is(scene: Scene, name: str, amount: str) -> None:
    _check_balance(scene, name, amount)

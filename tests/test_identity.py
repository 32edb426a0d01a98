"""Every answer names what was asked (CONTRACT-03, and the operation's duty without the contract).

A proxy in front of the reference that makes bet and result answers name another round must not
be certified on settlements made for a round the harness never asked about; the same proxy left
transparent is compliant on the same clauses (so the proxy alone is not the finding).
"""

import re
from decimal import Decimal
from pathlib import Path

import pytest
from cli_support import certify_through
from rewriting_proxy import another_round_in_bet_and_result_answers, rewriting_proxy, unchanged

from livecert.adapters.model import BetView, PlayerHandle, RoundView
from livecert.harness.checks import CheckLedger
from livecert.harness.embedded import EmbeddedServer
from livecert.harness.identity import IdentityFailure, IdentityGuard, IdentityViolation

CLAUSES = "SB-RND-02,SB-RND-03,CONTRACT-03"  # the round scenarios: bets and results


def certify_behind(proxy_rewrite, tmp_path: Path) -> tuple[int, dict, str]:
    with EmbeddedServer() as server, rewriting_proxy(server.url, proxy_rewrite) as url:
        return certify_through(tmp_path / "report", url, server, "sicbo", CLAUSES)


def test_answers_naming_another_round_fail_the_identity_clause(tmp_path: Path) -> None:
    status, cert, output = certify_behind(another_round_in_bet_and_result_answers, tmp_path)
    assert (status, cert["verdict"]) == (1, "non-compliant"), output
    failed = {c for c, row in cert["clauses"].items() if row["status"] == "failed"}
    assert failed == {"CONTRACT-03"}
    # the settlements were made for a round the harness never asked about: not proven
    for clause in ("SB-RND-02", "SB-RND-03"):
        assert cert["clauses"][clause]["status"] == "not-tested", clause
    violation = cert["contract_violations"][0]
    assert violation["clause"] == "CONTRACT-03"
    assert "-elsewhere" in violation["message"]
    assert cert["reproductions"] and cert["reproductions"][0]["exchanges"]


def test_the_same_proxy_passing_answers_through_is_compliant(tmp_path: Path) -> None:
    status, cert, output = certify_behind(unchanged, tmp_path)
    assert (status, cert["verdict"]) == (0, "compliant"), output
    assert cert["verdict_statement"] == "compliant on the 3 selected clauses; not a certification"
    assert cert["clauses"]["CONTRACT-03"]["checks"]["held"] > 0


# -- the guard on its own, with a stand-in adapter ---------------------------------------------


class StandIn:
    """Answers as scripted: a bet slip's bets and a round, with whatever ids it is given."""

    def __init__(self, round_id: str, bet_round: str, stake: str = "1.00") -> None:
        self.round_id, self.bet_round, self.stake = round_id, bet_round, Decimal(stake)
        self.owner = "p1"

    def _bet(self, code: str) -> BetView:
        return BetView("b1", self.bet_round, self.owner, code, self.stake, "open", None, None, None)

    def place_bets(self, player, round_id, bets, idempotency_key=None):
        return [self._bet(code) for code, _stake in bets]

    def get_round(self, round_id, player=None):
        return RoundView(self.round_id, "t1", "sicbo", "betting", None, (self._bet("BIG"),))


PLAYER = PlayerHandle("p1", "token")


@pytest.mark.parametrize("contract", [True, False])
def test_a_bet_answer_for_another_round_is_the_contracts_finding_or_the_commit_duty(
    contract: bool,
) -> None:
    guard = IdentityGuard(StandIn("r1", "r2"), contract=contract)
    guard.ledger = CheckLedger(["REG-COMMIT-01"])
    expected = IdentityViolation if contract else IdentityFailure
    with pytest.raises(expected, match="r2") as raised:
        guard.place_bets(PLAYER, "r1", [("BIG", Decimal("1.00"))])
    if contract:
        assert raised.value.clause == "CONTRACT-03"
    else:
        assert raised.value.clauses == ("REG-COMMIT-01",)
        assert guard.ledger.clauses["REG-COMMIT-01"].failed == 1


def test_a_bet_shown_later_in_another_players_name_is_caught() -> None:
    adapter = StandIn("r1", "r1")
    guard = IdentityGuard(adapter, contract=True)
    guard.ledger = CheckLedger(["CONTRACT-03"])
    guard.place_bets(PLAYER, "r1", [("BIG", Decimal("1.00"))])
    adapter.owner = "p2"  # the round now shows the slip's bet id as another player's
    with pytest.raises(IdentityViolation, match="player_id"):
        guard.get_round("r1", PLAYER)
    assert guard.ledger.clauses["CONTRACT-03"].held == 1


def test_a_bet_shown_later_with_another_stake_is_left_to_the_record_checks() -> None:
    """The id still names the slip's bet; a wrong stake in a record is the record's finding
    (TBL-DISC-03, REG-RECALL-01), judged by the step that reads it."""
    adapter = StandIn("r1", "r1")
    guard = IdentityGuard(adapter, contract=True)
    guard.ledger = CheckLedger(["CONTRACT-03"])
    guard.place_bets(PLAYER, "r1", [("BIG", Decimal("1.00"))])
    adapter.stake = Decimal("0.00")
    assert guard.get_round("r1", PLAYER).bets[0].stake == Decimal("0.00")
    assert guard.ledger.clauses["CONTRACT-03"].held == 2


def test_a_round_answer_for_the_round_asked_holds() -> None:
    guard = IdentityGuard(StandIn("r1", "r1"), contract=True)
    guard.ledger = CheckLedger(["CONTRACT-03"])
    assert guard.get_round("r1").round_id == "r1"
    assert guard.ledger.clauses["CONTRACT-03"].held == 1


class InstantStandIn:
    """An instant table answering with what `bets` says, at table `table`."""

    def __init__(self, table: str = "t1", owner: str = "p1", bets=None) -> None:
        self.table, self.owner, self.bets = table, owner, bets

    def play_round(self, player, table_id, bets, outcome, idempotency_key=None):
        shown = self.bets if self.bets is not None else bets
        views = tuple(
            BetView(
                f"b{i}", "r9", self.owner, code, stake, "settled", "lose", Decimal(0), Decimal(0)
            )
            for i, (code, stake) in enumerate(shown)
        )
        return RoundView("r9", self.table, "sicbo", "settled", None, views)


SLIP = [("BIG", Decimal("1.00")), ("SMALL", Decimal("2.00"))]


@pytest.mark.parametrize(
    ("stand_in", "says"),
    [
        (InstantStandIn(table="t2"), "played at table 't2', asked 't1'"),
        (InstantStandIn(owner="p2"), "names player 'p2', asked 'p1'"),
        (InstantStandIn(bets=[("ODD", Decimal("1.00"))]), "is on 'ODD', not on the slip"),
        (InstantStandIn(bets=[("BIG", Decimal("9.00"))]), "stakes 9.00 on BIG, the slip 1.00"),
    ],
)
def test_an_instant_round_answered_for_something_not_asked_fails_the_settlement_duty(
    stand_in: InstantStandIn, says: str
) -> None:
    guard = IdentityGuard(stand_in, contract=False)
    guard.ledger = CheckLedger(["REG-SETTLE-01"])
    with pytest.raises(IdentityFailure, match=re.escape(says)) as raised:
        guard.play_round(PLAYER, "t1", SLIP, (1, 2, 3))
    assert raised.value.clauses == ("REG-SETTLE-01",)


def test_an_instant_round_for_the_slip_asked_holds() -> None:
    guard = IdentityGuard(InstantStandIn(), contract=False)
    guard.ledger = CheckLedger(["REG-SETTLE-01"])
    # a stake sent as text (bad input) is the target's to judge: any stake shown is taken
    view = guard.play_round(PLAYER, "t1", [*SLIP, ("ODD", "abc")], (1, 2, 3))
    assert len(view.bets) == 3
    assert guard.ledger.clauses["REG-SETTLE-01"].held == 1


def test_the_guard_has_an_instant_round_only_where_the_adapter_has_one() -> None:
    """`hasattr(adapter, "play_round")` is how the harness asks whether a target's adapter can
    play an instant round: the guard must not answer yes for an adapter that cannot."""
    assert not hasattr(IdentityGuard(StandIn("r1", "r1"), contract=True), "play_round")
    assert hasattr(IdentityGuard(InstantStandIn(), contract=False), "play_round")

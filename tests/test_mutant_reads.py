"""The answer mutants that reach past a round's settlement: an answer naming another round, the
round history repeating or miscounting, the dealer's shake forgotten, refusals to other
credentials shown done, a disconnected player's balance short (livecert.harness.mutants)."""

from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest
from test_mutants import ALICE, FakeTarget, mutant_notes, mutated, round_view

from livecert.adapters.errors import Refused
from livecert.harness.mutants import TargetShape, operators_for


@pytest.mark.parametrize(
    ("contract", "clause"), [(True, "CONTRACT-03"), (False, "REG-RECALL-01")], ids=str
)
def test_a_round_read_for_another_round_fails_what_the_targets_shape_is_judged_on(
    contract: bool, clause: str
) -> None:
    """Through the contract the identity guard's finding is CONTRACT-03; through a mapping,
    the read's own duty: the operator aims at the one that fits the target, never the other."""
    from livecert.harness.identity import IdentityFailure, IdentityGuard, IdentityViolation

    shape = TargetShape(contract=contract)
    other = "REG-RECALL-01" if contract else "CONTRACT-03"
    assert "round-id-swapped" in [op.name for op in operators_for(clause, shape)]
    assert "round-id-swapped" not in [op.name for op in operators_for(other, shape)]
    target = FakeTarget()
    target.rounds = {"r1": round_view(), "r2": round_view(round_id="r2")}
    guard = IdentityGuard(mutated(f"round-id-swapped@{clause}", target), contract=contract)
    with pytest.raises((IdentityViolation, IdentityFailure)) as raised:
        guard.get_round("r1")  # nothing read before it: shown as "r1-x"
    error = raised.value
    found = (error.clause,) if contract else error.clauses  # type: ignore[union-attr]
    assert found == (clause,)
    assert "r1-x" in str(error)
    target.rounds["r1"] = round_view(round_id="r1")
    with pytest.raises((IdentityViolation, IdentityFailure), match="r1"):
        guard.get_round("r2")  # the other round read last, named instead
    assert target.calls == [("get_round", ("r1", None)), ("get_round", ("r2", None))]
    assert mutant_notes(target) == [
        f"livecert validation, mutant round-id-swapped@{clause}: a read of round r1 answered "
        "as round r1-x (the harness altered the answer it read; the target was sent nothing "
        "else and answered otherwise)",
        f"livecert validation, mutant round-id-swapped@{clause}: a read of round r2 answered "
        "as round r1 (the harness altered the answer it read; the target was sent nothing "
        "else and answered otherwise)",
    ]


def test_a_history_page_repeating_a_round_is_a_finding_of_the_history() -> None:
    from livecert.adapters.model import HistoryPage, HistoryRound
    from livecert.harness.history_judge import PlayedRound, history_problems, read_history

    rounds = [HistoryRound(f"r{n}", "settled", {"dice": [1, 2, n]}, None) for n in (1, 2, 3)]
    pages = {None: HistoryPage(tuple(rounds[:2]), "p2"), "p2": HistoryPage(tuple(rounds[2:]), None)}
    target = FakeTarget()
    target.round_history = lambda table_id, after, limit: pages[after]  # type: ignore[attr-defined]
    played = [PlayedRound(f"r{n}", "settled", (1, 2, n)) for n in (1, 2, 3)]
    clean = read_history(target.round_history, "t1", 2, 10)  # type: ignore[attr-defined]
    assert history_problems("sicbo", played, clean) == []
    answers = mutated("history-round-repeated@REG-RECALL-01", target)
    read = read_history(answers.round_history, "t1", 2, 10)
    assert [s.entry.round_id for s in read.shown] == ["r1", "r1", "r2", "r3", "r3"]
    assert history_problems("sicbo", played, read)
    assert answers.alterations == 2


@pytest.mark.parametrize(
    ("clause", "game", "result", "shown"),
    [
        ("SB-GEN-01", "sicbo", {"dice": [1, 2, 6], "total": 9}, {"total": 10}),
        ("XD-GEN-01", "xocdia", {"tokens": ["r", "r", "w", "r"], "red": 3, "white": 1},
         {"red": 4, "white": 0}),
    ],
)  # fmt: skip
def test_a_history_result_miscounted_is_a_finding_of_its_games_clause(
    clause: str, game: str, result: dict, shown: dict
) -> None:
    from livecert.adapters.model import HistoryPage, HistoryRound
    from livecert.harness.history_judge import derived_problems, read_history

    page = HistoryPage((HistoryRound("r1", "settled", result, None),), None)
    target = FakeTarget()
    target.round_history = lambda table_id, after, limit: page  # type: ignore[attr-defined]
    assert derived_problems(game, read_history(target.round_history, "t1", 5, 3)) == []  # type: ignore[attr-defined]
    answers = mutated(f"history-result-miscounted@{clause}", target)
    read = read_history(answers.round_history, "t1", 5, 3)
    assert read.shown[0].entry.result == {**result, **shown}
    assert derived_problems(game, read) and answers.alterations == 1
    assert page.rounds[0].result == result  # the target's own answer untouched


def test_a_shake_not_kept_is_gone_from_every_read_of_the_round() -> None:
    target = FakeTarget()
    events = ({"type": "shake"}, {"type": "result"})
    target.rounds = {"r1": replace(round_view(), events=events)}
    answers = mutated("shake-not-kept@SB-RND-03", target)
    assert answers.get_round("r1").events == ({"type": "result"},)
    assert target.rounds["r1"].events == events and answers.alterations == 1
    target.rounds["r1"] = replace(round_view(), events=None)  # a target showing no events
    assert answers.get_round("r1").events is None and answers.alterations == 1


def test_an_action_refused_to_other_credentials_is_shown_done_and_only_that() -> None:
    """The access scenarios' copies of the adapter (as a role, with a credential) are wrapped
    too: a refusal is shown done, but a read the step looks into stays refused; an adapter
    with no such copies still says so."""

    class Copy:
        def __init__(self) -> None:
            self.calls: list[str] = []

        def close_betting(self, round_id: str) -> None:
            self.calls.append("close_betting")
            raise Refused("close betting", 403, "FORBIDDEN", "a player may not close betting")

        def get_round(self, round_id: str, player: Any = None) -> None:
            raise Refused("read a round", 403, "FORBIDDEN", "not yours")

    copy = Copy()
    target = FakeTarget()
    target.as_role = lambda role: copy  # type: ignore[attr-defined]
    answers = mutated("access-granted@REG-ACCESS-01", target)
    assert not hasattr(answers, "with_credential")  # the inner adapter has none
    acting = answers.as_role("player")
    assert acting.close_betting("r1") is None and copy.calls == ["close_betting"]
    with pytest.raises(Refused):
        acting.get_round("r1")
    assert answers.alterations == 1
    clean = mutated("balance-lag@REG-MONEY-01", target)  # another operator: refusals stand
    with pytest.raises(Refused):
        clean.as_role("player").close_betting("r1")


def test_a_disconnected_player_reads_a_unit_short_from_the_disconnection_on() -> None:
    target = FakeTarget()
    target.balances = [Decimal("100.00"), Decimal("90.00"), Decimal("110.00")]
    target.disconnect = lambda player: None  # type: ignore[attr-defined]
    answers = mutated("disconnected-balance-short@TBL-DISC-02", target)
    assert answers.balance(ALICE) == Decimal("100.00")  # still connected: as it was
    answers.disconnect(ALICE)
    assert answers.balance(ALICE) == Decimal("89.99")
    assert answers.balance(ALICE) == Decimal("109.99")
    assert answers.alterations == 2


def test_refunds_to_a_disconnected_player_are_not_aimed_where_the_table_pushes() -> None:
    """A pushing table shows a disconnected player no settlement (its balance tells): a refund
    shown only in the records would be no fault such a table has."""
    names = lambda shape: [op.name for op in operators_for("TBL-DISC-02", shape)]  # noqa: E731
    assert names(TargetShape()) == ["disconnected-balance-short", "disconnected-bets-refunded"]
    assert names(TargetShape(pushes=True)) == ["disconnected-balance-short"]


def test_a_balance_below_zero_is_below_zero_in_what_a_lent_account_holds() -> None:
    """A lent account holds more than the balance shown (its surplus): the mutant takes the
    account itself below zero, or REG-BAL-01's check on the account would rightly hold."""
    from livecert.harness.read_balances import real_balance

    target = FakeTarget()
    target.balances = [Decimal("100.00"), Decimal("0.00")]
    target.balance_offset = lambda player: Decimal("5000.00")  # type: ignore[attr-defined]
    answers = mutated("balance-below-zero@REG-BAL-01", target)
    for _ in range(2):
        shown = answers.balance(ALICE)
        assert real_balance(answers, ALICE, shown) < 0
    plain = FakeTarget()
    plain.balances = [Decimal("100.00")]
    assert mutated("balance-below-zero@REG-BAL-01", plain).balance(ALICE) == Decimal("-100.00")

"""The answer mutants of method validation: each operator alters what it says, consistently, and
only what the harness reads (livecert.harness.mutants)."""

from decimal import Decimal
from typing import Any

import pytest

from livecert.adapters.errors import Refused
from livecert.adapters.evidence import MUTATED, ExchangeRecorder
from livecert.adapters.model import (
    BetRecord,
    BetView,
    PlayerHandle,
    RecordRound,
    RoundView,
    TargetInfo,
)
from livecert.harness.mutants import MutantError, all_operators, operators_for, parse_mutant
from livecert.harness.mutants.mutation import MutatedAnswers

INFO = TargetInfo("t", "1", "1", ("sicbo", "xocdia"), "EUR", 2, "down", {}, ())
ALICE = PlayerHandle("p-alice", "tok-alice")


def bet(bet_id: str, selection: str, stake: str, status: str = "open", win: str | None = None,
        returned: str | None = None, round_id: str = "r1") -> BetView:  # fmt: skip
    outcome = None if win is None else ("win" if Decimal(win) > 0 else "lose")
    return BetView(bet_id, round_id, ALICE.player_id, selection, Decimal(stake), status, outcome,
                   None if win is None else Decimal(win),
                   None if returned is None else Decimal(returned))  # fmt: skip


def round_view(*bets: BetView, round_id: str = "r1", state: str = "settled") -> RoundView:
    return RoundView(round_id, "t1", "sicbo", state, {"dice": [1, 2, 3]}, tuple(bets))


class FakeTarget:
    """An adapter whose answers are set by the test; it keeps every call as it was sent."""

    def __init__(self) -> None:
        self.recorder = ExchangeRecorder()
        self.calls: list[tuple[str, tuple]] = []
        self.rounds: dict[str, RoundView] = {}
        self.balances: list[Decimal] = []
        self.placed: list[BetView] | Refused = []
        self.records: BetRecord | None = None

    def place_bets(self, player: Any, round_id: str, bets: Any, idempotency_key: Any = None):
        self.calls.append(("place_bets", (player, round_id, tuple(bets), idempotency_key)))
        if isinstance(self.placed, Refused):
            raise self.placed
        return list(self.placed)

    def get_round(self, round_id: str, player: Any = None) -> RoundView:
        self.calls.append(("get_round", (round_id, player)))
        return self.rounds[round_id]

    def balance(self, player: Any) -> Decimal:
        self.calls.append(("balance", (player,)))
        return self.balances.pop(0)

    def bet_record(self, player: Any, round_id: Any = None) -> BetRecord:
        self.calls.append(("bet_record", (player, round_id)))
        assert self.records is not None
        return self.records


def mutated(name: str, target: FakeTarget) -> MutatedAnswers:
    mutant = parse_mutant(name)
    return MutatedAnswers(
        target, mutant.name, lambda note: mutant.operator.mutation(mutant.clause, INFO, note)
    )


def mutant_notes(target: FakeTarget) -> list[str]:
    return [e.url for e in target.recorder.drain() if e.method == MUTATED]


# -- the registry ----------------------------------------------------------------------------


def test_every_operator_belongs_to_a_family_and_validates_some_clause() -> None:
    from livecert.rules.catalogue import load_catalogue

    clauses = list(load_catalogue())
    for op in all_operators().values():
        assert op.family and op.summary
        aimed = [c for c in clauses if op.validates(c)]
        assert aimed, f"{op.name} validates no clause of the catalogue"
        for clause in aimed:
            assert clause in op.declares(clause)


def test_operators_are_found_by_the_clause_they_validate() -> None:
    assert [op.name for op in operators_for("SB-PAY-05")] == [
        "payout-unit-off",
        "payout-other-odds",
    ]
    assert [op.name for op in operators_for("REG-BAL-01")] == ["balance-below-zero"]
    assert operators_for("DOC-LANG-01") == []


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("payout-unit-off", "NAME@CLAUSE"),
        ("payout-unit-off@", "NAME@CLAUSE"),
        ("no-such-operator@SB-PAY-05", "no operator is named 'no-such-operator'"),
        ("payout-unit-off@REG-BAL-01", "cannot validate REG-BAL-01"),
    ],
)
def test_a_wrong_mutant_is_named_in_one_clear_message(text: str, said: str) -> None:
    with pytest.raises(MutantError, match=said):
        parse_mutant(text)


# -- payouts ---------------------------------------------------------------------------------


def test_a_payout_one_unit_off_shows_in_the_bet_the_balance_and_the_record() -> None:
    target = FakeTarget()
    won = bet("b1", "NUMBER_1", "10.00", "settled", "10.00", "20.00")  # SB-PAY-05's row
    lost = bet("b2", "BIG", "10.00", "settled", "0.00", "0.00")  # another row: untouched
    target.rounds["r1"] = round_view(won, lost)
    target.balances = [Decimal("110.00")]
    target.records = BetRecord(
        ALICE.player_id,
        (won, lost),
        (RecordRound("r1", "sicbo", "settled", None, Decimal("20.00"), Decimal("20.00"),
                     Decimal("100.00"), Decimal("100.00")),),
    )  # fmt: skip
    answers = mutated("payout-unit-off@SB-PAY-05", target)

    shown = answers.get_round("r1")
    assert shown.bet("b1").win == Decimal("10.01")
    assert shown.bet("b1").returned == Decimal("20.01")
    assert shown.bet("b2") == lost
    assert answers.balance(ALICE) == Decimal("110.01")
    record = answers.bet_record(ALICE)
    assert record.bets[0].win == Decimal("10.01")
    assert record.rounds[0].returned == Decimal("20.01")
    assert record.rounds[0].balance_before == Decimal("100.00")
    assert record.rounds[0].balance_after == Decimal("100.01")
    notes = mutant_notes(target)
    assert len(notes) == answers.alterations == 3
    assert "bet b1 (NUMBER_1) won 10.00, shown as won 10.01" in notes[0]


def test_a_payout_at_another_rows_odds_pays_those_odds() -> None:
    target = FakeTarget()
    # SB-PAY-01 (Small, 1:1): the next row of other odds (SB-PAY-06, a triple) pays otherwise
    target.rounds["r1"] = round_view(bet("b1", "SMALL", "10.00", "settled", "10.00", "20.00"))
    answers = mutated("payout-other-odds@SB-PAY-01", target)
    shown = answers.get_round("r1").bet("b1")
    assert shown.win == Decimal("1800.00")
    assert shown.returned == Decimal("1810.00")


def test_a_payout_mutant_leaves_open_and_losing_bets_alone() -> None:
    target = FakeTarget()
    view = round_view(
        bet("b1", "NUMBER_1", "10.00"),
        bet("b2", "NUMBER_2", "10.00", "settled", "0.00", "0.00"),
        state="betting",
    )
    target.rounds["r1"] = view
    answers = mutated("payout-unit-off@SB-PAY-05", target)
    assert answers.get_round("r1") == view
    assert answers.alterations == 0


# -- bets ------------------------------------------------------------------------------------


def test_a_refused_bet_shown_taken_is_in_its_round_and_took_its_stake() -> None:
    target = FakeTarget()
    target.placed = Refused("place bets", 409, "betting_closed", "closed")
    target.rounds["r1"] = round_view(state="closed")
    target.balances = [Decimal("100.00")]
    answers = mutated("refused-shown-taken@SB-RND-01", target)
    views = answers.place_bets(ALICE, "r1", [("BIG", Decimal("10.00"))])
    assert [(v.selection, v.stake, v.status) for v in views] == [("BIG", Decimal("10.00"), "open")]
    assert [b.bet_id for b in answers.get_round("r1").bets] == [views[0].bet_id]
    assert answers.balance(ALICE) == Decimal("90.00")


def test_a_refusal_of_a_stake_that_is_no_amount_is_kept() -> None:
    target = FakeTarget()
    target.placed = Refused("place bets", 400, "invalid_stake", "not an amount")
    answers = mutated("refused-shown-taken@REG-INPUT-01", target)
    with pytest.raises(Refused):
        answers.place_bets(ALICE, "r1", [("BIG", "ten")])
    assert answers.alterations == 0


def test_a_taken_bet_shown_refused_is_in_no_round_and_moved_no_money() -> None:
    target = FakeTarget()
    taken = bet("b1", "BIG", "10.00")
    target.placed = [taken]
    answers = mutated("taken-shown-refused@SB-RND-01", target)
    with pytest.raises(Refused):
        answers.place_bets(ALICE, "r1", [("BIG", Decimal("10.00"))])
    target.rounds["r1"] = round_view(bet("b1", "BIG", "10.00", "settled", "10.00", "20.00"))
    assert answers.get_round("r1").bets == ()
    target.balances = [Decimal("110.00")]  # the target took 10 and paid back 20
    assert answers.balance(ALICE) == Decimal("100.00")


# -- balances, records, idempotency ----------------------------------------------------------


def test_a_lagging_balance_shows_the_amount_before_the_latest_change() -> None:
    target = FakeTarget()
    target.balances = [Decimal("100.00"), Decimal("90.00"), Decimal("90.00"), Decimal("110.00")]
    answers = mutated("balance-lag@REG-MONEY-01", target)
    shown = [answers.balance(ALICE) for _ in range(4)]
    assert shown == [Decimal("100.00"), Decimal("100.00"), Decimal("100.00"), Decimal("90.00")]


def test_a_balance_one_unit_off_leaves_the_first_read_alone() -> None:
    target = FakeTarget()
    target.balances = [Decimal("100.00"), Decimal("90.00")]
    answers = mutated("balance-unit-off@REG-MONEY-01", target)
    assert [answers.balance(ALICE), answers.balance(ALICE)] == [Decimal("100.00"), Decimal("90.01")]


def test_a_balance_below_zero_is_shown_below_zero() -> None:
    target = FakeTarget()
    target.balances = [Decimal("0.00"), Decimal("5.00")]
    answers = mutated("balance-below-zero@REG-BAL-01", target)
    assert [answers.balance(ALICE), answers.balance(ALICE)] == [Decimal("-0.01"), Decimal("-5.00")]


def test_record_mutants_drop_the_latest_round_or_shift_its_balances() -> None:
    target = FakeTarget()
    rows = tuple(
        RecordRound(r, "sicbo", "settled", None, Decimal(10), Decimal(0), before, before - 10)
        for r, before in (("r1", Decimal(100)), ("r2", Decimal(90)))
    )
    target.records = BetRecord(
        ALICE.player_id, (bet("b1", "BIG", "10"), bet("b2", "BIG", "10", round_id="r2")), rows
    )
    dropped = mutated("record-row-dropped@TBL-DISC-03", target).bet_record(ALICE)
    assert [r.round_id for r in dropped.rounds] == ["r1"]
    assert [b.bet_id for b in dropped.bets] == ["b1"]
    shifted = mutated("record-balances-shifted@REG-RECALL-01", target).bet_record(ALICE)
    assert [r.balance_before for r in shifted.rounds] == [Decimal("100.01"), Decimal("90.01")]


def test_a_resent_slip_answered_as_new_bets_took_the_stake_again() -> None:
    target = FakeTarget()
    target.placed = [bet("b1", "BIG", "10.00")]
    target.balances = [Decimal("90.00")]
    answers = mutated("resend-as-new-bet@REG-IDEMP-01", target)
    first = answers.place_bets(ALICE, "r1", [("BIG", Decimal("10.00"))], idempotency_key="k1")
    again = answers.place_bets(ALICE, "r1", [("BIG", Decimal("10.00"))], idempotency_key="k1")
    assert first[0].bet_id == "b1" and again[0].bet_id != "b1"
    assert answers.balance(ALICE) == Decimal("80.00")


# -- only what is read ------------------------------------------------------------------------


def test_a_mutant_sends_the_target_exactly_what_the_steps_asked() -> None:
    target = FakeTarget()
    target.placed = [bet("b1", "BIG", "10.00")]
    target.balances = [Decimal("100.00")]
    answers = mutated("taken-shown-refused@REG-LIMIT-01", target)
    with pytest.raises(Refused):
        answers.place_bets(ALICE, "r9", [("BIG", Decimal("10.00"))], idempotency_key="k")
    answers.balance(ALICE)
    assert target.calls == [
        ("place_bets", (ALICE, "r9", (("BIG", Decimal("10.00")),), "k")),
        ("balance", (ALICE,)),
    ]
    marks = [e for e in target.recorder.drain() if e.method == MUTATED]
    assert marks and all(e.status is None and e.request_body is None for e in marks)
    assert target.recorder.count == 0  # an alteration is no request


# -- the other families ----------------------------------------------------------------------


def test_a_triple_loss_paid_pays_small_on_a_triple_and_only_there() -> None:
    target = FakeTarget()
    target.rounds["r1"] = RoundView(
        "r1", "t1", "sicbo", "settled", {"dice": [2, 2, 2]},
        (bet("b1", "SMALL", "10.00", "settled", "0.00", "0.00"),),
    )  # fmt: skip
    target.rounds["r2"] = RoundView(
        "r2", "t1", "sicbo", "settled", {"dice": [1, 2, 2]},
        (bet("b2", "SMALL", "10.00", "settled", "0.00", "0.00", round_id="r2"),),
    )  # fmt: skip
    target.balances = [Decimal("80.00")]
    answers = mutated("triple-loss-paid@SB-PAY-16", target)
    paid = answers.get_round("r1").bet("b1")
    assert (paid.outcome, paid.win, paid.returned) == ("win", Decimal("10.00"), Decimal("20.00"))
    assert answers.get_round("r2") == target.rounds["r2"]
    assert answers.balance(ALICE) == Decimal("100.00")


def test_a_refund_kept_shows_a_cancelled_rounds_stake_lost() -> None:
    target = FakeTarget()
    refund = BetView("b1", "r1", ALICE.player_id, "BIG", Decimal(10), "cancelled", "refund",
                     Decimal(0), Decimal(10))  # fmt: skip
    target.rounds["r1"] = round_view(refund, state="cancelled")
    target.balances = [Decimal("100.00")]
    answers = mutated("refund-kept@TBL-MAL-03", target)
    kept = answers.get_round("r1").bet("b1")
    assert (kept.outcome, kept.returned) == ("lose", Decimal(0))
    assert answers.balance(ALICE) == Decimal("90.00")


def test_a_dealers_action_not_taken_shows_the_state_before_it_until_the_round_moves_on() -> None:
    target = FakeTarget()
    target.rounds["r1"] = round_view(state="betting")
    answers = mutated("action-not-taken@TBL-MAL-01", target)
    answers.get_round("r1")
    target.dealer_action = lambda round_id, action, reason=None: round_view(state="paused")  # type: ignore[attr-defined]
    assert answers.dealer_action("r1", "pause").state == "betting"
    target.rounds["r1"] = round_view(state="paused")
    assert answers.get_round("r1").state == "betting"
    target.rounds["r1"] = round_view(state="settled")  # moved on at the target
    assert answers.get_round("r1").state == "settled"


def test_a_reshake_that_drops_the_bets_returns_their_stakes() -> None:
    target = FakeTarget()
    view = round_view(bet("b1", "BIG", "10.00"), state="closed")
    target.record_reshake = lambda round_id, reason: view  # type: ignore[attr-defined]
    target.balances = [Decimal("90.00")]
    answers = mutated("reshake-drops-bets@SB-RND-05", target)
    assert answers.record_reshake("r1", "dice-overlap").bets == ()
    assert answers.balance(ALICE) == Decimal("100.00")


def test_a_refused_withdrawal_shown_done_gives_the_stake_back() -> None:
    target = FakeTarget()
    target.placed = [bet("b1", "BIG", "10.00")]
    target.balances = [Decimal("90.00")]

    def refuse(player: Any, bet_id: str) -> None:
        raise Refused("withdraw a bet", 409, "not_allowed", "bets stay")

    target.withdraw_bet = refuse  # type: ignore[attr-defined]
    answers = mutated("withdrawal-taken@SB-RND-04", target)
    answers.place_bets(ALICE, "r1", [("BIG", Decimal("10.00"))])
    answers.withdraw_bet(ALICE, "b1")  # no refusal
    assert answers.balance(ALICE) == Decimal("100.00")


def test_the_statistics_chart_loses_a_row_and_a_disconnected_players_bet_is_refunded() -> None:
    target = FakeTarget()
    target.statistics = lambda table_id: [{"round_id": "r2"}, {"round_id": "r1"}]  # type: ignore[attr-defined]
    assert mutated("statistics-round-dropped@SB-STAT-01", target).statistics("t1") == [
        {"round_id": "r1"}
    ]

    target.disconnect = lambda player: None  # type: ignore[attr-defined]
    target.rounds["r1"] = round_view(bet("b1", "BIG", "10.00"), state="betting")
    target.balances = [Decimal("90.00"), Decimal("110.00")]
    answers = mutated("disconnected-bets-refunded@TBL-DISC-02", target)
    answers.disconnect(ALICE)
    assert answers.get_round("r1").bet("b1").outcome == "refund"
    assert answers.balance(ALICE) == Decimal("100.00")  # the stake back
    # the target then settles the bet it kept: paid 20, still shown refunded (10 back)
    target.rounds["r1"] = round_view(bet("b1", "BIG", "10.00", "settled", "10.00", "20.00"))
    assert answers.get_round("r1").bet("b1").returned == Decimal("10.00")
    assert answers.balance(ALICE) == Decimal("100.00")


def test_an_instant_round_refused_is_shown_played_and_lost() -> None:
    target = FakeTarget()

    def refuse(*args: Any, **options: Any) -> RoundView:
        raise Refused("play a round", 400, "invalid_stake", "negative")

    target.play_round = refuse  # type: ignore[attr-defined]
    target.balances = [Decimal("100.00")]
    answers = mutated("refused-shown-taken@REG-INPUT-01", target)
    view = answers.play_round(ALICE, "t1", [("SMALL", Decimal("-5.00"))], ["r", "r", "w", "w"])
    assert (view.table_id, view.state, view.result) == (
        "t1",
        "settled",
        {"tokens": ["r", "r", "w", "w"]},
    )
    [lost] = view.bets
    assert (lost.stake, lost.outcome, lost.returned) == (Decimal("-5.00"), "lose", Decimal(0))
    assert answers.balance(ALICE) == Decimal("105.00")  # a stake of -5.00 taken
    kept = mutated("balance-lag@REG-MONEY-01", target)  # no hook for it: the refusal stays
    with pytest.raises(Refused):
        kept.play_round(ALICE, "t1", [("SMALL", Decimal("-5.00"))], ["r", "r", "w", "w"])

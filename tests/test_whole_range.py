"""Stakes from the whole range (livecert/harness/whole_range.py, range_rounds.py): every paytable
row wins at the top of the range, refunds meet every cent pattern, the record is chained; each
parameterised fault of the family is caught at both ends of its range on exactly its clauses."""

import contextlib
import random
from decimal import Decimal
from pathlib import Path

import pytest

from livecert.adapters import HttpAdapter
from livecert.adapters.model import BetRecord, RecordRound
from livecert.harness.checks import CheckLedger
from livecert.harness.embedded import EmbeddedServer
from livecert.harness.range_rounds import RangeWorld, play_whole_range
from livecert.harness.record_chain import PlayedRound, chain_problems
from livecert.harness.whole_range import paytable_rows, plan_high_stakes, refund_stakes
from livecert.rules import load_paytable
from livecert.rules.settlement import settle
from tests.cli_support import certify_through

ALL_CLAUSES = [f"XD-PAY-{n:02d}" for n in range(1, 11)] + [
    "REG-MONEY-01",
    "REG-SETTLE-01",
    "REG-RECALL-01",
    "TBL-MAL-01",
    "TBL-MAL-03",
    "XD-RND-01",
    "XD-VOID-01",
]


@pytest.mark.parametrize("game", ["sicbo", "xocdia"])
def test_every_row_wins_once_at_its_own_odds(game: str) -> None:
    table = load_paytable(game)
    for seed in range(5):
        covered = []
        for planned in plan_high_stakes(table, random.Random(seed)):
            for row, code in planned.rows:
                ruling = settle(table, code, planned.outcome)
                assert (ruling.outcome, ruling.odds, code in row.codes) == ("win", row.odds, True)
                covered.append(row)
        assert sorted(r.name for r in covered) == sorted(r.name for r in paytable_rows(table))


def test_refund_stakes_meet_every_cent_divisor_inside_the_range() -> None:
    least, most = 1, 5_000_000
    for seed in range(200):
        stakes = refund_stakes(random.Random(seed), least, most, 2)
        assert all(least <= s <= most for s in stakes)
        for every in range(2, 11):
            assert any(s % 100 and (s % 100) % every == 0 for s in stakes), (seed, every)


def test_refund_stakes_of_a_currency_without_minor_unit_vary_their_last_digits() -> None:
    """The dong has no cents: the pattern is drawn on a stake's last two digits instead (a
    range of 1,000 to 10,000,000 dong), never an empty draw."""
    for seed in range(50):
        stakes = refund_stakes(random.Random(seed), 1_000, 10_000_000, 0)
        assert all(1_000 <= s <= 10_000_000 for s in stakes)
        for every in range(2, 11):
            assert any(s % 100 and (s % 100) % every == 0 for s in stakes), (seed, every)


def _row(rid: str, staked: str, before: str, after: str) -> RecordRound:
    return RecordRound(
        rid, "xocdia", "settled", None, Decimal(staked), Decimal(0), Decimal(before), Decimal(after)
    )


def test_an_earlier_rounds_balance_breaks_the_chain() -> None:
    played = [
        PlayedRound("r1", Decimal("100"), Decimal("10"), Decimal("0")),
        PlayedRound("r2", Decimal("90"), Decimal("10"), Decimal("0")),
        PlayedRound("r3", Decimal("80"), Decimal("10"), Decimal("0")),
    ]
    right = [_row("r1", "10", "100", "90"), _row("r2", "10", "90", "80")]
    right.append(_row("r3", "10", "80", "70"))
    wrong = [right[0], _row("r2", "10", "90", "81"), right[2]]  # the middle round's after
    record = BetRecord("p", (), tuple(right))
    assert [p for _r, p in chain_problems(record, played, exact=True)] == [[], [], []]
    # the chain alone (a lent account's balances are not the oracle's) still sees it
    found = chain_problems(BetRecord("p", (), tuple(wrong)), played, exact=False)
    assert [bool(p) for _r, p in found] == [False, False, True]


def _play(faults: tuple[str, ...], seed: int) -> RangeWorld:
    with EmbeddedServer(faults=faults) as server:
        adapter = HttpAdapter(server.url, server.operator_token, server.dealer_token)
        world = RangeWorld(
            adapter, adapter.info(), "xocdia", CheckLedger(ALL_CLAUSES), random.Random(seed)
        )
        with pytest.raises(Exception) if faults else _nothing():
            play_whole_range(world)
    return world


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False


def _failed(world: RangeWorld) -> set[str]:
    return {c for c, tally in world.ledger.clauses.items() if tally.failed}


def test_the_clean_reference_passes_every_check() -> None:
    world = _play((), 7)
    assert not world.failures and _failed(world) == set()
    assert {"XD-PAY-01", "XD-PAY-10", "REG-RECALL-01", "XD-VOID-01", "TBL-MAL-03"} <= set(
        world.ledger.clauses
    )


@pytest.mark.parametrize(
    ("fault", "clauses", "named"),
    [
        # a payout wrong while the wallet and the record hold what it paid: the payout's alone
        ("row-pays-wrong-from-stake=1.01", {"XD-PAY-01", "REG-SETTLE-01"}, "FOUR_RED"),
        ("row-pays-wrong-from-stake=50000.00", {"XD-PAY-01", "REG-SETTLE-01"}, "FOUR_RED"),
        ("record-balance-wrong-rounds-back=1", {"REG-RECALL-01"}, "balance"),
        ("record-balance-wrong-rounds-back=6", {"REG-RECALL-01"}, "balance"),
        ("record-wrong-above-stake=0.01", {"REG-RECALL-01"}, "balance"),
        ("record-wrong-above-stake=50000.00", {"REG-RECALL-01"}, "balance"),
        ("refund-wrong-on-cents=2", {"TBL-MAL-03", "XD-VOID-01"}, "returned"),
        ("refund-wrong-on-cents=10", {"TBL-MAL-03", "XD-VOID-01"}, "returned"),
        # a wallet credited twice while the record shows its true balances: the wallet's alone
        ("cancel-refunds-twice", {"REG-MONEY-01"}, "balance"),
    ],
)
def test_each_fault_is_caught_at_both_ends_on_its_clauses(
    fault: str, clauses: set[str], named: str
) -> None:
    world = _play((fault,), 11)
    assert _failed(world) == clauses
    assert named in str(world.failures[0])


def test_certify_fails_the_high_roller_row_on_exactly_its_clauses(tmp_path: Path) -> None:
    with EmbeddedServer(faults=("row-pays-wrong-from-stake=50000.00",)) as server:
        status, certificate, _out = certify_through(
            tmp_path / "report",
            server.url,
            server,
            "xocdia",
            "XD-PAY-01,REG-SETTLE-01",
            "--",
            "-k",
            "whole_range",
        )
    failed = {c for c, row in certificate["clauses"].items() if row["status"] == "failed"}
    assert (status, failed) == (1, {"XD-PAY-01", "REG-SETTLE-01"})
    assert "FOUR_RED" in str(certificate["clauses"]["XD-PAY-01"])


def test_a_resume_that_reopened_betting_is_the_betting_windows_finding() -> None:
    """A round paused after betting closed and resumed into betting: the finding is the betting
    window's (SB-RND-01, as the malfunction feature judges it), never the resume's (TBL-MAL-02,
    the resume was taken) nor the refused result's (SB-RND-03)."""
    from livecert.harness.money_machine import MachineWorld, MoneyBroken, run_money_machine

    tagged = ["SB-RND-01", "SB-RND-02", "SB-RND-03", "SB-RND-04", "SB-RND-05", "SB-RND-06"]
    tagged += ["TBL-MAL-01", "TBL-MAL-02", "TBL-MAL-03", "REG-MONEY-01", "REG-BAL-01"]
    tagged += ["REG-SETTLE-01", "REG-RECALL-01", "TBL-DISC-02"]
    with EmbeddedServer(faults=("resume-reopens-betting",)) as server:
        adapter = HttpAdapter(server.url, server.operator_token, server.dealer_token)
        world = MachineWorld(
            adapter,
            adapter.info(),
            "sicbo",
            adapter.create_table("sicbo"),
            ledger=CheckLedger(tagged),
        )
        with contextlib.suppress(MoneyBroken):
            run_money_machine(world, 3, 8, 25)
    assert _failed(world) == {"SB-RND-01"}


def test_a_slip_a_live_table_closed_on_before_it_arrived_is_no_finding() -> None:
    """A live table on its own clock closed betting before the slip reached it (the adapter's
    `Refused.late`): the harness was late, never the betting window's finding."""
    from livecert.adapters.errors import Refused
    from livecert.adapters.model import PlayerHandle, TargetInfo
    from livecert.harness.findings import HarnessError
    from livecert.harness.range_rounds import _place

    class LateTable:
        def place_bets(self, player, round_id, bets, idempotency_key=None):
            raise Refused("place 1 bet(s)", 200, "ROUND_STATE", "closed", late="betting closed")

    info = TargetInfo("t", "1", "1", ("xocdia",), "EUR", 2, "down", {}, ())
    ledger = CheckLedger(["XD-RND-01"])
    world = RangeWorld(LateTable(), info, "xocdia", ledger, random.Random(1))
    handles = {"A": PlayerHandle("p1", "t1")}
    with pytest.raises(HarnessError, match="the harness was late"):
        _place(world, handles, "r1", {"A": [("BIG", Decimal("10.00"))]})
    assert not world.failures and not ledger.clauses


def test_players_the_target_cannot_fund_end_the_session_not_testable_once() -> None:
    """A target lending accounts that cannot hold a session's balances says so (Unsupported):
    the session stops there, not testable, and Hypothesis never replays it (each replay would
    ask for more players)."""
    from livecert.adapters.errors import Unsupported
    from livecert.adapters.model import TargetInfo
    from livecert.harness.money_machine import MachineWorld, run_money_machine

    asked: list[Decimal] = []

    class PoorTarget:
        def create_player(self, balance: Decimal):
            asked.append(balance)
            raise Unsupported("create a player", f"no lent account holds {balance}")

    info = TargetInfo("t", "1", "1", ("sicbo",), "EUR", 2, "down", {}, ())
    world = MachineWorld(PoorTarget(), info, "sicbo", "t1", ledger=CheckLedger(["REG-MONEY-01"]))
    with pytest.raises(Unsupported, match="no lent account holds"):
        run_money_machine(world, 3, 8, 25)
    assert len(asked) == 1


def test_a_later_slip_refused_in_the_round_is_sb_rnd_02s_finding() -> None:
    """Sic Bo lets a player place several bets, of several types, in one round (SB-RND-02): a
    table refusing a player's second slip breaks that, not the betting window (SB-RND-01)."""
    from livecert.adapters.errors import Refused
    from livecert.adapters.model import BetView, PlayerHandle, TargetInfo
    from livecert.harness.range_rounds import _place

    class OneSlipTable:
        slips = 0

        def place_bets(self, player, round_id, bets, idempotency_key=None):
            self.slips += 1
            if self.slips > 1:
                raise Refused("place 1 bet(s)", 409, "ROUND_STATE", "already bet in the round")
            return [BetView(bet_id="b1", round_id=round_id, player_id=player.player_id,
                            selection=bets[0][0], stake=bets[0][1], status="open",
                            outcome=None, win=None, returned=None)]  # fmt: skip

    info = TargetInfo("t", "1", "1", ("sicbo",), "EUR", 2, "down", {}, ())
    ledger = CheckLedger(["SB-RND-01", "SB-RND-02"])
    world = RangeWorld(OneSlipTable(), info, "sicbo", ledger, random.Random(1))
    handles = {"A": PlayerHandle("p1", "t1")}
    _place(world, handles, "r1", {"A": [("BIG", Decimal("10.00")), ("ODD", Decimal("20.00"))]})
    assert [set(f.clauses) for f in world.failures] == [{"SB-RND-02"}]


def test_a_reshake_that_reopened_betting_is_its_own_duty_not_the_next_reshakes_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Betting stays closed during a re-shake (RULES.md D, SB-RND-04): a target whose re-shake
    reopens betting fails that, and the random session's next re-shake, refused because betting
    is open, is never blamed on its reason (SB-RND-05/06; `selftest --full` had found it)."""
    from livecert.harness.money_machine import MachineWorld, MoneyBroken, run_money_machine

    monkeypatch.delenv("CI", raising=False)  # the default profile: seed 5 re-shakes twice
    tagged = ["SB-RND-01", "SB-RND-02", "SB-RND-03", "SB-RND-04", "SB-RND-05", "SB-RND-06"]
    tagged += ["TBL-MAL-01", "TBL-MAL-02", "TBL-MAL-03", "REG-MONEY-01", "REG-BAL-01"]
    tagged += ["REG-SETTLE-01", "REG-RECALL-01", "TBL-DISC-02"]
    with EmbeddedServer(faults=("reshake-reopens-betting",)) as server:
        adapter = HttpAdapter(server.url, server.operator_token, server.dealer_token)
        table = adapter.create_table("sicbo")
        world = MachineWorld(adapter, adapter.info(), "sicbo", table, ledger=CheckLedger(tagged))
        with contextlib.suppress(MoneyBroken):
            run_money_machine(world, 5, 8, 25)
    assert _failed(world) == {"SB-RND-04"}

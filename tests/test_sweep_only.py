"""`--sweep-only`: the sweep narrowed to the selections of named paytable clauses, a quicker
re-test of one clause. A narrowed run is partial and says so; the clause that needs every
selection (the game's highest return) never passes on it, but fails when a swept selection
returns more than the maximum or the target declares another one; a seeded fault on a named
clause is still caught; a name that is no paytable clause is refused before anything runs."""

import subprocess
import sys
from decimal import Decimal
from fractions import Fraction

from cli_support import certify

from livecert.certify.selftest import sweep_only_for
from livecert.harness.sweep import bet_on_every_selection, sweep_only_problem, swept_codes
from livecert.harness.vocabulary import paytable
from livecert.suite.steps.sweep import above_maximum


class _Offering:
    """A stand-in adapter offering every selection but `missing`, recording the slip it gets."""

    def __init__(self, missing: frozenset[str] = frozenset()) -> None:
        self.missing, self.slip = missing, []

    def offers(self, game: str, code: str) -> bool:
        return code not in self.missing

    def create_player(self, balance: Decimal):
        self.balance = balance
        return "player"


def test_the_sweep_bets_only_on_the_named_clauses_selections() -> None:
    sicbo = paytable("sicbo")
    totals = [s.code for s in sicbo.selections if s.clause == "SB-PAY-08"]
    assert len(totals) == 14  # totals 4 to 17
    assert swept_codes(_Offering(), sicbo, {"SB-PAY-08"}) == totals
    # clauses of another game or duties leave this game's sweep whole
    assert swept_codes(_Offering(), sicbo, {"XD-PAY-03", "REG-SETTLE-01"}) == [
        s.code for s in sicbo.selections
    ]
    # a selection the target does not offer stays out of the narrowed sweep too
    assert swept_codes(_Offering(frozenset({"TOTAL_10"})), sicbo, {"SB-PAY-08"}) == [
        c for c in totals if c != "TOTAL_10"
    ]
    # the triple-loss clause names the selections that lose on a triple (sicbo.toml's families)
    assert swept_codes(_Offering(), sicbo, {"SB-PAY-16"}) == ["SMALL", "BIG", "ODD", "EVEN"]
    assert swept_codes(_Offering(), sicbo, {"SB-PAY-16", "SB-PAY-01"}) == [
        "SMALL",
        "BIG",
        "ODD",
        "EVEN",
    ]
    # the player gets just enough for the narrowed slip (an instant round keeps it pending)
    adapter = _Offering()
    swept = bet_on_every_selection(
        adapter, sicbo, "t1", Decimal("1.00"), one_request=True, only={"SB-PAY-08"}
    )
    assert [code for code, _ in swept.pending] == totals and adapter.balance == Decimal("14.00")


def test_a_name_that_is_no_paytable_clause_is_refused() -> None:
    assert sweep_only_problem(["SB-PAY-08", "XD-PAY-03"]) is None
    problem = sweep_only_problem(["SB-PAY-08", "REG-SETTLE-01", "SB-RND-01"])
    assert problem is not None and "REG-SETTLE-01, SB-RND-01" in problem
    done = subprocess.run(
        [sys.executable, "-m", "livecert.cli", "certify", "--sweep-only", "SB-RTP-01"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert "--sweep-only names SB-RTP-01" in done.stderr and "SB-PAY-08" in done.stderr


def test_the_self_test_narrows_every_fault_to_its_paytable_clauses_or_one_selection() -> None:
    assert sweep_only_for(["SB-PAY-09", "REG-SETTLE-01", "REG-RTP-01"]) == ["SB-PAY-09"]
    # a maximum-RTP fault keeps its own clauses: a swept selection above the maximum fails it
    assert sweep_only_for(["SB-PAY-16", "REG-SETTLE-01", "REG-RTP-01", "SB-RTP-01"]) == [
        "SB-PAY-16"
    ]
    assert sweep_only_for(["XD-PAY-07", "XD-PAY-08", "REG-SETTLE-01"]) == [
        "XD-PAY-07",
        "XD-PAY-08",
    ]
    # no paytable clause: one selection, every outcome still played (SB-PAY-01 is Small alone)
    assert sweep_only_for(["SB-GEN-01", "REG-INPUT-01"]) == ["SB-PAY-01"]
    assert sweep_only_for(["SB-RTP-01", "REG-RTP-01"]) == ["SB-PAY-01"]
    assert sweep_only_for(["REG-MONEY-01"]) == ["XD-PAY-01"]
    assert sweep_only_for(["SB-RND-01", "XD-RND-01"]) == ["SB-PAY-01", "XD-PAY-01"]


def test_a_narrowed_run_is_partial_and_never_passes_the_highest_return(tmp_path) -> None:
    status, certificate, output = certify(
        tmp_path,
        "--no-html",
        "--game",
        "xocdia",
        "--clauses",
        "XD-PAY-03,XD-RTP-01,REG-RTP-01,REG-SETTLE-01",
        "--sweep-only",
        "XD-PAY-03",
    )
    clauses = certificate["clauses"]
    assert status == 2 and certificate["verdict"] == "incomplete", output[-3000:]
    assert [c for c, row in clauses.items() if row["status"] == "failed"] == []
    for clause in ("XD-PAY-03", "REG-SETTLE-01"):
        assert clauses[clause]["status"] == "passed", (clause, clauses[clause])
    # both RTP clauses are over every selection: never passed on a narrowed sweep
    for clause, words in (("XD-RTP-01", "highest return"), ("REG-RTP-01", "return of every")):
        assert clauses[clause]["status"] == "not-tested", (clause, clauses[clause])
        assert "--sweep-only" in clauses[clause]["reason"] and words in clauses[clause]["reason"]
    assert certificate["rtp"]["xocdia"]["measured_max_percent"] is None  # not the game's
    two_two = [s.code for s in paytable("xocdia").selections if s.clause == "XD-PAY-03"]
    sweep = certificate["sweep"]["xocdia"]
    assert sweep["outcomes_played"] == 16 and sweep["selections"] == len(two_two)
    assert sweep["settlements_checked"] == 16 * len(two_two)
    scope = certificate["scope"]
    assert scope["partial"] and scope["sweep_only"] == ["XD-PAY-03"]
    assert "--sweep-only" in scope["statement"]
    assert "not a certification" in certificate["verdict_statement"]


def test_a_fault_on_a_named_clause_is_still_caught(tmp_path) -> None:
    status, certificate, output = certify(
        tmp_path,
        "--no-html",
        "--game",
        "xocdia",
        "--clauses",
        "XD-PAY-03,REG-SETTLE-01,REG-RTP-01",
        "--sweep-only",
        "XD-PAY-03",
        "--reference-fault",
        "two-two-pays-1-to-1",
    )
    failed = sorted(c for c, row in certificate["clauses"].items() if row["status"] == "failed")
    assert status == 1, output[-3000:]
    assert failed == ["REG-RTP-01", "REG-SETTLE-01", "XD-PAY-03"]


def test_a_return_is_above_the_maximum_only_past_its_two_decimals() -> None:
    assert not above_maximum(Fraction(35, 36), "97.22")  # Small: 97.2222...%, the maximum
    assert not above_maximum(Fraction(972249, 1000000), "97.22")
    assert above_maximum(Fraction(97225, 100000), "97.22")  # 97.225% shows as 97.23%
    assert above_maximum(Fraction(1), "98.75")


def test_a_narrowed_run_fails_a_maximum_a_swept_selection_exceeds(tmp_path) -> None:
    # ODD paid 1:1 returns 8 of 16 results x 2 = 100%, above Xoc Dia's 98.75%
    status, certificate, output = certify(
        tmp_path,
        "--no-html",
        "--game",
        "xocdia",
        "--clauses",
        "XD-RTP-01,REG-RTP-01",
        "--sweep-only",
        "XD-PAY-07",
        "--reference-fault",
        "odd-even-pay-1-to-1",
    )
    clauses = certificate["clauses"]
    assert status == 1, output[-3000:]
    assert clauses["XD-RTP-01"]["status"] == "failed"
    assert "ODD returns 100.00%, above the stated maximum of 98.75%" in output


def test_a_narrowed_run_fails_a_wrong_declared_maximum(tmp_path) -> None:
    status, certificate, output = certify(
        tmp_path,
        "--no-html",
        "--game",
        "xocdia",
        "--clauses",
        "XD-RTP-01,REG-RTP-01",
        "--sweep-only",
        "XD-PAY-01",
        "--reference-fault",
        "declares-wrong-max-rtp-xocdia",
    )
    failed = sorted(c for c, row in certificate["clauses"].items() if row["status"] == "failed")
    assert status == 1, output[-3000:]
    assert failed == ["REG-RTP-01", "XD-RTP-01"]
    assert "the target declares 99.00%, the rules state 98.75%" in output

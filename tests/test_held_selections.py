"""A selection that never wins where it must is held back as "mapping or target", not blamed.

A casino that keeps the stakes of codes it does not know answers a mistyped code of the mapping
(`4Mau` for `4mau`) as a loss: before, its payout clause, REG-SETTLE-01 and REG-RTP-01 failed
against the casino. In the run's first moments every offered selection is now played where it
must win (livecert/harness/selection_trial.py, fixtures/held_selections.py); a code refused
there, or losing on every outcome where it must win at a target that takes unknown codes, is
held back once for the run and its clauses are not tested, with the reason and the probe
command. A code the target knows and never pays is still the target's finding.
"""

import json
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from vendor_support import certify_mapping, instant_only_mapping, vendor_server

from livecert.adapters import BetView, Refused, RoundView
from livecert.adapters.mapping.selections import NotOffered, SelectionTable
from livecert.adapters.model import TableLimits
from livecert.certify.held_selections import hold_clauses
from livecert.harness.selection_trial import (
    MOST_BETS,
    REPLAYS,
    Missed,
    held_selections,
    missed_wins,
    never_won,
    trial_stake,
    wins,
)
from livecert.rules import load_paytable
from livecert.suite.fixtures.held_selections import held_clauses, probe_command, run_games

XOCDIA = load_paytable("xocdia")
CODES = [s.code for s in XOCDIA.selections]
FOUR_COLOUR = {("r", "r", "r", "r"), ("w", "w", "w", "w")}  # where FOUR_OF_A_COLOUR wins


class Table:
    """A fake instant table: pays every code by the rules except `unpaid` (lost) on the
    outcomes in `unpaid_on` (all, if None), refuses the codes in `refused`, and takes unknown
    codes when `takes_unknown`."""

    def __init__(self, unpaid=(), unpaid_on=None, refused=(), takes_unknown=True) -> None:
        self.unpaid, self.unpaid_on = set(unpaid), unpaid_on
        self.refused, self.takes_unknown = set(refused), takes_unknown
        self.slips: list[tuple[list, tuple]] = []

    def __call__(self, slip, outcome) -> RoundView:
        self.slips.append((slip, outcome))
        codes = [c for c, _ in slip]
        if self.refused & set(codes) or (not self.takes_unknown and not set(codes) <= set(CODES)):
            raise Refused("play a round", 422, "INVALID_SELECTION", "no such bet")
        bets = []
        for code, stake in slip:
            won = code in CODES and wins(XOCDIA, code, outcome)
            if code in self.unpaid and (self.unpaid_on is None or outcome in self.unpaid_on):
                won = False
            win = stake if won else -stake
            bets.append(
                BetView(
                    "", "", "p1", code, stake, "settled", "win" if won else "lose", win, stake + win
                )
            )
        return RoundView("", "t1", "xocdia", "settled", None, tuple(bets))


def _held(table: Table, most: int = MOST_BETS) -> dict[str, str]:
    return held_selections(XOCDIA, CODES, table, Decimal(1), most, repr, "livecert doctor --probe")


def test_a_code_that_never_wins_at_a_table_taking_unknown_codes_is_held() -> None:
    table = Table(unpaid={"FOUR_OF_A_COLOUR"})
    held = _held(table)
    assert list(held) == ["FOUR_OF_A_COLOUR"]
    assert held["FOUR_OF_A_COLOUR"].startswith(
        "mapping or target: the code FOUR_OF_A_COLOUR (sent as 'FOUR_OF_A_COLOUR') never won: "
        "it lost on all 2 outcomes where it must win"
    ), held
    assert held["FOUR_OF_A_COLOUR"].endswith(
        "to tell which, compare it with the vendor's codes and try the mapping again with "
        "`livecert doctor --probe`"
    )
    played = {o for slip, o in table.slips if ("FOUR_OF_A_COLOUR", Decimal(1)) in slip}
    assert played == FOUR_COLOUR  # each outcome where it must win, once


@pytest.mark.parametrize("most", [1, MOST_BETS])
def test_a_code_the_table_knows_and_never_pays_is_the_tables_finding(most: int) -> None:
    """The table refuses a code it cannot know, so the code it took is one it knows: its
    losses are the target's, judged by the run (not held), on either settlement mode."""
    assert _held(Table(unpaid={"FOUR_OF_A_COLOUR"}, takes_unknown=False), most) == {}


def test_a_code_that_wins_on_one_outcome_where_it_must_is_not_held() -> None:
    """Unpaid on four white only: it won on four red, so it is a code the target pays, and
    the run judges its losses (a fault that hides at some outcomes is not a mapping's)."""
    for unpaid_on in ({("w", "w", "w", "w")}, {("r", "r", "r", "r")}):
        table = Table(unpaid={"FOUR_OF_A_COLOUR"}, unpaid_on=unpaid_on)
        assert _held(table) == {}, unpaid_on


def test_a_code_refused_where_it_must_win_is_held_either_way() -> None:
    for takes in (True, False):
        held = _held(Table(refused={"TWO_TWO"}, takes_unknown=takes))
        assert list(held) == ["TWO_TWO"], held
        assert "was refused on w-w-r-r, where it must be taken and win" in held["TWO_TWO"]


def test_a_correct_table_holds_nothing_in_few_rounds() -> None:
    table = Table()
    assert _held(table) == {}
    assert len(table.slips) == 5  # hand-counted: the greedy groups of the 10 Xoc Dia codes


def test_never_won_counts_the_outcomes_it_could_not_play() -> None:
    """A slip refused on a replay is not a loss: the reason says how many outcomes were
    played, and never calls the refused one lost."""
    table = Table(unpaid={"FOUR_OF_A_COLOUR"})
    (first,) = missed_wins(XOCDIA, CODES, table, Decimal(1), MOST_BETS)
    table.refused = {"FOUR_OF_A_COLOUR"}
    (never,) = never_won(XOCDIA, [first], table, Decimal(1), 1)
    assert (never.lost_on, never.must_win, never.unplayed) == (1, 2, 1)
    assert never.said() == (
        "it lost on each of the 1 outcomes played of the 2 where it must win; 1 more refused "
        "or not played"
    )


def test_a_wide_code_is_replayed_on_a_spread_of_its_outcomes_within_the_budget() -> None:
    """Sic Bo's Big wins on 105 of the 216 rolls (totals 11 to 17, less the triples 4-4-4 and
    5-5-5, counted by hand): played on its first and REPLAYS more, each a different roll, and
    no more rounds than the budget funds."""
    sicbo = load_paytable("sicbo")
    lost = []

    def play(slip, outcome):
        lost.append(outcome)
        bets = tuple(
            BetView("", "", "p1", c, k, "settled", "lose", -k, Decimal(0)) for c, k in slip
        )
        return RoundView("", "t1", "sicbo", "settled", None, bets)

    first = Missed("BIG", (5, 6, 6), "lose, returned 0", False)
    (never,) = never_won(sicbo, [first], play, Decimal(1), 1)
    assert (never.lost_on, never.must_win, never.unplayed) == (1 + REPLAYS, 105, 0)
    assert len(set(lost)) == REPLAYS and (5, 6, 6) not in lost
    assert all(wins(sicbo, "BIG", o) for o in lost)
    assert never.said() == (
        f"it lost on each of the {1 + REPLAYS} outcomes played of the 105 where it must win"
    )
    lost.clear()
    (poor,) = never_won(sicbo, [first], play, Decimal(1), 1, budget=3)
    assert (len(lost), poor.lost_on, poor.unplayed) == (3, 4, REPLAYS - 3)


@pytest.mark.parametrize(
    ("limits", "expected"),
    [
        (None, (Decimal(1), MOST_BETS)),
        (TableLimits(min_bet=Decimal("5.00")), (Decimal("5.00"), MOST_BETS)),
        (TableLimits(max_bet=Decimal("0.50")), (Decimal("0.50"), MOST_BETS)),
        (TableLimits(max_slip=Decimal("10")), (Decimal(1), 10)),
        (TableLimits(min_slip=Decimal("2"), max_slip=Decimal("7")), (Decimal(2), 3)),
        (TableLimits(min_bet=Decimal("2"), max_bet=Decimal("1")), None),
    ],
)
def test_the_trial_stakes_stay_inside_the_declared_limits(limits, expected) -> None:
    assert trial_stake(limits) == expected


def test_a_held_code_is_not_offered_and_says_why() -> None:
    table = SelectionTable({"FOUR_OF_A_COLOUR": "4Mau"})
    assert table.offered("FOUR_OF_A_COLOUR")
    table.hold("FOUR_OF_A_COLOUR", "mapping or target: why")
    assert not table.offered("FOUR_OF_A_COLOUR")
    with pytest.raises(NotOffered, match="mapping or target: why"):
        table.to_vendor("FOUR_OF_A_COLOUR")


def test_the_certificate_holds_passed_clauses_and_keeps_failures() -> None:
    """Held: the code's clause, the game's maximum RTP and the duties over every selection. A
    clause that passed on the other codes is not tested; one failed by other checks keeps its
    failure; a game outside the run holds nothing; a note is said once, prefixed once."""
    clauses = held_clauses({"xocdia": {"FOUR_OF_A_COLOUR": "mapping or target: r"}})
    assert clauses == {
        "xocdia": dict.fromkeys(
            ["XD-PAY-06", "XD-RTP-01", "REG-SETTLE-01", "REG-RTP-01"], "mapping or target: r"
        )
    }
    statuses = {
        "XD-PAY-06": {"in_scope": True, "status": "not-tested", "reason": "does not offer"},
        "XD-RTP-01": {"in_scope": True, "status": "passed"},
        "REG-SETTLE-01": {"in_scope": True, "status": "passed", "not_testable": ["x"]},
        "REG-RTP-01": {"in_scope": True, "status": "failed"},
    }
    record = {
        "type": "selections_held",
        "held": {"xocdia": {"FOUR_OF_A_COLOUR": "mapping or target: r"}},
        "clauses": clauses,
        "notes": ["sicbo: no single bet fits the declared limits"],
    }
    assert hold_clauses(statuses, [record], ("sicbo",)) == [
        "selections not tried before the run: sicbo: no single bet fits the declared limits"
    ]
    assert statuses["REG-SETTLE-01"]["status"] == "passed"  # Xoc Dia is not this run's
    said = hold_clauses(statuses, [record], ("xocdia",))
    assert said[0] == "mapping or target: r" and len(said) == 2
    held_row = {"in_scope": True, "status": "not-tested", "reason": "mapping or target: r"}
    assert statuses["XD-PAY-06"] == statuses["XD-RTP-01"] == held_row
    assert statuses["REG-SETTLE-01"] == held_row
    assert statuses["REG-RTP-01"]["status"] == "failed"


def test_the_probe_command_carries_no_credentials_and_the_runs_profile() -> None:
    command = probe_command("m.yaml", "http://lab:s3cret@casino.test:8080/api")
    assert command == (
        "livecert doctor --probe --adapter m.yaml --target-url http://casino.test:8080/api"
    )
    assert probe_command("m.yaml", "http://c.test", "documents").endswith("c.test")
    assert probe_command("m.yaml", "http://c.test", "p.toml").endswith("c.test --rules p.toml")


@pytest.mark.parametrize(
    ("markexpr", "games"),
    [
        ("xocdia", ("xocdia",)),
        ("sicbo or xocdia", ("sicbo", "xocdia")),
        ("(sicbo) and (SB-PAY-08 or REG-RTP-01)", ("sicbo",)),
        ("", ("sicbo", "xocdia")),
    ],
)
def test_the_trial_plays_only_the_runs_games(markexpr: str, games: tuple) -> None:
    assert run_games(markexpr) == games


JUDGED = ("XD-PAY-06", "XD-PAY-07", "XD-PAY-09", "XD-RTP-01", "REG-SETTLE-01", "REG-RTP-01")


def test_mistyped_codes_are_held_in_the_run_not_blamed_on_the_vendor(tmp_path: Path) -> None:
    """`Same4` for `SAME4`, and Big and Small (the highest returns) as `Tai` and `Xiu`, at the
    vendor's instant table taking codes it does not know, over two workers (the run's first
    process tries, each worker holds): their clauses, XD-RTP-01 (the highest return, now over
    Odd and Even only), REG-SETTLE-01 and REG-RTP-01 are not tested, with the reason, never
    failed; XD-PAY-07 (Odd) is judged and passes. The Sic Bo code mistyped too is not tried on
    a Xoc Dia run. (A code the target knows and never pays still fails: the cookie casino's
    four-colour-never-paid fault, tests/test_cookie_casino.py.)"""
    data = yaml.safe_load(instant_only_mapping(tmp_path).read_text(encoding="utf-8"))
    data["selections"]["xocdia"].update(FOUR_OF_A_COLOUR="Same4", BIG="Tai", SMALL="Xiu")
    data["selections"]["sicbo"]["BIG"] = "Big"
    mapping = tmp_path / "typo.yaml"
    mapping.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with vendor_server("instant-takes-unoffered-codes") as (url, env):
        status, certificate, output = certify_mapping(
            tmp_path, mapping, url, env, "--game", "xocdia", "--clauses", ",".join(JUDGED),
            "--workers", "2",
        )  # fmt: skip
    rows = certificate["clauses"]
    assert (status, certificate["verdict"]) == (2, "incomplete"), output[-3000:]
    assert {c: rows[c]["status"] for c in JUDGED} == {
        "XD-PAY-06": "not-tested",
        "XD-PAY-07": "passed",
        "XD-PAY-09": "not-tested",
        "XD-RTP-01": "not-tested",
        "REG-SETTLE-01": "not-tested",
        "REG-RTP-01": "not-tested",
    }
    reason = rows["XD-PAY-06"]["reason"]
    assert reason.startswith(
        "mapping or target: the code FOUR_OF_A_COLOUR (sent as 'Same4') never won: it lost on "
        "all 2 outcomes where it must win"
    ), reason
    assert f"`livecert doctor --probe --adapter {mapping} --target-url {url}`" in reason
    assert rows["XD-PAY-09"]["reason"].startswith(
        "mapping or target: the code BIG (sent as 'Tai') never won: it lost on all 5 outcomes "
        "where it must win"
    )  # Big wins on 3 red (4 ways) or 4 red (1 way), counted by hand
    said = [r for r in certificate["verdict_reasons"] if r.startswith("mapping or target")]
    assert sorted(r.split(" (sent as")[0] for r in said) == [
        "mapping or target: the code BIG",
        "mapping or target: the code FOUR_OF_A_COLOUR",
        "mapping or target: the code SMALL",
    ]  # each once
    assert output.count("mapping or target: the code FOUR_OF_A_COLOUR") == 1
    assert rows["XD-PAY-07"]["checks"]["held"] > 0
    record = [
        json.loads(line)
        for line in (tmp_path / "report" / "run-record.jsonl").read_text().splitlines()
    ]
    (trial,) = [r for r in record if r["type"] == "selections_held"]
    assert list(trial["held"]) == ["xocdia"]  # the Sic Bo table was not played

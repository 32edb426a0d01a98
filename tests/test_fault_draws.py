"""Seeded faults with a parameter (livecert/reference/fault_values.py) and the self-test's draws
of it (livecert/certify/fault_draws.py): a fault hiding at some values only is given as
`NAME=VALUE`, checked against its range, and `livecert selftest --full` draws it over the whole
range, the two ends first, seeded so that a run can be made again."""

import random

import pytest

from livecert.certify import selftest
from livecert.certify.fault_draws import Range, drawn_catalogue, draws_table, family
from livecert.reference import faults
from livecert.reference.config import Config
from livecert.reference.fault_values import Fault, FaultParameter, FaultSet

THRESHOLD = Fault(
    "pays-wrong-from-stake",
    ("SB-PAY-01", "REG-SETTLE-01"),
    "a test fault",
    FaultParameter("the least stake paid wrong", "money", "0.01", "50000.00", "100.00"),
)


@pytest.fixture
def with_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(faults.FAULTS, THRESHOLD.name, THRESHOLD)


def test_a_parameter_is_checked_against_its_kind_and_range() -> None:
    parameter = THRESHOLD.parameter
    assert parameter.parse("0.01") == "0.01" and parameter.parse("50000.00") == "50000.00"
    for wrong, said in (
        ("0.00", "outside the fault's range 0.01 to 50000.00"),
        ("50000.01", "outside"),
        ("12.3", "an amount such as 12.34"),
        ("-1.00", "an amount"),
        ("1e3", "an amount"),
    ):
        with pytest.raises(ValueError, match=said):
            parameter.parse(wrong)
    delay = FaultParameter("ms", "int", "200", "5000", "1000")
    assert delay.parse("200") == "200"
    with pytest.raises(ValueError, match="a whole number"):
        delay.parse("2.5")
    with pytest.raises(ValueError, match="kind"):
        FaultParameter("x", "float", "0", "1", "0")


def test_the_server_takes_a_fault_with_its_value_or_its_default(with_threshold) -> None:
    given = faults.check(["pays-wrong-from-stake=2500.00", "small-wins-on-triple"])
    assert "pays-wrong-from-stake" in given and "small-wins-on-triple" in given
    assert given.money("pays-wrong-from-stake") == 250_000
    assert faults.check(["pays-wrong-from-stake"]).value("pays-wrong-from-stake") == "100.00"
    # a test naming the fault in a plain set gets the default, as a bare --fault does
    assert (
        Config(faults=frozenset({"pays-wrong-from-stake"})).faults.money("pays-wrong-from-stake")
        == 10_000
    )
    with pytest.raises(ValueError, match="takes no parameter"):
        faults.check(["small-wins-on-triple=1"])
    with pytest.raises(ValueError, match="outside"):
        faults.check(["pays-wrong-from-stake=0.00"])
    with pytest.raises(ValueError, match="unknown fault"):
        faults.check(["no-such-fault=1"])


def test_the_listing_prints_the_range_and_the_selftest_reads_it(
    with_threshold, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = next(x for x in faults.listing() if x.startswith("pays-wrong-from-stake "))
    assert line == "pays-wrong-from-stake SB-PAY-01,REG-SETTLE-01 money:0.01..50000.00"

    class Done:
        returncode, stderr = 0, ""
        stdout = "\n".join(faults.listing())

    monkeypatch.setattr(selftest, "livecert_command", lambda *args, **kw: Done())
    catalogue, ranges = selftest.fault_listing()
    assert catalogue["pays-wrong-from-stake"] == ["SB-PAY-01", "REG-SETTLE-01"]
    assert ranges["pays-wrong-from-stake"] == Range("money", "0.01", "50000.00")
    assert set(ranges) == {n for n, f in faults.FAULTS.items() if f.parameter is not None}
    assert catalogue["small-wins-on-triple"][0] == "SB-PAY-16"


def test_draws_take_the_ends_first_then_the_range_seeded() -> None:
    money = Range.parse("money:0.01..50000.00")
    first = money.draw(5, random.Random(7))
    assert first[:2] == ["0.01", "50000.00"] and len(set(first)) == 5
    assert all(1 <= int(v.replace(".", "")) <= 5_000_000 for v in first)
    assert first == money.draw(5, random.Random(7))  # the seed makes it again
    assert first != money.draw(5, random.Random(8))
    assert Range.parse("int:3..4").draw(5, random.Random(1)) == ["3", "4"]  # no more to draw
    assert Range.parse("int:6..6").draw(5, random.Random(1)) == ["6"]
    with pytest.raises(ValueError, match=r"KIND:LOW\.\.HIGH"):
        Range.parse("money:1.00")


def test_the_catalogue_is_drawn_and_the_table_counts_each_family() -> None:
    catalogue = {"plain": ["SB-PAY-01"], "ranged": ["REG-IDEMP-01"]}
    drawn = drawn_catalogue(catalogue, {"ranged": Range("int", "200", "5000")}, 3, seed=11)
    assert next(iter(drawn)) == "plain" and len(drawn) == 4
    runs = [name for name in drawn if name != "plain"]
    assert runs[:2] == ["ranged=200", "ranged=5000"] and all(family(r) == "ranged" for r in runs)
    assert drawn_catalogue(catalogue, {"ranged": Range("int", "1", "9")}, 0, 11) == catalogue
    table = draws_table([("plain", True), (runs[0], True), (runs[1], False), (runs[2], True)])
    assert table[2] == f"| ranged | 3 | 2 | 200, **5000**, {runs[2].partition('=')[2]} |"
    assert draws_table([("plain", True)]) == []


def test_a_fault_set_is_still_a_set_of_names() -> None:
    chosen = FaultSet(["a", "b"], {"a": "12.34"})
    assert chosen == frozenset({"a", "b"}) and "b" in chosen
    assert chosen.money("a") == 1234 and chosen & {"b"} == {"b"}

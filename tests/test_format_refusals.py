"""A stake's refusal is demanded only on a written word (issue 35, point 5).

By its value (no amount, zero or less, finer than the minor unit, over the balance) at any
target; by its notation ("+10.00", "010.00", "1e3", "1,000.00", " 10.00") only where the
contract's stake pattern (canonical adapter) or a mapping's money format declared `strict`
excludes it. A mapping target that takes "+10.00" as 10.00 is not failed: the example is not
testable there, with the reason; one that takes "-1.00", "0.00" or "1.001" still is.
"""

import json
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pytest
from test_mapping import Seen, a_round, adapter_for, scripted

from livecert.adapters import PlayerHandle
from livecert.adapters.errors import Unsupported
from livecert.adapters.mapping.instant_play import plain_stake
from livecert.adapters.mapping.wire_money import PLAIN_AMOUNT, MoneyFormat
from livecert.harness.checks import CheckLedger
from livecert.harness.findings import ClauseFailure
from livecert.harness.stake_notation import (
    Notation,
    contract_stake_pattern,
    readings,
    refusal_demand,
)
from livecert.suite.steps.bad_input import bet_raw_stake, refused_and_nothing_moves

CONTRACT = Notation("contract")
STRING = Notation("mapping", MoneyFormat())
CENTS = Notation("mapping", MoneyFormat(scale="minor", format="integer"))
STRICT = Notation("mapping", MoneyFormat(strict=True))
STRICT_CENTS = Notation("mapping", MoneyFormat(scale="minor", format="integer", strict=True))
PLUGIN = Notation("adapter")
EVERY = (CONTRACT, STRING, CENTS, STRICT, STRICT_CENTS, PLUGIN)
# another notation of a valid amount, and the words naming it
NOTATIONS = {
    "+10.00": "a sign",
    "010.00": "a leading zero",
    "1e1": "an exponent",
    "1,000.00": "a thousands separator",
    " 10.00": "spaces around it",
}
HOLDS = Decimal("5000.00")  # enough for every notation above: only its notation is in question


def demand(raw: str, notation: Notation, held: Decimal = HOLDS, rest: str = "0") -> str:
    return refusal_demand(raw, notation, 2, Decimal(rest), held)


# -- the classification ------------------------------------------------------------------------


@pytest.mark.parametrize("raw", [*NOTATIONS, "10.", ".5"])
def test_the_contract_s_pattern_demands_the_refusal_of_another_notation(raw: str) -> None:
    cited = demand(raw, CONTRACT)
    assert "the contract's stake pattern" in cited and contract_stake_pattern() in cited


def test_the_contract_refuses_decimals_past_the_minor_unit_even_as_zeros() -> None:
    assert 'docs/contract.md, "Money and rounding"' in demand("1.000", CONTRACT)


@pytest.mark.parametrize("notation", [STRING, CENTS, PLUGIN], ids=["string", "cents", "plugin"])
@pytest.mark.parametrize("raw", list(NOTATIONS))
def test_another_notation_of_a_valid_amount_is_not_testable_where_nothing_refuses_it(
    raw: str, notation: Notation
) -> None:
    with pytest.raises(Unsupported) as raised:
        demand(raw, notation)
    assert NOTATIONS[raw] in raised.value.reason
    assert repr(raw) in raised.value.operation
    if notation.kind == "mapping":
        assert "strict: true" in raised.value.reason  # what would make it testable


def test_text_to_a_json_number_api_is_not_tried_as_a_notation() -> None:
    """Sending "+10.00" where the vendor's API takes integer cents would try how it reads a
    string, not how it reads a stake's notation: not testable, saying so."""
    with pytest.raises(Unsupported, match="reads a string where its API takes a JSON number"):
        demand("+10.00", CENTS)


@pytest.mark.parametrize("raw", list(NOTATIONS))
def test_a_strict_money_format_demands_the_refusal_citing_itself(raw: str) -> None:
    assert "the mapping's declared money format (scale: units, format: string, strict: true)" in (
        demand(raw, STRICT)
    )
    assert "amounts are JSON numbers, and" in demand(raw, STRICT_CENTS)


def test_a_strict_locale_format_takes_its_own_writing() -> None:
    """ "1.234,50" is how that format writes 1234.50: not another notation of it."""
    locale = Notation(
        "mapping", MoneyFormat(format="locale", thousands=".", decimal=",", strict=True)
    )
    with pytest.raises(Unsupported, match=r"the target may read it as 1234\.50"):
        demand("1.234,50", locale)
    assert "declared money format" in demand("1234,50", locale)


@pytest.mark.parametrize("notation", EVERY, ids=lambda n: n.kind + str(n.money))
@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("0", "not an amount above zero"),
        ("0.00", "not an amount above zero"),
        ("+0.00", "not an amount above zero"),
        ("-1.00", "not an amount above zero"),
        ("-0.01", "not an amount above zero"),
        ("1.001", "finer than the declared minor unit"),
        ("0.005", "finer than the declared minor unit"),
        ("abc", "no amount in any notation"),
        ("ten", "no amount in any notation"),
        ("1.0.0", "no amount in any notation"),
        ("NaN", "no amount in any notation"),
    ],
)
def test_a_stake_that_is_no_valid_amount_is_refused_everywhere_by_its_value(
    raw: str, why: str, notation: Notation
) -> None:
    cited = demand(raw, notation)
    assert cited.startswith("REG-INPUT-01 by its value") and why in cited


@pytest.mark.parametrize("notation", [STRING, CENTS, PLUGIN], ids=["string", "cents", "plugin"])
@pytest.mark.parametrize("raw", ["90.01", "1000000000000.00", "1e3", "1e999999999"])
def test_a_stake_over_what_the_player_holds_is_refused_everywhere(
    raw: str, notation: Notation
) -> None:
    assert "more than the 90.00 the player holds" in demand(raw, notation, Decimal("90.00"))


def test_the_slip_s_other_stakes_count_towards_the_balance() -> None:
    assert "the slip 96.00" in demand("+85.00", STRING, Decimal("90.00"), rest="11.00")
    with pytest.raises(Unsupported):
        demand("+75.00", STRING, Decimal("90.00"), rest="11.00")


def test_a_stake_read_two_ways_is_demanded_only_where_both_readings_are_bad() -> None:
    """ "1,000" is 1000 or 1.000 (a decimal comma); "1,001" is 1001 or 1.001."""
    assert set(readings("1,000")) == {Decimal(1000), Decimal(1)}
    with pytest.raises(Unsupported):
        demand("1,000", STRING, Decimal("90.00"))
    assert "more than the 90.00" in demand("1,001", STRING, Decimal("90.00"))


def test_the_plain_notation_is_the_contract_s_own() -> None:
    assert contract_stake_pattern() == f"^{PLAIN_AMOUNT.pattern}$"


@pytest.mark.parametrize(
    ("stake", "plain"),
    [("-1.00", True), ("1.001", True), ("0", True), ("010.00", False), ("+1", False)],
)
def test_only_the_contract_s_notation_is_rewritten_in_the_vendor_s_format(
    stake: str, plain: bool
) -> None:
    """A leading zero is a notation, sent as written: re-written as 10.00 it would be tried as
    a valid stake, and its acceptance called a failure."""
    assert plain_stake(stake) is plain


# -- through the steps, at a vendor that takes any number it can read --------------------------


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_API_KEY", "s3cret-key")


def _lenient_vendor(wallet: dict):
    """A vendor taking any stake it can read as a number ("+10.00" as 10.00, "-1.00" too)."""

    def booked() -> list[dict]:
        return [
            {"id": f"b{i}", "round": "r1", "player": "7", "pick": "big", "amount": str(amount),
             "status": "open"}
            for i, amount in enumerate(wallet["bets"])
        ]  # fmt: skip

    def script(request: Seen):
        if request.path == "/wallet":
            return 200, {}, {"cash": str(wallet["cash"])}
        if request.path.endswith("/bets"):
            stake = json.loads(request.body, parse_float=Decimal)["bets"][0]["amount"]
            try:
                amount = Decimal(str(stake).strip())
            except ArithmeticError:
                return 400, {}, {"error": "not a number"}
            wallet["cash"] -= amount
            wallet["bets"].append(amount)
            return 200, {}, {"bets": booked()[-1:]}
        return 200, {}, a_round(bets=booked())

    return script


class StandInScene:
    """What the bad-input steps use of a Scene, at a mapping target."""

    def __init__(self, adapter, checks_contract: bool = False) -> None:
        self.adapter, self.game = adapter, "sicbo"
        self.target = SimpleNamespace(
            info=SimpleNamespace(limits={}, minor_unit=2),
            identity=SimpleNamespace(checks_contract=checks_contract),
        )
        self.checks = CheckLedger(("REG-INPUT-01", "REG-BAL-01", "REG-MONEY-01"))
        self.round = None
        self.refused_by: tuple[str, ...] = ()

    def player(self) -> PlayerHandle:
        return PlayerHandle("7", "k")

    def open_round(self):
        self.round = self.round or self.adapter.open_round("t1")
        return self.round


def _try(tmp_path: Path, stake: str, change=None, checks_contract: bool = False) -> list:
    """The scenario "a stake of <stake> on Big" at the lenient vendor; the stakes it booked
    are kept in `booked_stakes` (looked at where the scenario raised)."""
    wallet: dict = {"cash": Decimal("90.00"), "bets": booked_stakes}
    booked_stakes.clear()
    request = SimpleNamespace(node=SimpleNamespace(stash=pytest.Stash()))
    with scripted(_lenient_vendor(wallet)) as (url, _seen):
        scene = StandInScene(adapter_for(tmp_path, url, change), checks_contract)
        scene.open_round()
        bet_raw_stake(scene, stake, "Big", request)  # type: ignore[arg-type]
        refused_and_nothing_moves(scene, request)  # type: ignore[arg-type]
    return booked_stakes


booked_stakes: list[Decimal] = []


def _strict(data: dict) -> None:
    data["money"] = {"scale": "units", "format": "string", "strict": True}


def test_a_mapping_target_taking_a_signed_stake_as_its_amount_is_not_failed(
    tmp_path: Path,
) -> None:
    with pytest.raises(Unsupported) as raised:
        _try(tmp_path, "+10.00")
    assert "with a sign" in raised.value.reason and "strict: true" in raised.value.reason
    assert booked_stakes == []  # not even sent: an example not testable is not tried


@pytest.mark.parametrize("stake", ["-1.00", "0.00", "1.001"])
def test_a_mapping_target_taking_a_stake_that_is_no_valid_amount_is_failed(
    tmp_path: Path, stake: str
) -> None:
    with pytest.raises(ClauseFailure) as raised:
        _try(tmp_path, stake)
    assert booked_stakes == [Decimal(stake)]
    assert "REG-INPUT-01" in raised.value.clauses
    assert "demanded by REG-INPUT-01 by its value" in str(raised.value)


def test_a_strict_mapping_target_taking_a_signed_stake_is_failed_citing_its_format(
    tmp_path: Path,
) -> None:
    with pytest.raises(ClauseFailure) as raised:
        _try(tmp_path, "+10.00", _strict)
    assert "REG-INPUT-01" in raised.value.clauses
    assert "demanded by the mapping's declared money format" in str(raised.value)


def test_the_canonical_adapter_still_demands_the_refusal_of_a_signed_stake(
    tmp_path: Path,
) -> None:
    """The contract's pattern excludes the sign: the same acceptance is a failure there."""
    with pytest.raises(ClauseFailure) as raised:
        _try(tmp_path, "+10.00", checks_contract=True)
    assert "demanded by the contract's stake pattern" in str(raised.value)

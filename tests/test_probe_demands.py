"""`livecert doctor --probe` demands of a target's answers exactly what certify demands
(livecert/certify/probe.py): a bet just placed may read no status, a settled one must read
settled; and the probe's own stake keeps inside the limits the table declares."""

from decimal import Decimal

import pytest

from livecert.adapters.model import BetView, TableLimits, TargetInfo
from livecert.certify.diagnosis import FAIL, Diagnosis
from livecert.certify.probe import _Probe, _Stop

D = Decimal


def _info(limits: dict[str, TableLimits] | None = None) -> TargetInfo:
    return TargetInfo("table", "1", "1", ("sicbo",), "EUR", 2, "down", {}, (), limits or {}, None)


def _probe(limits: dict[str, TableLimits] | None = None) -> tuple[_Probe, Diagnosis]:
    diagnosis = Diagnosis()
    probe = _Probe(None, _info(limits), "sicbo", diagnosis)  # type: ignore[arg-type]
    probe.code = "BIG"
    return probe, diagnosis


def _bet(status: str | None) -> BetView:
    return BetView("b1", "r1", "p1", "BIG", D("1.00"), status, None, None, None)  # type: ignore[arg-type]


def test_a_bet_acknowledged_with_no_status_is_placed_as_certify_reads_it() -> None:
    probe, diagnosis = _probe()
    probe.bet(_bet(None), "place 1.00 on BIG", "open")
    probe.bet(_bet("open"), "place 1.00 on BIG", "open")
    assert diagnosis.healthy, diagnosis.lines()


def test_a_bet_placed_that_reads_another_status_or_a_settled_one_none_fails() -> None:
    for status, wanted in (("settled", "open"), (None, "settled"), ("open", "settled")):
        probe, diagnosis = _probe()
        with pytest.raises(_Stop):
            probe.bet(_bet(status), "the bet", wanted)
        assert [c.status for c in diagnosis.checks] == [FAIL], (status, wanted)


def test_the_probes_stake_keeps_inside_the_declared_limits() -> None:
    assert _probe()[0].stake == D("1.00")
    probe, _ = _probe({"sicbo": TableLimits(min_bet=D("2.50"), max_bet=D("5000.00"))})
    assert (probe.stake, probe.balance) == (D("2.50"), D("100.00"))  # 1.00 + 75 x 0.02 (step)
    narrow, _ = _probe({"sicbo": TableLimits(min_bet=D("80.00"))})
    assert (narrow.stake, narrow.balance) == (D("80.00"), D("160.00"))

"""Declared table limits (REG-LIMIT-01): the slips that probe them, by hand, and the certificate
of a target that declares none (livecert/harness/limits.py, livecert/certify/certificate.py)."""

import random
from decimal import Decimal

from cli_support import certify, certify_through
from rewriting_proxy import rewriting_proxy, unchanged

from livecert.adapters.model import TableLimits, limits_from
from livecert.harness.embedded import EmbeddedServer
from livecert.harness.instant import random_slip
from livecert.harness.limits import LARGE_STAKE, balance_for, plan_probes

CENT = Decimal("0.01")
CODES = ["BIG", "SMALL", "ODD", "EVEN"]
D = Decimal


def _shown(probes) -> list[tuple[str, list[str], bool]]:
    return [(p.limit, [str(s) for _, s in p.slip], p.take) for p in probes]


def test_the_probes_of_the_references_limits() -> None:
    limits = TableLimits(min_bet=D("0.01"), max_bet=D("50000.00"), max_slip=D("100000.00"))
    probes = plan_probes(limits, CENT, CODES, several=True)
    assert _shown(probes) == [
        ("min_bet", ["0.01"], True),  # one cent under it is no stake at all: bad input's duty
        ("max_bet", ["50000.00"], True),
        ("max_bet", ["50000.01"], False),
        ("max_slip", ["50000.00", "50000.00"], True),
        ("max_slip", ["50000.00", "50000.00", "0.01"], False),
    ]
    # enough for every slip taken and for the largest refused, so no refusal is for the balance
    assert balance_for(probes) == D("0.01") + D("50000.00") + D("100000.00") + D("100000.01")


def test_a_minimum_above_a_cent_is_probed_one_cent_under_it() -> None:
    limits = TableLimits(min_bet=D("1.00"), min_slip=D("5.00"), max_slip=D("7.50"))
    probes = plan_probes(limits, CENT, CODES, several=True)
    assert _shown(probes) == [
        ("min_bet", ["1.00"], True),
        ("min_bet", ["0.99"], False),
        ("max_slip", ["7.50"], True),
        ("max_slip", ["7.51"], False),
        ("min_slip", ["5.00"], True),
        ("min_slip", ["4.99"], False),
    ]


def test_slip_limits_need_several_bets_in_one_slip_only_above_the_bet_maximum() -> None:
    limits = TableLimits(max_bet=D("100.00"), max_slip=D("150.00"))
    one_bet_per_slip = plan_probes(limits, CENT, CODES, several=False)
    assert [p.limit for p in one_bet_per_slip] == ["max_bet", "max_bet"]
    assert [p.limit for p in plan_probes(limits, CENT, CODES, several=True)][-2:] == [
        "max_slip",
        "max_slip",
    ]


def test_without_limits_a_cent_and_a_very_large_stake_are_tried() -> None:
    probes = plan_probes(None, CENT, CODES, several=True)
    assert _shown(probes) == [("", ["0.01"], True), ("", [str(LARGE_STAKE)], True)]


def test_impossible_limits_are_named() -> None:
    assert TableLimits(min_bet=D("5"), max_bet=D("1")).problem() == "min_bet 5 is above max_bet 1"
    assert TableLimits(max_slip=D("0")).problem() == "every limit must be a positive amount"
    assert TableLimits(min_bet=D("0.01"), max_bet=D("10")).problem() is None
    assert limits_from({"sicbo": {"max_bet": "0.1"}})["sicbo"].max_bet == D("0.1")


def test_random_slips_keep_the_declared_limits() -> None:
    rng = random.Random(5)
    limits = TableLimits(min_bet=D("0.50"), max_bet=D("200.00"), max_slip=D("300.00"))
    for balance in (D("0.50"), D("120.00"), D("1000000.00")):
        for _ in range(300):
            slip = random_slip(rng, CODES, balance, 2, limits=limits)
            assert all(D("0.50") <= s <= D("200.00") for _, s in slip), slip
            assert sum(s for _, s in slip) <= min(balance, D("300.00"))
            over = random_slip(rng, CODES, balance, 2, over_balance=True, limits=limits)
            if over:  # over the balance by a cent, and within every limit
                assert sum(s for _, s in over) == balance + CENT <= D("300.00")
                assert all(D("0.50") <= s <= D("200.00") for _, s in over)


def test_a_target_declaring_no_limits_is_not_applicable_not_incomplete(tmp_path) -> None:
    status, certificate, output = certify(
        tmp_path,
        "--no-html",
        "--game",
        "xocdia",
        "--clauses",
        "REG-LIMIT-01,REG-SETTLE-01",
        "--reference-without",
        "limits",
    )
    assert (status, certificate["verdict"]) == (0, "compliant"), output[-3000:]
    row = certificate["clauses"]["REG-LIMIT-01"]
    assert row["status"] == "not-applicable" and row["checks"]["ran"] == 0
    assert "declares no table limits for xocdia" in row["reason"]
    assert certificate["target"]["limits"] == {}
    reasons = " ".join(certificate["verdict_reasons"])
    assert "all 1 applicable selected clauses passed" in reasons and "not applicable" in reasons
    # the very large stake was still taken and settled by the paytable
    assert certificate["clauses"]["REG-SETTLE-01"]["status"] == "passed"
    assert "not applicable 1" in output


def _the_probe_stakes(method: str, path: str, body: bytes) -> bool:
    """The two stakes the probes try where no limit is declared: a cent and LARGE_STAKE."""
    slip = body.decode("utf-8", "replace")
    return (
        method == "POST"
        and path.endswith("/bets")
        and any(
            f'"stake": "{s}"' in slip or f'"stake":"{s}"' in slip for s in ("0.01", LARGE_STAKE)
        )
    )


def test_probes_all_refused_settle_nothing_and_credit_nothing(tmp_path) -> None:
    """A gateway that keeps limits it does not declare: the probes are refused, so no slip is
    settled, and REG-SETTLE-01 must not pass on the limits scenario for slips merely tried."""
    with (
        EmbeddedServer(without=("limits",)) as server,
        rewriting_proxy(server.url, unchanged, _the_probe_stakes) as url,
    ):
        status, certificate, output = certify_through(
            tmp_path,
            url,
            server,
            "xocdia",
            "REG-LIMIT-01,REG-SETTLE-01",
            *("--", "-k", "declared_limits and not instant"),
        )
    assert "0 selected" not in output and "no tests ran" not in output, output[-3000:]
    settle = certificate["clauses"]["REG-SETTLE-01"]
    assert settle["checks"]["ran"] == 0, settle
    assert settle["status"] == "not-tested", settle
    assert "was refused" in settle["reason"] and "not settled" in settle["reason"], settle
    assert certificate["clauses"]["REG-LIMIT-01"]["status"] == "not-applicable"
    assert (status, certificate["verdict"]) == (2, "incomplete"), output[-3000:]

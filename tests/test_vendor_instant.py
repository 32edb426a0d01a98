"""The vendor's instant table, certified on every duty that needs no live round (issue 13).

A vendor with instant rounds only (one request bets, plays the lab's result and settles) used to
be certified on the sweep alone: its bad input, balances, money, access and idempotency were never
exercised. Each fault of the vendor's instant table (examples/vendor_server/instant.py) must now
make the instant-only mapping's certification non-compliant on exactly the duties it breaks, with
the five duties all certified in the same run (so no other duty fails with it).
"""

from pathlib import Path

import pytest
from vendor_support import certify_mapping, instant_only_mapping, vendor_server

from examples.vendor_server.instant import INSTANT_FAULTS

DUTIES = ("REG-INPUT-01", "REG-BAL-01", "REG-MONEY-01", "REG-ACCESS-01", "REG-IDEMP-01")
FAULT_CLAUSES = {
    "instant-takes-negative-stakes": {"REG-INPUT-01"},
    "instant-takes-unoffered-codes": {"REG-INPUT-01"},
    # a slip over the balance must be refused (input, and balance: it went below zero)
    "instant-overdraws": {"REG-INPUT-01", "REG-BAL-01"},
    "instant-lost-update": {"REG-MONEY-01"},
    "instant-unknown-ticket-plays-last-player": {"REG-ACCESS-01"},
    "instant-replay-plays-again": {"REG-IDEMP-01"},
}
# what each fault's failing scenarios must include (the scenario the fault is seeded for)
FAULT_SCENARIO = {
    "instant-takes-negative-stakes": '"-5.00" on "SMALL" among good bets',
    "instant-takes-unoffered-codes": 'the selection "TOTAL_3"',
    "instant-overdraws": "staking more than the balance",
    "instant-lost-update": "One player plays 24 instant rounds at the same moment",
    "instant-unknown-ticket-plays-last-player": "someone with a forged token tries to play",
    "instant-replay-plays-again": "sends the same round twice",
}


def _certify_duties(folder: Path, game: str, *faults: str) -> tuple[int, dict, str]:
    mapping = instant_only_mapping(folder)
    with vendor_server(*faults) as (url, env):
        return certify_mapping(
            folder, mapping, url, env, "--game", game, "--clauses", ",".join(DUTIES)
        )


def test_every_instant_fault_has_its_clauses_here() -> None:
    assert set(FAULT_CLAUSES) == set(INSTANT_FAULTS) == set(FAULT_SCENARIO)


@pytest.mark.parametrize("fault", sorted(FAULT_CLAUSES))
def test_each_instant_table_fault_fails_exactly_its_duties(tmp_path: Path, fault: str) -> None:
    status, certificate, output = _certify_duties(tmp_path, "sicbo", fault)
    assert (status, certificate["verdict"]) == (1, "non-compliant"), output[-3000:]
    clauses = certificate["clauses"]
    failed = {c for c in DUTIES if clauses[c]["status"] == "failed"}
    assert failed == FAULT_CLAUSES[fault], {c: clauses[c]["status"] for c in DUTIES}
    assert all(clauses[c]["status"] == "passed" for c in set(DUTIES) - failed)
    named = [n for c in failed for n in clauses[c]["failed_scenarios"]]
    assert any(FAULT_SCENARIO[fault] in n for n in named), named


def test_the_clean_instant_table_passes_every_duty_at_xoc_dia(tmp_path: Path) -> None:
    status, certificate, output = _certify_duties(tmp_path, "xocdia")
    assert (status, certificate["verdict"]) == (0, "compliant"), output[-3000:]
    for clause in DUTIES:
        row = certificate["clauses"][clause]
        assert row["status"] == "passed" and row["checks"]["held"] > 0, (clause, row)

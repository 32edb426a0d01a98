"""`/v1/info` outside its schema is the target's finding, CONTRACT-02, not a run stopped
incomplete: what is readable is read, each value left out makes the clauses depending on it not
testable with the reason, and the rest of the run is judged (harness/declarations.py)."""

import json
from decimal import Decimal
from pathlib import Path

from cli_support import certify_through

from livecert.contract import load_contract
from livecert.harness.declarations import read_declarations
from livecert.harness.embedded import EmbeddedServer
from livecert.harness.exchange_archive import read_archive

CONTRACT = load_contract()
GAMES = ("sicbo", "xocdia")


def _info(**changed: object) -> dict:
    body = {
        "implementation": {"name": "t", "version": "1"},
        "contract_version": CONTRACT.version,
        "games": ["sicbo", "xocdia"],
        "currency": "EUR",
        "minor_unit": 2,
        "rounding": "down",
        "max_rtp": {"sicbo": "97.22", "xocdia": "98.75"},
        "capabilities": ["pause"],
    }
    body.update(changed)
    return body


def test_a_maximum_rtp_sent_as_a_number_is_left_out_and_said() -> None:
    declared = read_declarations(CONTRACT, _info(max_rtp={"sicbo": 97.22, "xocdia": "98.75"}))
    assert declared.info is not None
    assert {g: str(v) for g, v in declared.info.max_rtp.items()} == {"xocdia": "98.75"}
    assert set(declared.unread) == {"max_rtp.sicbo"}
    reason = declared.reason("max_rtp.sicbo")
    assert reason and "CONTRACT-02" in reason and "must be string" in reason
    assert declared.reason("max_rtp.xocdia") is None
    assert declared.info.games == ("sicbo", "xocdia") and declared.info.rounding == "down"


def test_limits_sent_as_numbers_are_kept_for_stakes_but_said_unread_per_game() -> None:
    """A limit sent as a number is outside the schema (CONTRACT-02) and not judged, but the
    table still meant it: no stake goes outside it (a cent bet at a 1.00 minimum would be
    refused, and that refusal blamed on the rules)."""
    limits = {"sicbo": {"min_bet": Decimal("1.00")}, "xocdia": {"min_bet": "1.00"}}
    declared = read_declarations(CONTRACT, _info(limits=limits))
    assert declared.info is not None and set(declared.info.limits) == {"sicbo", "xocdia"}
    assert declared.info.limits["sicbo"].min_bet == Decimal("1.00")
    assert set(declared.unread) == {"limits.sicbo"}
    reason = declared.reason("limits.sicbo")
    assert reason and "CONTRACT-02" in reason and declared.reason("limits.xocdia") is None
    garbled = read_declarations(CONTRACT, _info(limits={"sicbo": "1.00"}))
    assert garbled.info is not None and garbled.info.limits == {}  # names no amount: none


def test_an_essential_declaration_outside_its_schema_leaves_nothing_to_run_on() -> None:
    assert read_declarations(CONTRACT, _info(minor_unit="2")).info is None
    body = _info()
    del body["rounding"]
    declared = read_declarations(CONTRACT, body)
    assert declared.info is None and "rounding" in declared.unread


def test_a_correct_info_leaves_nothing_out() -> None:
    declared = read_declarations(CONTRACT, _info())
    assert declared.info is not None and declared.unread == {}


def test_info_money_as_numbers_fails_contract_02_alone(tmp_path: Path) -> None:
    with EmbeddedServer(faults=("info-money-as-numbers",)) as server:
        status, cert, output = certify_through(
            tmp_path, server.url, server, "xocdia", "CONTRACT-02,XD-RTP-01,REG-RTP-01,REG-LIMIT-01"
        )
    assert (status, cert["verdict"]) == (1, "non-compliant"), output[-3000:]
    failed = {c for c, row in cert["clauses"].items() if row["status"] == "failed"}
    assert failed == {"CONTRACT-02"}, output[-3000:]
    assert not cert["harness_errors"] and not cert["target_errors"], output[-3000:]
    assert cert["clauses"]["XD-RTP-01"]["status"] == "passed"  # measured: the run went on
    unread = set(cert["target"]["declared_outside_schema"])
    assert unread == {f"{what}.{game}" for what in ("max_rtp", "limits") for game in GAMES}
    # unread, never "no limits declared" (REG-LIMIT-01 not applicable): not judged, saying why
    limit_row = cert["clauses"]["REG-LIMIT-01"]
    assert limit_row["status"] == "not-tested", limit_row
    assert "CONTRACT-02" in json.dumps(limit_row), limit_row
    violation = cert["contract_violations"][0]
    assert violation["clause"] == "CONTRACT-02" and "max_rtp" in violation["message"]


def test_a_clean_run_counts_each_answer_validated_as_a_contract_check(tmp_path: Path) -> None:
    """Every answer's status is checked (CONTRACT-01), a body where the contract gives its
    answer a schema (CONTRACT-02): the certificate's counts are the answers the archived
    exchanges show validated, no more and no fewer."""
    with EmbeddedServer() as server:
        status, cert, output = certify_through(
            tmp_path, server.url, server, "xocdia", "CONTRACT-01,CONTRACT-02,XD-PAY-06"
        )
    assert (status, cert["verdict"]) == (0, "compliant"), output[-3000:]
    marks = [
        exchange.get("contract") or {}
        for scenario in read_archive(tmp_path)
        for exchange in scenario["exchanges"]
    ]
    shown = {
        clause: sum(clause in m.get("held", []) for m in marks)
        for clause in ("CONTRACT-01", "CONTRACT-02")
    }
    assert shown["CONTRACT-01"] >= shown["CONTRACT-02"] > 0, shown  # every answer has a status
    for clause, count in shown.items():
        checks = cert["clauses"][clause]["checks"]
        assert checks["ran"] == checks["held"] == count, (clause, checks, count)

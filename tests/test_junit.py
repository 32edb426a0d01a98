"""junit.xml: one test case per clause, judged exactly as the certificate judged it, with the
clause id, its scenario count and its evidence as properties; an unreachable target is one error
case, never an empty file."""

import socket
from pathlib import Path
from xml.etree import ElementTree

import pytest
from cli_support import certify, certify_url

from livecert.report.junit import build_junit

OUTCOME_OF_STATUS = {"passed": None, "failed": "failure", "not-applicable": "skipped"}


def _cases_of(tree: ElementTree.ElementTree) -> dict[str, ElementTree.Element]:
    """The cases by clause (a run's own error cases by their name)."""
    found = {}
    for case in tree.getroot().iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        found[props.get("clause") or case.get("name")] = case
    return found


def _cases(path: Path) -> dict[str, ElementTree.Element]:
    return _cases_of(ElementTree.parse(path))


def _outcome(case: ElementTree.Element) -> str | None:
    return next((k for k in ("failure", "error", "skipped") if case.find(k) is not None), None)


@pytest.fixture(scope="module")
def fault_run(tmp_path_factory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("junit") / "run"
    status, certificate, output = certify(
        folder, "--no-html", "--game", "xocdia", "--reference-fault", "two-two-pays-1-to-1"
    )
    assert status == 1, output[-2000:]
    return folder, certificate


def test_every_clause_of_the_certificate_is_one_case_judged_as_it_was(fault_run) -> None:
    folder, certificate = fault_run
    cases = _cases(folder / "junit.xml")
    assert set(cases) == set(certificate["clauses"])
    for clause, row in certificate["clauses"].items():
        expected = OUTCOME_OF_STATUS.get(row["status"], "skipped")
        if row["status"] == "not-tested" and row.get("reason", "").startswith("error: "):
            expected = "error"
        assert _outcome(cases[clause]) == expected, (clause, row["status"])
    failed = sorted(c for c, case in cases.items() if _outcome(case) == "failure")
    assert failed == ["REG-RTP-01", "REG-SETTLE-01", "XD-PAY-03"]
    root = ElementTree.parse(folder / "junit.xml").getroot()
    assert root.get("tests") == str(len(certificate["clauses"]))
    assert root.get("failures") == "3"


def test_a_failed_clause_says_what_was_expected_and_where_its_evidence_is(fault_run) -> None:
    folder, certificate = fault_run
    case = _cases(folder / "junit.xml")["XD-PAY-03"]
    assert case.get("classname") == "livecert.xocdia.B.XD-PAY"
    assert case.get("name").startswith("XD-PAY-03 ")
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    row = certificate["clauses"]["XD-PAY-03"]
    assert props["scenarios"] == str(row["scenarios"]) and int(props["scenarios"]) > 0
    assert props["evidence"] == "certificate.html#clause-XD-PAY-03"
    assert props["catalogue"] == f"rules/RULES.html#L{row['catalogue_line']}"
    failure = case.find("failure")
    assert "expected" in failure.get("message")
    assert all(name in failure.text for name in row["failed_scenarios"])


def test_a_clause_outside_the_scope_is_skipped_with_the_reason(fault_run) -> None:
    folder, certificate = fault_run
    outside = next(c for c, row in certificate["clauses"].items() if not row["in_scope"])
    skipped = _cases(folder / "junit.xml")[outside].find("skipped")
    assert skipped.get("message").startswith("outside this run's scope: ")
    assert certificate["clauses"][outside]["reason"][:40] in skipped.get("message")


def test_a_skipped_case_says_its_status_once(fault_run) -> None:
    """REG-FAIR-01's reason begins "not applicable:" already: the message says it once."""
    folder, certificate = fault_run
    cases = _cases(folder / "junit.xml")
    for clause in certificate["clauses"]:
        skipped = cases[clause].find("skipped")
        if skipped is None:
            continue
        message = skipped.get("message")
        for status in ("not applicable", "not tested", "outside this run's scope"):
            assert f"{status}: {status}:" not in message, (clause, message)
    fair = cases["REG-FAIR-01"].find("skipped").get("message")
    assert fair.startswith("not applicable: no outcome history given"), fair


def test_pytest_keeps_its_case_per_scenario_beside_it(fault_run) -> None:
    folder, certificate = fault_run
    scenarios = ElementTree.parse(folder / "junit-scenarios.xml").getroot()
    assert sum(1 for _ in scenarios.iter("testcase")) >= certificate["summary"]["scenarios"]


def test_an_unreachable_target_is_one_error_case(tmp_path: Path) -> None:
    with socket.socket() as held:  # a port nothing listens on
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
    status, certificate, output = certify_url(tmp_path, f"http://127.0.0.1:{port}")
    assert status == 2 and not certificate["summary"]["scenarios"], output
    root = ElementTree.parse(tmp_path / "junit.xml").getroot()
    cases = list(root.iter("testcase"))
    assert [(c.get("name"), _outcome(c)) for c in cases] == [("target error", "error")]
    assert "cannot connect" in cases[0].find("error").get("message")
    assert root.get("tests") == root.get("errors") == "1"


def test_a_clause_kept_from_judgement_by_an_error_is_an_error_case() -> None:
    certificate = {
        "verdict": "incomplete",
        "summary": {"scenarios": 3},
        "target_errors": ["create a test player: answered 500"],
        "clauses": {
            "SB-PAY-01": {"status": "passed", "section": "A", "in_scope": True},
            "SB-PAY-02": {
                "status": "not-tested",
                "section": "A",
                "in_scope": True,
                "reason": "error: Small: create a test player: answered 500",
            },
        },
    }
    cases = _cases_of(build_junit(certificate))
    assert {k: _outcome(v) for k, v in cases.items()} == {
        "SB-PAY-01": None,
        "SB-PAY-02": "error",
        "target error": "error",
    }


def test_an_incomplete_run_of_untested_clauses_is_not_green() -> None:
    """REG-INTR-01 not tested (no restart hook) and nothing else wrong: the clause is skipped
    with its reason, and the run's own case says incomplete, so CI is red as certify's exit."""
    certificate = {
        "verdict": "incomplete",
        "verdict_reasons": ["1 clause(s) in scope not tested: REG-INTR-01"],
        "summary": {"scenarios": 5},
        "clauses": {
            "SB-PAY-01": {"status": "passed", "section": "A", "in_scope": True},
            "REG-INTR-01": {
                "status": "not-tested",
                "section": "F",
                "in_scope": True,
                "reason": "needs a restart hook",
            },
        },
    }
    cases = _cases_of(build_junit(certificate))
    assert {k: _outcome(v) for k, v in cases.items()} == {
        "SB-PAY-01": None,
        "REG-INTR-01": "skipped",
        "verdict incomplete": "error",
    }

"""`livecert selftest` over the whole fault catalogue: every seeded fault makes the reference
non-compliant on every clause it declares, with no false alarm, and the clean reference is
compliant; then `livecert selftest --full` over a sample of the catalogue.

Each fault is listed by `livecert serve --list-faults` as `NAME CLAUSE[,CLAUSE...]`: the rule it
breaks and the consequences a run detects. A fault is detected only when every declared clause
failed (a declared clause that passed is an escape). A fault run certifies only the declared
clauses on the game they name (the clean run certifies everything, both games), so "no false
alarm" here covers the scenarios that prove the declared clauses. The `--full` sample certifies
each of its faults on its game's whole suite and holds the failed clauses to exactly the declared
ones: a clause failing anywhere else is a false alarm (the clean reference those runs are compared
with is the one certified by the first part). The reports are kept in reports/selftest/ and
reports/selftest-full/ (selftest.md, selftest.json) as CI artifacts.
"""

import json
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

from livecert.certify.fault_draws import family
from livecert.certify.selftest import (
    CLEAN,
    FaultRun,
    SelftestReport,
    judge,
    list_faults,
    report_markdown,
    run_selftest,
    write_report,
)
from livecert.report.allure_report import categories_for

ROOT = Path(__file__).resolve().parent.parent
FAULTS = list_faults()

# `livecert selftest --full` in CI: one fault per family, on its game's whole suite. About 150 s
# of CPU: 1.5 minutes on an idle 2-core machine, 2.6 measured with other jobs taking half of it,
# of the 4 minutes allowed (benchmarks/README.md); tests/README.md says how to run them all.
FULL_SAMPLE = {
    "small-wins-on-triple": "Sic Bo paytable (the sweep, RTP)",
    "odd-even-pay-1-to-1": "Xoc Dia paytable (two pay clauses, RTP)",
    "bets-accepted-after-betting-closed": "round state (betting, re-shakes, rearranging)",
    "cancel-refunds-twice": "malfunction (and money)",
    "disconnect-voids-bets": "disconnection",
    "record-shows-other-players": "records and access",
    "negative-balance-allowed": "money (balance, input)",
    "balance-as-number": "contract (a body outside the schema)",
    # faults with a parameter, each at the far end of its range, where the suite's fixed values
    # would miss it (`livecert selftest --full` draws them all over their ranges)
    "row-pays-wrong-from-stake=50000.00": "a paytable row wrong from a stake up (stakes)",
    "idempotency-key-forgotten-after=5000": "a key forgotten after a delay (time)",
    "record-balance-wrong-rounds-back=6": "a record wrong some rounds back (sequences)",
}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> SelftestReport:
    result = run_selftest(tmp_path_factory.mktemp("selftest"), FAULTS, workers=2)
    write_report(result, ROOT / "reports" / "selftest")
    return result


@pytest.fixture(scope="module")
def full_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the --full sample's reports are written, a folder per fault."""
    return tmp_path_factory.mktemp("selftest-full")


@pytest.fixture(scope="module")
def full_report(full_base: Path) -> SelftestReport:
    sample = {name: FAULTS[family(name)] for name in FULL_SAMPLE if family(name) in FAULTS}
    result = run_selftest(full_base, sample, workers=2, full=True, clean=False)
    write_report(result, ROOT / "reports" / "selftest-full")
    return result


def test_the_clean_reference_is_compliant(report: SelftestReport) -> None:
    clean = report.clean
    assert clean is not None
    assert (clean.fault, clean.exit_status, clean.verdict) == (CLEAN, 0, "compliant"), (
        clean.output_tail
    )
    assert clean.failed == []


def test_every_fault_of_the_catalogue_was_run(report: SelftestReport) -> None:
    assert [r.fault for r in report.runs] == list(FAULTS)
    assert len(FAULTS) >= 40


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_the_fault_fails_every_declared_clause_and_only_those(report, fault: str) -> None:
    run = next(r for r in report.runs if r.fault == fault)
    expected = FAULTS[fault]
    missed = [c for c in expected if c not in run.failed]
    assert not missed, (
        f"{fault} escaped on {missed}: declared {expected}, the run failed {run.failed} "
        f"(verdict {run.verdict})\n" + run.output_tail
    )
    assert run.detected and run.escapes == []
    assert not run.false_alarms, f"{fault}: false alarm on {run.false_alarms}"
    assert (run.exit_status, run.verdict) == (1, "non-compliant")


def test_the_report_is_written_for_ci(report: SelftestReport) -> None:
    text = (ROOT / "reports" / "selftest" / "selftest.md").read_text(encoding="utf-8")
    assert "Overall: **PASS**" in text and all(f"| {name} |" in text for name in FAULTS)


# -- the judgement itself, on made-up runs (no certification) --------------------------------


def test_a_fault_is_detected_only_when_every_declared_clause_failed() -> None:
    declared = ["SB-PAY-16", "REG-SETTLE-01", "REG-RTP-01"]
    assert judge(declared, sorted(declared), 1) == (True, [], [])
    assert judge(declared, ["REG-SETTLE-01", "SB-PAY-16"], 1) == (False, [], ["REG-RTP-01"])
    assert judge(declared, ["REG-RTP-01"], 1) == (False, [], ["SB-PAY-16", "REG-SETTLE-01"])
    assert judge(declared, [*declared, "TBL-MAL-03"], 1) == (True, ["TBL-MAL-03"], [])
    assert judge(declared, declared, 2) == (False, [], [])  # failed but not non-compliant
    assert judge([], [], 1) == (False, [], [])


def test_a_report_with_an_escape_or_a_false_alarm_fails() -> None:
    def run(failed: list[str]) -> FaultRun:
        detected, false_alarms, escapes = judge(["XD-PAY-09", "REG-SETTLE-01"], failed, 1)
        return FaultRun(
            fault="big-loses-on-two-two",
            expected=["XD-PAY-09", "REG-SETTLE-01"],
            game="xocdia",
            verdict="non-compliant",
            exit_status=1,
            failed=failed,
            seconds=1.0,
            detected=detected,
            false_alarms=false_alarms,
            escapes=escapes,
            scope="full",
        )

    exact = run(["REG-SETTLE-01", "XD-PAY-09"])
    assert SelftestReport(None, [exact], full=True).ok
    for failed in (["XD-PAY-09"], ["REG-SETTLE-01", "XD-PAY-09", "XD-RTP-01"]):
        bad = SelftestReport(None, [exact, run(failed)], full=True)
        assert not bad.ok
        assert "Overall: **FAIL**" in report_markdown(bad)
    table = report_markdown(SelftestReport(None, [run(["XD-PAY-09"])], full=True))
    assert (
        "| big-loses-on-two-two | xocdia | XD-PAY-09, REG-SETTLE-01 | XD-PAY-09 | - | "
        "REG-SETTLE-01 | **NO** |" in table
    )


# -- `livecert selftest --full` on the sample --------------------------------------------------


def test_the_full_sample_names_faults_of_the_catalogue() -> None:
    named = {family(name) for name in FULL_SAMPLE}
    assert named <= set(FAULTS), sorted(named - set(FAULTS))


@pytest.mark.parametrize("fault", sorted(FULL_SAMPLE))
def test_on_its_whole_suite_the_fault_fails_exactly_its_declared_clauses(
    full_report: SelftestReport, fault: str
) -> None:
    run = next((r for r in full_report.runs if r.fault == fault), None)
    assert run is not None, f"{fault} is not a fault of the catalogue"
    assert run.scope == "full"
    assert sorted(run.failed) == sorted(FAULTS[family(fault)]), (
        f"{fault} on the whole {run.game} suite (verdict {run.verdict}): declared "
        f"{FAULTS[family(fault)]}, failed {run.failed}; false alarms {run.false_alarms}, escapes "
        f"{run.escapes}\n" + run.output_tail
    )
    assert run.ok and (run.exit_status, run.verdict) == (1, "non-compliant")


@pytest.mark.parametrize("fault", sorted(FULL_SAMPLE))
def test_allure_files_as_failed_exactly_the_clauses_the_certificate_failed(
    full_report: SelftestReport, full_base: Path, fault: str
) -> None:
    """Allure's Behaviours tab shows a clause failed where a failed result names it as a story:
    over the fault's whole suite those are the certificate's failed clauses, no more, no less."""
    run = next(r for r in full_report.runs if r.fault == fault)
    results = [
        json.loads(path.read_text(encoding="utf-8"))
        for path in (full_base / fault / "allure-results").glob("*-result.json")
    ]
    assert results, fault
    failed_stories = {
        label["value"]
        for result in results
        if result["status"] == "failed"
        for label in result["labels"]
        if label["name"] == "story"
    }
    assert failed_stories == set(run.failed), (fault, failed_stories ^ set(run.failed))


FEATURE_NAMES = {
    line.removeprefix("Feature:").strip()
    for path in (ROOT / "features").rglob("*.feature")
    for line in path.read_text(encoding="utf-8").splitlines()
    if line.startswith("Feature:")
}


@pytest.mark.parametrize("fault", sorted(FULL_SAMPLE))
def test_allure_junit_and_the_certificate_tell_one_story(
    full_report: SelftestReport, full_base: Path, fault: str
) -> None:
    """One failing run read three ways, clause by clause: JUnit fails exactly the clauses the
    certificate failed; Allure's Categories hold each of them (a failed result matching its
    category) and no other; the findings list each once; every result is filed under the
    Gherkin feature it is written in and its game."""
    folder = full_base / fault
    certificate = json.loads((folder / "certificate.json").read_text(encoding="utf-8"))
    failed = {c for c, row in certificate["clauses"].items() if row["status"] == "failed"}
    assert failed, fault
    cases = ElementTree.parse(folder / "junit.xml").getroot().iter("testcase")
    junit_failed = {
        {p.get("name"): p.get("value") for p in case.iter("property")}["clause"]
        for case in cases
        if case.find("failure") is not None
    }
    assert junit_failed == failed, (fault, junit_failed ^ failed)
    listed = [clause for finding in certificate["findings"] for clause in finding["clauses"]]
    assert sorted(listed) == sorted(failed), (fault, listed)
    results = [
        json.loads(path.read_text(encoding="utf-8"))
        for path in (folder / "allure-results").glob("*-result.json")
    ]
    shown = {}
    for category in categories_for(certificate):
        pattern = re.compile(category["messageRegex"])
        shown[category["name"]] = [
            r["name"]
            for r in results
            if r["status"] in category["matchedStatuses"]
            and pattern.fullmatch((r.get("statusDetails") or {}).get("message") or "")
        ]
    in_categories = {name.split(" ")[0] for name, held in shown.items() if held}
    assert in_categories & set(certificate["clauses"]) == failed, (fault, shown)
    game = {"sicbo": "Sic Bo", "xocdia": "Xoc Dia"}[run_game(full_report, fault)]
    for result in results:
        labels = {(label["name"], label["value"]) for label in result["labels"]}
        features = {value for name, value in labels if name == "feature"}
        assert len(features) == 1 and features <= FEATURE_NAMES, (result["name"], features)
        assert {value for name, value in labels if name == "epic"} <= {game, "Both games"}


def run_game(report: SelftestReport, fault: str) -> str:
    return next(r.game for r in report.runs if r.fault == fault)

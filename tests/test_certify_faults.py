"""`livecert selftest` over the whole fault catalogue: every seeded fault makes the reference
non-compliant on the clause it breaks, with no false alarm, and the clean reference is compliant.

Each fault is listed by `livecert serve --list-faults` as `NAME CLAUSE[,CLAUSE...]`: the first
clause is the rule it breaks, the rest are consequences a run may also detect. A fault run
certifies only the listed clauses on the game they name (the clean run certifies everything, both
games), so "no false alarm" covers the scenarios that prove the listed clauses. The report is
kept in reports/selftest/ (selftest.md, selftest.json) as a CI artifact.
"""

from pathlib import Path

import pytest

from livecert.certify.selftest import (
    CLEAN,
    RESTART_FAULTS,
    SelftestReport,
    list_faults,
    run_selftest,
    write_report,
)

ROOT = Path(__file__).resolve().parent.parent
FAULTS = list_faults()


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> SelftestReport:
    result = run_selftest(tmp_path_factory.mktemp("selftest"), FAULTS, workers=2)
    write_report(result, ROOT / "reports" / "selftest")
    return result


def test_the_clean_reference_is_compliant(report: SelftestReport) -> None:
    clean = report.clean
    assert (clean.fault, clean.exit_status, clean.verdict) == (CLEAN, 0, "compliant"), (
        clean.output_tail
    )
    assert clean.failed == []


def test_every_fault_of_the_catalogue_was_run(report: SelftestReport) -> None:
    assert [r.fault for r in report.runs] == list(FAULTS)
    assert len(FAULTS) >= 40


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_the_fault_is_caught_on_its_clause_and_only_where_it_should(report, fault: str) -> None:
    run = next(r for r in report.runs if r.fault == fault)
    expected = FAULTS[fault]
    assert run.detected, f"{fault} escaped: verdict {run.verdict}, failed {run.failed}\n" + (
        run.output_tail
    )
    assert expected[0] in run.failed, (
        f"{fault} breaks {expected[0]} but the run failed {run.failed}"
    )
    assert not run.false_alarms, f"{fault}: false alarm on {run.false_alarms}"
    if fault not in RESTART_FAULTS:
        assert (run.exit_status, run.verdict) == (1, "non-compliant")


def test_the_report_is_written_for_ci(report: SelftestReport) -> None:
    text = (ROOT / "reports" / "selftest" / "selftest.md").read_text(encoding="utf-8")
    assert "Overall: **PASS**" in text and all(f"| {name} |" in text for name in FAULTS)

"""Method validation run for real: `certify --validate` against the embedded reference, on a fixed
sample of one game's clauses (`livecert certify --game xocdia --validate` validates them all; its
cost is in benchmarks/README.md), and against a harness with one check taken out."""

import json
from pathlib import Path

import pytest

from livecert.certify.runner import CertifyOptions, certify
from livecert.certify.selftest import livecert_command
from livecert.certify.validation import KILLED, NOT_SHOWN, validation_folder
from livecert.harness.mutants import parse_mutant
from livecert.report.certificate_page import render_certificate
from livecert.report.signing import verify_integrity

# one clause per family of operators, each validated by every operator aimed at it
SAMPLE = ("XD-PAY-03", "REG-BAL-01", "REG-MONEY-01", "REG-IDEMP-01", "TBL-DISC-03", "CONTRACT-03")

# a check taken out of the harness: REG-BAL-01's "no balance below zero" made to hold whatever
# the balance (a pytest plugin of the run, loaded before the steps import it)
BLIND_PLUGIN = """
import livecert.harness.money_machine as money_machine
import livecert.harness.read_balances as read_balances


def not_below_zero(checks, clauses, adapter, player, shown):
    checks.held(clauses, "taken out by the test: whatever the balance")


read_balances.not_below_zero = not_below_zero  # the steps' check
money_machine.real_balance = lambda adapter, player, shown: abs(shown)  # the sessions' check
"""


@pytest.fixture(scope="module")
def validated(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    folder = tmp_path_factory.mktemp("validated") / "report"
    options = CertifyOptions(game="xocdia", clauses=SAMPLE, report_dir=folder, quiet=True,
                             html=False, validate=True, validate_per_clause=3)  # fmt: skip
    status, certificate, _ = certify(options)
    assert status == 0, certificate["verdict_reasons"]
    return certificate, folder


def test_every_mutant_of_the_sample_is_killed_on_exactly_its_clause(validated) -> None:
    certificate, _ = validated
    validation = certificate["validation"]
    written = Path(validation["folder"]) / "validation.json"
    runs = json.loads(written.read_text(encoding="utf-8"))["runs"]
    assert {r["clause"] for r in runs} == set(SAMPLE)
    assert [(r["mutant"], r["outcome"], r["failed"]) for r in runs if r["outcome"] != KILLED] == []
    for run in runs:  # the aimed clause failed, and only clauses the mutant declares
        declares = parse_mutant(run["mutant"]).declares
        assert run["clause"] in run["failed"] and set(run["failed"]) <= set(declares), run
        assert run["altered"] > 0
    assert validation["not_shown"] == []
    # the reference speaks the contract and pushes nothing: an id swapped is CONTRACT-03's
    # finding there, and no pushed event's operator is chosen
    assert "round-id-swapped@CONTRACT-03" in {r["mutant"] for r in runs}
    assert not any(r["family"] == "streams" for r in runs)
    for clause in SAMPLE:
        row = certificate["clauses"][clause]
        assert row["status"] == "passed"
        killed = sum(r["clause"] == clause for r in runs)
        assert row["sensitivity"] == f"{killed} of {killed} mutants killed"
    assert certificate["verdict"] == "compliant"  # unchanged by the validation


def test_the_runs_are_kept_apart_and_say_they_are_no_certification(validated) -> None:
    certificate, folder = validated
    apart = validation_folder(folder)
    assert certificate["validation"]["folder"] == str(apart)
    assert not any(p.name.endswith(".validation") for p in folder.iterdir())
    manifest = (folder / "manifest.json").read_text(encoding="utf-8")
    assert "payout-unit-off" not in manifest
    run_folder = apart / "payout-unit-off_at_XD-PAY-03"
    run = json.loads((run_folder / "certificate.json").read_text(encoding="utf-8"))
    assert run["validation_run"]["name"] == "payout-unit-off@XD-PAY-03"
    assert "VALIDATION" in render_certificate(run, [], [])


def test_the_certificate_page_shows_each_clauses_sensitivity(validated) -> None:
    certificate, _ = validated
    page = render_certificate(certificate, [], [])
    assert 'id="validation"' in page
    assert "Method validation on this target: 6 of 6 passed clauses" in page
    assert page.count("mutants killed") >= 2 * len(SAMPLE)  # the table and each clause's row
    assert "one failed elsewhere is misattributed" in page


def test_a_check_taken_out_leaves_its_clause_passed_with_sensitivity_not_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "blind_balance.py").write_text(BLIND_PLUGIN, encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    options = CertifyOptions(game="xocdia", clauses=("REG-BAL-01",), quiet=True, html=False,
                             report_dir=tmp_path / "report", pytest_args=["-p", "blind_balance"],
                             validate=True, validate_per_clause=1)  # fmt: skip
    status, certificate, _ = certify(options)
    row = certificate["clauses"]["REG-BAL-01"]
    assert (status, row["status"]) == (0, "passed")  # the blind check held
    assert row["sensitivity"] == f"{NOT_SHOWN} (no mutant was killed)"
    survivors = certificate["validation"]["clauses"]["REG-BAL-01"]["survivors"]
    assert [s["mutant"] for s in survivors] == ["balance-below-zero@REG-BAL-01"]
    # not caught on REG-BAL-01 (another clause's check may see the balance: misattributed)
    assert survivors[0]["outcome"] != KILLED and "REG-BAL-01" not in survivors[0]["failed"]
    assert survivors[0]["scenarios"]  # the scenarios that ran it are named
    assert certificate["validation"]["not_shown"] == ["REG-BAL-01"]
    assert "1 passed with sensitivity not shown" in certificate["verdict_statement"]


def test_a_finished_report_is_validated_beside_it_and_left_unchanged(tmp_path: Path) -> None:
    report = tmp_path / "report"
    options = CertifyOptions(game="xocdia", clauses=("XD-PAY-03",), report_dir=report,
                             quiet=True, html=False)  # fmt: skip
    assert certify(options)[0] == 0
    manifest = (report / "manifest.json").read_bytes()
    done = livecert_command("validate", str(report), "--per-clause", "1", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "XD-PAY-03: 1 of 1 mutants killed" in done.stdout
    written = json.loads((validation_folder(report) / "validation.json").read_text())
    assert [r["mutant"] for r in written["runs"]] == ["payout-unit-off@XD-PAY-03"]
    assert (report / "manifest.json").read_bytes() == manifest
    assert verify_integrity(report)[0] == []  # the report is as its run left it


def test_validating_what_is_no_report_is_a_usage_error(tmp_path: Path) -> None:
    done = livecert_command("validate", str(tmp_path), timeout=60)
    assert done.returncode == 3
    assert "livecert validate:" in done.stderr and str(tmp_path) in done.stderr

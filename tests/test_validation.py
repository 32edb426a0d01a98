"""Method validation's judgement of its mutant runs and what the certificate says of it
(livecert.certify.validation); the runs themselves are in test_validation_runs.py."""

import json
import os
import time
from pathlib import Path

import pytest

from livecert.adapters.rate import parse_rate
from livecert.certify.runner import CertifyOptions
from livecert.certify.validation import (
    INCOMPLETE,
    KILLED,
    MISATTRIBUTED,
    NOT_APPLIED,
    NOT_SHOWN,
    SURVIVED,
    MutantRun,
    add_validation,
    default_per_clause,
    failed_anywhere,
    game_for,
    outcome_of,
    sweep_narrowed,
    validation_parallel,
    validation_section,
)
from livecert.harness.mutants import TargetShape, operators_for
from livecert.report.junit import build_junit
from livecert.report.signing import SigningError, sign_report


@pytest.mark.parametrize(
    ("declares", "failed", "verdict", "altered", "outcome"),
    [
        (["SB-PAY-05"], ["SB-PAY-05"], "non-compliant", 3, KILLED),
        (["SB-RND-01", "REG-COMMIT-01"], ["SB-RND-01"], "non-compliant", 1, KILLED),
        (["SB-PAY-05"], ["SB-PAY-05", "REG-MONEY-01"], "non-compliant", 3, MISATTRIBUTED),
        (["SB-PAY-05"], ["REG-MONEY-01"], "non-compliant", 3, MISATTRIBUTED),
        (["SB-RND-01", "REG-COMMIT-01"], ["REG-COMMIT-01"], "non-compliant", 1, MISATTRIBUTED),
        (["SB-PAY-05"], [], "compliant", 3, SURVIVED),
        (["SB-PAY-05"], [], "incomplete", 3, INCOMPLETE),
        (["SB-PAY-05"], [], "compliant", 0, NOT_APPLIED),
        (["SB-PAY-05"], ["SB-PAY-05"], "non-compliant", 0, NOT_APPLIED),
        (["SB-PAY-05"], [], "incomplete", 0, INCOMPLETE),  # ended before it could count
    ],
)
def test_a_mutant_is_killed_only_on_its_own_clause(
    declares: list[str], failed: list[str], verdict: str, altered: int, outcome: str
) -> None:
    assert outcome_of(declares, declares[0], failed, verdict, altered) == outcome


def run(mutant: str, outcome: str, failed: tuple[str, ...] = ()) -> MutantRun:
    operator, _, clause = mutant.partition("@")
    return MutantRun(mutant, operator, "f", clause, [clause], "s", "xocdia",
                     outcome=outcome, failed=list(failed), scenarios=["S1", "S2"])  # fmt: skip


def test_a_clause_no_mutant_killed_passed_with_its_sensitivity_not_shown() -> None:
    runs = [
        run("payout-unit-off@XD-PAY-01", KILLED, ("XD-PAY-01",)),
        run("payout-other-odds@XD-PAY-01", SURVIVED),
        run("payout-unit-off@XD-PAY-02", SURVIVED),
        run("payout-other-odds@XD-PAY-02", NOT_APPLIED),
    ]
    section = validation_section(
        ["XD-PAY-01", "XD-PAY-02", "DOC-LANG-01"], runs, 2, True, TargetShape()
    )
    one, two, lang = (section["clauses"][c] for c in ("XD-PAY-01", "XD-PAY-02", "DOC-LANG-01"))
    assert one["sensitivity"] == "1 of 2 mutants killed" and one["shown"]
    assert two["sensitivity"] == f"{NOT_SHOWN} (no mutant was killed)"
    assert two["survivors"] == [
        {"mutant": "payout-unit-off@XD-PAY-02", "operator": "payout-unit-off",
         "outcome": SURVIVED, "failed": [], "scenarios": ["S1", "S2"]},
    ]  # fmt: skip
    assert two["not_applied"] == ["payout-other-odds@XD-PAY-02"] and two["run"] == 1
    assert lang["sensitivity"] == f"{NOT_SHOWN} (no operator aims at it)"
    assert section["not_shown"] == ["XD-PAY-02", "DOC-LANG-01"]
    assert section["outcomes"] == {KILLED: 1, MISATTRIBUTED: 0, SURVIVED: 2, INCOMPLETE: 0,
                                   NOT_APPLIED: 1}  # fmt: skip
    assert "1 of 3 passed clauses showed" in section["statement"]
    assert "2 passed with sensitivity not shown" in section["statement"]
    assert (
        "(1 of them because no operator fitting this target aims at them yet"
        in (section["statement"])
    )
    assert section["no_operator"] == ["DOC-LANG-01"]


def test_the_verdict_is_not_changed_only_said_more_of() -> None:
    section = validation_section(["XD-PAY-02"], [run("payout-unit-off@XD-PAY-02", SURVIVED)],
                                 1, True, TargetShape())  # fmt: skip
    certificate = {
        "verdict": "compliant",
        "verdict_statement": "compliant",
        "clauses": {"XD-PAY-02": {"status": "passed"}},
    }
    add_validation(certificate, section)
    assert certificate["verdict"] == "compliant"
    assert certificate["verdict_statement"].startswith("compliant. Method validation")
    assert certificate["clauses"]["XD-PAY-02"]["sensitivity"].startswith(NOT_SHOWN)


def test_the_default_number_of_mutants_keeps_within_three_certifications() -> None:
    records = [
        {"type": "scenario", "clauses": ["XD-PAY-01"], "duration": 2.0},
        {"type": "scenario", "clauses": ["XD-PAY-02"], "duration": 2.0},
    ]
    passed = ["XD-PAY-01", "XD-PAY-02"]  # two operators each, a run of (2 + 4) s: 12 s a round
    shape = TargetShape()
    assert default_per_clause(passed, records, 5.0, 1, shape) == 1
    assert default_per_clause(passed, records, 8.0, 1, shape) == 2
    assert default_per_clause(passed, records, 1.0, 1, shape) == 1  # the least
    assert len(operators_for("XD-PAY-01", shape)) == 2


def test_a_mutant_runs_on_its_clauses_game_and_a_shared_duty_on_xoc_dia() -> None:
    assert game_for("SB-PAY-05", ("sicbo", "xocdia")) == "sicbo"
    assert game_for("REG-BAL-01", ("sicbo", "xocdia")) == "xocdia"
    assert game_for("REG-BAL-01", ("sicbo",)) == "sicbo"
    assert sweep_narrowed("SB-PAY-05", "sicbo") == ("SB-PAY-05",)
    assert len(sweep_narrowed("REG-BAL-01", "xocdia")) == 1


def test_junit_says_each_clauses_sensitivity() -> None:
    certificate = {
        "verdict": "compliant",
        "summary": {"scenarios": 2},
        "clauses": {
            "SB-PAY-01": {"status": "passed", "section": "A", "in_scope": True,
                          "sensitivity": "2 of 2 mutants killed"},
            "SB-PAY-02": {"status": "passed", "section": "A", "in_scope": True},
        },
    }  # fmt: skip
    shown = {
        case.get("name"): [p.get("value") for p in case.iter("property")
                           if p.get("name") == "sensitivity"]
        for case in build_junit(certificate).getroot().iter("testcase")
    }  # fmt: skip
    assert shown["SB-PAY-01"] == ["2 of 2 mutants killed"]
    assert shown["SB-PAY-02"] == []


def test_a_validation_runs_report_is_never_signed(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    (tmp_path / "certificate.json").write_text(
        json.dumps({"validation_run": {"name": "payout-unit-off@SB-PAY-05"}, "lab": {}})
    )
    (tmp_path / "manifest.json").write_text("{}")
    with pytest.raises(SigningError, match=r"validation run's report .* never signed"):
        sign_report(tmp_path, Ed25519PrivateKey.generate(), "A. Tester")


def test_what_the_certification_failed_already_is_no_mutants_doing() -> None:
    certificate = {
        "clauses": {"XD-PAY-01": {"status": "failed"}, "XD-PAY-02": {"status": "passed"}}
    }
    records = [
        {"type": "scenario", "judged_failed": ["XD-PAY-01", "REG-MONEY-01"]},
        {"type": "latency"},
    ]
    assert failed_anywhere(certificate, records) == ["REG-MONEY-01", "XD-PAY-01"]
    assert failed_anywhere(certificate, records, before=["XD-PAY-01"]) == ["REG-MONEY-01"]


@pytest.mark.parametrize(
    ("given", "processes", "parallel"),
    [
        ({}, 1, os.cpu_count() or 1),  # the embedded reference: a server of each run's own
        ({"target_url": "https://t.example"}, 3, 3),
        ({"target_url": "https://t.example"}, 1, 1),  # one process: shared tables, or slow
        ({"target_url": "https://t.example", "restart_hook": "./restart.sh"}, 3, 1),
        ({"rate_limit": parse_rate("10/s")}, 3, 1),
    ],
)
def test_mutant_runs_at_once_keep_the_targets_limits(given: dict, processes: int,
                                                     parallel: int) -> None:  # fmt: skip
    assert validation_parallel(CertifyOptions(**given), processes) == parallel


def test_a_run_that_passed_nothing_says_so_rather_than_0_of_0() -> None:
    section = validation_section([], [], 1, True, TargetShape())
    assert section["statement"] == (
        "Method validation on this target: no clause passed, so none was validated."
    )


def test_a_mutant_runs_certificate_records_the_command_that_replays_that_run(
    tmp_path: Path,
) -> None:
    """Not the validated command (which would certify again): its target, adapter and bounds,
    with the clause's scenarios, the sweep narrowed, the run's own folder and the mutant."""
    from livecert.certify.validation import mutant_command
    from livecert.harness.mutants import parse_mutant

    argv = [
        "--adapter", "m.yaml", "--target-url", "http://t", "--game", "sicbo", "--validate", "3",
        "--report-dir=out", "--no-html", "--clauses", "SB-PAY-05,REG-BAL-01",
        "--operator-token", "$LIVECERT_OPERATOR_TOKEN", "--lab", "lab.toml", "--", "-x",
    ]  # fmt: skip
    mutant = parse_mutant("payout-unit-off@SB-PAY-05")
    folder = tmp_path / "out.validation" / "payout-unit-off_at_SB-PAY-05"
    assert mutant_command(argv, mutant, "sicbo", ("SB-PAY-05",), folder) == [
        "--adapter", "m.yaml", "--target-url", "http://t",
        "--operator-token", "$LIVECERT_OPERATOR_TOKEN",
        "--game", "sicbo", "--clauses", "SB-PAY-05", "--sweep-only", "SB-PAY-05",
        "--workers", "1", "--processes", "1", "--no-html", "--quiet", "--report-dir", str(folder),
        "--", "-x", "--livecert-mutant=payout-unit-off@SB-PAY-05",
    ]  # fmt: skip
    # `--validate` alone (its number left to the cost), and a whole sweep (a return to player's)
    rtp = parse_mutant("payout-unit-off@SB-RTP-01")
    assert mutant_command(["--validate", "--har"], rtp, "sicbo", (), folder) == [
        "--game", "sicbo", "--clauses", "SB-RTP-01", "--workers", "1", "--processes", "1",
        "--no-html", "--quiet", "--report-dir", str(folder),
        "--", "--livecert-mutant=payout-unit-off@SB-RTP-01",
    ]  # fmt: skip


@pytest.mark.timing  # the run's end is a time of the clock
def test_no_mutant_run_starts_past_the_runs_max_duration(tmp_path: Path) -> None:
    """--max-duration bounds the validation with the certification: each mutant run gets what
    is left of it, and one that would start past it is not run, incomplete, saying why."""
    from livecert.certify.validation import run_validation

    certificate = {"clauses": {"XD-PAY-03": {"status": "passed"}}, "run": {}}
    asked: list = []

    def certify(options):  # a run that would certify: the time left is what it is given
        asked.append(options.max_duration)
        raise RuntimeError("stopped here")

    base = CertifyOptions(game="xocdia", report_dir=tmp_path / "report")
    section = run_validation(certificate, [], base, tmp_path / "v", 2, 1, certify,
                             ends_at=time.time() - 1)  # fmt: skip
    runs = json.loads((tmp_path / "v" / "validation.json").read_text())["runs"]
    assert asked == [] and [r["outcome"] for r in runs] == [INCOMPLETE, INCOMPLETE]
    assert all(r["error"] == "not run: the run's --max-duration had passed" for r in runs)
    assert section["clauses"]["XD-PAY-03"]["shown"] is False
    run_validation(certificate, [], base, tmp_path / "w", 1, 1, certify, ends_at=time.time() + 60)
    assert len(asked) == 1 and 0 < asked[0] <= 60


def test_a_mutant_run_plays_one_table_in_one_process_whatever_the_run_had(tmp_path: Path) -> None:
    """A certification spread over processes (--processes, or LIVECERT_PROCESSES) validates
    with runs of one worker each: its processes are not carried into a run of one table."""
    from livecert.certify.validation import run_validation

    certificate = {"clauses": {"XD-PAY-03": {"status": "passed"}}, "run": {}}
    asked: list = []

    def certify(options):
        asked.append((options.workers, options.processes))
        raise RuntimeError("stopped here")

    base = CertifyOptions(game="xocdia", report_dir=tmp_path / "r", workers=8, processes=4)
    run_validation(certificate, [], base, tmp_path / "v", 1, 1, certify)
    assert asked == [(1, None)]


def test_a_secret_in_a_mutant_runs_files_is_masked_and_said(tmp_path: Path) -> None:
    """The validation's folder is searched for the run's secrets as a report's is."""
    from livecert.adapters.secrets import SECRETS
    from livecert.certify.validation import run_validation

    SECRETS.register("validation-secret-4242", "$VALIDATION_SECRET")
    certificate = {"clauses": {"XD-PAY-03": {"status": "passed"}}, "run": {}}

    def certify(options):  # a run whose output file holds the secret, then fails to finish
        options.output.write_text("token validation-secret-4242 in the output", encoding="utf-8")
        raise RuntimeError("stopped here")

    base = CertifyOptions(game="xocdia", report_dir=tmp_path / "report")
    section = run_validation(certificate, [], base, tmp_path / "v", 1, 1, certify)
    leaked = section["secrets_masked"]
    assert len(leaked) == 1 and leaked[0].endswith("$VALIDATION_SECRET"), leaked
    texts = [p.read_text(encoding="utf-8") for p in tmp_path.rglob("*") if p.is_file()]
    assert not any("validation-secret-4242" in text for text in texts)
    assert any("$VALIDATION_SECRET" in text for text in texts)


def test_the_replayed_command_drops_what_the_run_set_however_it_was_written(
    tmp_path: Path,
) -> None:
    """`--validate auto`, options abbreviated as argparse takes them, and the bounds the mutant's
    run had (what was left of --max-duration, the rate it kept) rather than the validated
    command's."""
    from livecert.adapters.rate import parse_rate
    from livecert.certify.validation import mutant_command
    from livecert.harness.mutants import parse_mutant

    mutant = parse_mutant("payout-unit-off@XD-PAY-03")
    argv = ["--target-url", "http://t", "--valid", "auto", "--work", "4", "--proc", "4",
            "--history-from", "T1",
            "--max-duration", "600", "--rate-limit=20/s", "--request-deadline", "9"]  # fmt: skip
    bounds = CertifyOptions(max_duration=412.6, rate_limit=parse_rate("20/s"))
    assert mutant_command(argv, mutant, "xocdia", (), tmp_path, bounds) == [
        "--target-url", "http://t", "--request-deadline", "9",
        "--game", "xocdia", "--clauses", "XD-PAY-03", "--workers", "1", "--processes", "1",
        "--no-html", "--quiet", "--report-dir", str(tmp_path), "--max-duration", "413",
        "--rate-limit", "20/s",
        "--", "--livecert-mutant=payout-unit-off@XD-PAY-03",
    ]  # fmt: skip


def test_the_targets_shape_is_read_from_its_run_and_from_an_older_reports_adapter() -> None:
    from livecert.certify.validation import target_shape

    recorded = [{"type": "target", "adapter": {"kind": "mapping"}},
                {"type": "target_shape", "pushes": True, "contract": False}]  # fmt: skip
    assert target_shape(recorded) == TargetShape(pushes=True, contract=False)
    older = [{"type": "target", "adapter": {"kind": "canonical"}}]  # before the shape was kept
    assert target_shape(older) == TargetShape(pushes=False, contract=True)
    assert target_shape([]) == TargetShape()

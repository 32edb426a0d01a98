"""`livecert validate REPORT`: method validation of a finished run, kept apart from it.

The report's certificate says which clauses passed and how its target was reached (its URL and
adapter, or the embedded reference with the same seeded faults: as `livecert replay` reads
it); each passed clause is validated against that target as `certify --validate` does after a
run. The report is not changed (it may be signed already): the validation is written beside it,
in `REPORT.validation/validation.json`, with the mutant runs' own reports.
"""

from pathlib import Path

from livecert.certify.compare import read_certificate
from livecert.certify.replay import replay_options
from livecert.certify.suite_command import CertifyError
from livecert.certify.validation import run_validation, validation_folder, validation_parallel
from livecert.harness.run_record import read_run_record


def validate_report(
    report: Path,
    per_clause: int | None,
    operator_token: str | None = None,
    dealer_token: str | None = None,
) -> dict:
    """Validate the clauses `report` passed; the validation section (also in its file)."""
    from livecert.certify.runner import certify  # the suite's runs, imported when validating

    certificate = read_certificate(report)
    if certificate.get("validation_run"):
        raise CertifyError(f"{report} is a validation run's report: validate the certification")
    record = report / "run-record.jsonl"
    if not record.is_file():
        raise CertifyError(f"{report} has no run-record.jsonl: not a livecert report folder")
    if not any(row.get("status") == "passed" for row in certificate["clauses"].values()):
        raise CertifyError(f"{report} passed no clause: there is nothing to validate")
    options = replay_options(certificate, report, operator_token, dealer_token)
    options.rate_limit = None
    # the command its mutant runs are recorded as replaying: the certification's, as recorded
    options.command = list(certificate["run"].get("command") or [])[2:] or None
    processes = int((certificate["run"].get("workers") or {}).get("processes") or 1)
    return run_validation(
        certificate, read_run_record(record), options, validation_folder(report.resolve()),
        per_clause, validation_parallel(options, processes), certify,
    )  # fmt: skip

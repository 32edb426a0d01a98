"""The parsers of the commands that read what a run or a lab already has: a report folder
(report, replay, compare, sign, verify) and a table's outcome history (outcomes)."""

import argparse
from pathlib import Path

from livecert.cli.certify_options import _history_options
from livecert.cli.options import (
    DOCTOR_DEFAULTS,
    _adapter_and_rules,
    _config_option,
    _target_options,
)


def outcomes_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    outcomes = sub.add_parser(
        "outcomes",
        help="the fairness battery over a table's outcome history (REG-FAIR-01/02)",
        description="Are the dice and tokens fair? Read a table's history of outcomes (a file, "
        "or the target's round history) and run the lab battery at the 99%% level with Holm's "
        "correction: chi-square of faces, totals, triples and red counts (REG-FAIR-01); "
        "independence within a roll, runs and serial correlation (REG-FAIR-02); and the "
        "smallest bias the history could find. Writes outcome-analysis-GAME.json and .txt. "
        "Exit status: 0 both duties passed, 1 a duty failed, 2 a duty not tested (too few "
        "rounds), 3 a usage error or an unreadable history.",
    )
    _config_option(outcomes)
    _target_options(outcomes, DOCTOR_DEFAULTS["timeout"])
    _history_options(outcomes, certify=False)
    outcomes.add_argument(
        "--exclude-run",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="a report folder of a certify run on this table: the rounds it played are left "
        "out (the harness chose their results); repeatable",
    )
    outcomes.add_argument(
        "--report-dir",
        type=Path,
        default=Path("outcome-analysis"),
        metavar="DIR",
        help="where the analysis is written (default ./outcome-analysis)",
    )
    _adapter_and_rules(outcomes, "unused by the battery (the dice are fair or not by any rules)")
    return outcomes


def report_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    report = sub.add_parser(
        "report",
        help="(re)build a run's pages: Allure HTML, certificate.html and .pdf, charts, manifest",
        description="Build the pages of a report folder written by `livecert certify "
        "--no-html` (or build them again): the Allure HTML report, certificate.html and its "
        "PDF, the charts and the manifest. Needs Node.js and Java (Allure) and Chromium (PDF). "
        "Exit status: 0 built, 3 a usage error.",
    )
    report.add_argument("folder", type=Path, metavar="DIR", nargs="?", help="a run's report folder")
    report.add_argument(
        "--install-tools",
        action="store_true",
        help="install the pinned Allure report generator into livecert's cache (env "
        "LIVECERT_CACHE_DIR; default ~/.cache/livecert) and say where, for a lab that builds "
        "pages without network later; or point LIVECERT_ALLURE at an Allure 2 `allure` "
        "command already installed",
    )
    return report


def replay_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    replay = sub.add_parser(
        "replay",
        help="run a report's failed scenarios again and say whether each finding still holds",
        description="Run failed scenarios of a report again against the same target (its URL "
        "and adapter, or the embedded reference with the same seeded faults), with fresh "
        "players, and say for each clause they failed whether the finding still holds, is "
        "fixed, or could not be judged. The report holds no credential: a target's tokens come "
        "from LIVECERT_OPERATOR_TOKEN and LIVECERT_DEALER_TOKEN. The replay's own report is "
        "written beside the one replayed. Exit status: 0 no finding holds, 1 a finding holds, 2 "
        "one could not be judged, 3 a usage error.",
    )
    replay.add_argument("folder", type=Path, metavar="REPORT", help="the report to replay")
    replay.add_argument(
        "scenario", nargs="?", default=None, metavar="SCENARIO",
        help="the failed scenario to replay: its id (test_certification.py::...) or words of "
        "its name; every failed one with --failed",
    )  # fmt: skip
    replay.add_argument(
        "--failed", action="store_true", help="replay every failed scenario of the report"
    )
    return replay


def validate_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    validate = sub.add_parser(
        "validate",
        help="validate a finished run's method on its target: can each passed clause fail there",
        description="Run each clause a report passed again against the same target (its URL "
        "and adapter, or the embedded reference with the same seeded faults) once per answer "
        "mutant aimed at it, and say per clause how many mutants its checks killed; as "
        "`certify --validate` does after a run. The report is not changed: the validation is "
        "written beside it (REPORT.validation/validation.json). A target's tokens come from "
        "LIVECERT_OPERATOR_TOKEN and LIVECERT_DEALER_TOKEN. Exit status: 0 every passed "
        "clause showed its checks can fail, 1 some passed with sensitivity not shown, 3 a "
        "usage error.",
    )
    validate.add_argument("folder", type=Path, metavar="REPORT", help="the report to validate")
    validate.add_argument(
        "--per-clause", type=int, default=None, metavar="N",
        help="mutants per passed clause at most (default: as many as keep the validation "
        "within about three certifications' time)",
    )  # fmt: skip
    return validate


def compare_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    compare = sub.add_parser(
        "compare",
        help="two reports clause by clause: fixed, newly failing, still failing, not tested",
        description="Compare two runs' certificates clause by clause and print what the newer "
        "one fixed, newly fails, still fails, no longer tests and newly passes, each judged by "
        "the runs' own verdicts; the difference is also written as JSON. Exit status: 0 "
        "nothing newly failing, 1 a clause newly failing (a regression), 3 a usage error.",
    )
    compare.add_argument("old", type=Path, metavar="OLD", help="the earlier report folder")
    compare.add_argument("new", type=Path, metavar="NEW", help="the later report folder")
    compare.add_argument(
        "--output", type=Path, default=None, metavar="FILE",
        help="where the difference is written as JSON (default compare-OLD-NEW.json beside "
        "NEW, outside both reports so that their manifests still hold)",
    )  # fmt: skip
    return compare


def sign_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    sign = sub.add_parser(
        "sign",
        help="sign a finished report: manifest.sig beside its manifest (Ed25519)",
        description="Sign a report folder: check that its files are still those its manifest "
        "lists, then write manifest.sig, an Ed25519 signature over manifest.json naming who "
        "signed, when (UTC) and the key's fingerprint (as `ssh-keygen -l` shows it). The key "
        "is a PEM (`openssl genpkey -algorithm ed25519 -out lab.key`) or OpenSSH (`ssh-keygen "
        "-t ed25519`) private key; an encrypted one is opened with the passphrase in "
        "LIVECERT_SIGNING_PASSPHRASE. Exit status: 0 signed, 1 the report no longer agrees with "
        "its manifest, 3 a usage error.",
    )
    sign.add_argument("folder", type=Path, metavar="REPORT", help="a run's report folder")
    sign.add_argument(
        "--key", type=Path, required=True, metavar="KEY",
        help="the lab's Ed25519 private key file (PEM or OpenSSH)",
    )  # fmt: skip
    sign.add_argument(
        "--signer", required=True, metavar="NAME",
        help="who signs, as the signature names them (e.g. \"A. Reviewer, Example Labs\")",
    )  # fmt: skip
    return sign


def verify_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    verify = sub.add_parser(
        "verify",
        help="check a report's files against its manifest, and its signature with a key",
        description="Check every file of a report against its manifest (integrity: a changed, "
        "missing or added file fails) and, with --public-key, first the manifest's signature "
        "(manifest.sig) with a key the reader trusts (PEM, or an OpenSSH .pub line; never a "
        "key inside the report). It says which it checked: without a key, who signed is not "
        "checked. Exit status: 0 verified, 1 not, 3 a usage error.",
    )
    verify.add_argument("folder", type=Path, metavar="REPORT", help="a report folder")
    verify.add_argument(
        "--public-key", type=Path, default=None, metavar="KEY",
        help="the signer's Ed25519 public key, from outside the report (without it, only the "
        "files are checked against the manifest)",
    )  # fmt: skip
    return verify

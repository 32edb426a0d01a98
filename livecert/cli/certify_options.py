"""`livecert certify`'s parser: its options in groups (the target, the bounds, what runs, the
report, the embedded reference, the outcome histories), each with its help text, its
environment variable and its default (livecert/cli/options.py holds the helpers)."""

import argparse
from pathlib import Path

from livecert.cli.options import (
    ROUNDING_MODES,
    _above_zero,
    _adapter_and_rules,
    _argument,
    _bounds_options,
    _config_option,
    _setting,
    _target_options,
)
from livecert.harness.restart_options import add_restart_options
from livecert.settings import GAMES


def certify_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "certify",
        help="run the certification suite against a target and write a report",
        description=(
            "Run every scenario of the rules documents against a target (by default the "
            "embedded reference implementation) and write the report folder: certificate.json, "
            "its page and PDF, JUnit XML, Allure results and report, and a manifest. Exit "
            "status: 0 compliant, 1 non-compliant, 2 incomplete, 3 a usage error. Every option "
            "may also come from its environment variable or the config file, in that order "
            "after the command line (`livecert config` shows what a run would use)."
        ),
    )
    _config_option(parser)
    target = parser.add_argument_group("the target", "what is certified and how it is reached")
    _target_options(target, 30.0)
    _adapter_and_rules(
        target,
        "the rule profile to certify against: 'documents' (the rules documents, the "
        "default), a shipped profile (variant-150, variant-180) or a profile file (.toml); "
        "the certificate names it and its sha256",
    )
    bounds = parser.add_argument_group(
        "bounds", "how long a request and the run may take, how much a target may send"
    )
    _bounds_options(
        bounds, "the run", "the run stops with one message naming the request, incomplete"
    )
    scope = parser.add_argument_group("what runs", "the games, the clauses, the pace")
    _setting(scope, "game", "which game to certify", None, choices=GAMES)
    _setting(
        scope,
        "workers",
        "tables in play at once: scenarios, sweep rounds and money sessions run at the same "
        "time, each on tables and players of its own, in processes (pytest-xdist) and threads "
        "beyond; auto chooses from the target's round trip (1 for the embedded reference), 1 "
        "runs everything one after another",
        None,
        metavar="N|auto",
    )
    _setting(
        scope,
        "processes",
        "the processes the tables in play run in: auto keeps them at the machine's cores, "
        "and beyond the cores, one per table, where the round trip is longer than the "
        "harness's own work per request (the processes then wait on the network); N sets "
        "them, and puts N tables in play at least",
        None,
        metavar="N|auto",
    )
    report = parser.add_argument_group("the report", "where it goes, what it holds, for whom")
    _setting(
        report,
        "report_dir",
        "where to write the report (default reports/<timestamp>/ under the current folder, "
        "with reports/latest pointing at it)",
        None,
        metavar="DIR",
        type=Path,
    )
    reference = parser.add_argument_group(
        "the embedded reference", "when no --target-url is given: a self-test of the harness"
    )
    reference.add_argument(
        "--reference-fault",
        metavar="NAME",
        action="append",
        default=[],
        help="start the embedded reference with this seeded fault (repeatable; "
        "`livecert serve --list-faults` lists them)",
    )
    reference.add_argument(
        "--reference-rounding",
        choices=ROUNDING_MODES,
        default=None,
        help="rounding rule the embedded reference declares (default down)",
    )
    reference.add_argument(
        "--reference-without",
        metavar="CAPABILITY",
        action="append",
        default=[],
        help="start the embedded reference declaring one capability fewer (repeatable): shows "
        "how a target without it is certified (its clauses not tested, with the reason)",
    )
    add_restart_options(scope.add_argument)  # one definition for the CLI and the suite
    parser.set_defaults(restart_hook=None, restart_timeout=None)  # resolved by the settings
    for action in parser._actions:
        if action.dest in ("restart_hook", "restart_timeout"):
            action.setting = action.dest  # type: ignore[attr-defined]
    _setting(
        scope,
        "clauses",
        "certify only these clauses (e.g. SB-PAY-16,REG-SETTLE-01); the others are listed "
        "as not selected and the run is partial",
        None,
        metavar="ID[,ID...]",
    )
    _setting(
        scope,
        "sweep_only",
        "play the sweep with bets only on the selections of these paytable clauses (e.g. "
        "SB-PAY-08): a quicker re-test of a fix; the run is partial and says so",
        None,
        metavar="ID[,ID...]",
    )
    _setting(
        report, "quiet", "less progress output", None, "--quiet", action="store_const", const=True
    )
    _setting(
        report,
        "html",
        "write certificate.json, JUnit XML, Allure results and the manifest only: no "
        "Allure HTML, certificate page or PDF (build them later with `livecert report DIR`); "
        "in a file, html = false",
        None,
        "--no-html",
        action="store_const",
        const=False,
    )
    report.add_argument(
        "--har",
        action="store_true",
        help="also write exchanges.har: every request and response of the run as an HTTP "
        "Archive (HAR 1.2) for a browser's network panel; the exchanges/ archive holds the same",
    )
    report.add_argument(
        "--no-progress",
        action="store_true",
        help="pytest's own lines instead of the progress bars, also on a terminal (a CI log, "
        "a dumb terminal, or a pipe never gets the bars)",
    )
    report.add_argument(
        "--lab",
        type=Path,
        default=None,
        metavar="FILE",
        help="the lab's fields for the report from this TOML file (its [lab] table, or at its "
        "top level) instead of the config file's [lab]: lab, report number, client, tester, "
        "reviewer, jurisdictions, standards, build, waivers and deviations",
    )
    _history_options(
        parser.add_argument_group(
            "outcome histories", "the fairness battery of REG-FAIR-01/02 on a table's outcomes"
        )
    )
    report.add_argument(
        "--validate",
        nargs="?",
        const="auto",
        default=None,
        type=_per_clause,
        metavar="N",
        help="after the run, validate the method on this target: each passed clause's "
        "scenarios run again once per answer mutant aimed at it (up to N of its operators; "
        "by default as many as keep the validation within about 3 certifications' time); the "
        "certificate says per clause how many mutants its checks killed, and which clauses "
        "passed with their sensitivity not shown. The mutants alter what the harness reads, "
        "never what it sends; their runs are kept beside the report, never signed",
    )
    report.add_argument(
        "--retests",
        type=Path,
        default=None,
        metavar="DIR",
        help="the report folder of the run this one retests: the certificate names it and "
        "says which of its findings this run closes and which still fail",
    )
    parser.add_argument(
        "pytest_args",
        nargs="*",
        metavar="-- PYTEST_ARG",
        help="extra pytest arguments after `--`, e.g. -- -k Small",
    )
    return parser


def _per_clause(text: str) -> str | int:
    """--validate's N: a positive whole number of mutants per clause, or auto."""
    if text == "auto":
        return text
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(
            f"--validate takes a positive whole number of mutants per clause, not {text!r}"
        )
    return int(text)


def _detect(text: str) -> float:
    value = _above_zero(text)
    if value >= 0.5:
        raise argparse.ArgumentTypeError(f"{text} is not a bias under 0.5 (e.g. 0.01)")
    return value


def _history_options(parser: argparse._ActionsContainer, certify: bool = True) -> None:
    """The outcome history (REG-FAIR-01/02) of certify, and of `livecert outcomes`."""
    what = "the fairness battery (REG-FAIR-01/02) also runs on" if certify else "analyse"
    parser.add_argument(
        "--history",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help=f"{what} a table's outcome history: CSV (header round_id,time,result[,in_order,"
        "shaker,dealer,status]) or JSON lines; every row checked, a bad one named by its line"
        + ("; repeatable, one per game" if certify else ""),
    )
    parser.add_argument(
        "--history-from-target" if certify else "--from-target",
        dest="history_tables",
        action="append",
        default=[],
        metavar="TABLE",
        help="read the outcome history of this table from the target (its round-history "
        "operation, page by page); repeatable",
    )
    parser.add_argument(
        "--detect",
        type=_argument(_detect),
        default=None,
        metavar="BIAS",
        help="also say how many rounds find this bias with 90%% power (a die showing 6 with "
        "probability 1/6 + BIAS, a token red with 1/2 + BIAS), e.g. 0.01",
    )

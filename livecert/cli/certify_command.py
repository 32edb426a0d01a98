"""`livecert certify` once its options are parsed: its settings resolved and its usage checked
(each error one line naming what to fix, exit status 3), a banner, the run, and the summary."""

import argparse
import sys
import time
from typing import TYPE_CHECKING

from livecert.cli.commands import (
    _not_utf8_setting,
    _settings,
    _usage,
    _uses_contract,
    _warn_of_secret_flags,
)
from livecert.cli.options import CERTIFY_SETTINGS
from livecert.harness.restart_options import hook_problem
from livecert.settings import SettingsError, read_lab_file

if TYPE_CHECKING:  # certify's options, imported by the command that runs
    from pathlib import Path

    from livecert.certify.runner import CertifyOptions


def run_certify(args: argparse.Namespace, argv: list[str]) -> int:
    from livecert.certify.runner import CertifyError, CertifyOptions, certify
    from livecert.certify.summary import summary_lines
    from livecert.contract import CONTRACT_CLAUSES
    from livecert.rules import load_catalogue
    from livecert.rules.profiles import ProfileError, load_profile
    from livecert.target_text import terminal_lines

    _warn_of_secret_flags("certify", argv)
    try:
        _, config = _settings(args, CERTIFY_SETTINGS)
        lab = read_lab_file(args.lab) if args.lab is not None else config.lab
    except SettingsError as error:
        return _usage("certify", str(error))
    waivers = lab.get("waivers", [])
    drives_own_target = args.target_url or not _uses_contract(args)
    if drives_own_target and (args.reference_fault or args.reference_without):
        return _usage(
            "certify",
            "--reference-fault and --reference-without configure the embedded reference "
            "server; they cannot be combined with --target-url or a mapping/plugin --adapter. "
            "Drop one.",
        )
    problem = hook_problem(args.restart_hook, lab_target=bool(drives_own_target))
    if problem:
        return _usage("certify", problem)
    if problem := _not_utf8_setting(args):
        return _usage("certify", problem)
    if args.target_url and _uses_contract(args) and not (args.operator_token and args.dealer_token):
        return _usage(
            "certify",
            "--target-url needs the target's credentials: pass --operator-token and "
            "--dealer-token (or set LIVECERT_OPERATOR_TOKEN and LIVECERT_DEALER_TOKEN)",
        )
    try:
        load_profile(args.rules)
    except ProfileError as error:
        return _usage("certify", str(error))
    clauses = tuple(c.strip() for c in args.clauses.split(",") if c.strip())
    known = {*load_catalogue(), *CONTRACT_CLAUSES}
    named = {"--clauses names": clauses, "[lab] waivers name": [w["clause"] for w in waivers]}
    for where, ids in named.items():
        unknown = [c for c in ids if c not in known]
        if unknown:
            return _usage(
                "certify",
                f"{where} {unknown}, which are not clauses of the catalogue; expected IDs like "
                "SB-PAY-16, REG-SETTLE-01 or CONTRACT-02",
            )
    options = CertifyOptions(
        target_url=args.target_url,
        adapter=args.adapter,
        rules=args.rules,
        operator_token=args.operator_token,
        dealer_token=args.dealer_token,
        timeout=args.timeout,
        request_deadline=args.request_deadline,
        max_duration=args.max_duration,
        game=args.game,
        report_dir=args.report_dir,
        reference_faults=args.reference_fault,
        reference_rounding=args.reference_rounding,
        reference_without=args.reference_without,
        restart_hook=args.restart_hook,
        restart_timeout=args.restart_timeout,
        clauses=clauses,
        sweep_only=tuple(c.strip() for c in args.sweep_only.split(",") if c.strip()),
        quiet=args.quiet,
        html=args.html,
        pytest_args=args.pytest_args,
        lab=lab,
        retests=args.retests,
        histories=args.history,
        history_tables=args.history_tables,
        detect=args.detect,
    )
    if args.max_answer_size is not None:
        options.max_answer_bytes = args.max_answer_size
    options.rate_limit = args.rate_limit
    options.workers = None if args.workers == "auto" else args.workers
    options.processes = None if args.processes == "auto" else args.processes
    options.progress = sys.stdout.isatty() and not args.quiet and not args.no_progress
    options.har = args.har
    options.validate = args.validate is not None
    options.validate_per_clause = args.validate if isinstance(args.validate, int) else None
    if not args.quiet:
        from livecert.certify.terminal import say_on_terminal

        for line in banner(options, args.report_dir):
            say_on_terminal(line)  # a closed pipe does not stop the run
    started = time.monotonic()
    try:
        status, certificate, folder = certify(options)
    except CertifyError as error:
        return _usage("certify", str(error))
    from livecert.certify.terminal import reader_gone

    if reader_gone():  # a closed pipe: the report is written; end as a Unix tool does
        from livecert.cli import PIPE_CLOSED

        return PIPE_CLOSED
    lines = summary_lines(certificate, folder)
    if args.quiet:  # the verdict alone
        print(terminal_lines([line for line in lines if line][:1]))
        return status
    scenarios = certificate["run"].get("duration_seconds")
    lines.append(
        f"  wall time: {time.monotonic() - started:.1f} s, of which the scenarios {scenarios} s "
        "(the rest: starting, the certificate and the pages)"
    )
    print(terminal_lines(lines))
    return status


def banner(options: "CertifyOptions", report_dir: "Path | None") -> list[str]:
    """What certify says before it starts: the target, the games, where the report goes, and
    how long the last run here took."""
    import json
    from pathlib import Path

    from livecert import __version__

    target = options.target_url or (
        "the embedded reference implementation"
        + (
            f" with the seeded faults {', '.join(options.reference_faults)}"
            if options.reference_faults
            else ""
        )
    )
    games = {"all": "Sic Bo and Xoc Dia", "sicbo": "Sic Bo", "xocdia": "Xoc Dia"}[options.game]
    folder = Path(report_dir) if report_dir else Path("reports") / "<time>"
    lines = [f"livecert {__version__}: certifying {target}: {games}; the report in {folder}/"]
    latest = (folder.parent if report_dir else Path("reports")) / "latest" / "certificate.json"
    try:
        took = json.loads(latest.read_text(encoding="utf-8"))["run"]["duration_seconds"]
        lines.append(f"  the last run here took {took} s of scenarios")
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return lines

"""The `livecert` command: `certify` a target, or `serve` the reference implementation."""

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path

from livecert import __version__
from livecert.harness.restart_options import add_restart_options, hook_problem

ROUNDING_MODES = ("down", "up", "half-up", "half-even")


def _certify_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "certify",
        help="run the certification suite against a target and write a report",
        description=(
            "Run every scenario of the rules documents against a target (by default the "
            "embedded reference implementation) and write certificate.json, JUnit XML and "
            "Allure results. Exit status: 0 compliant, 1 non-compliant, 2 incomplete."
        ),
    )
    parser.add_argument(
        "--target-url",
        metavar="URL",
        default=os.environ.get("LIVECERT_TARGET_URL"),
        help="base URL of the implementation to certify (env LIVECERT_TARGET_URL);"
        " default: start the embedded reference server",
    )
    parser.add_argument(
        "--operator-token",
        metavar="TOKEN",
        default=os.environ.get("LIVECERT_OPERATOR_TOKEN"),
        help="operator bearer token; prefer the env LIVECERT_OPERATOR_TOKEN (a flag shows in "
        "the process list)",
    )
    parser.add_argument(
        "--dealer-token",
        metavar="TOKEN",
        default=os.environ.get("LIVECERT_DEALER_TOKEN"),
        help="dealer bearer token; prefer the env LIVECERT_DEALER_TOKEN (a flag shows in "
        "the process list)",
    )
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=float,
        default=30.0,
        help="seconds to wait for a connection and for each read of an answer (default 30)",
    )
    _bounds_arguments(
        parser, "the run", "the run stops with one message naming the request, incomplete"
    )
    _adapter_argument(parser)
    _rules_argument(
        parser,
        "the rule profile to certify against (env LIVECERT_RULES): 'documents' (default), "
        "a shipped profile (variant-150, variant-180) or a profile file (.toml); the "
        "certificate names it and its sha256",
    )
    parser.add_argument(
        "--game",
        choices=("sicbo", "xocdia", "all"),
        default="all",
        help="which game to certify (default all)",
    )
    parser.add_argument(
        "--report-dir",
        metavar="DIR",
        type=Path,
        default=None,
        help="where to write the report (default reports/<timestamp>/, "
        "with reports/latest pointing at it)",
    )
    parser.add_argument(
        "--reference-fault",
        metavar="NAME",
        action="append",
        default=[],
        help="start the embedded reference with this seeded fault (repeatable; "
        "`livecert serve --list-faults` lists them)",
    )
    parser.add_argument(
        "--reference-rounding",
        choices=ROUNDING_MODES,
        default=None,
        help="rounding rule the embedded reference declares (default down)",
    )
    parser.add_argument(
        "--reference-without",
        metavar="CAPABILITY",
        action="append",
        default=[],
        help="start the embedded reference declaring one capability fewer (repeatable): shows "
        "how a target without it is certified (its clauses not tested, with the reason)",
    )
    add_restart_options(parser.add_argument)
    parser.add_argument(
        "--clauses",
        metavar="ID[,ID...]",
        default="",
        help="certify only these clauses (e.g. SB-PAY-16,REG-SETTLE-01); the others are listed "
        "as not selected",
    )
    parser.add_argument(
        "--sweep-only",
        metavar="ID[,ID...]",
        default="",
        help="play the sweep with bets only on the selections of these paytable clauses (e.g. "
        "SB-PAY-08): a quicker re-test of a fix; the run is partial and says so",
    )
    parser.add_argument("--quiet", action="store_true", help="less progress output")
    parser.add_argument(
        "--no-html",
        action="store_true",
        help="write certificate.json, JUnit XML, Allure results and the manifest only: no "
        "Allure HTML, certificate page or PDF (build them later with `livecert report DIR`)",
    )
    parser.add_argument(
        "pytest_args",
        nargs="*",
        metavar="-- PYTEST_ARG",
        help="extra pytest arguments after `--`, e.g. -- -k Small",
    )
    return parser


def _size(text: str) -> int:
    from livecert.certify.runner import parse_size  # the adapters' own reading, via certify

    try:
        return parse_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _bounds_arguments(parser: argparse.ArgumentParser, what: str, past: str) -> None:
    """--request-deadline, --max-answer-size and --max-duration: how long a request and
    `what` may take, however slowly a target answers, and how much it may send; `past` says
    what a request past them does."""
    parser.add_argument(
        "--request-deadline",
        metavar="SECONDS",
        type=float,
        default=30.0,
        help="seconds one request may take in all: connect, send and the whole answer, however "
        f"slowly it comes (default 30; --timeout bounds each read); past it {past}",
    )
    parser.add_argument(
        "--max-answer-size",
        metavar="SIZE",
        type=_size,
        default=None,
        help="the largest answer read, in bytes or e.g. 16MiB, 64KiB (default 16MiB); past it "
        f"{past}",
    )
    parser.add_argument(
        "--max-duration",
        metavar="SECONDS",
        type=float,
        default=None,
        help=f"end {what} after this many seconds (default: no limit): nothing new starts after "
        f"it, and the request in flight is cut: {past}",
    )


def _bounds_problem(args: argparse.Namespace) -> str | None:
    for name in ("request_deadline", "max_duration"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            return f"--{name.replace('_', '-')}={value:g} must be a number of seconds above 0"
    return None


def _adapter_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--adapter",
        metavar="NAME|PATH",
        default=os.environ.get("LIVECERT_ADAPTER"),
        help="how to talk to the target (env LIVECERT_ADAPTER): 'canonical' (the "
        "certification contract, default), a mapping file (.yaml) for a vendor-shaped API "
        "(docs/mapping.md), or a plugin registered in the 'livecert.adapters' entry points",
    )


def _rules_argument(parser: argparse.ArgumentParser, purpose: str) -> None:
    parser.add_argument(
        "--rules", metavar="PROFILE", default=os.environ.get("LIVECERT_RULES"), help=purpose
    )


def _uses_contract(args: argparse.Namespace) -> bool:
    from livecert.certify.runner import is_canonical  # the adapters' own test, via certify

    return is_canonical(args.adapter)


def _run_certify(args: argparse.Namespace) -> int:
    from livecert.certify.runner import CertifyError, CertifyOptions, certify
    from livecert.certify.summary import summary_lines
    from livecert.contract import CONTRACT_CLAUSES
    from livecert.rules import load_catalogue
    from livecert.rules.profiles import ProfileError, load_profile
    from livecert.target_text import terminal_lines

    drives_own_target = args.target_url or not _uses_contract(args)
    if drives_own_target and (args.reference_fault or args.reference_without):
        print(
            "livecert certify: --reference-fault and --reference-without configure the "
            "embedded reference server; they cannot be combined with --target-url or a "
            "mapping/plugin --adapter. Drop one.",
            file=sys.stderr,
        )
        return 3
    problem = hook_problem(args.restart_hook, lab_target=bool(drives_own_target))
    if problem:
        print(f"livecert certify: {problem}", file=sys.stderr)
        return 3
    if args.target_url and _uses_contract(args) and not (args.operator_token and args.dealer_token):
        print(
            "livecert certify: --target-url needs the target's credentials: pass "
            "--operator-token and --dealer-token (or set LIVECERT_OPERATOR_TOKEN and "
            "LIVECERT_DEALER_TOKEN)",
            file=sys.stderr,
        )
        return 3
    try:
        load_profile(args.rules)
    except ProfileError as error:
        print(f"livecert certify: {error}", file=sys.stderr)
        return 3
    problem = _bounds_problem(args)
    if problem:
        print(f"livecert certify: {problem}", file=sys.stderr)
        return 3
    clauses = tuple(c.strip() for c in args.clauses.split(",") if c.strip())
    catalogue = load_catalogue()
    unknown = [c for c in clauses if c not in catalogue and c not in CONTRACT_CLAUSES]
    if unknown:
        print(
            f"livecert certify: --clauses names {unknown}, which are not clauses of the "
            "catalogue; expected IDs like SB-PAY-16, REG-SETTLE-01 or CONTRACT-02",
            file=sys.stderr,
        )
        return 3
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
        html=not args.no_html,
        pytest_args=args.pytest_args,
    )
    if args.max_answer_size is not None:
        options.max_answer_bytes = args.max_answer_size
    try:
        status, certificate, folder = certify(options)
    except CertifyError as error:
        print(f"livecert certify: {error}", file=sys.stderr)
        return 3
    print(terminal_lines(summary_lines(certificate, folder)))
    return status


def _run_doctor(args: argparse.Namespace) -> int:
    from livecert.certify.doctor import Bounds, diagnose, diagnose_reference
    from livecert.rules.paytable import use_profile
    from livecert.rules.profiles import ProfileError, load_profile

    try:
        use_profile(load_profile(args.rules))
    except ProfileError as error:
        print(f"livecert doctor: {error}", file=sys.stderr)
        return 3
    problem = _bounds_problem(args)
    if problem:
        print(f"livecert doctor: {problem}", file=sys.stderr)
        return 3
    bounds = Bounds.for_run(args.request_deadline, max_duration=args.max_duration)
    if args.max_answer_size is not None:
        bounds = replace(bounds, max_answer_bytes=args.max_answer_size)
    if _uses_contract(args) and not args.target_url:
        print("livecert doctor: no --target-url; checking the embedded reference server")
        diagnosis = diagnose_reference(args.timeout, probe=args.probe, bounds=bounds)
    else:
        if _uses_contract(args) and not (args.operator_token and args.dealer_token):
            print(
                "livecert doctor: --target-url needs --operator-token and --dealer-token (or "
                "LIVECERT_OPERATOR_TOKEN and LIVECERT_DEALER_TOKEN)",
                file=sys.stderr,
            )
            return 3
        diagnosis = diagnose(
            args.target_url,
            args.operator_token,
            args.dealer_token,
            args.timeout,
            args.adapter,
            probe=args.probe,
            bounds=bounds,
        )
    print(diagnosis.text())
    return 0 if diagnosis.healthy else 1


def _warn_of_secret_flags(command: str, argv: list[str]) -> None:
    """A token given as a flag shows in the process list (`ps`) to every user of the machine:
    say so once per flag, and what to use instead."""
    from livecert.certify.runner import SECRET_FLAGS, secret_flag

    for flag in dict.fromkeys(f for f in map(secret_flag, argv) if f):
        print(
            f"livecert {command}: {flag} shows in the process list; prefer "
            f"{SECRET_FLAGS[flag].removeprefix('$')}",
            file=sys.stderr,
        )


PIPE_CLOSED = 141  # 128 + SIGPIPE: what a Unix tool whose reader went away ends with


def main(argv: list[str] | None = None) -> int:
    """`livecert`: its output may go to a pipe whose reader stops early (`| head`); it then
    ends quietly, as any Unix tool does, instead of with a traceback."""
    try:
        return _main(argv)
    except BrokenPipeError:
        # nothing more can be written there, and Python would try again at exit: point stdout
        # at nothing so that the final flush is quiet too
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return PIPE_CLOSED


def _main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        from livecert.reference.serve import main as serve_main

        return serve_main(argv[1:])
    parser = argparse.ArgumentParser(
        prog="livecert",
        description="Certification harness for live-dealer Sic Bo and Xoc Dia.",
    )
    parser.add_argument("--version", action="version", version=f"livecert {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _certify_parser(sub)
    sub.add_parser(
        "serve", help="run the reference implementation (see `livecert serve -h`)", add_help=False
    )
    selftest = sub.add_parser(
        "selftest",
        help="certify the reference clean and with each seeded fault; report what was caught",
    )
    selftest.add_argument(
        "--report-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="where selftest.md and selftest.json go (default reports/selftest, or "
        "reports/selftest-full with --full)",
    )
    selftest.add_argument("--workers", type=int, default=2, help="runs in parallel (default 2)")
    selftest.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="NAME",
        help="only this fault (repeatable); default all",
    )
    selftest.add_argument(
        "--faults",
        default="",
        metavar="NAME[,NAME...]",
        help="only these faults, comma-separated (with --fault: both); default all",
    )
    selftest.add_argument(
        "--full",
        action="store_true",
        help="certify each fault on its game's whole suite, not only on the clauses it declares: "
        "a clause failing outside its declared ones is a false alarm, a declared clause that "
        "does not fail an escape",
    )
    doctor = sub.add_parser(
        "doctor",
        help="check a target before a long run (reachable, contract, tokens, declarations, "
        "capabilities) and say what to fix; read-only",
    )
    doctor.add_argument("--target-url", default=os.environ.get("LIVECERT_TARGET_URL"))
    doctor.add_argument("--operator-token", default=os.environ.get("LIVECERT_OPERATOR_TOKEN"))
    doctor.add_argument("--dealer-token", default=os.environ.get("LIVECERT_DEALER_TOKEN"))
    doctor.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="seconds to wait for a connection and for each read of an answer (default 10)",
    )
    _bounds_arguments(doctor, "the doctor", "its check fails, naming the request")
    doctor.add_argument(
        "--probe",
        action="store_true",
        help="also play one small round per game (a player, a table, one bet, the result) and "
        "check every answer reads as certification needs; writes to the target",
    )
    _adapter_argument(doctor)
    _rules_argument(doctor, "the rule profile whose maximum RTP the declarations are compared with")
    report = sub.add_parser(
        "report",
        help="(re)build a run's pages: Allure HTML, certificate.html and .pdf, charts, manifest",
    )
    report.add_argument("folder", type=Path, metavar="DIR", help="a run's report folder")
    args = parser.parse_args(argv)
    if args.command in ("certify", "doctor"):
        _warn_of_secret_flags(args.command, argv)
    if args.command == "doctor":
        return _run_doctor(args)
    if args.command == "report":
        from livecert.certify.runner import CertifyError, rebuild_report
        from livecert.target_text import terminal_lines

        try:
            messages = rebuild_report(args.folder)
        except CertifyError as error:
            print(f"livecert report: {error}", file=sys.stderr)
            return 3
        print(terminal_lines(messages))
        return 0
    if args.command == "certify":
        return _run_certify(args)
    if args.command == "selftest":
        from livecert.certify.selftest import main as selftest_main

        chosen = [*args.fault, *(f.strip() for f in args.faults.split(",") if f.strip())]
        return selftest_main(args.report_dir, args.workers, chosen, full=args.full)
    parser.print_help()
    return 3


if __name__ == "__main__":
    sys.exit(main())

"""The `livecert` command's parser, made of every subcommand's (options.py, readers.py)."""

import argparse

from livecert import __version__
from livecert.cli.certify_options import certify_parser
from livecert.cli.options import (
    Parser,
    config_parser,
    doctor_parser,
    load_parser,
    selftest_parser,
)
from livecert.cli.readers import (
    compare_parser,
    outcomes_parser,
    replay_parser,
    report_parser,
    sign_parser,
    validate_parser,
    verify_parser,
)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="livecert",
        description="Certification and compliance test harness for live-dealer Sic Bo and Xoc "
        "Dia: runs the rules' scenarios black-box against an implementation and writes a "
        "report a lab can sign.",
        epilog="`livecert COMMAND --help` says more of each command. Exit status of certify: "
        "0 compliant, 1 non-compliant, 2 incomplete, 3 a usage error (of every command).",
    )
    parser.add_argument("--version", action="version", version=f"livecert {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = sub.choices  # type: ignore[attr-defined]  # each command's own parser
    certify_parser(sub)
    sub.add_parser(
        "serve",
        help="run the reference implementation (see `livecert serve --help`)",
        add_help=False,
    )
    doctor_parser(sub)
    selftest_parser(sub)
    report_parser(sub)
    replay_parser(sub)
    validate_parser(sub)
    compare_parser(sub)
    sign_parser(sub)
    verify_parser(sub)
    config_parser(sub)
    load_parser(sub)
    outcomes_parser(sub)
    return parser

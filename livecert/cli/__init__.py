"""The `livecert` command: `certify` a target, check it with `doctor`, `serve` the reference
implementation, prove the harness with `selftest`, build a run's pages with `report`, `replay` a
report's failed scenarios, `validate` a run's method on its target, `compare` two runs, `sign` a
report and `verify` a signed one, and show the settings with `config`.

Its parsers are in `options.py`, the commands in `commands.py`; the settings' precedence
(command line > environment > config file > defaults) in livecert/settings.py.
"""

import os
import sys

from livecert.cli.options import USAGE_ERROR
from livecert.cli.parser import build_parser

PIPE_CLOSED = 141  # 128 + SIGPIPE: what a Unix tool whose reader went away ends with

__all__ = ["PIPE_CLOSED", "USAGE_ERROR", "main"]


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
    parser = build_parser()
    try:
        args, unknown = parser.parse_known_args(argv)
        if unknown:  # said by the command's own parser: its usage, not the top level's
            command = parser.commands.get(args.command, parser)  # type: ignore[attr-defined]
            command.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exit_:  # --help, --version or a usage error (printed)
        return int(exit_.code or 0)
    from livecert.cli import certify_command, commands

    run = {
        "certify": certify_command.run_certify,
        "doctor": commands.run_doctor,
        "selftest": commands.run_selftest,
        "report": commands.run_report,
        "replay": commands.run_replay,
        "validate": commands.run_validate,
        "compare": commands.run_compare,
        "sign": commands.run_sign,
        "verify": commands.run_verify,
        "config": commands.run_config,
        "load": commands.run_load,
        "outcomes": commands.run_outcomes,
    }.get(args.command)
    if run is None:
        parser.print_help()
        return USAGE_ERROR
    return run(args, argv)

"""The `livecert` command's parsers: every subcommand and option, each with its help text, its
environment variable and its default.

An option backed by a setting (livecert/settings.py) is parsed with no default, so that the
command line can be told apart from the environment, the config file and the default, which
`settings.resolve` then applies in that order.
"""

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from livecert.settings import CONFIG_ENV, CONFIG_FILE, SETTINGS, count, seconds

USAGE_ERROR = 3  # 0, 1 and 2 are verdicts (compliant, non-compliant, incomplete)
ROUNDING_MODES = ("down", "up", "half-up", "half-even")
CERTIFY_SETTINGS = (
    "target_url",
    "operator_token",
    "dealer_token",
    "adapter",
    "rules",
    "game",
    "report_dir",
    "timeout",
    "ca_bundle",
    "request_deadline",
    "max_answer_size",
    "max_duration",
    "rate_limit",
    "workers",
    "processes",
    "restart_hook",
    "restart_timeout",
    "clauses",
    "sweep_only",
    "html",
    "quiet",
)
DOCTOR_SETTINGS = (
    "target_url",
    "operator_token",
    "dealer_token",
    "adapter",
    "rules",
    "timeout",
    "ca_bundle",
    "request_deadline",
    "max_answer_size",
    "max_duration",
    "rate_limit",
)
DOCTOR_DEFAULTS = {"timeout": 10.0}  # a check, not a run: a slow answer is worth saying sooner


class Parser(argparse.ArgumentParser):
    """argparse exits 2 on a usage error, which is livecert's verdict `incomplete`: exit 3."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def _setting(
    parser: argparse._ActionsContainer,
    name: str,
    help: str,
    default: Any = None,
    *flags: str,
    **kwargs: Any,
) -> None:
    """An option backed by the setting `name`: parsed with no default (the command line's
    value or None), its help naming the environment variable and the default."""
    setting = SETTINGS[name]
    shown = setting.default if default is None else default
    tail = [f"env {setting.env}"] if setting.env else []
    if setting.in_file:
        tail.append(f"{CONFIG_FILE} `{name}`")
    if shown not in (None, "") and not isinstance(shown, bool):
        tail.append(f"default {shown:g}" if isinstance(shown, float) else f"default {shown}")
    action = parser.add_argument(
        *(flags or (setting.option,)),
        dest=name,
        default=None,
        help=f"{help} ({'; '.join(tail)})",
        **kwargs,
    )
    action.setting = name  # type: ignore[attr-defined]  # for the test of every help


def _config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=None,
        help=f"the config file to read (env {CONFIG_ENV}; default ./{CONFIG_FILE}, else the "
        "[tool.livecert] table of ./pyproject.toml); the command line and the environment "
        "take precedence over it",
    )


def _target_options(parser: argparse._ActionsContainer, timeout_default: float) -> None:
    _setting(
        parser,
        "target_url",
        "base URL of the implementation to certify; without it the embedded reference server "
        "is started",
        None,
        metavar="URL",
    )
    for role in ("operator", "dealer"):
        _setting(
            parser,
            f"{role}_token",
            f"the {role}'s bearer token of a canonical target; prefer the environment (a flag "
            "shows in the process list); never read from a file",
            None,
            metavar="TOKEN",
        )
    _setting(
        parser,
        "timeout",
        "seconds to wait for a connection and for each read of an answer",
        timeout_default,
        metavar="SECONDS",
    )
    _setting(
        parser,
        "ca_bundle",
        "a CA file (PEM) to trust for a target whose TLS certificate a lab's own authority "
        "signed (REQUESTS_CA_BUNDLE is read too; default the system's authorities)",
        None,
        metavar="FILE",
    )


def _bounds_options(parser: argparse._ActionsContainer, what: str, past: str) -> None:
    """--request-deadline, --max-answer-size and --max-duration: how long a request and
    `what` may take, however slowly a target answers, and how much it may send; `past` says
    what a request past them does."""
    _setting(
        parser,
        "request_deadline",
        "seconds one request may take in all: connect, send and the whole answer, however "
        f"slowly it comes (--timeout bounds each read); past it {past}",
        None,
        metavar="SECONDS",
    )
    _setting(
        parser,
        "max_answer_size",
        f"the largest answer read, in bytes or e.g. 16MiB, 64KiB; past it {past}",
        "16MiB",
        metavar="SIZE",
    )
    _setting(
        parser,
        "max_duration",
        f"end {what} after this many seconds (default: no limit): nothing new starts after "
        f"it, and the request in flight is cut: {past}",
        None,
        metavar="SECONDS",
    )
    _setting(
        parser,
        "rate_limit",
        "at most N requests to the target per second (20/s) or minute (600/min), for a "
        "server that limits its callers; a request waits its turn before its deadline starts "
        "(default: no limit)",
        None,
        metavar="N/s",
    )


def _adapter_and_rules(parser: argparse._ActionsContainer, rules_help: str) -> None:
    _setting(
        parser,
        "adapter",
        "how to talk to the target: 'canonical' (the certification contract, the default), a "
        "mapping file (.yaml) for a vendor-shaped API (docs/mapping.md), or a plugin "
        "registered in the 'livecert.adapters' entry points",
        None,
        metavar="NAME|PATH",
    )
    _setting(parser, "rules", rules_help, None, metavar="PROFILE")


def doctor_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    doctor = sub.add_parser(
        "doctor",
        help="check a target before a long run and say what to fix; read-only",
        description="Check a target before a long run: that it is reachable, speaks the "
        "contract (or the mapping file reads it), accepts the tokens, and declares what "
        "certification needs (games, currency, rounding, maximum RTP, capabilities, limits); "
        "each problem with what to fix. Read-only unless --probe. Exit status: 0 healthy, 1 a "
        "check failed, 3 a usage error.",
    )
    _config_option(doctor)
    _target_options(doctor, DOCTOR_DEFAULTS["timeout"])
    _bounds_options(doctor, "the doctor", "its check fails, naming the request")
    doctor.add_argument(
        "--probe",
        action="store_true",
        help="also play one small round per game (a player, a table, one bet, the result) and "
        "check every answer reads as certification needs; writes to the target",
    )
    _adapter_and_rules(
        doctor, "the rule profile whose maximum RTP the declarations are compared with"
    )
    return doctor


def selftest_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    selftest = sub.add_parser(
        "selftest",
        help="certify the reference clean and with each seeded fault; report what was caught",
        description="Prove the harness on the reference implementation: certify it clean, "
        "then once per seeded fault (`livecert serve --list-faults`), and report per fault "
        "the clauses it declares against those that failed: an escape (a declared clause "
        "that passed) or a false alarm (a clause failing outside them) fails the self-test. "
        "Exit status: 0 every fault caught exactly, 1 otherwise, 3 a usage error.",
    )
    _config_option(selftest)
    selftest.add_argument(
        "--report-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="where selftest.md and selftest.json go (default reports/selftest, or "
        "reports/selftest-full with --full)",
    )
    _setting(
        selftest,
        "selftest_workers",
        "certifications run at the same time",
        None,
        "--workers",
        metavar="N",
    )
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
    selftest.add_argument(
        "--draws",
        type=int,
        default=None,
        metavar="N",
        help="runs of each fault that takes a parameter (a stake threshold, a delay, a round "
        "depth), its value drawn over the fault's whole range: the two ends, then uniform "
        "draws (default 5 with --full, else 0: the parameter's default)",
    )
    selftest.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="S",
        help="the seed of the draws, to make a run again (default: a random one, printed)",
    )
    return selftest


def config_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    config = sub.add_parser(
        "config",
        help="show the settings a run would use and where each comes from",
        description="Print every setting of `livecert certify` (and selftest's --workers) with "
        "its effective value and where it came from: the command line, the environment "
        f"(LIVECERT_*), the config file ({CONFIG_FILE} or [tool.livecert] in pyproject.toml) "
        "or the default; secrets are not shown. Then the file's [lab] fields. Exit status: 0, "
        "or 3 when the file cannot be used.",
    )
    _config_option(config)
    return config


def load_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    load = sub.add_parser(
        "load",
        help="many players at many tables on Locust, then every balance and bet reconciled",
        description="Drive many players across many tables on a target for a given time with "
        "Locust's headless runner, then reconcile every balance and every bet through the bet "
        "record to the cent (REG-MONEY-01 under load: no bet lost, none settled twice, no "
        "money created), and report throughput, latency percentiles and errors. Without "
        "--target-url the embedded reference is loaded. Exit status: 0 reconciled, 1 a "
        "difference found, 2 not every player reconciled, 3 a usage error.",
    )
    load.add_argument(
        "--target-url", default=None, metavar="URL",
        help="the target (env LIVECERT_TARGET_URL, its tokens LIVECERT_OPERATOR_TOKEN and "
        "LIVECERT_DEALER_TOKEN); default the embedded reference",
    )  # fmt: skip
    load.add_argument(
        "--players", type=_argument(count), default=20, metavar="N",
        help="players playing at once, each a Locust user (default 20)",
    )  # fmt: skip
    load.add_argument(
        "--tables", type=_argument(count), default=4, metavar="N",
        help="tables, each with its dealer; players shared out among them (default 4)",
    )  # fmt: skip
    load.add_argument(
        "--game", choices=("sicbo", "xocdia"), default="sicbo",
        help="the game played at every table (default sicbo)",
    )  # fmt: skip
    load.add_argument(
        "--duration", type=_argument(seconds), default=10.0, metavar="SECONDS",
        help="how long the players play before the last rounds are settled (default 10)",
    )  # fmt: skip
    load.add_argument(
        "--spawn-rate", type=_above_zero, default=20.0, metavar="N",
        help="players started a second (default 20)",
    )  # fmt: skip
    load.add_argument(
        "--reference-fault", action="append", default=[], metavar="NAME",
        help="load the embedded reference with this seeded fault (repeatable)",
    )  # fmt: skip
    load.add_argument(
        "--report-dir", type=Path, default=None, metavar="DIR",
        help="where load.json and the reconciliation go (default a temporary folder)",
    )  # fmt: skip
    load.add_argument(
        "--merge", type=Path, default=None, metavar="DIR",
        help="only combine the reconciliations the workers of Locust's master and worker "
        "mode wrote in DIR (LIVECERT_LOAD_DIR) into one verdict",
    )  # fmt: skip
    return load


def _argument(read: Callable[[object], Any]) -> Callable[[str], Any]:
    """A settings reader (livecert.settings) as an option type: its message, not argparse's
    "invalid value"."""

    def typed(text: str) -> Any:
        try:
            return read(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return typed


def _above_zero(text: str) -> float:
    """A finite number above 0 (players started a second)."""
    try:
        return seconds(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number above 0") from None

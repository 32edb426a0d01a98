"""`livecert serve`: run the reference server with uvicorn (also `python -m livecert.reference`).

uvicorn picks httptools and uvloop, dependencies of livecert, over h11 and asyncio's own loop:
the server is a tenth of every certification's CPU, and they make it cheaper.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import sys
import threading
import time
from collections.abc import Sequence
from typing import NoReturn

from livecert.reference import faults as fault_catalogue
from livecert.reference.config import (
    CAPABILITIES,
    DEFAULT_DEALER_TOKEN,
    DEFAULT_OPERATOR_TOKEN,
    NO_LIMITS,
    TABLE_LIMITS,
    Config,
)
from livecert.reference.money import ROUNDING_MODES, MoneyError, format_amount, parse_amount

USAGE_ERROR = 3  # livecert's exit status for a usage error (0, 1 and 2 are verdicts)


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on a usage error: livecert's verdict `incomplete`. Exit 3 instead."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def _count(text: str) -> int:
    """A whole number of rounds, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 0 or more")
    return value


def _table_limits(text: str) -> dict[str, int]:
    """`min_bet=1.00,max_bet=5000.00,max_slip=10000.00`: the table limits both games declare
    and keep, in minor units (a limit not named keeps its default)."""
    limits = dict(TABLE_LIMITS)
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, equals, amount = part.partition("=")
        if not equals or name.strip() not in TABLE_LIMITS:
            raise argparse.ArgumentTypeError(
                f"{part!r} is not NAME=AMOUNT with NAME one of {', '.join(TABLE_LIMITS)}"
            )
        try:
            limits[name.strip()] = parse_amount(amount.strip())
        except MoneyError as error:
            raise argparse.ArgumentTypeError(f"{name.strip()}: {error}") from None
    if not limits["min_bet"] <= limits["max_bet"] <= limits["max_slip"]:
        raise argparse.ArgumentTypeError(
            "the limits must keep min_bet <= max_bet <= max_slip, not "
            + ", ".join(f"{n} {format_amount(v)}" for n, v in limits.items())
        )
    return limits


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="livecert serve",
        description="Run the livecert reference implementation of the certification contract "
        "(Sic Bo and Xoc Dia) on HTTP, the default target of `livecert certify`. It prints the "
        "URL it listens on and the tokens it accepts.",
        epilog=f"Default tokens: operator {DEFAULT_OPERATOR_TOKEN!r}, dealer "
        f"{DEFAULT_DEALER_TOKEN!r}; certify it with `livecert certify --target-url URL` and "
        "those tokens in LIVECERT_OPERATOR_TOKEN and LIVECERT_DEALER_TOKEN.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8750, help="port (default 8750; 0 = any)")
    parser.add_argument(
        "--db", metavar="PATH", help="SQLite file (default: a file in a fresh temporary directory)"
    )
    parser.add_argument(
        "--fault",
        metavar="NAME",
        action="append",
        default=[],
        help="enable a seeded fault (repeatable; see --list-faults)",
    )
    parser.add_argument(
        "--list-faults",
        action="store_true",
        help="print each fault as `NAME CLAUSE[,CLAUSE...]` and exit",
    )
    parser.add_argument(
        "--operator-token",
        default=os.environ.get("LIVECERT_OPERATOR_TOKEN", DEFAULT_OPERATOR_TOKEN),
        help=f"operator bearer token (env LIVECERT_OPERATOR_TOKEN; default "
        f"{DEFAULT_OPERATOR_TOKEN!r})",
    )
    parser.add_argument(
        "--dealer-token",
        default=os.environ.get("LIVECERT_DEALER_TOKEN", DEFAULT_DEALER_TOKEN),
        help=f"dealer bearer token (env LIVECERT_DEALER_TOKEN; default {DEFAULT_DEALER_TOKEN!r})",
    )
    parser.add_argument(
        "--rounding",
        choices=ROUNDING_MODES,
        default="down",
        help="declared rounding of fractional wins (default down)",
    )
    parser.add_argument("--currency", default="EUR", help="ISO 4217 currency code (default EUR)")
    parser.add_argument(
        "--without-capability",
        metavar="NAME",
        action="append",
        default=[],
        choices=(*CAPABILITIES, NO_LIMITS),
        help="do not declare this capability in /v1/info (repeatable; to test a harness); "
        f"'{NO_LIMITS}': declare and keep no table limits",
    )
    parser.add_argument(
        "--table-limits",
        metavar="NAME=AMOUNT,...",
        type=_table_limits,
        default=None,
        help="the table limits both games declare and keep, e.g. min_bet=1.00,max_bet=5000.00 "
        "(names: min_bet, max_bet, max_slip; default "
        + ", ".join(f"{n} {format_amount(v)}" for n, v in TABLE_LIMITS.items())
        + ")",
    )
    parser.add_argument(
        "--return-interrupted-rounds",
        action="store_true",
        help="at start-up cancel every unfinished round, each stake returned: the other way an "
        "interrupted round may end (REG-INTR-01), to test a harness",
    )
    parser.add_argument(
        "--drawn-rounds",
        metavar="N",
        type=_count,
        default=0,
        help="at start-up make (or complete up to N) a table per game, drawn-sicbo and "
        "drawn-xocdia, of N settled rounds drawn by the shaker with the seeded faults, for the "
        "fairness battery (default 0: none)",
    )
    parser.add_argument(
        "--shaker-seed",
        metavar="S",
        type=int,
        default=None,
        help="the random seed of the drawn tables' shaker (default: a random one, printed)",
    )
    parser.add_argument(
        "--log-level",
        default="warning",
        choices=("critical", "error", "warning", "info", "debug", "trace"),
        help="uvicorn log level (default warning)",
    )
    return parser


def token_lines(operator: str, dealer: str) -> list[str]:
    """The tokens the server accepts: shown when they are the documented defaults, named by
    where they came from when a lab set its own (its secret stays off the terminal)."""
    lines = []
    for role, token, default in (
        ("operator", operator, DEFAULT_OPERATOR_TOKEN),
        ("dealer", dealer, DEFAULT_DEALER_TOKEN),
    ):
        variable = f"LIVECERT_{role.upper()}_TOKEN"
        if token == default:
            lines.append(f"  {role} token: {token} (the default; set {variable} to change it)")
        else:
            lines.append(f"  {role} token: the one given (--{role}-token or {variable}), not shown")
    return lines


PARENT_VARIABLE = "LIVECERT_REFERENCE_PARENT"  # set by the harness for the server it starts


def _leave_with_parent(parent: str | None) -> None:
    """A server the harness started ends when the harness does, however it ended (killed,
    crashed): a thread sees the parent process gone and ends this one. A lab's server, started
    without the variable, runs until it is stopped."""
    if not parent or not parent.isdigit():
        return

    def watch() -> None:
        while os.getppid() == int(parent):
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="livecert-parent-watch", daemon=True).start()


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the options, then serve until interrupted; answers the process exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:  # --help or a usage error (argparse has printed it)
        return int(exc.code or 0)
    if args.list_faults:
        print("\n".join(fault_catalogue.listing()), flush=True)
        return 0
    try:
        faults = fault_catalogue.check(args.fault)
    except ValueError as exc:
        print(f"livecert serve: error: {exc}", file=sys.stderr, flush=True)
        return USAGE_ERROR
    if not re.fullmatch(r"[A-Z]{3}", args.currency):
        print(
            "livecert serve: error: --currency must be three upper-case letters",
            file=sys.stderr,
            flush=True,
        )
        return USAGE_ERROR
    if not args.operator_token or not args.dealer_token:
        print("livecert serve: error: tokens must not be empty", file=sys.stderr, flush=True)
        return USAGE_ERROR
    if args.operator_token == args.dealer_token:
        print(
            "livecert serve: error: operator and dealer tokens must differ",
            file=sys.stderr,
            flush=True,
        )
        return USAGE_ERROR

    import uvicorn  # imported late so --list-faults and errors stay instant

    from livecert.reference.app import create_app

    seed = args.shaker_seed
    if args.drawn_rounds and seed is None:
        seed = secrets.randbelow(1 << 32)  # printed, so the draw can be made again
    config = Config(
        db_path=args.db,
        operator_token=args.operator_token,
        dealer_token=args.dealer_token,
        rounding=args.rounding,
        currency=args.currency,
        faults=faults,
        without=frozenset(args.without_capability),
        table_limits=args.table_limits or TABLE_LIMITS,
        return_interrupted=args.return_interrupted_rounds,
        drawn_rounds=args.drawn_rounds,
        shaker_seed=seed,
    )
    app = create_app(config)
    _leave_with_parent(os.environ.get(PARENT_VARIABLE))

    class AnnouncingServer(uvicorn.Server):
        """Prints the listening line once the socket is bound."""

        async def startup(self, sockets=None) -> None:  # type: ignore[no-untyped-def]
            await super().startup(sockets=sockets)
            if self.started:
                port = args.port
                for server in getattr(self, "servers", []):
                    for sock in server.sockets or ():
                        port = sock.getsockname()[1]
                        break
                print(
                    f"livecert reference server listening on http://{args.host}:{port}", flush=True
                )
                print("\n".join(token_lines(args.operator_token, args.dealer_token)), flush=True)
                if args.drawn_rounds:
                    print(
                        f"  drawn tables: drawn-sicbo and drawn-xocdia, {args.drawn_rounds} "
                        f"rounds each (--shaker-seed {seed})",
                        flush=True,
                    )

    server = AnnouncingServer(
        uvicorn.Config(
            app,
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            access_log=False,
            lifespan="off",
        )
    )
    try:
        server.run()
    except SystemExit as exc:  # uvicorn exits on a bind failure
        return int(exc.code or 1)
    except KeyboardInterrupt:
        return 0
    finally:
        app.state.store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`livecert serve`: run the reference server with uvicorn (also `python -m livecert.reference`).

uvicorn picks httptools and uvloop, dependencies of livecert, over h11 and asyncio's own loop:
the server is a tenth of every certification's CPU, and they make it cheaper.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence

from livecert.reference import faults as fault_catalogue
from livecert.reference.config import (
    CAPABILITIES,
    DEFAULT_DEALER_TOKEN,
    DEFAULT_OPERATOR_TOKEN,
    NO_LIMITS,
    Config,
)
from livecert.reference.money import ROUNDING_MODES


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="livecert serve",
        description="Run the livecert reference Sic Bo server (the certification contract).",
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
        help="operator bearer token (env LIVECERT_OPERATOR_TOKEN)",
    )
    parser.add_argument(
        "--dealer-token",
        default=os.environ.get("LIVECERT_DEALER_TOKEN", DEFAULT_DEALER_TOKEN),
        help="dealer bearer token (env LIVECERT_DEALER_TOKEN)",
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
        "--return-interrupted-rounds",
        action="store_true",
        help="at start-up cancel every unfinished round, each stake returned: the other way an "
        "interrupted round may end (REG-INTR-01), to test a harness",
    )
    parser.add_argument(
        "--log-level",
        default="warning",
        choices=("critical", "error", "warning", "info", "debug", "trace"),
        help="uvicorn log level (default warning)",
    )
    return parser


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
        return 2
    if not re.fullmatch(r"[A-Z]{3}", args.currency):
        print(
            "livecert serve: error: --currency must be three upper-case letters",
            file=sys.stderr,
            flush=True,
        )
        return 2
    if not args.operator_token or not args.dealer_token:
        print("livecert serve: error: tokens must not be empty", file=sys.stderr, flush=True)
        return 2
    if args.operator_token == args.dealer_token:
        print(
            "livecert serve: error: operator and dealer tokens must differ",
            file=sys.stderr,
            flush=True,
        )
        return 2

    import uvicorn  # imported late so --list-faults and errors stay instant

    from livecert.reference.app import create_app

    config = Config(
        db_path=args.db,
        operator_token=args.operator_token,
        dealer_token=args.dealer_token,
        rounding=args.rounding,
        currency=args.currency,
        faults=faults,
        without=frozenset(args.without_capability),
        return_interrupted=args.return_interrupted_rounds,
    )
    app = create_app(config)

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

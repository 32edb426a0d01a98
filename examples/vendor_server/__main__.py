"""python -m examples.vendor_server --port PORT [--fault NAME] (accounts from the environment)

The operator account is `ops`, the dealer's `studio`; their passwords come from
SAOMAI_OPS_PASSWORD and SAOMAI_STUDIO_PASSWORD.
"""

import argparse
import os
import secrets
import socket
import sys

import uvicorn

from .app import PAYTABLES, App, Studio, StudioEngine
from .faults import FAULTS


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m examples.vendor_server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8780, help="0 picks a free port")
    parser.add_argument("--fault", action="append", default=[], choices=sorted(FAULTS))
    parser.add_argument(
        "--session-requests",
        type=int,
        default=400,
        help="a login session expires after this many requests (0: never)",
    )
    parser.add_argument(
        "--paytable",
        choices=sorted(PAYTABLES),
        default="documents",
        help="the Sic Bo paytable the studio runs (default: the rules documents')",
    )
    parser.add_argument("--list-faults", action="store_true")
    args = parser.parse_args(argv)
    if args.list_faults:
        for name, what in FAULTS.items():
            print(f"{name}: {what}")
        return
    ops = os.environ.get("SAOMAI_OPS_PASSWORD")
    studio_password = os.environ.get("SAOMAI_STUDIO_PASSWORD")
    if not ops or not studio_password:
        parser.error("set SAOMAI_OPS_PASSWORD and SAOMAI_STUDIO_PASSWORD")
    faults = frozenset(args.fault)
    engine = StudioEngine(secrets.token_hex(16), secrets.token_hex(16), faults, args.paytable)
    studio = Studio(
        engine,
        {"ops": (ops, "operator"), "studio": (studio_password, "dealer")},
        args.session_requests,
        faults,
    )
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind((args.host, args.port))
    listener.listen(128)
    host, port = listener.getsockname()[:2]
    config = uvicorn.Config(App(studio), log_level="warning", access_log=False, lifespan="on")
    print(f"vendor_server listening on http://{host}:{port}", flush=True)
    sys.stdout.flush()
    uvicorn.Server(config).run(sockets=[listener])


if __name__ == "__main__":
    main()

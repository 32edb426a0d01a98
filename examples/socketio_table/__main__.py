"""`python -m examples.socketio_table --port 8790 [--round-ms 200] [--settle-ms 1000]
[--fault NAME]`: the live
table server, its admin token taken from SOCKETIO_TABLE_ADMIN_TOKEN."""

import argparse
import os
import sys

import uvicorn

from examples.socketio_table.app import FAULTS, LiveTables, Timing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.socketio_table")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8790)
    parser.add_argument("--round-ms", type=int, default=200, help="betting time of a round")
    parser.add_argument(
        "--settle-ms",
        type=int,
        default=1000,
        help="how long a round with bets waits after its close for the lab's outcome",
    )
    parser.add_argument("--seed", type=int, default=None, help="the outcomes' random seed")
    parser.add_argument("--fault", action="append", default=[], choices=FAULTS)
    args = parser.parse_args(argv)
    token = os.environ.get("SOCKETIO_TABLE_ADMIN_TOKEN", "")
    if len(token) < 16:
        print("set SOCKETIO_TABLE_ADMIN_TOKEN (16 characters or more)", file=sys.stderr)
        return 2
    tables = LiveTables(
        token,
        Timing(betting_ms=args.round_ms, settle_ms=args.settle_ms),
        frozenset(args.fault),
        args.seed,
    )
    print(f"live tables on http://{args.host}:{args.port} (Socket.IO namespace /live)", flush=True)
    uvicorn.run(tables.asgi(), host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

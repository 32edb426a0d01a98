"""python -m examples.cookie_casino --db FILE [--port PORT] [--fault NAME]"""

import argparse
import sys
from pathlib import Path

from .casino import FAULTS, connect
from .server import make_server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m examples.cookie_casino")
    parser.add_argument("--db", type=Path, required=True, help="the SQLite file (created)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8790, help="0 picks a free port")
    parser.add_argument("--fault", action="append", default=[], choices=sorted(FAULTS))
    args = parser.parse_args(argv)
    with connect(args.db, create=True):
        pass  # the tables exist before the first page
    server = make_server(args.host, args.port, args.db, frozenset(args.fault))
    host, port = server.server_address[:2]
    print(f"cookie_casino listening on http://{host}:{port}", flush=True)
    sys.stdout.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()

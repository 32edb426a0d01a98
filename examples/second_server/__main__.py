"""python -m examples.second_server --port PORT --operator-token T --dealer-token T"""

import argparse
import socket
import sys

import uvicorn

from .casino import Casino
from .server import App


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m examples.second_server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8760, help="0 picks a free port")
    parser.add_argument("--operator-token", required=True)
    parser.add_argument("--dealer-token", required=True)
    args = parser.parse_args(argv)
    if args.operator_token == args.dealer_token:
        parser.error("the operator and dealer tokens must differ")
    # proto=IPPROTO_TCP, so asyncio turns Nagle off on accepted connections (it checks the
    # proto); without it every keep-alive answer waits ~40 ms for a delayed ACK
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind((args.host, args.port))
    listener.listen(128)
    host, port = listener.getsockname()[:2]
    app = App(Casino(args.operator_token, args.dealer_token))
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    print(f"second_server listening on http://{host}:{port}", flush=True)
    sys.stdout.flush()
    uvicorn.Server(config).run(sockets=[listener])


if __name__ == "__main__":
    main()

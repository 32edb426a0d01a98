"""A scriptable fake target on a loopback port, for tests of how the harness meets bad servers."""

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from samples import INFO

Behaviour = Callable[[BaseHTTPRequestHandler], None]


def send(handler: BaseHTTPRequestHandler, status: int, body: bytes, kind: str) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", kind)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def send_json(handler: BaseHTTPRequestHandler, status: int, body: object) -> None:
    send(handler, status, json.dumps(body).encode(), "application/json")


def redirect(handler: BaseHTTPRequestHandler, location: str) -> None:
    handler.send_response(302)
    handler.send_header("Location", location)
    handler.send_header("Content-Length", "0")
    handler.end_headers()


def healthy_preflight(handler: BaseHTTPRequestHandler) -> bool:
    """Answer info and whoami like a good target; True when the request was one of those."""
    token = handler.headers.get("Authorization", "")
    if handler.path == "/v1/info":
        send_json(handler, 200, INFO)
        return True
    if handler.path == "/v1/whoami":
        send_json(handler, 200, {"role": "operator" if "op" in token else "dealer"})
        return True
    return False


@contextmanager
def fake_target(behaviour: Behaviour) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            behaviour(self)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            behaviour(self)

    with serving(Handler) as url:
        yield url


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """`handler` answering on a free loopback port, in a thread, until the block ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()

"""A scriptable fake target on a loopback port, for tests of how the harness meets bad servers."""

import itertools
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from samples import INFO

Behaviour = Callable[[BaseHTTPRequestHandler], None]


def send(
    handler: BaseHTTPRequestHandler,
    status: int,
    body: bytes,
    kind: str,
    extra: dict[str, str] | None = None,
) -> None:
    """An answer of `kind`, with `extra` headers (a cookie it sets) if any."""
    handler.send_response(status)
    handler.send_header("Content-Type", kind)
    for name, value in (extra or {}).items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def send_json(handler: BaseHTTPRequestHandler, status: int, body: object) -> None:
    send(handler, status, json.dumps(body).encode(), "application/json")


def cut_after(head: bytes, body: bytes) -> Behaviour:
    """An answer's head and the start of its body, then the connection shut."""

    def behaviour(handler: BaseHTTPRequestHandler) -> None:
        handler.wfile.write(head + body)
        handler.wfile.flush()
        handler.close_connection = True
        handler.connection.shutdown(socket.SHUT_RDWR)

    return behaviour


def redirect(
    handler: BaseHTTPRequestHandler, location: str, extra: dict[str, str] | None = None
) -> None:
    handler.send_response(302)
    handler.send_header("Location", location)
    for name, value in (extra or {}).items():
        handler.send_header(name, value)
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
def serving(
    handler: type[BaseHTTPRequestHandler], tls: ssl.SSLContext | None = None
) -> Iterator[str]:
    """`handler` answering on a free loopback port, in a thread, until the block ends (over
    TLS with `tls`'s certificate)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    # a short poll: shutdown() waits for it, at the end of every test that starts a server
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


# -- targets that never finish an answer, or send too much: each request bounded by a deadline --

STATUS_AND_HEADERS = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"


def trickle(handler: BaseHTTPRequestHandler, data: Iterator[bytes], every: float) -> None:
    """Write `data` piece by piece, `every` seconds apart, until the harness hangs up (or 30 s
    pass: a test's server thread never outlives it by much)."""
    ends = time.monotonic() + 30
    try:
        for piece in data:
            handler.wfile.write(piece)
            handler.wfile.flush()
            if time.monotonic() > ends:
                break
            time.sleep(every)
    except OSError:
        pass  # the harness cut the connection at its deadline
    handler.close_connection = True


def dripping_headers(handler: BaseHTTPRequestHandler, every: float = 0.05) -> None:
    """The status line at once, then the headers one byte at a time, a header that never
    ends (a status line dripping ends the same way, before the status is known)."""
    handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
    head = b"Content-Type: application/json\r\nX-Slow: " + b"a" * 100_000
    trickle(handler, (head[i : i + 1] for i in range(len(head))), every)


def dripping_body(handler: BaseHTTPRequestHandler, every: float = 0.05) -> None:
    """Headers at once, then a 1000-byte body one byte at a time."""
    handler.wfile.write(STATUS_AND_HEADERS + b"Content-Length: 1000\r\n\r\n")
    trickle(handler, (b" " for _ in range(1000)), every)


def endless_chunked(handler: BaseHTTPRequestHandler, every: float = 0.05) -> None:
    """A chunked body whose last chunk never comes."""
    handler.wfile.write(STATUS_AND_HEADERS + b"Transfer-Encoding: chunked\r\n\r\n")
    trickle(handler, itertools.repeat(b"1\r\n \r\n"), every)


def oversized(size: int, declared: bool = False) -> Behaviour:
    """An answer of `size` bytes of JSON whitespace, chunked (its size not declared up front)
    or with a Content-Length."""

    def behaviour(handler: BaseHTTPRequestHandler) -> None:
        if declared:
            handler.wfile.write(STATUS_AND_HEADERS + f"Content-Length: {size}\r\n\r\n".encode())
            piece, count = b" " * 65536, size // 65536
            trickle(handler, itertools.repeat(piece, count), 0)
            return
        handler.wfile.write(STATUS_AND_HEADERS + b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b"10000\r\n" + b" " * 65536 + b"\r\n"
        trickle(handler, itertools.chain(itertools.repeat(chunk, size // 65536), [b"0\r\n\r\n"]), 0)

    return behaviour

"""The casino's pages over HTTP: a thread per request, like PHP under a web server."""

import json
import threading
from contextlib import AbstractContextManager, nullcontext
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl

from .casino import Casino, CasinoError


def make_server(host: str, port: int, db: Path, faults: frozenset[str]) -> ThreadingHTTPServer:
    casino = Casino(db, faults)
    # PHP's session lock: one request of a session at a time (its session file is locked), so
    # rounds of one player race only from several logins, as from several devices
    locks: dict[str, threading.Lock] = {}
    guard = threading.Lock()

    def session_lock(sid: str | None) -> AbstractContextManager:
        if not sid:
            return nullcontext()
        with guard:
            return locks.setdefault(sid, threading.Lock())

    class Page(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _session(self) -> str | None:
            for part in self.headers.get("Cookie", "").split(";"):
                name, _, value = part.strip().partition("=")
                if name == "PHPSESSID":
                    return value
            return None

        def _answer(self, body: dict, sid: str | None = None) -> None:
            payload = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            if sid:
                self.send_header("Set-Cookie", f"PHPSESSID={sid}; Path=/; HttpOnly")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            try:
                if self.path.split("?")[0] == "/balance.php":
                    self._answer(casino.balance(self._session()))
                else:
                    self._answer({"status": "error", "message": f"no page {self.path}"})
            except CasinoError as error:
                self._answer({"status": "error", "message": str(error)})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            form = dict(parse_qsl(self.rfile.read(length).decode("utf-8", "replace")))
            with session_lock(self._session()):
                self._post(form)

        def _post(self, form: dict) -> None:
            try:
                if self.path == "/login.php":
                    answer, sid = casino.login(form)
                    self._answer(answer, sid)
                elif self.path == "/logout.php":
                    self._answer(casino.logout(self._session()))
                elif self.path == "/play.php":
                    self._answer(casino.play(self._session(), form))
                else:
                    self._answer({"status": "error", "message": f"no page {self.path}"})
            except CasinoError as error:
                self._answer({"status": "error", "message": str(error)})

    class Server(ThreadingHTTPServer):
        request_queue_size = 128  # the default backlog of 5 refuses rounds played at once

    server = Server((host, port), Page)
    server.daemon_threads = True
    return server

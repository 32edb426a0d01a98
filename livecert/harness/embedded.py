"""Start and stop the embedded reference server as a separate process on a free loopback port.

The harness never imports the reference implementation: it runs it as `python -m
livecert.reference` and talks to it over HTTP like any vendor server.
"""

import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests

_ANNOUNCED = re.compile(r"listening on (http://127\.0\.0\.1:\d+)")  # the server's first line


class EmbeddedServerError(RuntimeError):
    """The embedded reference server did not start."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class EmbeddedServer:
    """A reference server process owned by the harness."""

    faults: tuple[str, ...] = ()
    rounding: str | None = None
    without: tuple[str, ...] = ()  # capabilities the server is told not to declare
    db_path: Path | None = None  # keep the database elsewhere (to restart on it); else a temp dir
    drawn_rounds: int = 0  # rounds of the drawn tables (drawn-sicbo, drawn-xocdia); 0: none
    table_limits: str | None = None  # `livecert serve --table-limits`; None: its default
    shaker_seed: int | None = None  # their shaker's seed; None: the server picks one
    port: int | None = None
    startup_timeout: float = 30.0
    operator_token: str = field(default_factory=lambda: "op-" + secrets.token_hex(8))
    dealer_token: str = field(default_factory=lambda: "dl-" + secrets.token_hex(8))
    process: subprocess.Popen | None = None
    url: str = ""
    _dir: tempfile.TemporaryDirectory | None = None

    def start(self) -> "EmbeddedServer":
        self._dir = tempfile.TemporaryDirectory(prefix="livecert-reference-")
        # port 0: the server binds a free port itself and announces it. Picking one here and
        # passing it on races with every other server starting meanwhile (two certifications
        # at once): the loser fails to bind, and the harness would talk to the winner.
        port = self.port or 0
        self.url = f"http://127.0.0.1:{port}" if port else ""
        self._launch(port)
        return self

    def restart(self) -> "EmbeddedServer":
        """Kill the server at once (SIGKILL, as after a crash) and start it again on the same
        database, port and tokens, then wait until it answers: the harness's own restart hook
        for interrupted games (REG-INTR-01), so the URL the adapter holds stays right."""
        if self.process is None or self._dir is None or not self.url:
            raise EmbeddedServerError("the embedded reference server was never started")
        self.kill()
        port = int(self.url.rsplit(":", 1)[1])
        for attempt in range(3):  # the port is free at once; a lost bind race is retried
            try:
                self._launch(port)
                return self
            except EmbeddedServerError:
                if attempt == 2 or self._dir is None:  # no answer in time: stopped, given up
                    raise
                time.sleep(0.2)
        return self

    def _launch(self, port: int) -> None:
        """Start the process on `port` (0: any, announced) and wait until it answers."""
        assert self._dir is not None
        database = self.db_path or Path(self._dir.name) / "reference.sqlite3"
        command = [
            sys.executable,
            "-P",  # never the caller's folder first on the path (a clone's livecert/, say)
            "-m",
            "livecert.reference",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--db",
            str(database),
        ]
        for fault in self.faults:
            command += ["--fault", fault]
        if self.rounding:
            command += ["--rounding", self.rounding]
        for capability in self.without:
            command += ["--without-capability", capability]
        if self.table_limits:
            command += ["--table-limits", self.table_limits]
        if self.drawn_rounds:
            command += ["--drawn-rounds", str(self.drawn_rounds)]
        if self.shaker_seed is not None:
            command += ["--shaker-seed", str(self.shaker_seed)]
        log = Path(self._dir.name) / "server.log"
        with log.open("wb") as sink:
            self.process = subprocess.Popen(
                command,
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                # the tokens by the environment: a flag would show them in the process list
                env={
                    **os.environ,
                    "PYTHONUNBUFFERED": "1",
                    # the server leaves when this process does (a run killed or crashed)
                    "LIVECERT_REFERENCE_PARENT": str(os.getpid()),
                    "LIVECERT_OPERATOR_TOKEN": self.operator_token,
                    "LIVECERT_DEALER_TOKEN": self.dealer_token,
                },
            )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise EmbeddedServerError(
                    f"the embedded reference server exited with {self.process.returncode}: "
                    f"{log.read_text(errors='replace')[-2000:]}"
                )
            if not self.url:
                announced = _ANNOUNCED.search(log.read_text(errors="replace"))
                if announced is None:
                    time.sleep(0.02)
                    continue
                self.url = announced.group(1)
            try:
                requests.get(self.url + "/v1/info", timeout=1)
                return
            except requests.RequestException:
                time.sleep(0.05)
        self.stop()
        raise EmbeddedServerError(
            f"the embedded reference server did not answer on {self.url} within "
            f"{self.startup_timeout:g} s"
        )

    def kill(self) -> None:
        """End the server at once (SIGKILL): an interrupted game, as after a crash."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=5)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def __enter__(self) -> "EmbeddedServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

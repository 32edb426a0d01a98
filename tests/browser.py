"""Open a report page in headless Chromium with the outside network cut off, and see what it shows.

Every request the page makes to anything but its own files goes to a proxy run here, which
records it and refuses it (403); names do not resolve at all. A page that renders and records no
request is proven offline. Chromium's own background traffic is switched off where a flag
allows; what remains (its component updater and, in Debian's build, Google sign-in) goes to the
exact service hosts below, which no report references: those are kept apart as the browser's own.
"""

import re
import socket
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

from livecert.report.pdf import chromium_args, find_chromium

# Chromium's own services, never a page's: updates, accounts, and (Chromium 150) the push
# messaging registration of its cloud messaging (android.clients.google.com/c2dm)
BROWSER_SERVICE_HOSTS = frozenset(
    {
        "update.googleapis.com",
        "accounts.google.com",
        "clients2.google.com",
        "android.clients.google.com",
    }
)


def host_of(line: str) -> str:
    """The host a proxied request line names: `CONNECT h:443 ...` or `GET http://h/... ...`."""
    parts = line.split(" ")
    target = parts[1] if len(parts) > 1 else ""
    target = re.sub(r"^[a-z]+://", "", target)
    return re.split(r"[:/]", target, maxsplit=1)[0]


@dataclass
class OutsideRequests:
    """A loopback proxy that answers every request 403 and keeps its first line."""

    lines: list[str] = field(default_factory=list)
    idle_connections: int = 0  # Chromium's speculative connections that sent nothing

    def __post_init__(self) -> None:
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.2)
        self.port = self._server.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    first = conn.recv(4096).split(b"\r\n", 1)[0].decode("latin-1")
                except OSError:
                    first = ""
                if not first:  # a connection opened ahead of need and closed unused: no request
                    self.idle_connections += 1
                    continue
                self.lines.append(first)
                conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self._server.close()


@dataclass
class Visit:
    """What a page showed (its visible text after scripts ran) and what it tried to fetch."""

    text: str
    dom: str
    outside_requests: list[str]  # made by the page: must be empty
    browser_requests: list[str]  # Chromium's own service traffic (BROWSER_SERVICE_HOSTS)
    screenshot: Path | None


def _visible_text(dom: str) -> str:
    body = re.sub(r"(?s)<(script|style)\b[^>]*>.*?</\1>", " ", dom)
    body = re.sub(r"<[^>]+>", " ", body)
    return re.sub(r"\s+", " ", body).strip()


def visit(url: str, screenshot: Path | None = None, wait_ms: int = 15000) -> Visit:
    """Load `url` offline; let its scripts run for up to `wait_ms` of virtual time."""
    browser = find_chromium()
    assert browser, "Chromium is not installed (Debian: apt-get install chromium)"
    proxy = OutsideRequests()
    try:
        base = [
            *(a for a in chromium_args(browser) if not a.startswith("--proxy-server")),
            f"--proxy-server=http://127.0.0.1:{proxy.port}",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            f"--virtual-time-budget={wait_ms}",
            "--window-size=1280,1800",
        ]
        dom = subprocess.run(
            [*base, "--dump-dom", url], capture_output=True, text=True, timeout=120, check=True
        ).stdout
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                [*base, f"--screenshot={screenshot}", url],
                capture_output=True,
                timeout=120,
                check=True,
            )
    finally:
        proxy.close()
    own = [line for line in proxy.lines if host_of(line) in BROWSER_SERVICE_HOSTS]
    page = [line for line in proxy.lines if line not in own]
    return Visit(_visible_text(dom), dom, page, own, screenshot)

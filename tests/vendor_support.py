"""Start the example vendor server (examples/vendor_server) for a test, with its passwords."""

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import requests

from livecert.harness.embedded import free_port

ROOT = Path(__file__).resolve().parent.parent
MAPPING = ROOT / "examples" / "vendor_server" / "mapping.yaml"


@contextmanager
def vendor_server(
    *faults: str, session_requests: int = 150, paytable: str = "documents"
) -> Iterator[tuple[str, dict]]:
    """(base URL, environment with the passwords) of a running vendor server; stopped after.

    Sessions expire every `session_requests` requests, so a run has to log in again."""
    port = free_port()
    env = {
        **os.environ,
        "SAOMAI_OPS_PASSWORD": secrets.token_hex(8),
        "SAOMAI_STUDIO_PASSWORD": secrets.token_hex(8),
    }
    command = [sys.executable, "-m", "examples.vendor_server", "--port", str(port)]
    command += ["--session-requests", str(session_requests), "--paytable", paytable]
    for fault in faults:
        command += ["--fault", fault]
    server = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                requests.get(url + "/api/v2/ping", timeout=1)
                break
            except requests.RequestException:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the vendor server did not start") from None
                time.sleep(0.1)
        yield url, {**env, "VENDOR_PID": str(server.pid)}
    finally:
        server.terminate()
        server.wait(timeout=10)

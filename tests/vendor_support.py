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
import yaml
from cli_support import certify_mapping  # noqa: F401 (the vendor tests take it from here)

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
    url = f"http://127.0.0.1:{port}"
    with example_server(command, env, url + "/api/v2/ping", "the vendor server") as server:
        yield url, {**env, "VENDOR_PID": str(server.pid)}


@contextmanager
def example_server(
    command: list[str], env: dict[str, str], probe: str, what: str
) -> Iterator[subprocess.Popen]:
    """An example server started from the repository, once `probe` answers; stopped after."""
    server = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                requests.get(probe, timeout=1)
                break
            except requests.RequestException:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError(f"{what} did not start") from None
                time.sleep(0.1)
        yield server
    finally:
        server.terminate()
        server.wait(timeout=10)


def instant_only_mapping(folder: Path) -> Path:
    """The vendor's mapping without its live table: only the instant table, which bets, takes
    the lab's result and settles in one request (a vendor with no round to drive), a whole slip
    at once, with its request id as the idempotency key."""
    data = yaml.safe_load(MAPPING.read_text(encoding="utf-8"))
    kept = {"info", "create_player", "create_table", "balance", "bet_record", "play_round"}
    data["operations"] = {k: v for k, v in data["operations"].items() if k in kept}
    data["declares"]["capabilities"] = ["instant-round", "idempotency", "batch-bets"]
    path = folder / "instant-only.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path

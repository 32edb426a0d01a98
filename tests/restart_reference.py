"""A lab's restart hook, for the self-tests: SIGKILL the reference server whose pid, port and
database a state file names, and start it again on the same port and database, with the tokens
from the environment (LIVECERT_OPERATOR_TOKEN, LIVECERT_DEALER_TOKEN), as a lab's script would.
It does not wait for the server to answer: the harness waits.

    python tests/restart_reference.py STATE.json          (start it the first time with --start)
"""

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path


def launch(port: int, database: str) -> int:
    """Start the reference in the background; its pid."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "livecert.reference",
            "--port",
            str(port),
            "--db",
            database,
            "--operator-token",
            os.environ["LIVECERT_OPERATOR_TOKEN"],
            "--dealer-token",
            os.environ["LIVECERT_DEALER_TOKEN"],
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    return process.pid


def main(state_file: str, start: bool = False) -> int:
    path = Path(state_file)
    state = json.loads(path.read_text(encoding="utf-8"))
    if not start:
        with contextlib.suppress(ProcessLookupError):
            os.kill(state["pid"], signal.SIGKILL)
    state["pid"] = launch(state["port"], state["db"])
    state["restarts"] = state.get("restarts", -1) + 1
    path.write_text(json.dumps(state), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], start="--start" in sys.argv[2:]))

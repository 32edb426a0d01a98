"""A lab's restart hook, for the self-tests: SIGKILL the reference server whose pid, port and
database a state file names, and start it again on the same port and database, with the tokens
from the environment (LIVECERT_OPERATOR_TOKEN, LIVECERT_DEALER_TOKEN), as a lab's script would.
It does not wait for the server to answer: the harness waits.

    python tests/restart_reference.py STATE.json          (start it the first time with --start)

STATE.json names the port and the database, and may list seeded faults ("faults"), which the
server is started with each time.

Two test-only ways to restart it differently, each for this one restart:
`--return-interrupted-rounds` (the reference's option: it cancels every unfinished round at
start-up, each stake returned, the other way the rules allow) and `--duplicate-last-bet` (the
hook copies the last bet of each unfinished round in the database while the server is down: a
server that doubles a bet across a restart).
"""

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

BET_COLUMNS = "round_id, table_id, player_id, game, selection, stake, placed_at, status"


def duplicate_last_bets(database: str) -> None:
    """Copy the last bet of each unfinished round under a new id (the server is down)."""
    with contextlib.closing(sqlite3.connect(database)) as conn, conn:
        conn.execute(
            f"INSERT INTO bets (id, {BET_COLUMNS}) SELECT id || '-again', {BET_COLUMNS} FROM bets "
            "WHERE seq IN (SELECT MAX(b.seq) FROM bets b JOIN rounds r ON r.id = b.round_id "
            "WHERE r.state IN ('betting', 'closed', 'paused') GROUP BY b.round_id)"
        )


def gone(pid: int) -> None:
    """Wait (a few seconds at most) until the killed server is dead (or a zombie)."""
    stat = Path(f"/proc/{pid}/stat")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[0] in "ZX":
                return
        except (OSError, IndexError):
            return
        time.sleep(0.02)


def launch(port: int, database: str, *options: str) -> int:
    """Start the reference in the background (its output redirected, as a hook must); its
    pid."""
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
            *options,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    return process.pid


def main(state_file: str, start: bool = False, *how: str) -> int:
    path = Path(state_file)
    state = json.loads(path.read_text(encoding="utf-8"))
    if not start:
        with contextlib.suppress(ProcessLookupError):
            os.kill(state["pid"], signal.SIGKILL)
        gone(state["pid"])
    if "--duplicate-last-bet" in how:
        duplicate_last_bets(state["db"])
    options = [o for o in how if o == "--return-interrupted-rounds"]
    for fault in state.get("faults", []):  # seeded faults stay seeded across restarts
        options += ["--fault", fault]
    state["pid"] = launch(state["port"], state["db"], *options)
    state["restarts"] = state.get("restarts", -1) + 1
    path.write_text(json.dumps(state), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], "--start" in sys.argv[2:], *sys.argv[2:]))

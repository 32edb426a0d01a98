"""The embedded reference binds its own free port and the harness talks to that server: several
certifications starting at once (the self-test's workers, pytest-xdist) never meet each other's
server, which a port picked before the server started could not promise (two picked the same
one; the loser failed to bind and its harness was refused by the winner's tokens). And it ends
with the run that started it, however that ended: none is left running after a run was
killed."""

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from livecert.adapters import HttpAdapter
from livecert.harness.embedded import EmbeddedServer

# servers started at once, and a run killed under them
pytestmark = pytest.mark.timing


def _start_and_check(_: int) -> tuple[str, str]:
    with EmbeddedServer() as server:
        HttpAdapter(server.url, server.operator_token, server.dealer_token).check_credentials()
        log = server.process.args if server.process else []
        return server.url, " ".join(map(str, log))


def test_servers_started_at_once_each_answer_their_own_harness() -> None:
    with ThreadPoolExecutor(max_workers=4) as pool:
        started = list(pool.map(_start_and_check, range(4)))
    urls = [url for url, _ in started]
    assert len(set(urls)) == 4 and all(url.startswith("http://127.0.0.1:") for url in urls)
    assert all("--port 0" in command for _, command in started)  # the server picks the port


STARTS_AND_DIES = """
import os, signal
from livecert.harness.embedded import EmbeddedServer
server = EmbeddedServer().start()
print(server.process.pid, flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # the run killed: no clean-up of its own
"""


def _ended(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in "ZX"  # exited (a zombie until its new parent reaps it)


def test_the_embedded_reference_ends_when_the_run_that_started_it_is_killed() -> None:
    done = subprocess.run(
        [sys.executable, "-c", STARTS_AND_DIES], capture_output=True, text=True, timeout=60
    )
    pid = int(done.stdout.split()[0])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not _ended(pid):
        time.sleep(0.1)
    ended = _ended(pid)
    if not ended:
        os.kill(pid, signal.SIGKILL)  # leave nothing behind, then fail
    assert ended, "the reference kept running after the process that started it was killed"

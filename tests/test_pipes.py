"""`livecert` in a pipe whose reader has gone (`livecert serve --list-faults | head`): it ends
quietly, never with a traceback: with 141 (128 + SIGPIPE, as a Unix tool does) where its own
output failed; a help text (argparse's, which already ignores the closed pipe) with 0. Every
command: serve, doctor, certify, selftest, report, and the help and version texts."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from livecert.cli import PIPE_CLOSED

# a port nothing listens on (the discard port): doctor and certify meet an unreachable target;
# the tokens by the environment, as the README asks (a token given as a flag is warned of)
NOBODY = ["--target-url", "http://127.0.0.1:9"]
TOKENS = {
    "LIVECERT_OPERATOR_TOKEN": "pipe-test-operator-token",
    "LIVECERT_DEALER_TOKEN": "pipe-test-dealer-token",
}
# selftest and report, with their long work (a run per fault, Allure and Chromium) stood in for:
# what is under test is how their output meets the closed pipe
STAND_INS = """
import sys
from pathlib import Path
import livecert.certify.runner as runner, livecert.certify.selftest as selftest
selftest.list_faults = lambda: {"a-fault": ["SB-PAY-01"]}
selftest.run_selftest = lambda *a, **k: selftest.SelftestReport(clean=None, runs=[])
runner.rebuild_report = lambda folder: [f"rebuilt {folder}"] * 1000
from livecert.cli import main
sys.exit(main(sys.argv[1:]))
"""


def closed_pipe_run(command: list[str]) -> subprocess.CompletedProcess[str]:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before a byte is written: every write fails
    try:
        return subprocess.run(
            command,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
            env=dict(os.environ, **TOKENS),
        )
    finally:
        os.close(write)


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["serve", "--list-faults"], PIPE_CLOSED),
        (["--help"], 0),
        (["--version"], 0),
        (["certify", "--help"], 0),
        (["doctor", *NOBODY, "--timeout", "1"], PIPE_CLOSED),
    ],
)
def test_a_closed_pipe_ends_the_command_quietly(args: list[str], status: int) -> None:
    done = closed_pipe_run([sys.executable, "-m", "livecert.cli", *args])
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode == status


@pytest.mark.parametrize("args", [["selftest", "--report-dir"], ["report"]])
def test_selftest_and_report_end_quietly_in_a_closed_pipe(args: list[str], tmp_path: Path) -> None:
    done = closed_pipe_run([sys.executable, "-c", STAND_INS, *args, str(tmp_path)])
    assert done.stderr == "" and done.returncode == PIPE_CLOSED


def test_certify_in_a_closed_pipe_finishes_its_run_and_ends_quietly(tmp_path: Path) -> None:
    """pytest's output goes through certify (the target's words shown visibly): the run goes on
    to its report, pytest never blocked on the pipe, and certify ends quietly."""
    args = ["certify", "--no-html", "--game", "xocdia", "--timeout", "1", *NOBODY]
    done = closed_pipe_run(
        [sys.executable, "-m", "livecert.cli", *args, "--report-dir", str(tmp_path)]
    )
    assert done.stderr == "" and done.returncode == PIPE_CLOSED
    certificate = json.loads((tmp_path / "certificate.json").read_text(encoding="utf-8"))
    assert certificate["verdict"] == "incomplete"
    assert (tmp_path / "manifest.json").is_file()

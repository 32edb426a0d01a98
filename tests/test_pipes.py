"""`livecert` in a pipe whose reader has gone (`livecert serve --list-faults | head`): it ends
quietly, never with a traceback: with 141 (128 + SIGPIPE, as a Unix tool does) where its own
output failed; a help text (argparse's, which already ignores the closed pipe) with 0."""

import os
import subprocess
import sys

import pytest

from livecert.cli import PIPE_CLOSED


@pytest.mark.parametrize(
    ("args", "status"),
    [(["serve", "--list-faults"], PIPE_CLOSED), (["--help"], 0), (["certify", "--help"], 0)],
)
def test_a_closed_pipe_ends_the_command_quietly(args: list[str], status: int) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before a byte is written: every write fails
    try:
        done = subprocess.run(
            [sys.executable, "-m", "livecert.cli", *args],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode == status

"""What certify says on the terminal as it runs: a reader that went away (a closed pipe) never
stops the run."""

import os
import sys

from livecert.target_text import visible


def silent(*_: object) -> None:
    """--quiet: the phases are not said."""


def say_on_terminal(message: str) -> None:
    """A phase said as it runs; a reader that went away (a closed pipe) never stops the run:
    its report is still written, and the command ends quietly at its last line."""
    global _reader_gone
    if _reader_gone:
        return
    try:
        print(visible(message), flush=True)
    except BrokenPipeError:
        _reader_gone = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def reader_gone() -> bool:
    """True once a line could not be written because the terminal's reader went away."""
    return _reader_gone


_reader_gone = False

"""The run record: one JSON line per fact a certification run establishes.

The pytest plugin writes it while scenarios run; `livecert certify` reads it to build the
certificate. Keeping it a plain append-only file means a crashed run still leaves evidence of
everything it got to. Every line is masked (livecert.adapters.secrets) before it is written: a
message or an exchange quoting a token shows the token's name.

Several processes write one record when the run is spread over workers (`--workers`): only the
run's first process empties it, and every line goes in one `write` to a file opened for
appending, under an exclusive lock, so no line is cut into by another's and none is lost.
"""

import json
import os
import threading
from pathlib import Path
from typing import Any

from livecert.adapters.secrets import SECRETS
from livecert.target_text import escaped_surrogates

try:
    import fcntl
except ImportError:  # Windows: one process writes the record (--workers needs POSIX)
    fcntl = None  # type: ignore[assignment]


class RunRecord:
    """Appends records to a JSON-lines file (or keeps nothing when no path is given); `fresh`
    empties it first (the run's first process), else it is added to (a worker of the run)."""

    def __init__(self, path: Path | None, *, fresh: bool = True) -> None:
        self.path = path
        self._lock = threading.Lock()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            if fresh:
                path.write_text("", encoding="utf-8")
            else:
                path.touch()

    def write(self, kind: str, **fields: Any) -> None:
        if self.path is None:
            return
        line = json.dumps({"type": kind, **fields}, default=str, ensure_ascii=False)
        line = escaped_surrogates(SECRETS.mask(line) or line) + "\n"
        data = line.encode("utf-8")  # a target's lone surrogate, escaped, cannot stop it
        with self._lock:
            descriptor = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                if fcntl is not None:
                    fcntl.flock(descriptor, fcntl.LOCK_EX)  # other processes of the run wait
                size = os.fstat(descriptor).st_size
                if size and os.pread(descriptor, 1, size - 1) != b"\n":
                    data = b"\n" + data  # a process died mid-line: its torn line ends here
                written = 0
                while written < len(data):  # a write may take part of a long line
                    written += os.write(descriptor, data[written:])
            finally:
                os.close(descriptor)  # closing lets the lock go


def read_run_record(path: Path) -> list[dict[str, Any]]:
    """Every record of a run, in order; a torn last line (a killed run) is ignored."""
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records

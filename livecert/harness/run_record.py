"""The run record: one JSON line per fact a certification run establishes.

The pytest plugin writes it while scenarios run; `livecert certify` reads it to build the
certificate. Keeping it a plain append-only file means a crashed run still leaves evidence of
everything it got to. Every line is masked (livecert.adapters.secrets) before it is written: a
message or an exchange quoting a token shows the token's name.
"""

import json
import threading
from pathlib import Path
from typing import Any

from livecert.adapters.secrets import SECRETS


class RunRecord:
    """Appends records to a JSON-lines file (or keeps nothing when no path is given)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("", encoding="utf-8")

    def write(self, kind: str, **fields: Any) -> None:
        if self.path is None:
            return
        line = json.dumps({"type": kind, **fields}, default=str, ensure_ascii=False)
        line = SECRETS.mask(line) or line
        with self._lock, self.path.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")


def read_run_record(path: Path) -> list[dict[str, Any]]:
    """Every record of a run, in order; a torn last line (a killed run) is ignored."""
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records

"""Every request and response of a run, kept once: gzip JSON lines in the report's `exchanges/`.

Allure shows each scenario's transcript, but the sweep's rounds carry slips of 110 bets, and a
run's transcripts are tens of megabytes: kept whole in Allure (and again inside its single-file
HTML) a report was 186 MB. Each process appends the scenarios it ran to its own file (one
gzip member a scenario, so a process that dies leaves every scenario before it readable); a
line holds the scenario's id and name and its exchanges with their curl commands. Exchanges
arrive masked (ExchangeRecorder.drain), and the run's last check reads inside these files.
"""

import gzip
import json
import os
import threading
from pathlib import Path

from livecert.adapters.evidence import Exchange
from livecert.target_text import escaped_surrogates

FOLDER = "exchanges"
# zlib's own default: a sweep scenario's 130 kB line in a fifth of level 9's time (gzip.open's
# default), for 8 % more bytes
COMPRESS_LEVEL = 6


def worker_name() -> str:
    """This process's name in a run over workers (pytest-xdist's gw0, gw1, ...), else main."""
    return os.environ.get("PYTEST_XDIST_WORKER") or "main"


class ExchangeArchive:
    """Appends each scenario's exchanges to exchanges/<worker>.jsonl.gz under `folder`."""

    def __init__(self, folder: Path | None, worker: str | None = None) -> None:
        self.path = (
            None if folder is None else folder / FOLDER / f"{worker or worker_name()}.jsonl.gz"
        )
        self._lock = threading.Lock()

    @property
    def relative(self) -> str:
        return f"{FOLDER}/{self.path.name}" if self.path is not None else ""

    def add(self, nodeid: str, name: str, exchanges: list[Exchange]) -> None:
        if self.path is None or not exchanges:
            return
        line = json.dumps(
            {
                "nodeid": nodeid,
                "name": name,
                "exchanges": [ex.as_dict() | {"curl": ex.as_curl()} for ex in exchanges],
            },
            ensure_ascii=False,
        )
        line = escaped_surrogates(line)  # as the run record: UTF-8 cannot write a raw one
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with gzip.open(
                self.path, "at", compresslevel=COMPRESS_LEVEL, encoding="utf-8"
            ) as stream:
                stream.write(line + "\n")


def read_archive(folder: Path) -> list[dict]:
    """Every scenario's exchanges kept under `folder` (for a lab's tools and the tests)."""
    found = []
    for path in sorted((folder / FOLDER).glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as stream:
            found += [json.loads(line) for line in stream if line.strip()]
    return found

"""Self-tests of livecert. tests/ is put on sys.path so the hand-computed tables import plainly."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_xdist_auto_num_workers(config) -> int:
    """`pytest -n auto`: half as many workers again as the cores. About a third of the suite's
    time is spent waiting, not computing (a live table's clock, a certification's subprocesses
    starting, a restart): on 2 cores CI used 139 % of 200 % with a worker a core. The tests
    marked `timing` run this way beside a busy loop on every core, three times in a row
    (benchmarks/busy_machine.py; tests/README.md)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cores or 1) * 3 // 2)

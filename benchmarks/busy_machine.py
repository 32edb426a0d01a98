"""The live-table tests beside a CPU hog on every core: a loaded CI machine, made on purpose.

A live table runs its rounds on its own clock, so a harness that is slow to act (a machine busy
with other work) meets closed rounds, late acknowledgements and waits that run out. This starts
one busy-loop process per core (`os.cpu_count()`, or `--hogs N`), runs the given pytest
selection beside them (by default the live-table tests), stops the hogs whatever happens, and
prints the tests' result and wall time. Its exit status is pytest's.

    python benchmarks/busy_machine.py                       # the live-table tests, a hog a core
    python benchmarks/busy_machine.py --hogs 4 -- tests/test_clock_table.py -k clean
"""

import argparse
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIVE_TESTS = (
    "tests/test_live_mapping.py",
    "tests/test_clock_table.py",
    "tests/test_late_for_the_table.py",
    "tests/test_lending_settlement.py",
)


def _spin(stop: "multiprocessing.synchronize.Event") -> None:  # type: ignore[name-defined]
    """Burn one core until told to stop (checked every million turns, so it stays busy)."""
    while not stop.is_set():
        for _ in range(1_000_000):
            pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 1, help="busy processes")
    parser.add_argument("pytest_args", nargs="*", help="what pytest runs (default: live tests)")
    args = parser.parse_args(argv)
    selection = args.pytest_args or [t for t in LIVE_TESTS if (ROOT / t).exists()]
    stop = multiprocessing.Event()
    hogs = [
        multiprocessing.Process(target=_spin, args=(stop,), daemon=True) for _ in range(args.hogs)
    ]
    for hog in hogs:
        hog.start()
    began = time.monotonic()
    try:
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *selection]
        print(f"{args.hogs} busy process(es) running; {' '.join(command[2:])}", flush=True)
        status = subprocess.run(command, cwd=ROOT, check=False).returncode
    finally:
        stop.set()
        for hog in hogs:
            hog.join(timeout=5)
            if hog.is_alive():
                hog.kill()
    print(f"beside {args.hogs} busy process(es): pytest exited {status} in "
          f"{time.monotonic() - began:.1f} s")  # fmt: skip
    return status


if __name__ == "__main__":
    sys.exit(main())

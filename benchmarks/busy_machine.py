"""The tests marked `timing` beside a CPU hog on every core, three times in a row.

A live table runs its rounds on its own clock and a deadline runs out whatever the machine is
doing, so a harness slow to act (a CI machine busy with other work) meets closed rounds, late
acknowledgements and waits that run out. The tests whose verdict depends on time or on the order
of work done at once carry the `timing` mark (tests/test_timing_marks.py finds any that reads a
clock unmarked). This starts one busy-loop process per core (`os.cpu_count()`, or `--hogs N`),
runs the README's test command on the marked tests beside them (`pytest -n auto --dist loadfile
-m timing tests`), `--runs` times in a row (stopping at the first that fails), stops the hogs
whatever happens, and prints each run's result and wall time. Its exit status is the first
failing run's pytest status, else 0.

    python benchmarks/busy_machine.py                       # the timing tests, 3 runs, a hog a core
    python benchmarks/busy_machine.py --runs 1 --hogs 4 -- tests/test_clock_table.py -k clean
"""

import argparse
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# as the README's test command runs them, the marked tests only
TIMING_TESTS = ("-n", "auto", "--dist", "loadfile", "-m", "timing", "tests")


def _spin(stop: "multiprocessing.synchronize.Event") -> None:  # type: ignore[name-defined]
    """Burn one core until told to stop (checked every million turns, so it stays busy)."""
    while not stop.is_set():
        for _ in range(1_000_000):
            pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 1, help="busy processes")
    parser.add_argument("--runs", type=int, default=3, help="runs in a row (default 3)")
    parser.add_argument("pytest_args", nargs="*", help="what pytest runs (default: -m timing)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.hogs < 0:
        parser.error("--runs must be 1 or more and --hogs 0 or more")
    selection = args.pytest_args or list(TIMING_TESTS)
    stop = multiprocessing.Event()
    hogs = [
        multiprocessing.Process(target=_spin, args=(stop,), daemon=True) for _ in range(args.hogs)
    ]
    for hog in hogs:
        hog.start()
    status = 0
    try:
        command = [sys.executable, "-m", "pytest", "-q", *selection]
        print(f"{args.hogs} busy process(es) running; {' '.join(command[2:])}", flush=True)
        for run in range(1, args.runs + 1):
            began = time.monotonic()
            status = subprocess.run(command, cwd=ROOT, check=False).returncode
            print(f"run {run} of {args.runs} beside {args.hogs} busy process(es): pytest exited "
                  f"{status} in {time.monotonic() - began:.1f} s", flush=True)  # fmt: skip
            if status != 0:
                break
    finally:
        stop.set()
        for hog in hogs:
            hog.join(timeout=5)
            if hog.is_alive():
                hog.kill()
    return status


if __name__ == "__main__":
    sys.exit(main())

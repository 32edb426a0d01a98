"""Time the self-test's runs: one seeded fault certified as `livecert selftest` certifies it, or
`run_selftest` over a few faults with a given number of workers.

Why it exists: the Sic Bo paytable faults each replay the whole 216 x 110 sweep and are most of
the self-test's time. This measures one such run (wall and CPU of the run and its children, and
where its scenarios' time went) and how a set of runs shares the machine, so that a change to the
reference, the harness or the self-test's scheduling can be judged. The machine's busy share over
the measurement is printed: when other work ran at the same time (above what the runs explain),
the figures are not comparable.

    python benchmarks/selftest.py                                # total-10-pays-7-to-1, 3 runs
    python benchmarks/selftest.py --fault odd-pays-2-to-1 --repeat 5 --json out.json
    python benchmarks/selftest.py --selftest --fault a --fault b --workers 2   # run_selftest
    python benchmarks/selftest.py --selftest --full --fault disconnect-voids-bets --no-clean
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path

from livecert.certify.selftest import (
    CLEAN,
    game_for,
    list_faults,
    livecert_command,
    run_selftest,
    sweep_only_for,
)

DEFAULT_FAULT = "total-10-pays-7-to-1"
SWEEP_SCENARIO = "every_selection_settles_by_the_paytable"


def machine_ticks() -> tuple[int, int]:
    """(all, idle) jiffies of the whole machine, from /proc/stat."""
    with open("/proc/stat", encoding="ascii") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    return sum(values), values[3] + values[4]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Measured:
    """Wall and CPU of something run in child processes, and the machine's busy share."""

    wall_s: float
    cpu_s: float
    machine_busy_percent: float  # of all cores together (100 = every core busy)
    cores: int = 0
    details: dict = field(default_factory=dict)


class Meter:
    def __enter__(self) -> Meter:
        self.ticks, self.cpu, self.started = machine_ticks(), children_cpu(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.started
        self.cpu_used = children_cpu() - self.cpu
        total, idle = machine_ticks()
        spent = total - self.ticks[0]
        self.busy = 100.0 * (1 - (idle - self.ticks[1]) / spent) if spent else 0.0

    def measured(self, **details: object) -> Measured:
        return Measured(
            wall_s=round(self.wall, 2),
            cpu_s=round(self.cpu_used, 2),
            machine_busy_percent=round(self.busy, 1),
            cores=os.cpu_count() or 0,
            details=dict(details),
        )


def scenario_seconds(record: Path) -> dict[str, float]:
    """Seconds the run record gives its scenarios: the sweep's and the rest."""
    spent: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for line in record.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("type") != "scenario":
            continue
        kind = "sweep" if SWEEP_SCENARIO in row["nodeid"] else "other"
        spent[kind] += row.get("duration") or 0.0
        count[kind] += 1
    return {
        "sweep_scenarios": count["sweep"],
        "sweep_seconds": round(spent["sweep"], 2),
        "other_scenarios": count["other"],
        "other_seconds": round(spent["other"], 2),
    }


def time_fault_run(fault: str, clauses: list[str], full: bool) -> Measured:
    """One certification with the options the self-test gives it (see selftest._certify_run),
    through the `livecert certify` command (the self-test calls it in its own process)."""
    with tempfile.TemporaryDirectory(prefix="livecert-bench-selftest-") as folder:
        args = ["certify", "--quiet", "--no-html", "--report-dir", folder]
        args += ["--game", game_for(clauses), "--reference-fault", fault]
        if not full:
            args += ["--clauses", ",".join(clauses)]
            if sweep_only_for(clauses):
                args += ["--sweep-only", ",".join(sweep_only_for(clauses))]
        with Meter() as meter:
            done = livecert_command(*args)
        certificate = Path(folder) / "certificate.json"
        verdict = json.loads(certificate.read_text())["verdict"] if certificate.exists() else None
        details = scenario_seconds(Path(folder) / "run-record.jsonl") if verdict else {}
    if done.returncode != 1:
        sys.stderr.write((done.stdout + done.stderr)[-3000:])
    return meter.measured(exit_status=done.returncode, verdict=verdict, **details)


def time_selftest(
    faults: dict[str, list[str]], workers: int, full: bool, clean: bool
) -> tuple[Measured, bool]:
    with tempfile.TemporaryDirectory(prefix="livecert-bench-selftest-") as folder, Meter() as meter:
        report = run_selftest(Path(folder), faults, workers, full=full, clean=clean)
    runs = [report.clean] if report.clean else []
    runs += report.runs
    seconds = {(r.fault if r.fault != CLEAN else "clean"): r.seconds for r in runs}
    return meter.measured(workers=workers, ok=report.ok, run_seconds=seconds), report.ok


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} (range {min(values):.2f}-{max(values):.2f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fault", action="append", default=[], help=f"default {DEFAULT_FAULT}")
    parser.add_argument("--repeat", type=int, default=3, help="measurements of each (default 3)")
    parser.add_argument("--full", action="store_true", help="on the game's whole suite")
    parser.add_argument("--selftest", action="store_true", help="time run_selftest instead")
    parser.add_argument("--workers", type=int, default=2, help="with --selftest (default 2)")
    parser.add_argument("--no-clean", action="store_true", help="with --selftest: no clean run")
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    args = parser.parse_args(argv)
    catalogue = list_faults()
    names = args.fault or [DEFAULT_FAULT]
    unknown = [n for n in names if n not in catalogue]
    if unknown:
        parser.error(f"unknown fault(s) {unknown}; `livecert serve --list-faults` lists them")

    figures: list[Measured] = []
    failed = False
    for index in range(1, args.repeat + 1):
        if args.selftest:
            chosen = {n: catalogue[n] for n in names}
            measured, ok = time_selftest(chosen, args.workers, args.full, not args.no_clean)
            failed |= not ok
        else:
            measured = time_fault_run(names[0], catalogue[names[0]], args.full)
            failed |= measured.details.get("exit_status") != 1
        print(
            f"run {index}: wall {measured.wall_s:.2f} s, cpu {measured.cpu_s:.2f} s, machine "
            f"busy {measured.machine_busy_percent:.0f}% of {measured.cores} cores, "
            f"{measured.details}",
            flush=True,
        )
        figures.append(measured)

    what = f"run_selftest({names}, workers={args.workers})" if args.selftest else names[0]
    print(f"\n{what}{' --full' if args.full else ''}, {len(figures)} run(s): median (range)")
    print(f"  wall            {spread([f.wall_s for f in figures])} s")
    print(f"  cpu (children)  {spread([f.cpu_s for f in figures])} s")
    print(f"  machine busy    {spread([f.machine_busy_percent for f in figures])} %")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "date": date.today().isoformat(),
                    "python": platform.python_version(),
                    "machine": platform.platform(),
                    "what": what,
                    "full": args.full,
                    "runs": [asdict(f) for f in figures],
                },
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
    if failed:
        print("FAIL: a run did not end as the self-test expects", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

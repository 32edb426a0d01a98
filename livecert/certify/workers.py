"""How many tables a certification plays at once (`--workers`), and in how many processes.

A run's requests wait on the network one at a time: at a round trip of 50 ms a whole run is
minutes of waiting. With N workers, N scenarios, sweep rounds or money sessions are in play at
once, each on tables and players of its own. The harness's own work per request (about
HARNESS_MS on one core) bounds what overlapping can win, so the advice is the number of
requests that fit in one round trip plus that work: 1 on loopback, about 7 at 50 ms.

Processes (pytest-xdist workers, each collecting the whole suite) run the scenarios outside the
sweep, one at a time each; the rest of N is threads inside them (the sweep's rounds). Where the
round trip is longer than the harness's own work, a process waits on the network, not on a core:
there are as many processes as tables, up to what half the free memory holds (PROCESS_MB each,
measured) and MAX_PROCESSES; otherwise at most the cores (`--processes N` sets them).
"""

import ipaddress
import os
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from livecert.adapters.mapping.document import shared_state
from livecert.adapters.registry import AdapterOptions, build_adapter, is_canonical

HARNESS_MS = 8.0  # the harness's own time per request, measured on the reference (benchmarks/)
MAX_WORKERS = 16
MAX_PROCESSES = 16
PROCESS_MB = 175  # a suite process's peak memory: 171 MB measured, the sweep's (benchmarks/)
ROUND_TRIP_READS = 5  # reads of the target's declarations to measure its round trip
ROUND_TRIP_OPERATION = "read the declarations to choose --workers"


def advised_workers(median_ms: float) -> int:
    """Tables in play at once worth having at this round trip: requests overlap until the
    harness's own work is the bound."""
    return max(1, min(MAX_WORKERS, round((median_ms + HARNESS_MS) / HARNESS_MS)))


def on_this_machine(url: str) -> bool:
    """The URL names a loopback host: no network to wait on, and the target shares the cores."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


CGROUP = Path("/sys/fs/cgroup")  # a container's memory limit (cgroup v2), where there is one


def available_mb() -> int | None:
    """The memory this run can still take, in MiB: Linux's MemAvailable, and within a
    container no more than its cgroup's limit leaves; None where neither can be read (the
    processes are then bounded by MAX_PROCESSES alone)."""
    free = None
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    free = int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        limit = (CGROUP / "memory.max").read_text(encoding="ascii").strip()
        used = int((CGROUP / "memory.current").read_text(encoding="ascii"))
        if limit != "max":
            left = max(0, int(limit) - used) // 2**20
            free = left if free is None else min(free, left)
    except (OSError, ValueError):
        pass
    return free


def processes_for(
    workers: int, round_trip_ms: float | None = None, memory_mb: int | None = None
) -> int:
    """pytest-xdist processes for `workers` tables. At most the cores, unless the round trip is
    longer than the harness's own work per request: the processes then wait on the network, and
    there is one per table, as many as half of `memory_mb` (the free memory) holds."""
    cores = max(1, min(workers, os.cpu_count() or 1))
    if round_trip_ms is None or round_trip_ms <= HARNESS_MS:
        return cores
    memory_mb = available_mb() if memory_mb is None else memory_mb
    held = MAX_PROCESSES if memory_mb is None else memory_mb // 2 // PROCESS_MB
    return max(cores, min(workers, MAX_PROCESSES, held))


@dataclass(frozen=True)
class WorkersChoice:
    """The tables in play at once, the processes they run in, and why (for the certificate and
    the summary)."""

    workers: int
    why: str
    round_trip_ms: float | None = None
    samples_ms: tuple[float, ...] = ()  # the reads that measured it: requests of the run too
    processes: int = 1

    @property
    def per_process(self) -> int:
        """Tables each process puts in play, so that the run's are `workers` at most."""
        return max(1, self.workers // self.processes)


def _choice(
    workers: int,
    why: str,
    round_trip_ms: float | None = None,
    samples_ms: tuple[float, ...] = (),
    processes: int | None = None,
) -> WorkersChoice:
    """The choice, its processes `processes` as asked or chosen for `workers` and the round
    trip (said in `why` where they go beyond the cores)."""
    if processes is None:
        processes = processes_for(workers, round_trip_ms)
        if processes > (os.cpu_count() or 1):
            why += f", in {processes} processes (they wait on the network, not on the cores)"
    else:
        why += f", in {processes} processes as asked (--processes)"
    return WorkersChoice(workers, why, round_trip_ms, samples_ms, processes)


def measure_round_trip(options: AdapterOptions, adapter: str | None) -> list[float]:
    """The times of a few reads of the target's declarations, in ms; none when the target does
    not answer (the run says why)."""
    try:
        built, _ = build_adapter(adapter, options)
    except Exception:  # the run builds it again and says what is wrong
        return []
    times = []
    recorder = getattr(built, "recorder", None)
    try:
        for _ in range(ROUND_TRIP_READS):
            sent = recorder.count if recorder is not None else None
            started = time.monotonic()
            built.info()
            if recorder is None or recorder.count == sent:
                break  # no request was sent (declared by a mapping): nothing to measure
            times.append((time.monotonic() - started) * 1000)
    except Exception:  # a target that does not answer: the run says why
        pass
    finally:
        built.close()
    return times


def choose_workers(
    asked: int | None,
    target_url: str | None,
    adapter: str | None,
    options: AdapterOptions,
    processes: int | None = None,
) -> WorkersChoice:
    """`asked` (None: auto) and `processes` (None: chosen) checked against the target: a mapping
    whose tables or players are shared runs with one (ValueError when more were asked for), and
    processes are never more than the tables in play. A target on this machine keeps to one
    worker unmeasured (its round trip is its own work, on these cores, and a busy machine must
    not change how a run is spread); a remote one is measured and gets what its round trip is
    worth."""
    shared = shared_state(adapter)
    if processes is not None and asked is not None and processes > asked:
        raise ValueError(
            f"--processes {processes} puts {processes} tables in play at once, but --workers "
            f"{asked} was asked: give --workers {processes} or more"
        )
    floor = processes or 1  # --processes N puts N tables in play at least
    if shared and max(asked or 1, floor) > 1:
        given = f"--workers {asked}" if asked is not None else f"--processes {processes}"
        raise ValueError(
            f"{given} gives each worker tables and players of its own, but {shared}: run it "
            "with --workers 1"
        )
    if asked is not None:
        remote = target_url and not on_this_machine(target_url)
        if asked > 1 and processes is None and remote:  # the processes from the round trip
            times = measure_round_trip(options, adapter)
            if len(times) == ROUND_TRIP_READS:
                median, samples = statistics.median(times), tuple(round(t, 2) for t in times)
                return _choice(asked, "as asked (--workers)", median, samples)
        return _choice(asked, "as asked (--workers)", processes=processes)
    if shared:
        return _choice(1, f"auto: 1, since {shared}", processes=processes)
    if not target_url and is_canonical(adapter):
        why = f"auto: {floor} for the embedded reference on this machine"
        return _choice(floor, why, processes=processes)
    if target_url and on_this_machine(target_url):
        why = f"auto: {floor} for a target on this machine (its round trip is its work)"
        return _choice(floor, why, processes=processes)
    times = measure_round_trip(options, adapter)
    if len(times) < ROUND_TRIP_READS:
        why = f"auto: {floor}, the round trip could not be measured"
        return _choice(floor, why, None, tuple(times), processes)
    median = statistics.median(times)
    advised = advised_workers(median)
    chosen = max(advised, floor)
    samples = tuple(round(t, 2) for t in times)
    if chosen > advised:
        why = f"auto: {chosen}, as many as --processes (a round trip of {median:.1f} ms is "
        why += f"worth {advised})"
    else:
        why = f"auto: {chosen} for a round trip of {median:.1f} ms"
    return _choice(chosen, why, median, samples, processes)

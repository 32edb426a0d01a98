"""How many tables a certification plays at once (`--workers`), and in how many processes.

A run's requests wait on the network one at a time: at a round trip of 50 ms a whole run is
minutes of waiting. With N workers, N scenarios, sweep rounds or money sessions are in play at
once, each on tables and players of its own. The harness's own work per request (about
HARNESS_MS on one core) bounds what overlapping can win, so the advice is the number of
requests that fit in one round trip plus that work: 1 on loopback, about 7 at 50 ms.

Processes (pytest-xdist workers, each collecting the whole suite) stay at most the machine's
cores; the rest of N is threads inside them (the sweep's rounds).
"""

import ipaddress
import os
import statistics
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from livecert.adapters.mapping.document import shared_state
from livecert.adapters.registry import AdapterOptions, build_adapter, is_canonical

HARNESS_MS = 8.0  # the harness's own time per request, measured on the reference (benchmarks/)
MAX_WORKERS = 16
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


def processes_for(workers: int) -> int:
    """pytest-xdist processes for `workers` tables: at most the machine's cores."""
    return max(1, min(workers, os.cpu_count() or 1))


@dataclass(frozen=True)
class WorkersChoice:
    """The tables in play at once, and why that many (for the certificate and the summary)."""

    workers: int
    why: str
    round_trip_ms: float | None = None
    samples_ms: tuple[float, ...] = ()  # the reads that measured it: requests of the run too

    @property
    def processes(self) -> int:
        return processes_for(self.workers)

    @property
    def per_process(self) -> int:
        """Tables each process puts in play, so that the run's are `workers` at most."""
        return max(1, self.workers // self.processes)


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
    asked: int | None, target_url: str | None, adapter: str | None, options: AdapterOptions
) -> WorkersChoice:
    """`asked` (None: auto) checked against the target: a mapping whose tables or players are
    shared runs with one (ValueError when more were asked for)."""
    shared = shared_state(adapter)
    if asked is not None:
        if asked > 1 and shared:
            raise ValueError(
                f"--workers {asked} gives each worker tables and players of its own, but "
                f"{shared}: run it with --workers 1"
            )
        return WorkersChoice(asked, "as asked (--workers)")
    if shared:
        return WorkersChoice(1, f"auto: 1, since {shared}")
    if not target_url and is_canonical(adapter):
        return WorkersChoice(1, "auto: 1 for the embedded reference on this machine")
    if target_url and on_this_machine(target_url):
        return WorkersChoice(1, "auto: 1 for a target on this machine (its round trip is its work)")
    times = measure_round_trip(options, adapter)
    if len(times) < ROUND_TRIP_READS:
        return WorkersChoice(1, "auto: 1, the round trip could not be measured", None, tuple(times))
    median = statistics.median(times)
    chosen = advised_workers(median)
    why = f"auto: {chosen} for a round trip of {median:.1f} ms"
    return WorkersChoice(chosen, why, median, tuple(round(t, 2) for t in times))

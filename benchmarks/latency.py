"""A certification through a proxy that adds a round trip, for 1 and N workers.

Labs certify remote staging servers, where each request waits a round trip. The proxy stands in
front of a reference server and holds every chunk it relays for half the round trip, each way,
so an exchange of one request and its answer takes the round trip more than on loopback. It
counts the requests that pass it (each chunk from the client that starts with an HTTP method),
and it is bounded: it exits by itself after --proxy-seconds.

Each run is `livecert certify --no-html --target-url <proxy>` against a reference the lab runs
(tests/restart_reference.py, on a fresh database, with the seeded faults asked for), with its
tokens and its restart hook, so the harness talks to the target only through the proxy and the
interrupted games are tested as on a lab's server. For every round trip and worker count
it prints the wall time of certify, the tables and processes it chose, the requests the proxy
relayed, the peak memory of certify and its processes (and of the largest one), the verdict and
the failed clauses, side by side in one table (Markdown, for benchmarks/README.md).

    python benchmarks/latency.py                          # 0, 10, 50 ms; 1 and 16 workers
    python benchmarks/latency.py --rtt 50 --workers 16 --game xocdia
    python benchmarks/latency.py --rtt 50 --workers 1 --workers 16 --fault two-two-pays-1-to-1
    python benchmarks/latency.py --rate-limit 20/s --rtt 0 --workers 4 --game xocdia
    python benchmarks/latency.py --rtt 50 --workers 16 --cores 8   # processes as on 8 cores
    python benchmarks/latency.py --rtt 0 --rtt 50 --rtt 100 --workers auto  # as certify chooses

`--cores N` makes certify's processes see N cores (os.cpu_count, through a sitecustomize on
PYTHONPATH), so `--workers` spreads over as many pytest-xdist processes as on a lab's N-core
machine. Only the process count is simulated: the processes still share this machine's cores,
so a run that needs CPU comes out slower than on N real cores, never faster.
"""

import argparse
import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from livecert.harness.embedded import free_port

HOOK = Path(__file__).resolve().parents[1] / "tests" / "restart_reference.py"
TOKENS = {
    "LIVECERT_OPERATOR_TOKEN": "op-latency-bench",
    "LIVECERT_DEALER_TOKEN": "dl-latency-bench",
}

METHODS = (b"GET ", b"POST ", b"PUT ", b"PATCH ", b"DELETE ", b"HEAD ")


@dataclass
class DelayProxy:
    """A TCP relay on a free port of `host` to `upstream`, each chunk held `rtt_ms` / 2 each way
    (in order, without holding the chunks behind it); it stops after `lifetime` seconds."""

    upstream: tuple[str, int]
    rtt_ms: float
    lifetime: float = 3600.0
    host: str = "127.0.0.1"  # where it listens: the machine's own address stands for a remote one
    port: int = 0
    requests: int = 0
    moments: list[float] = field(default_factory=list)  # when each request reached the proxy
    _loop: asyncio.AbstractEventLoop | None = None
    _ready: threading.Event = field(default_factory=threading.Event)

    def start(self) -> "DelayProxy":
        threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True).start()
        if not self._ready.wait(10):
            raise RuntimeError("the proxy did not start")
        return self

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        server = await asyncio.start_server(self._client, self.host, 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(server.serve_forever(), self.lifetime)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            writer.close()
            return
        await asyncio.gather(
            self._pipe(reader, up_writer, count=True),
            self._pipe(up_reader, writer, count=False),
            return_exceptions=True,
        )

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, count: bool
    ) -> None:
        """Relay chunks in order, each written half the round trip after it arrived."""
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
        half = self.rtt_ms / 2000

        async def deliver() -> None:
            while True:
                due, chunk = await queue.get()
                if not chunk:
                    break
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                writer.write(chunk)
                await writer.drain()
            writer.close()

        delivering = asyncio.create_task(deliver())
        try:
            while chunk := await reader.read(65536):
                if count and chunk.startswith(METHODS):
                    self.requests += 1
                    self.moments.append(time.monotonic())
                queue.put_nowait((time.monotonic() + half, chunk))
        except (ConnectionError, OSError):
            pass
        queue.put_nowait((0.0, b""))
        with contextlib.suppress(ConnectionError, OSError):
            await delivering


@dataclass
class Measured:
    rtt_ms: float
    workers: str  # as asked: a number or auto
    seconds: float
    requests: int
    verdict: str
    failed: list[str]
    peak_per_second: int
    processes: int = 1  # the pytest-xdist processes the run chose (run.workers.processes)
    tables: int = 1  # the tables in play it chose
    peak_mb: float = 0.0  # the most resident memory certify and its processes held at once
    process_mb: float = 0.0  # the most any one suite process held


@contextlib.contextmanager
def lab_reference(faults: list[str]) -> Iterator[tuple[int, Path]]:
    """A reference server the lab runs, on a fresh database: its port and its hook's state."""
    folder = Path(tempfile.mkdtemp(prefix="livecert-latency-lab-"))
    state = folder / "state.json"
    port = free_port()
    state.write_text(json.dumps({"port": port, "db": str(folder / "lab.db"), "faults": faults}))
    env = {**os.environ, **TOKENS}
    subprocess.run([sys.executable, str(HOOK), str(state), "--start"], env=env, check=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            break
        time.sleep(0.05)
    try:
        yield port, state
    finally:
        with contextlib.suppress(ProcessLookupError, KeyError):
            os.kill(json.loads(state.read_text())["pid"], signal.SIGKILL)


def seen_cores(cores: int) -> dict[str, str]:
    """The environment under which a Python process reports `cores` cores (a sitecustomize
    module ahead on PYTHONPATH); nothing when `cores` is 0."""
    if not cores:
        return {}
    folder = Path(tempfile.mkdtemp(prefix="livecert-cores-"))
    (folder / "sitecustomize.py").write_text(
        f"import os\nos.cpu_count = lambda: {cores}\n", encoding="utf-8"
    )
    path = os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path}


class MemoryPeak:
    """The most resident memory a process and its descendants held at once, and the most any
    one of them held, sampled every `every` seconds (psutil) until `stop`."""

    def __init__(self, pid: int, every: float = 0.2) -> None:
        self.root, self.every = psutil.Process(pid), every
        self.total_mb = self.one_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(self.every):
            with contextlib.suppress(psutil.Error):
                tree = [self.root, *self.root.children(recursive=True)]
                sizes = []
                for process in tree:
                    with contextlib.suppress(psutil.Error):
                        sizes.append(process.memory_info().rss / 2**20)
                self.total_mb = max(self.total_mb, sum(sizes))
                self.one_mb = max(self.one_mb, *sizes, 0.0)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def certify_through(
    proxy_url: str,
    state: Path,
    game: str,
    workers: str,
    rate: str | None,
    cores: int = 0,
    processes: str = "auto",
) -> tuple[float, dict, MemoryPeak]:
    folder = Path(tempfile.mkdtemp(prefix="livecert-latency-"))
    env = {**os.environ, **TOKENS, **seen_cores(cores)}
    command = [
        sys.executable, "-m", "livecert.cli", "certify", "--no-html", "--quiet",
        "--target-url", proxy_url, "--game", game, "--workers", workers,
        "--processes", processes,
        "--restart-hook", f"{sys.executable} {HOOK} {state}", "--report-dir", str(folder),
    ]  # fmt: skip
    if rate:
        command += ["--rate-limit", rate]
    said = folder / "certify-output.txt"
    started = time.monotonic()
    with (
        said.open("wb") as output,
        subprocess.Popen(
            command, env=env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        ) as run,
    ):
        memory = MemoryPeak(run.pid)
        try:
            run.wait(timeout=3600)
        finally:
            memory.stop()
            if run.poll() is None:  # certify and the processes it started
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(run.pid, signal.SIGKILL)
    seconds = time.monotonic() - started
    report = folder / "certificate.json"
    if not report.exists():  # a usage error, say: certify's own words
        raise SystemExit(
            f"certify wrote no certificate:\n{said.read_text(errors='replace')[-2000:]}"
        )
    certificate = json.loads(report.read_text(encoding="utf-8"))
    return seconds, certificate, memory


def own_address() -> str:
    """The machine's own network address (the one its default route leaves by), so that the
    proxy stands for a target off this machine: certify keeps a loopback target to one worker,
    unmeasured. Loopback where the machine has no route out."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("198.51.100.1", 9))  # no packet is sent: a UDP connect picks a route
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def peak_per_second(moments: list[float], window: float = 1.0) -> int:
    """The most requests the proxy saw in any `window` seconds (a sliding window)."""
    best, start = 0, 0
    for end, moment in enumerate(moments):
        while moment - moments[start] >= window:
            start += 1
        best = max(best, end - start + 1)
    return best


def measure(args: argparse.Namespace) -> list[Measured]:
    results = []
    for rtt in args.rtt:
        for workers in args.workers:
            with lab_reference(args.fault) as (port, state):  # a fresh database each run
                host = own_address()
                proxy = DelayProxy(("127.0.0.1", port), rtt, args.proxy_seconds, host=host).start()
                seconds, certificate, memory = certify_through(
                    f"http://{host}:{proxy.port}",
                    state,
                    args.game,
                    workers,
                    args.rate_limit,
                    args.cores,
                    args.processes,
                )
            failed = sorted(c for c, v in certificate["clauses"].items() if v["status"] == "failed")
            peak = peak_per_second(sorted(proxy.moments))
            verdict = certificate["verdict"]
            spread = certificate["run"].get("workers") or {}
            results.append(
                Measured(
                    rtt, workers, seconds, proxy.requests, verdict, failed, peak,
                    int(spread.get("processes") or 1), int(spread.get("tables_in_play") or 1),
                    memory.total_mb, memory.one_mb,
                )
            )  # fmt: skip
            near = peak_per_second(sorted(proxy.moments), 0.95)
            print(f"# {results[-1]}; in any 0.95 s: {near}", file=sys.stderr, flush=True)
    return results


def table(results: list[Measured]) -> str:
    lines = [
        "| round trip | workers | tables, processes | wall | requests | peak per second "
        "| peak memory (one process) | verdict | failed clauses |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        failed = ", ".join(r.failed) or "none"
        lines.append(
            f"| {r.rtt_ms:g} ms | {r.workers} | {r.tables}, {r.processes} | {r.seconds:.1f} s | "
            f"{r.requests:,} | {r.peak_per_second} | {r.peak_mb:,.0f} MB ({r.process_mb:.0f} MB) "
            f"| {r.verdict} | {failed} |"
        )
    return "\n".join(lines)


def workers_asked(value: str) -> str:
    """A number above 0 or auto, as certify takes it."""
    if value != "auto" and not (value.isdigit() and int(value) > 0):
        raise argparse.ArgumentTypeError(f"{value!r} is not a number above 0 or auto")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rtt", type=float, action="append", help="ms; repeatable")
    parser.add_argument(
        "--workers", type=workers_asked, action="append", help="N or auto; repeatable"
    )
    parser.add_argument(
        "--processes", type=workers_asked, default="auto", help="N or auto, passed to certify"
    )
    parser.add_argument("--game", default="all", choices=("sicbo", "xocdia", "all"))
    parser.add_argument("--fault", action="append", default=[], help="a seeded fault")
    parser.add_argument("--rate-limit", default=None, help="passed to certify, e.g. 20/s")
    parser.add_argument("--proxy-seconds", type=float, default=1800.0, help="the proxy's life")
    parser.add_argument(
        "--cores", type=int, default=0, help="the cores certify's processes see (default: real)"
    )
    args = parser.parse_args(argv)
    args.rtt = args.rtt or [0.0, 10.0, 50.0]
    args.workers = args.workers or ["1", "16"]
    results = measure(args)
    print(table(results))
    verdicts = Counter((r.verdict, tuple(r.failed)) for r in results)
    if len(verdicts) > 1:
        print("\nthe runs' verdicts differ", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

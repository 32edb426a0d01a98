"""`livecert load`: the load profile run headless on this machine with Locust's local runner,
then every balance and bet reconciled, and throughput, latency and errors reported.

Locust patches the standard library for gevent when it is imported: this module is imported
only by `livecert load`, a process of its own.
"""

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gevent
import locust
from locust.env import Environment

from livecert.harness.embedded import EmbeddedServer
from livecert.load import locustfile

EXIT = {"compliant": 0, "non-compliant": 1, "incomplete": 2}


@dataclass
class LoadOptions:
    target_url: str | None
    operator_token: str | None
    dealer_token: str | None
    players: int = 20
    tables: int = 4
    game: str = "sicbo"
    duration: float = 10.0
    spawn_rate: float = 20.0
    faults: tuple[str, ...] = ()
    report_dir: Path | None = None


def _stats(environment: Environment, seconds: float) -> dict[str, Any]:
    total = environment.stats.total

    def percentiles(entry: Any) -> dict[str, float | None]:
        if not entry.num_requests:
            return {"p50_ms": None, "p95_ms": None, "p99_ms": None}
        return {
            f"p{p}_ms": round(float(entry.get_response_time_percentile(p / 100)), 1)
            for p in (50, 95, 99)
        }

    return {
        "requests": total.num_requests,
        "failures": total.num_failures,
        "seconds": round(seconds, 1),
        "requests_per_second": round(total.num_requests / seconds, 1) if seconds else None,
        **percentiles(total),
        "by_operation": {
            name: {"requests": e.num_requests, "failures": e.num_failures, **percentiles(e)}
            for (name, _), e in sorted(environment.stats.entries.items())
        },
        "errors": {
            str(error.error)[:200]: error.occurrences for error in environment.stats.errors.values()
        },
    }


def merge(folder: Path) -> dict[str, Any]:
    """The reconciliations the processes of a run wrote, as one (master and worker mode)."""
    parts = [json.loads(p.read_text()) for p in sorted(folder.glob("reconciliation-*.json"))]
    if not parts:
        return {"verdict": "incomplete", "problems": [], "why": f"no reconciliation in {folder}"}
    problems = [p for part in parts for p in part["problems"]]
    unreadable = [u for part in parts for u in part["unreadable"]]
    verdicts = {part["verdict"] for part in parts}
    verdict = (
        "non-compliant"
        if "non-compliant" in verdicts
        else "incomplete"
        if "incomplete" in verdicts
        else "compliant"
    )
    return {
        "clause": "REG-MONEY-01",
        "verdict": verdict,
        "processes": len(parts),
        "players": sum(part["players"] for part in parts),
        "reconciled": sum(part["reconciled"] for part in parts),
        "bets_checked": sum(part["bets_checked"] for part in parts),
        "problems": problems[:50],
        "problem_count": sum(part["problem_count"] for part in parts),
        "unreadable": unreadable[:50],
        "unsettled": sum(part.get("unsettled", 0) for part in parts),
        "harness_errors": [e for part in parts for e in part.get("harness_errors", [])][:50],
        "errors": [e for part in parts for e in part.get("errors", [])][:50],
    }


def run_load(options: LoadOptions) -> tuple[int, dict[str, Any]]:
    """Run the load, reconcile, and answer the exit status and the report."""
    folder = options.report_dir or Path(tempfile.mkdtemp(prefix="livecert-load-"))
    folder.mkdir(parents=True, exist_ok=True)
    for earlier in folder.glob("reconciliation-*.json"):  # an earlier run's, not this one's
        earlier.unlink()
    server = None
    url, operator, dealer = options.target_url, options.operator_token, options.dealer_token
    if not url:
        server = EmbeddedServer(faults=options.faults).start()
        url, operator, dealer = server.url, server.operator_token, server.dealer_token
    os.environ.update(
        LIVECERT_TARGET_URL=url or "",
        LIVECERT_OPERATOR_TOKEN=operator or "",
        LIVECERT_DEALER_TOKEN=dealer or "",
        LIVECERT_LOAD_GAME=options.game,
        LIVECERT_LOAD_TABLES=str(options.tables),
        LIVECERT_LOAD_DIR=str(folder),
    )
    try:
        environment = Environment(user_classes=[locustfile.Player], events=locust.events)
        runner = environment.create_local_runner()
        started = gevent.get_hub().loop.now()
        runner.start(options.players, spawn_rate=options.spawn_rate)
        gevent.spawn_later(options.duration, runner.quit)
        runner.greenlet.join()
        seconds = gevent.get_hub().loop.now() - started
        report = {
            "target": url if options.target_url else "(embedded reference)",
            "faults": list(options.faults),
            "game": options.game,
            "players": options.players,
            "tables": options.tables,
            "duration_seconds": options.duration,
            "load": _stats(environment, seconds),
            "reconciliation": merge(folder),
        }
    finally:
        if server is not None:
            server.stop()
    (folder / "load.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return EXIT[report["reconciliation"]["verdict"]], report


def summary(report: dict[str, Any], folder: Path | None) -> list[str]:
    load, money = report["load"], report["reconciliation"]
    lines = [
        f"livecert load — {money['clause']}: {money['verdict'].upper()}",
        f"  {report['players']} players at {report['tables']} {report['game']} tables for "
        f"{report['duration_seconds']:g} s: {load['requests']:,} requests, "
        f"{load['requests_per_second']} a second, {load['failures']} failed; median "
        f"{load['p50_ms']} ms, p95 {load['p95_ms']} ms, p99 {load['p99_ms']} ms",
        f"  reconciled {money['reconciled']} of {money['players']} players, "
        f"{money['bets_checked']:,} bets, through the bet record",
    ]
    lines += [f"  problem: {p}" for p in money["problems"][:10]]
    lines += [f"  not read: {u}" for u in money["unreadable"][:5]]
    lines += [f"  harness error: {e}" for e in money.get("harness_errors", [])[:5]]
    if money.get("unsettled"):
        lines.append(f"  {money['unsettled']} bet(s) in rounds the dealer could not settle")
    lines += [f"  error: {e}" for e in money.get("errors", [])[:5]]
    if folder is not None:
        lines.append(f"  report: {folder}/load.json")
    return lines

"""Speed benchmark of the exhaustive Sic Bo sweep, measured against the HTTP floor of the same run.

Why it exists: the certification's sweep scenarios play all 216 rolls with a bet on every
selection, and that sweep dominates the run time of `livecert certify`. The target is that the
sweep costs at most 1.5x the HTTP floor, where the floor is the number of requests the sweep sends
multiplied by the median latency of a trivial request (`GET /v1/info`) through the same adapter
session, measured in the same run. Anything above the floor is time the harness (oracle checks,
JSON parsing, contract validation, model conversion) or the target spends beyond a trivial answer;
the breakdown printed here says which.

    python benchmarks/sweep.py                      # embedded reference server, 3 repeats
    python benchmarks/sweep.py --certify            # also time `livecert certify --game sicbo`
    python benchmarks/sweep.py --url URL --operator-token T --dealer-token T --json out.json
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any

import requests

import livecert.harness.sweep as sweep_module
from livecert.adapters.evidence import Exchange
from livecert.adapters.http import HttpAdapter
from livecert.contract import Contract, load_contract
from livecert.harness.dealer import DEFAULT_COUNTDOWN_MS
from livecert.harness.embedded import EmbeddedServer
from livecert.harness.sweep import play_outcome
from livecert.rules import all_outcomes, load_paytable

GAME = "sicbo"
FLOOR_WARMUP = 50
FLOOR_SAMPLES = 300
TARGET_RATIO = 1.5
TARGET_CERTIFY_SECONDS = 60.0
TARGET_PLAIN_RATIO = 1.3  # the guard of issue 40: the sweep, every check kept, within 1.3x
PLAIN_BLOCK = 27  # rolls the sweep and the plain loop each play in a turn (216 = 8 turns)


class TimedContract:
    """Delegates to the real contract and adds up the time spent validating answers."""

    def __init__(self, inner: Contract) -> None:
        self._inner = inner
        self.seconds = 0.0

    def check_response(self, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return self._inner.check_response(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - started

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@contextlib.contextmanager
def timed_oracle() -> Iterator[list[float]]:
    """Time every oracle check the sweep makes (wraps `check_bet` where the sweep looks it up)."""
    original: Callable[..., Any] = sweep_module.check_bet
    spent = [0.0]

    def check_bet(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - started

    sweep_module.check_bet = check_bet
    try:
        yield spent
    finally:
        sweep_module.check_bet = original


@dataclass
class RunFigures:
    """One measured sweep and its floor."""

    rolls: int
    requests: int
    wall_s: float
    trivial_median_ms: float
    trivial_call_median_ms: float
    floor_s: float
    ratio: float
    requests_per_roll: float
    http_s: float
    http_beyond_floor_s: float
    harness_s: float
    oracle_s: float
    contract_s: float
    other_harness_s: float
    mismatches: int
    operation_median_ms: dict[str, float] = field(default_factory=dict)
    operation_count: dict[str, int] = field(default_factory=dict)
    plain_s: float = 0.0  # a plain requests loop sending the same requests, same server, same run
    plain_requests: int = 0

    @property
    def plain_ratio(self) -> float:
        return self.wall_s / self.plain_s if self.plain_s else float("nan")


class PlainLoop:
    """The sweep's requests sent by a plain `requests` loop: the same paths and bodies (a
    player with the stakes' balance, a round with the harness's countdown, for Xoc Dia its
    shake, one slip of every selection at 1.00, the close, the result), each answer parsed as
    JSON and nothing checked. `roll` sends one roll's and answers how long they took."""

    def __init__(
        self, url: str, operator_token: str, dealer_token: str, game: str, table_id: str
    ) -> None:
        codes = [s.code for s in load_paytable(game).selections]
        self.balance = json.dumps({"balance": f"{len(codes)}.00"})
        self.countdown = json.dumps({"countdown_ms": DEFAULT_COUNTDOWN_MS})
        self.slip = json.dumps(
            {"bets": [{"selection": c, "stake": "1.00"} for c in codes]}, separators=(",", ":")
        )
        self.operator = {
            "Authorization": f"Bearer {operator_token}",
            "Content-Type": "application/json",
        }
        self.dealer = {
            "Authorization": f"Bearer {dealer_token}",
            "Content-Type": "application/json",
        }
        self.url, self.game, self.table_id = url, game, table_id
        self.session = requests.Session()
        self.session.trust_env = False
        self.sent = 0

    def post(self, path: str, body: str, headers: dict[str, str]) -> Any:
        self.sent += 1
        answer = self.session.post(self.url + path, data=body, headers=headers, timeout=30)
        answer.raise_for_status()
        return answer.json()

    def roll(self, outcome: tuple) -> float:
        started = time.perf_counter()
        player = self.post("/v1/players", self.balance, self.operator)
        opened = self.post(f"/v1/tables/{self.table_id}/rounds", self.countdown, self.dealer)
        round_id = opened["round_id"]
        if self.game == "xocdia":
            self.post(f"/v1/rounds/{round_id}/events", '{"type":"shake"}', self.dealer)
        bettor = {
            "Authorization": f"Bearer {player['token']}",
            "Content-Type": "application/json",
            "Idempotency-Key": f"plain-{uuid.uuid4()}",
        }
        self.post(f"/v1/rounds/{round_id}/bets", self.slip, bettor)
        self.post(f"/v1/rounds/{round_id}/close", "{}", self.dealer)
        key = "tokens" if self.game == "xocdia" else "dice"
        self.post(f"/v1/rounds/{round_id}/result", json.dumps({key: list(outcome)}), self.dealer)
        return time.perf_counter() - started


def measure_floor(adapter: HttpAdapter) -> tuple[float, float]:
    """Median latency (ms) of `GET /v1/info`: as the recorder times it, and the whole call."""
    for _ in range(FLOOR_WARMUP):
        adapter.info()
    adapter.recorder.drain()
    calls: list[float] = []
    for _ in range(FLOOR_SAMPLES):
        started = time.perf_counter()
        adapter.info()
        calls.append((time.perf_counter() - started) * 1000)
    exchanges = adapter.recorder.drain()
    latencies = [ex.elapsed_ms for ex in exchanges if ex.error is None]
    return statistics.median(latencies), statistics.median(calls)


def run_sweep(
    url: str,
    operator_token: str,
    dealer_token: str,
    rolls: int,
    game: str = GAME,
    block: int = PLAIN_BLOCK,
) -> RunFigures:
    """Measure the floor, then play `rolls` sweep rounds and time them, taking turns of `block`
    rolls with a plain loop sending the same requests."""
    contract = TimedContract(load_contract())
    adapter = HttpAdapter(url, operator_token, dealer_token, contract=contract)  # type: ignore[arg-type]
    try:
        paytable = load_paytable(game)
        info = adapter.info()
        table_id = adapter.create_table(game)
        trivial_ms, trivial_call_ms = measure_floor(adapter)
        outcomes = list(all_outcomes(paytable))[:rolls]
        contract.seconds = 0.0
        count_before = adapter.recorder.count
        exchanges: list[Exchange] = []
        mismatches = 0
        # the same requests by a plain loop, on the same server and table, in turns of `block`
        # rolls each: both meet the same moments of a machine whose speed drifts and a server
        # whose tables grow, each turn long enough for its code to stay warm in the caches
        plain = PlainLoop(url, operator_token, dealer_token, game, table_id)
        plain_s = wall = 0.0
        with timed_oracle() as oracle, plain.session:
            for first in range(0, len(outcomes), block):
                turn = outcomes[first : first + block]
                for outcome in turn:
                    started = time.perf_counter()
                    report = play_outcome(adapter, paytable, info, table_id, outcome)
                    drained = adapter.recorder.drain()  # as a scenario hands on its evidence
                    wall += time.perf_counter() - started
                    for ex in drained:
                        ex.request_body = ex.response_body = None  # keep only the timings
                    exchanges.extend(drained)
                    mismatches += len(report.mismatches)
                    for row in report.mismatches[:3]:
                        print(f"MISMATCH {tuple(outcome)}: {row}", file=sys.stderr)
                plain_s += sum(plain.roll(outcome) for outcome in turn)
        requests = adapter.recorder.count - count_before
        plain_requests = plain.sent
    finally:
        adapter.close()
    by_operation: dict[str, list[float]] = defaultdict(list)
    for ex in exchanges:
        by_operation[ex.operation].append(ex.elapsed_ms)
    http_s = sum(ex.elapsed_ms for ex in exchanges) / 1000
    floor_s = requests * trivial_ms / 1000
    harness_s = wall - http_s
    return RunFigures(
        rolls=len(outcomes),
        requests=requests,
        wall_s=wall,
        trivial_median_ms=trivial_ms,
        trivial_call_median_ms=trivial_call_ms,
        floor_s=floor_s,
        ratio=wall / floor_s,
        requests_per_roll=requests / len(outcomes),
        http_s=http_s,
        http_beyond_floor_s=http_s - floor_s,
        harness_s=harness_s,
        oracle_s=oracle[0],
        contract_s=contract.seconds,
        other_harness_s=harness_s - oracle[0] - contract.seconds,
        mismatches=mismatches,
        operation_median_ms={op: statistics.median(v) for op, v in by_operation.items()},
        operation_count={op: len(v) for op, v in by_operation.items()},
        plain_s=plain_s,
        plain_requests=plain_requests,
    )


def time_certify(game: str = GAME) -> tuple[float, int]:
    """Wall seconds of `livecert certify --game GAME --quiet` end to end, and its exit status."""
    with tempfile.TemporaryDirectory(prefix="livecert-bench-report-") as report_dir:
        command = [sys.executable, "-m", "livecert.cli", "certify", "--game", game, "--quiet"]
        command += ["--report-dir", report_dir]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-3000:] + done.stderr[-3000:])
    return wall, done.returncode


def spread(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def fmt(values: list[float], unit: str = "", digits: int = 2) -> str:
    s = spread(values)
    return (
        f"{s['median']:.{digits}f}{unit} (range {s['min']:.{digits}f}-{s['max']:.{digits}f}{unit})"
    )


def print_run(index: int, run: RunFigures) -> None:
    print(
        f"run {index}: {run.requests} requests, wall {run.wall_s:.2f} s, floor {run.floor_s:.2f} s "
        f"({run.trivial_median_ms:.3f} ms x {run.requests}), ratio {run.ratio:.2f}x, "
        f"plain loop {run.plain_s:.2f} s ({run.plain_requests} requests), ratio to it "
        f"{run.plain_ratio:.2f}x, mismatches {run.mismatches}",
        flush=True,
    )


def print_summary(runs: list[RunFigures]) -> None:
    def pick(name: str) -> list[float]:
        return [float(getattr(r, name)) for r in runs]

    print(f"\nsweep of {runs[0].rolls} rolls, {len(runs)} run(s): median (range)")
    print(f"  requests               {fmt(pick('requests'), digits=0)}")
    print(f"  requests per roll      {fmt(pick('requests_per_roll'), digits=1)}")
    print(f"  wall                   {fmt(pick('wall_s'), ' s')}")
    print(f"  trivial request median {fmt(pick('trivial_median_ms'), ' ms', 3)}")
    print(f"    (whole info() call   {fmt(pick('trivial_call_median_ms'), ' ms', 3)})")
    print(f"  floor                  {fmt(pick('floor_s'), ' s')}")
    print(f"  ratio wall/floor       {fmt(pick('ratio'), 'x')}  (target <= {TARGET_RATIO}x)")
    print(f"  plain requests loop    {fmt(pick('plain_s'), ' s')}")
    ratio = fmt(pick("plain_ratio"), "x")
    print(f"  ratio wall/plain loop  {ratio}  (target <= {TARGET_PLAIN_RATIO}x)")
    print("  where the wall time goes:")
    print(f"    waiting on HTTP (sum elapsed_ms) {fmt(pick('http_s'), ' s')}")
    print(f"      of which beyond the floor      {fmt(pick('http_beyond_floor_s'), ' s')}")
    print(f"    harness (wall - HTTP)            {fmt(pick('harness_s'), ' s')}")
    print(f"      oracle checks (check_bet)      {fmt(pick('oracle_s'), ' s')}")
    print(f"      contract validation            {fmt(pick('contract_s'), ' s')}")
    print(f"      rest (JSON, models, requests)  {fmt(pick('other_harness_s'), ' s')}")
    print("  median latency per operation (ms), median over runs:")
    for op in runs[0].operation_median_ms:
        values = [r.operation_median_ms[op] for r in runs]
        count = runs[0].operation_count[op]
        print(f"    {op:<28} x{count:<5} {fmt(values, ' ms', 3)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="target base URL (default: start the embedded reference)")
    parser.add_argument("--operator-token", default="")
    parser.add_argument("--dealer-token", default="")
    parser.add_argument(
        "--game",
        choices=("sicbo", "xocdia"),
        default=GAME,
        help="which game's sweep (default sicbo: 216 rolls; xocdia: 16 results)",
    )
    parser.add_argument(
        "--rolls", type=int, default=216, help="outcomes to play (default all of the game's)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measurement")
    parser.add_argument(
        "--block",
        type=int,
        default=PLAIN_BLOCK,
        help=f"rolls of the sweep, then of the plain loop, in turn (default {PLAIN_BLOCK}; "
        "the rolls' number: the whole sweep, then the whole loop)",
    )
    parser.add_argument(
        "--certify", action="store_true", help="also time `livecert certify --game GAME`"
    )
    parser.add_argument(
        "--certify-only", action="store_true", help="only time `livecert certify --game GAME`"
    )
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    args = parser.parse_args(argv)
    if args.url and not (args.operator_token and args.dealer_token):
        parser.error("--url needs --operator-token and --dealer-token")

    runs: list[RunFigures] = []
    if not args.certify_only:
        for index in range(1, args.repeat + 1):
            if args.url:
                run = run_sweep(
                    args.url,
                    args.operator_token,
                    args.dealer_token,
                    args.rolls,
                    args.game,
                    args.block,
                )
            else:
                with EmbeddedServer() as server:  # a fresh server (and database) per run
                    run = run_sweep(
                        server.url,
                        server.operator_token,
                        server.dealer_token,
                        args.rolls,
                        args.game,
                        args.block,
                    )
            print_run(index, run)
            runs.append(run)
        print_summary(runs)

    certify_times: list[float] = []
    certify_status: list[int] = []
    if args.certify or args.certify_only:
        for index in range(1, args.repeat + 1):
            wall, status = time_certify(args.game)
            print(f"certify run {index}: {wall:.2f} s, exit status {status}", flush=True)
            certify_times.append(wall)
            certify_status.append(status)
        print(
            f"\nlivecert certify --game {args.game}: {fmt(certify_times, ' s')} "
            f"(target < {TARGET_CERTIFY_SECONDS:g} s)"
        )

    if args.json:
        figures = {
            "date": date.today().isoformat(),
            "python": platform.python_version(),
            "machine": platform.platform(),
            "target": args.url or "embedded reference",
            "runs": [asdict(r) for r in runs],
            "certify_seconds": certify_times,
            "certify_exit_status": certify_status,
        }
        if runs:
            figures["summary"] = {
                name: spread([float(getattr(r, name)) for r in runs])
                for name in (
                    "requests",
                    "wall_s",
                    "trivial_median_ms",
                    "floor_s",
                    "ratio",
                    "http_s",
                    "http_beyond_floor_s",
                    "harness_s",
                    "oracle_s",
                    "contract_s",
                    "other_harness_s",
                )
            }
        with open(args.json, "w", encoding="utf-8") as sink:
            json.dump(figures, sink, indent=1)

    failed = False
    if any(r.mismatches for r in runs):
        print("FAIL: the sweep found settlement mismatches", file=sys.stderr)
        failed = True
    if any(certify_status):
        print("FAIL: livecert certify did not exit 0", file=sys.stderr)
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

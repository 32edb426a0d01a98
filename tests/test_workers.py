"""`livecert certify --workers N`: a run spread over pytest-xdist processes gives the verdicts of
a run in one (clean: compliant; seeded faults: exactly their clauses, the restart scenarios
included), against one target, with one run record that no worker truncates or cuts into; a
scenario that restarts the target runs alone; the advice on how many workers comes from the
round trip; a mapping whose tables or players are shared keeps to one worker."""

import multiprocessing
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from cli_support import certify
from crash_worker import DIES_IN

from livecert.adapters.rate import RateGate, RequestRate
from livecert.adapters.registry import AdapterOptions
from livecert.certify import workers
from livecert.certify.workers import (
    PROCESS_MB,
    advised_workers,
    choose_workers,
    on_this_machine,
    shared_state,
)
from livecert.harness.money_machine import session_shares
from livecert.harness.run_record import RunRecord, read_run_record
from livecert.harness.workers import ScenarioGate
from livecert.reference.faults import FAULTS
from livecert.suite.steps.money import CI_SEED

# scenarios spread over processes at once, money sessions at once
pytestmark = pytest.mark.timing

OPTIONS = AdapterOptions(None, None, None, (1.0, 1.0))


def _write_lines(path: str, writer: int, count: int) -> None:
    record = RunRecord(Path(path), fresh=False)  # a worker joining the run
    for i in range(count):
        record.write("line", writer=writer, i=i, padding="x" * (i * 97 % 20_000))


def test_workers_writing_one_record_lose_no_line_and_cut_none(tmp_path) -> None:
    path = tmp_path / "run-record.jsonl"
    RunRecord(path).write("target", name="first")  # the controller begins the record
    processes = [
        multiprocessing.get_context("spawn").Process(target=_write_lines, args=(str(path), w, 150))
        for w in range(4)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
    records = read_run_record(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(records) == 1 + 4 * 150  # every line whole: none torn, none lost
    assert records[0] == {"type": "target", "name": "first"}  # no late worker emptied it
    for writer in range(4):
        assert [r["i"] for r in records if r.get("writer") == writer] == list(range(150))


def test_a_restart_scenario_waits_for_the_others_and_they_wait_for_it(tmp_path) -> None:
    gate = ScenarioGate(tmp_path)
    entered: list[str] = []
    restart_waiting, restart_in = threading.Event(), threading.Event()

    def restart() -> None:
        restart_waiting.set()
        with gate.alone():
            entered.append("restart")
            restart_in.set()

    def later_scenario() -> None:
        with gate.shared():
            entered.append("later")

    with gate.shared():  # a scenario in play on another worker
        thread = threading.Thread(target=restart)
        thread.start()
        restart_waiting.wait(5)
        assert not restart_in.wait(0.3)  # it does not restart under a running scenario
        later = threading.Thread(target=later_scenario)
        later.start()
        later.join(0.3)
        assert entered == []  # a scenario after it waits behind it, not before it
    thread.join(5)
    later.join(5)
    assert entered == ["restart", "later"]


def test_a_line_torn_by_a_dead_worker_does_not_swallow_the_next(tmp_path) -> None:
    path = tmp_path / "run-record.jsonl"
    record = RunRecord(path)
    record.write("scenario", n=1)
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"type": "scenario", "n": 2, "cut short')  # the writer died here
    RunRecord(path, fresh=False).write("scenario", n=3)
    assert [r["n"] for r in read_run_record(path)] == [1, 3]


def test_a_round_played_ahead_keeps_a_restart_waiting_until_it_is_done(tmp_path) -> None:
    gate = ScenarioGate(tmp_path)
    restarted = threading.Event()

    def restart() -> None:
        with gate.alone():
            restarted.set()

    held = gate.round_hold()  # a pool's round in play, its scenario over
    assert held is not None
    thread = threading.Thread(target=restart)
    thread.start()
    deadline = time.monotonic() + 5
    while not gate.restart_waiting() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert gate.restart_waiting()  # at the turnstile: rounds played ahead wait for it
    assert not restarted.wait(0.3)  # no SIGKILL under requests in flight
    os.close(held)
    assert restarted.wait(5)
    thread.join(5)
    assert not gate.restart_waiting()
    with gate.alone():
        assert gate.round_hold() is None  # while a restart runs, no round starts


def _take_turns(path: str, count: int, taken: "multiprocessing.Queue[float]") -> None:
    import time

    gate = RateGate(RequestRate(5, "s"), Path(path))
    for _ in range(count):
        assert gate.wait(10)
        taken.put(time.time())


def test_the_rate_holds_for_the_run_not_for_each_worker(tmp_path) -> None:
    context = multiprocessing.get_context("spawn")
    taken = context.Queue()
    shared = tmp_path / "rate.sqlite3"
    processes = [
        context.Process(target=_take_turns, args=(str(shared), 6, taken)) for _ in range(2)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
    moments = sorted(taken.get(timeout=5) for _ in range(12))
    for i, moment in enumerate(moments):  # 5 a second in all, never 5 a second each
        assert sum(1 for other in moments[i:] if other - moment < 0.95) <= 5


@pytest.mark.parametrize(
    ("round_trip_ms", "workers"),
    # (round trip + 8 ms of the harness's own work) / 8 ms, rounded, between 1 and 16
    [(0.5, 1), (3.0, 1), (10.0, 2), (50.0, 7), (100.0, 14), (250.0, 16)],
)
def test_the_advice_follows_the_round_trip(round_trip_ms: float, workers: int) -> None:
    assert advised_workers(round_trip_ms) == workers


def test_the_embedded_reference_keeps_to_one_worker_unless_asked() -> None:
    assert choose_workers(None, None, None, OPTIONS).workers == 1
    assert choose_workers(4, None, None, OPTIONS).workers == 4


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8750", True),
        ("http://localhost:8750", True),
        ("http://[::1]:8750", True),
        ("https://staging.example.com", False),
        ("http://10.0.0.5:8750", False),
    ],
)
def test_a_target_on_this_machine_keeps_to_one_worker(url: str, local: bool, monkeypatch) -> None:
    """Unmeasured: a loopback target's round trip is its own work on these cores, and a busy
    machine measuring it slow must not spread the run."""
    monkeypatch.setattr(workers, "measure_round_trip", lambda *_: [60.0] * 5)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert on_this_machine(url) is local
    if local:
        chosen = choose_workers(None, url, None, OPTIONS)
        assert (chosen.workers, chosen.processes, chosen.samples_ms) == (1, 1, ())
        assert chosen.why == "auto: 1 for a target on this machine (its round trip is its work)"
        assert choose_workers(6, url, None, OPTIONS).processes == 2  # the cores, unmeasured


def test_a_remote_target_gets_the_workers_its_round_trip_is_worth(monkeypatch) -> None:
    monkeypatch.setattr(workers, "measure_round_trip", lambda *_: [49.0, 50.0, 50.0, 51.0, 80.0])
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(workers, "available_mb", lambda: 24 * 1024)
    chosen = choose_workers(None, "https://staging.example.com", None, OPTIONS)
    assert (chosen.workers, chosen.processes, chosen.round_trip_ms) == (7, 7, 50.0)
    assert chosen.why == (
        "auto: 7 for a round trip of 50.0 ms, in 7 processes (they wait on the network, not on "
        "the cores)"
    )
    assert chosen.samples_ms == (49.0, 50.0, 50.0, 51.0, 80.0)  # counted among the requests
    monkeypatch.setattr(workers, "measure_round_trip", lambda *_: [50.0, 50.0])  # it stopped
    assert choose_workers(None, "https://staging.example.com", None, OPTIONS).workers == 1


@pytest.mark.parametrize(
    ("tables", "round_trip_ms", "memory_mb", "processes"),
    [
        (1, None, 24_000, 1),
        (16, None, 24_000, 2),  # no round trip measured: the cores
        (16, 3.0, 24_000, 2),  # a round trip shorter than the harness's work: the cores
        (7, 50.0, 24_000, 7),  # waiting on the network: one process per table
        (14, 100.0, 24_000, 14),
        (16, 250.0, 24_000, 16),
        (14, 100.0, 4 * PROCESS_MB * 2, 4),  # half the free memory holds 4
        (14, 100.0, PROCESS_MB, 2),  # never fewer than the cores
        (1, 100.0, 24_000, 1),  # never more than the tables
    ],
)
def test_processes_go_beyond_the_cores_only_to_wait_on_the_network(
    monkeypatch, tables: int, round_trip_ms: float | None, memory_mb: int, processes: int
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert workers.processes_for(tables, round_trip_ms, memory_mb) == processes


def test_processes_asked_are_kept_and_put_as_many_tables_in_play(monkeypatch) -> None:
    monkeypatch.setattr(workers, "measure_round_trip", lambda *_: [1.0] * 5)
    chosen = choose_workers(None, "https://staging.example.com", None, OPTIONS, processes=4)
    assert (chosen.workers, chosen.processes, chosen.per_process) == (4, 4, 1)
    assert chosen.why == (
        "auto: 4, as many as --processes (a round trip of 1.0 ms is worth 1), in 4 processes as "
        "asked (--processes)"
    )
    chosen = choose_workers(12, None, None, OPTIONS, processes=4)
    assert (chosen.workers, chosen.processes, chosen.per_process) == (12, 4, 3)
    assert choose_workers(None, None, None, OPTIONS, processes=3).workers == 3
    with pytest.raises(ValueError, match="--processes 4 puts 4 tables in play at once, but "):
        choose_workers(2, None, None, OPTIONS, processes=4)


COOKIE_CASINO = Path(__file__).parents[1] / "examples" / "cookie_casino" / "mapping.yaml"


def test_a_mapping_at_fixed_tables_refuses_more_workers(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("COOKIE_CASINO_DB", str(tmp_path / "casino.db"))
    mapping = str(COOKIE_CASINO)  # one table per game, no table API
    why = shared_state(mapping)
    assert why and "fixed tables" in why
    with pytest.raises(ValueError, match="--workers 1"):
        choose_workers(2, "http://127.0.0.1:9", mapping, OPTIONS)
    with pytest.raises(ValueError, match=r"^--processes 2 gives each worker .* --workers 1$"):
        choose_workers(None, "http://127.0.0.1:9", mapping, OPTIONS, processes=2)
    assert choose_workers(None, "http://127.0.0.1:9", mapping, OPTIONS).workers == 1
    assert shared_state(None) is None  # the canonical adapter creates tables and players


def _failed(certificate: dict) -> set[str]:
    return {c for c, v in certificate["clauses"].items() if v["status"] == "failed"}


def test_a_clean_run_over_workers_is_the_run_in_one(tmp_path) -> None:
    status, certificate, output = certify(
        tmp_path, "--no-html", "--game", "xocdia", "--workers", "2"
    )
    assert status == 0, output
    assert certificate["verdict"] == "compliant"
    assert certificate["run"]["workers"] == {
        "tables_in_play": 2,
        "tables_per_process": 1,  # two processes: the run's tables are 2, not 2 each
        "processes": 2,
        "why": "as asked (--workers)",
    }
    records = read_run_record(tmp_path / "run-record.jsonl")
    assert sum(1 for r in records if r["type"] == "target") == 1  # one target, named once
    latency = [r for r in records if r["type"] == "latency"]
    assert len(latency) == 3  # the controller's and each worker's requests
    sent = sum(len(times) for r in latency for times in r["samples"].values())
    assert certificate["latency"]["requests"] == sent
    scenarios = [r for r in records if r["type"] == "scenario"]
    assert len({r["nodeid"] for r in scenarios}) == len(scenarios)  # each ran once
    restart = [r for r in scenarios if "REG-INTR-01" in r["clauses"]]
    assert restart and all(r["outcome"] == "passed" for r in restart)  # restarted by the relay


def test_seeded_faults_fail_the_same_clauses_over_workers(tmp_path) -> None:
    faults = ("two-two-pays-1-to-1", "interrupted-round-lost")
    declared = {c for name in faults for c in FAULTS[name].clauses}
    args = ["--no-html", "--game", "xocdia", *(f"--reference-fault={f}" for f in faults)]
    _, serial, _ = certify(tmp_path / "serial", *args, "--workers", "1")
    status, spread, output = certify(tmp_path / "spread", *args, "--workers", "2")
    assert status == 1, output
    assert _failed(spread) == _failed(serial) == declared


def test_a_target_that_is_not_there_ends_a_run_over_workers_at_once(tmp_path) -> None:
    status, certificate, output = certify(
        tmp_path,
        "--no-html",
        "--game",
        "xocdia",
        "--workers",
        "2",
        "--target-url",
        "http://127.0.0.1:9",
        "--operator-token",
        "op-token-for-a-test",
        "--dealer-token",
        "dl-token-for-a-test",
        "--timeout",
        "2",
    )
    assert status == 2, output
    assert certificate["verdict"] == "incomplete"
    assert "No scenario was run" in output
    records = read_run_record(tmp_path / "run-record.jsonl")
    assert [r["stage"] for r in records if r["type"] == "target_error"] == ["preflight"]
    assert not any(r["type"] == "target" for r in records)  # no worker connected on its own
    assert not any(c["status"] == "passed" for c in certificate["clauses"].values())


def test_the_sweep_played_ahead_fails_the_payout_and_keeps_each_rounds_evidence(tmp_path) -> None:
    fault = "four-red-pays-10-to-1"
    args = ["--no-html", "--game", "xocdia", f"--reference-fault={fault}", "--workers", "4"]
    status, certificate, output = certify(tmp_path, *args)
    assert status == 1, output
    assert _failed(certificate) == set(FAULTS[fault].clauses)
    assert certificate["run"]["workers"]["tables_in_play"] == 4
    tables = certificate["latency"]["by_operation"]["create a xocdia table"]["requests"]
    per_process = certificate["run"]["workers"]["tables_per_process"]
    # the pool's threads at tables of their own, beside the worker's: played in turn, the two
    # processes would make one table each
    assert per_process == 2 and tables >= per_process + 1
    records = read_run_record(tmp_path / "run-record.jsonl")
    [failed] = [
        r for r in records if r["type"] == "reproduction" and "[r r r r]" in r["nodeid"]
    ]  # the round with four red, its own steps' requests, in the order sent
    operations = [e["operation"] for e in failed["exchanges"]]
    # bet_on_every_selection, the close, the result; a Xoc Dia round opens with the shake
    assert operations[-6:] == [
        "create a test player",
        "open a round",
        "record the dealer event shake",
        "place 10 bet(s)",
        "close betting",
        "enter the result",
    ]


@pytest.mark.parametrize(
    ("sessions", "machines", "shares"),
    [(8, 1, [8]), (8, 3, [3, 3, 2]), (8, 16, [1] * 8), (2, 4, [1, 1]), (8, 2, [4, 4])],
)
def test_the_sessions_are_shared_out_evenly(sessions: int, machines: int, shares: list) -> None:
    assert session_shares(sessions, machines) == shares


def test_money_sessions_at_once_still_catch_a_money_fault(tmp_path) -> None:
    """With a fixed seed: a fresh one each local run would leave the fault unmet about one run
    in four, since the sessions need not cancel a round holding bets. Four machines (a table of
    the run's each) from CI's seed do not; from the next seed one of them does."""
    fault = "cancel-refunds-twice"
    args = ["--no-html", "--game", "xocdia", f"--reference-fault={fault}", "--workers", "4"]
    env = {**os.environ, "LIVECERT_MONEY_SEED": str(CI_SEED + 1)}
    status, certificate, output = certify(tmp_path, *args, env=env)
    assert status == 1, output
    assert _failed(certificate) == set(FAULTS[fault].clauses)
    [machine] = [
        r for r in read_run_record(tmp_path / "run-record.jsonl") if r["type"] == "money_machine"
    ]
    workers = certificate["run"]["workers"]
    assert workers["tables_per_process"] == 2 and workers["tables_in_play"] == 4
    assert machine["machines"] == 4 and machine["failure"]  # a machine a table of the run
    replay = machine["failure"].partition("replay with: ")[2].removesuffix(")")
    assert replay.endswith("--tables-in-play 4"), replay  # every machine, as the run shared out
    again = subprocess.run(  # the replay meets the fault again, in one process
        f"{replay} -p no:cacheprovider --reference-fault={fault}",
        shell=True, cwd=Path(__file__).parent.parent, capture_output=True, text=True,
        timeout=600, env={k: v for k, v in os.environ.items() if k != "LIVECERT_MONEY_SEED"},
    )  # fmt: skip
    assert again.returncode == 1 and "REG-MONEY-01" in again.stdout, again.stdout[-2000:]


def test_a_worker_that_dies_in_a_scenario_leaves_the_run_incomplete(tmp_path) -> None:
    """xdist reports the scenario on the controller and starts another worker; the run record
    has no word from the dead one, so the controller writes it: never a pass by silence."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    status, certificate, output = certify(
        tmp_path, "--no-html", "--game", "xocdia", "--workers", "2", "--", "-p", "crash_worker",
        env=env,
    )  # fmt: skip
    assert status == 2, output
    assert certificate["verdict"] == "incomplete"
    errors = [
        r["message"] for r in read_run_record(tmp_path / "run-record.jsonl")
        if r["type"] == "harness_error"
    ]  # fmt: skip
    assert any(DIES_IN in message and "died" in message for message in errors), errors


@pytest.mark.parametrize("spread", [["-n", "2"], ["--tables-in-play", "2"]])
def test_plain_pytest_refuses_to_spread_a_mapping_at_fixed_tables(tmp_path, spread) -> None:
    """The same guard as certify's, for a lab running the features with pytest itself."""
    env = {**os.environ, "COOKIE_CASINO_DB": str(tmp_path / "casino.db")}
    features = Path(__file__).parents[1] / "features"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(features), "-c", str(features / "pytest.ini"),
         "-p", "no:cacheprovider", "--adapter", str(COOKIE_CASINO), "--target-url",
         "http://127.0.0.1:9", "-m", "sicbo", *spread],
        capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path,
    )  # fmt: skip
    said = done.stdout + done.stderr
    assert done.returncode == 4, said  # pytest's usage error, before any request
    assert "plays at fixed tables" in said and "one process with one table" in said


def test_workers_asked_against_a_remote_target_wait_on_the_network_too(monkeypatch) -> None:
    """--workers N with the processes left to auto: the round trip is measured for them."""
    monkeypatch.setattr(workers, "measure_round_trip", lambda *_: [100.0] * 5)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(workers, "available_mb", lambda: 24 * 1024)
    chosen = choose_workers(12, "https://staging.example.com", None, OPTIONS)
    assert (chosen.workers, chosen.processes, chosen.round_trip_ms) == (12, 12, 100.0)
    assert len(chosen.samples_ms) == 5  # counted among the run's requests
    assert choose_workers(12, "https://staging.example.com", None, OPTIONS, 3).processes == 3
    assert choose_workers(12, None, None, OPTIONS).processes == 2  # the embedded reference


def test_the_free_memory_is_a_containers_where_it_has_a_limit(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(workers, "CGROUP", tmp_path)
    free = workers.available_mb()  # no limit there: the machine's
    (tmp_path / "memory.max").write_text(f"{1024 * 2**20}\n")
    (tmp_path / "memory.current").write_text(f"{256 * 2**20}\n")
    assert workers.available_mb() == (768 if free is None else min(free, 768))
    (tmp_path / "memory.max").write_text("max\n")
    assert workers.available_mb() == free

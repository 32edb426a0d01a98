"""Every request within a total deadline and a cap on its answer's size; a run within its
--max-duration. A target whose status line, headers or body drip, whose chunked body never ends,
or whose answer is too large is a target error naming the operation within the deadline (never
a hang), through the canonical and the mapping adapter, in doctor and in certify; a Retry-After
wait stays inside the deadline; the run's end cuts the request in flight.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from functools import cache
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from cli_support import certify
from fake_target import (
    dripping_body,
    dripping_headers,
    endless_chunked,
    fake_target,
    healthy_preflight,
    oversized,
    send_json,
)
from samples import OPEN_BET, ROUND
from vendor_support import MAPPING

from livecert.adapters import Bounds, HttpAdapter, RunCut, TargetError
from livecert.adapters.bounds import MIB, parse_size
from livecert.adapters.mapping import MappingAdapter, load_mapping
from livecert.adapters.mapping.document import MappingFile
from livecert.adapters.model import PlayerHandle
from livecert.certify.certificate import build_certificate
from livecert.certify.doctor import FAIL, diagnose
from livecert.suite.fixtures.options import answer_size, seconds

# deadlines and Retry-After waits, bounded in time
pytestmark = pytest.mark.timing

DEADLINE = 0.3  # seconds: small, so each bounded wait costs the suite little
SMALL_CAP = 64 * 1024
BOUNDS = Bounds(request_deadline=DEADLINE, max_answer_bytes=SMALL_CAP)
SLACK = 2.0  # what a loaded machine (CI runs two workers on two cores) may add to a deadline;
# a target without the bound drips for 30 s, so the check still tells the two apart
BAD_TARGETS = {
    "headers dripping": (dripping_headers, "no whole answer within 0.3 s"),
    "body dripping": (dripping_body, "no whole answer within 0.3 s"),
    "chunked body never ending": (endless_chunked, "no whole answer within 0.3 s"),
    "answer over the cap": (oversized(MIB), "larger than 64 KiB"),
    "answer declared over the cap": (oversized(MIB, declared=True), "larger than 64 KiB"),
}
ADVICE = {"no whole answer": "--request-deadline to change", "larger than": "--max-answer-size"}

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def vendor_passwords(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SAOMAI_OPS_PASSWORD", "SAOMAI_STUDIO_PASSWORD"):
        monkeypatch.setenv(name, "not-a-real-password")


@cache
def vendor_mapping() -> MappingFile:
    """The example vendor's mapping, loaded once (its passwords are never sent here)."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("SAOMAI_OPS_PASSWORD", "SAOMAI_STUDIO_PASSWORD"):
            patch.setenv(name, "not-a-real-password")
        return load_mapping(MAPPING)


def canonical(url: str, bounds: Bounds = BOUNDS) -> HttpAdapter:
    return HttpAdapter(url, "op-token", "dl-token", bounds=bounds)


def through_mapping(url: str, bounds: Bounds = BOUNDS) -> MappingAdapter:
    return MappingAdapter(vendor_mapping(), url, bounds=bounds)


def timed(action: Callable[[], object]) -> tuple[TargetError, float]:
    started = time.monotonic()
    with pytest.raises(TargetError) as raised:
        action()
    return raised.value, time.monotonic() - started


@pytest.mark.parametrize("make", [canonical, through_mapping], ids=["canonical", "mapping"])
@pytest.mark.parametrize("target", BAD_TARGETS)
def test_a_bad_answer_is_a_target_error_within_the_deadline(
    target: str, make: Callable[[str], HttpAdapter | MappingAdapter]
) -> None:
    behaviour, says = BAD_TARGETS[target]
    with fake_target(behaviour) as url:
        adapter = make(url)
        error, elapsed = timed(adapter.info)
    assert elapsed < DEADLINE + SLACK
    assert says in error.detail
    assert next(v for k, v in ADVICE.items() if k in says) in error.detail
    assert "GET" in error.request and error.operation
    [exchange] = adapter.recorder.drain()  # the evidence: the request and what went wrong
    assert exchange.error == error.detail and exchange.elapsed_ms < (DEADLINE + SLACK) * 1000
    if "headers" in target:  # cut before the headers ended: no status is claimed
        assert exchange.status is None and "answered" not in error.detail


def test_the_default_cap_is_16_mib() -> None:
    with fake_target(oversized(16 * MIB + 65536)) as url:
        error, _ = timed(canonical(url, Bounds()).info)
    assert "larger than 16 MiB" in error.detail


def test_a_kept_alive_connection_is_held_to_the_deadline_too() -> None:
    """The second request goes on the first one's connection, and that one drips."""
    answered: list[int] = []

    def once_then_drip(handler: BaseHTTPRequestHandler) -> None:
        if not answered:
            answered.append(1)
            send_json(handler, 200, {"role": "operator"})
        else:
            dripping_headers(handler)

    with fake_target(once_then_drip) as url:
        adapter = canonical(url)
        adapter._call("first", "GET", "/v1/whoami", role="operator")
        error, elapsed = timed(lambda: adapter._call("second", "GET", "/v1/whoami", role="dealer"))
    assert elapsed < DEADLINE + SLACK and "no whole answer" in error.detail


def retry_after(first: tuple[int, str], then: Callable[[BaseHTTPRequestHandler], None]):
    """Answer `first` (status, Retry-After) once, then as `then`; the requests seen."""
    seen: list[str] = []

    def behaviour(handler: BaseHTTPRequestHandler) -> None:
        seen.append(handler.path)
        if len(seen) > 1:
            then(handler)
            return
        handler.send_response(first[0])
        handler.send_header("Retry-After", first[1])
        handler.send_header("Content-Type", "application/json")
        body = b'{"error": {"code": "BUSY", "message": "slow down"}}'
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return behaviour, seen


def test_a_retry_after_inside_the_deadline_is_waited_for_and_recorded() -> None:
    behaviour, seen = retry_after((429, "0"), lambda h: send_json(h, 200, ROUND))
    with fake_target(behaviour) as url:
        adapter = canonical(url)
        assert adapter.get_round("r1").round_id == "r1"
    assert len(seen) == 2
    assert [e.status for e in adapter.recorder.drain()] == [429, 200]


def test_a_retry_after_longer_than_the_deadline_is_a_target_error_at_once() -> None:
    behaviour, seen = retry_after((503, "120"), lambda h: send_json(h, 200, ROUND))
    with fake_target(behaviour) as url:
        error, elapsed = timed(lambda: canonical(url).get_round("r1"))
    assert elapsed < SLACK and len(seen) == 1
    assert "answered 503 asking to be sent again after 120 s (Retry-After)" in error.detail
    assert "--request-deadline to change" in error.detail


def test_a_503_to_a_result_is_not_sent_again_whatever_its_retry_after() -> None:
    """Entering a result twice could settle twice: a 503 there stays the target's error."""
    behaviour, seen = retry_after((503, "0"), lambda h: send_json(h, 200, ROUND))
    with fake_target(behaviour) as url:
        error, _ = timed(lambda: canonical(url).enter_result("r1", (1, 2, 3)))
    assert len(seen) == 1 and "answered 503" in error.detail


def test_a_429_to_a_write_without_an_idempotency_key_is_a_target_error_naming_it() -> None:
    """A result entered twice could settle twice: the 429 is not waited for, and says why."""
    behaviour, seen = retry_after((429, "0"), lambda h: send_json(h, 200, ROUND))
    with fake_target(behaviour) as url:
        adapter = canonical(url)
        error, _ = timed(lambda: adapter.enter_result("r1", (1, 2, 3)))
    assert len(seen) == 1 and error.answered == 429
    assert "answered 429 (too many requests) to a write that carries no idempotency key" in (
        error.detail
    )
    assert "--rate-limit" in error.detail and adapter.recorder.throttled == 1


def test_a_429_to_a_slip_with_its_key_is_waited_for_and_sent_again_with_the_same_key() -> None:
    keys: list[str | None] = []

    def slip(handler: BaseHTTPRequestHandler) -> None:
        send_json(handler, 201, {"bets": [OPEN_BET], "balance": "99.00"})

    behaviour, seen = retry_after((429, "0"), slip)

    def keyed(handler: BaseHTTPRequestHandler) -> None:
        keys.append(handler.headers.get("Idempotency-Key"))
        behaviour(handler)

    with fake_target(keyed) as url:
        adapter = canonical(url)
        placed = adapter.place_bets(PlayerHandle("p1", "pl-token"), "r1", [("SMALL", "1.00")])
    assert [b.bet_id for b in placed] == ["b1"] and len(seen) == 2
    assert keys[0] and keys == [keys[0], keys[0]]  # the server can tell the two apart
    assert adapter.recorder.throttled == 1  # counted for the certificate


def test_a_429_without_a_retry_after_is_the_runs_pace_never_a_refusal() -> None:
    """A read, or a keyed slip, answered 429 with nothing to wait for: a target error (the
    run went too fast), not a Refused that a step would judge as a finding on its clause."""
    behaviour, seen = retry_after((429, ""), lambda h: send_json(h, 200, ROUND))
    with fake_target(behaviour) as url:
        error, _ = timed(lambda: canonical(url).get_round("r1"))
    assert isinstance(error, TargetError) and error.answered == 429 and len(seen) == 1
    assert "429 (too many requests) without a Retry-After" in error.detail


def test_the_certificate_counts_the_429s_of_every_process() -> None:
    records = [
        {"type": "latency", "samples": {"read the round": [1.0, 3.0]}, "throttled": 2},
        {"type": "latency", "samples": {"read the round": [2.0]}, "throttled": 1},
    ]
    latency = build_certificate(records, ("sicbo",), {})["latency"]
    assert (latency["requests"], latency["median_ms"], latency["throttled"]) == (3, 2.0, 3)


def test_the_runs_end_cuts_the_request_in_flight_and_sends_no_other() -> None:
    bounds = Bounds.for_run(request_deadline=30, max_duration=DEADLINE)
    with fake_target(dripping_body) as url:
        adapter = canonical(url, bounds)
        error, elapsed = timed(adapter.info)
        late, _ = timed(adapter.info)
    assert isinstance(error, RunCut) and elapsed < DEADLINE + SLACK
    assert "the run was cut by --max-duration (0.3 s)" in error.detail
    assert isinstance(late, RunCut) and late.detail.startswith("not sent: the run was cut")
    assert str(error).startswith("run cut during read the implementation's declarations")


def test_sizes_read_as_a_lab_writes_them() -> None:
    assert [parse_size(s) for s in ("16MiB", "64KiB", "1000", "2MB")] == [
        16 * MIB,
        65536,
        1000,
        2_000_000,
    ]
    with pytest.raises(ValueError, match=r"e\.g\. 16MiB"):
        parse_size("lots")


# -- doctor: the same bounds ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "adapter"),
    [
        ("headers dripping", None),
        ("chunked body never ending", None),
        ("answer over the cap", None),
        ("body dripping", str(MAPPING)),
    ],
)
def test_doctor_names_a_bad_answer_within_the_deadline(
    target: str, adapter: str | None, vendor_passwords: None
) -> None:
    behaviour, says = BAD_TARGETS[target]
    if adapter:
        load_mapping(adapter)  # the mapping schema compiled (seconds) before the clock starts
    started = time.monotonic()
    with fake_target(behaviour) as url:
        diagnosis = diagnose(url, "op", "dl", 10.0, adapter, bounds=BOUNDS)
    assert time.monotonic() - started < DEADLINE + SLACK
    [failed] = [c for c in diagnosis.checks if c.status == FAIL]
    assert says in failed.what and not diagnosis.healthy


# -- certify: the run ends incomplete, with the one message ------------------------------------


def drips_after_preflight(handler: BaseHTTPRequestHandler) -> None:
    if not healthy_preflight(handler):
        dripping_headers(handler)


CANONICAL = ("--operator-token", "op-token", "--dealer-token", "dl-token")


def certify_dripping(folder: Path, *args: str) -> tuple[int, dict, str, float]:
    """`livecert certify` of Sic Bo on a target whose answers drip once the run has started:
    the status, certificate, output and how long it took."""
    started = time.monotonic()
    with fake_target(drips_after_preflight) as url:
        status, certificate, output = certify(
            folder / "report", "--no-html", "--game", "sicbo", "--target-url", url, *CANONICAL,
            *args,
        )  # fmt: skip
    return status, certificate, output, time.monotonic() - started


def test_certify_stops_incomplete_at_the_deadline_of_a_dripping_answer(tmp_path: Path) -> None:
    status, certificate, output, elapsed = certify_dripping(tmp_path, "--request-deadline", "1")
    assert status == 2 and certificate["verdict"] == "incomplete", output
    [error] = certificate["target_errors"]
    assert "target error during create a sicbo table: no whole answer within 1 s" in error
    assert "--request-deadline to change" in error and "POST" in error and "Traceback" not in output
    assert certificate["run"]["bounds"]["request_deadline_seconds"] == 1
    assert elapsed < 30


def test_max_duration_cuts_the_run_and_the_certificate_says_so(tmp_path: Path) -> None:
    status, certificate, output, elapsed = certify_dripping(tmp_path, "--max-duration", "3")
    assert status == 2 and certificate["verdict"] == "incomplete", output
    assert "the run was cut by --max-duration (3 s)" in certificate["run_cut"]
    assert certificate["run_cut"] in certificate["verdict_reasons"]
    assert "the run was cut by --max-duration (3 s)" in output  # the summary says it too
    assert not certificate["target_errors"] and not certificate["harness_errors"]
    assert elapsed < 3 + 20  # the cut, then the certificate: never the 30 s request deadline


SCENARIOS = """
import time

import pytest


@pytest.mark.sicbo
@pytest.mark.parametrize("n", range(20))
def test_slow(n):
    time.sleep(0.3)


@pytest.mark.sicbo
@getattr(pytest.mark, "SB-PAY-01")
def test_a_request_cut(livecert_target):
    livecert_target.adapter.get_round("r1")
"""


def run_scenarios(folder: Path, url: str, *args: str) -> tuple[int, list[dict]]:
    """Run SCENARIOS with the suite's run-control plugins against the target at `url`, in this
    process (a subprocess would cost the suite its start-up); the exit status and run record."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # only the plugins named
        return _run_scenarios(folder, url, *args)


def _run_scenarios(folder: Path, url: str, *args: str) -> tuple[int, list[dict]]:
    tests = folder / "test_scenarios.py"
    tests.write_text(SCENARIOS, encoding="utf-8")
    record = folder / "record.jsonl"
    suite = "livecert.suite"
    plugins = ("pytest_bdd.plugin", f"{suite}.plugin", f"{suite}.fixtures.options")
    plugins += (f"{suite}.fixtures.target", f"{suite}.fixtures.run_end")
    plugins += (f"{suite}.fixtures.scene", f"{suite}.fixtures.allure_labels")
    plugins += (f"{suite}.fixtures.evidence",)
    status = pytest.main(
        [str(tests), "-q", "-p", "no:cacheprovider", "--rootdir", str(folder),
         "--import-mode=importlib", *(a for p in plugins for a in ("-p", p)),
         "--target-url", url, *CANONICAL, f"--livecert-record={record}", *args],
    )  # fmt: skip
    return int(status), [json.loads(line) for line in record.read_text().splitlines()]


def test_no_scenario_starts_after_the_runs_end(tmp_path: Path) -> None:
    """Scenarios that take 0.3 s each, a run of 1 s: the run stops before the fifth."""
    with fake_target(healthy_preflight) as url:
        status, records = run_scenarios(tmp_path, url, "-k", "slow", "--max-duration", "1")
    [cut] = [r for r in records if r["type"] == "run_cut"]
    ran = int(cut["message"].split("after ")[1].split(" ")[0])
    assert status == pytest.ExitCode.INTERRUPTED and 1 <= ran <= 4
    assert cut["message"] == (
        f"the run was cut by --max-duration (1 s) after {ran} scenario(s); the scenarios after "
        "it were not run"
    )


def test_the_runs_end_cuts_the_request_in_flight_and_the_record_says_so(tmp_path: Path) -> None:
    with fake_target(drips_after_preflight) as url:
        status, records = run_scenarios(tmp_path, url, "-k", "cut", "--max-duration", "1.5")
    assert status == pytest.ExitCode.INTERRUPTED
    [scenario] = [r for r in records if r["type"] == "scenario"]
    assert scenario["outcome"] == "error" and scenario["target_error"]  # not a harness error
    assert (
        "run cut during read the round: no whole answer before the run's end"
        in (scenario["message"])
    )
    assert [r["message"] for r in records if r["type"] == "run_cut"] == [
        "the run was cut by --max-duration (1.5 s) during read the round; the scenarios after "
        "it were not run"
    ]
    assert not [r for r in records if r["type"] in ("target_error", "teardown_error")]


def test_a_malformed_bound_in_the_environment_is_named_under_plain_pytest() -> None:
    """The LIVECERT_* variables are read as their options are: a value that is no number of
    seconds (or size) is a usage error naming the variable, not a traceback."""
    env = {**os.environ, "LIVECERT_MAX_DURATION": "1x"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(ROOT / "features"), "--collect-only", "-q"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
        check=False,
    )
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert (
        "'1x' is not a number of seconds above 0 (from the option or LIVECERT_MAX_DURATION)"
        in done.stderr
    )
    assert "Traceback" not in done.stdout + done.stderr
    for variable in ("LIVECERT_REQUEST_DEADLINE", "LIVECERT_TARGET_TIMEOUT"):
        with pytest.raises(argparse.ArgumentTypeError, match=variable):
            seconds(variable)("thirty")
        assert seconds(variable)("2.5") == 2.5
        for unbounded in ("inf", "nan", "-1", "0"):
            with pytest.raises(argparse.ArgumentTypeError, match="above 0"):
                seconds(variable)(unbounded)
    with pytest.raises(argparse.ArgumentTypeError, match="LIVECERT_MAX_ANSWER_SIZE"):
        answer_size("12QB")

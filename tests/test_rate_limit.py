"""`--rate-limit`: a server that limits its callers gets at most so many requests per second or
minute from the whole run, through any adapter; the wait for a turn is not taken from the
request's own deadline, and the run's end bounds it; a rate that cannot be read is a usage error
naming what to write; the certificate records the rate the run kept to."""

import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from cli_support import certify, livecert
from fake_target import fake_target, send_json
from samples import INFO

from livecert.adapters import Bounds, HttpAdapter, TargetError
from livecert.adapters.rate import RateGate, RequestRate, parse_rate

# requests counted in a sliding window of time
pytestmark = pytest.mark.timing


@pytest.mark.parametrize(
    ("text", "rate"),
    [("20/s", RequestRate(20, "s")), ("600/min", RequestRate(600, "m")), ("5 / second", None)],
)
def test_a_rate_reads_as_a_lab_writes_it(text: str, rate: RequestRate | None) -> None:
    assert parse_rate(text) == (rate or RequestRate(5, "s"))


@pytest.mark.parametrize("text", ["20", "fast", "0/s", "-1/s", "2.5/s", "20/h", ""])
def test_a_rate_that_cannot_be_read_says_what_a_rate_looks_like(text: str) -> None:
    with pytest.raises(ValueError, match=r"e\.g\. 20/s or 600/min"):
        parse_rate(text)


def test_no_turn_is_waited_for_past_the_time_allowed() -> None:
    gate = RateGate(RequestRate(1, "m"))
    assert gate.wait(None) and not gate.wait(0) and not gate.wait(-1)
    started = time.monotonic()
    assert not gate.wait(0.3)  # the next turn is a minute away
    assert time.monotonic() - started < 2


def test_the_target_gets_no_more_than_the_rate_in_any_second() -> None:
    seen: list[float] = []

    def counting(handler: BaseHTTPRequestHandler) -> None:
        seen.append(time.monotonic())
        send_json(handler, 200, INFO)

    bounds = Bounds.for_run(request_deadline=0.5, rate_limit=RequestRate(5, "s"))
    with fake_target(counting) as url:
        adapter = HttpAdapter(url, "op-token", "dl-token", bounds=bounds)
        for _ in range(12):
            adapter.info()  # each within its 0.5 s deadline: the waits are not counted in it
    assert len(seen) == 12
    for i, moment in enumerate(seen):
        assert sum(1 for other in seen[i:] if other - moment < 0.95) <= 5
    assert seen[-1] - seen[0] >= 1.8  # 12 at 5 a second: the last in the third second


def test_a_request_sent_again_waits_its_own_turn() -> None:
    """A re-send after a Retry-After is another request to the server: at 1 a minute it gets
    no turn within its deadline, and is not sent."""
    seen: list[str] = []

    def busy_once(handler: BaseHTTPRequestHandler) -> None:
        seen.append(handler.path)
        if len(seen) == 1:
            handler.send_response(429)
            handler.send_header("Retry-After", "0")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        send_json(handler, 200, INFO)

    bounds = Bounds.for_run(request_deadline=0.5, rate_limit=RequestRate(1, "m"))
    with fake_target(busy_once) as url:
        adapter = HttpAdapter(url, "op-token", "dl-token", bounds=bounds)
        with pytest.raises(TargetError, match="no turn under --rate-limit"):
            adapter.info()
    assert len(seen) == 1


def test_a_rate_the_cli_cannot_read_is_a_usage_error() -> None:
    done = livecert("certify", "--rate-limit", "fast")
    assert done.returncode == 3, done.stderr
    assert "--rate-limit" in done.stderr and "e.g. 20/s or 600/min" in done.stderr


def test_the_certificate_records_the_rate_and_the_run_s_end_bounds_the_wait(
    tmp_path: Path,
) -> None:
    status, certificate, output = certify(
        tmp_path / "kept", "--no-html", "--game", "xocdia", "--clauses", "XD-VOID-02",
        "--rate-limit", "1000/s",
    )  # fmt: skip
    assert status == 0, output[-3000:]
    assert certificate["run"]["bounds"]["rate_limit"] == "1000/s"
    # one request a minute: the preflight's first goes, the next waits for the run's end
    started = time.monotonic()
    status, certificate, output = certify(
        tmp_path / "cut", "--no-html", "--game", "xocdia", "--clauses", "XD-VOID-02",
        "--rate-limit", "1/min", "--max-duration", "4",
    )  # fmt: skip
    assert (status, certificate["verdict"]) == (2, "incomplete"), output[-3000:]
    assert "--max-duration (4 s)" in certificate["run_cut"]  # cut while waiting, not failed
    assert not [c for c, row in certificate["clauses"].items() if row["status"] == "failed"]
    assert time.monotonic() - started < 4 + 20

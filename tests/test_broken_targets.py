"""A broken target ends the run with one clear message and an `incomplete` verdict, never a pass
and never a hang: unreachable, 500, a hang past the timeout, HTML instead of JSON, refused
credentials, a connection dropped mid-answer, and a target that breaks after the run started
(down, or no longer accepting the tokens it accepted: its session changed under the run).
Redirects too (in a loop, or to a login page). The summary's target line says what the target
answered ("answered 500 to GET /v1/info"), never "did not answer" when it did.
"""

import json
import socket
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from cli_support import certify_url
from fake_target import INFO, cut_after, fake_target, healthy_preflight, redirect, send, send_json
from samples import ROUND
from test_hostile_target import HOSTILE, SHOWN, obeyed

from livecert.harness.exchange_archive import read_archive

# a target that hangs, drips or breaks: each run bounded in time
pytestmark = pytest.mark.timing


def certify(url: str, tmp_path: Path, timeout: float = 2.0) -> tuple[int, str, dict, float]:
    started = time.monotonic()
    # --no-html: the verdict and the messages are under test here, not the pages
    status, certificate, output = certify_url(tmp_path / "report", url, "--timeout", str(timeout))
    return status, output, certificate, time.monotonic() - started


def scenario_records(tmp_path: Path) -> list[dict]:
    lines = (tmp_path / "report" / "run-record.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["type"] == "scenario"]


def assert_incomplete(
    status: int, output: str, certificate: dict, says: str, target: str = ""
) -> None:
    """Incomplete, with `says` in the certificate and in the whole output, which holds no
    traceback and nothing of pytest's internals; the summary's target line starts `target`."""
    assert status == 2, output
    assert certificate["verdict"] == "incomplete"
    assert any(says in e for e in certificate["target_errors"]), certificate["target_errors"]
    assert says in output
    assert "Traceback" not in output and "_pytest" not in output, output
    if target:
        assert f"\n  target: {target}" in output, output
    if target.startswith("answered"):
        assert "did not answer" not in output, output
    assert (
        all(row["status"] != "passed" for row in certificate["clauses"].values() if row["in_scope"])
        or certificate["summary"]["scenarios"] > 0
    )


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_target(tmp_path: Path) -> None:
    status, output, certificate, elapsed = certify(f"http://127.0.0.1:{closed_port()}", tmp_path)
    assert_incomplete(
        status, output, certificate, "cannot connect", "did not answer GET /v1/info: cannot connect"
    )
    assert certificate["summary"]["scenarios"] == 0
    assert elapsed < 60


def test_a_target_answering_500(tmp_path: Path) -> None:
    """Its message, hostile (escape sequences, a bidi override, a NUL), is shown, not obeyed."""
    body = f"upstream failed: {HOSTILE}".encode()
    with fake_target(lambda h: send(h, 500, body, "text/plain; charset=utf-8")) as url:
        status, output, certificate, _ = certify(url, tmp_path)
    assert_incomplete(status, output, certificate, "answered 500", "answered 500 to GET /v1/info")
    assert not obeyed(output), output
    assert f"target: answered 500 to GET /v1/info: 'upstream failed: {SHOWN}' (at {url})" in output


def test_a_target_that_hangs_past_the_timeout(tmp_path: Path) -> None:
    def hang(handler: BaseHTTPRequestHandler) -> None:
        time.sleep(20)

    with fake_target(hang) as url:
        status, output, certificate, elapsed = certify(url, tmp_path, timeout=1.0)
    assert_incomplete(status, output, certificate, "no answer within 1 s")
    assert elapsed < 20, "the harness waited for the hanging target instead of timing out"


def test_a_target_answering_html(tmp_path: Path) -> None:
    page = b"<html><body><b>Warning</b>: mysql_connect() failed</body></html>"
    with fake_target(lambda h: send(h, 200, page, "text/html")) as url:
        status, output, certificate, _ = certify(url, tmp_path)
    assert_incomplete(
        status, output, certificate, "not JSON", "answered 200 to GET /v1/info: '<html><body>"
    )


def test_a_target_answering_json_nested_too_deeply_to_read(tmp_path: Path) -> None:
    page = b"[" * 5000 + b"]" * 5000  # JSON all the same: Python's reader stops near 1,000
    with fake_target(lambda h: send(h, 200, page, "application/json")) as url:
        status, output, certificate, _ = certify(url, tmp_path)
    assert_incomplete(status, output, certificate, "nested too deeply to read")


def test_a_target_redirecting_in_a_loop(tmp_path: Path) -> None:
    with fake_target(lambda h: redirect(h, "/v1/info")) as url:
        status, output, certificate, _ = certify(url, tmp_path)
    assert_incomplete(
        status, output, certificate, "redirecting in a loop", "answered 302 to GET /v1/info"
    )


def test_a_target_redirecting_to_a_login_page(tmp_path: Path) -> None:
    def login(handler: BaseHTTPRequestHandler) -> None:
        if handler.path == "/login":
            send(handler, 200, b"<html>Sign in</html>", "text/html")
        else:
            redirect(handler, "/login")

    with fake_target(login) as url:
        status, output, certificate, _ = certify(url, tmp_path)
    says = (
        f"answered 302, a redirect to {url}/login, which answered 200 with a body that is not JSON"
    )
    assert_incomplete(status, output, certificate, says, "answered 302 to GET /v1/info")


def test_refused_credentials(tmp_path: Path) -> None:
    def refuse(handler: BaseHTTPRequestHandler) -> None:
        if handler.path == "/v1/info":
            send_json(handler, 200, INFO)
        else:
            send_json(handler, 401, {"error": {"code": "UNAUTHORIZED", "message": "bad token"}})

    with fake_target(refuse) as url:
        status, output, certificate, _ = certify(url, tmp_path)
    assert_incomplete(status, output, certificate, "refused the operator token", "fake 0 at")
    assert "--operator-token" in output


# /v1/info answered 200, then the connection shut after 8 of the 500 bytes it declared
DROPPED_MID_ANSWER = cut_after(b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n", b'{"implem')


def test_a_connection_dropped_mid_answer(tmp_path: Path) -> None:
    with fake_target(DROPPED_MID_ANSWER) as url:
        status, output, certificate, _ = certify(url, tmp_path)
    says = "answered 200 and closed the connection after 8 of the 500 bytes its Content-Length"
    assert_incomplete(status, output, certificate, says)
    assert output.count(says) == 1, output  # once, in words: no library's exception as well
    assert "ChunkedEncodingError" not in output and "IncompleteRead" not in output, output


def test_what_came_before_the_first_scenario_is_kept_in_the_report(tmp_path: Path) -> None:
    """/v1/info answered 200, then cut after 8 of its 500 bytes: those bytes are the evidence,
    kept in the report's exchanges/ as every scenario's requests are."""

    with fake_target(DROPPED_MID_ANSWER) as url:
        status, output, _, _ = certify(url, tmp_path)
    assert status == 2, output
    [kept] = read_archive(tmp_path / "report")
    assert kept["name"] == "before the first scenario"
    [asked] = kept["exchanges"]
    assert (asked["url"], asked["status"], asked["response_body"]) == (
        f"{url}/v1/info",
        200,
        '{"implem',
    )
    assert "answered 200 to GET /v1/info, but not whole" in output


def test_a_target_redirecting_to_another_host(tmp_path: Path) -> None:
    """Not followed (requests would drop the token there, and the other host's 401 would read
    as the target refusing it): named as a redirect elsewhere, never as the token refused."""
    with fake_target(lambda h: send_json(h, 200, INFO)) as elsewhere:
        other = elsewhere.replace("127.0.0.1", "localhost")
        with fake_target(lambda h: redirect(h, f"{other}{h.path}")) as url:
            status, output, certificate, _ = certify(url, tmp_path)
    says = f"answered 302, a redirect to another host ({other}/v1/info): not followed"
    assert_incomplete(status, output, certificate, says, "answered 302 to GET /v1/info")
    assert "refused the operator token" not in output, output


@pytest.mark.parametrize(
    ("status", "code", "says"),
    [
        (503, "INTERNAL", "answered 503"),  # down for maintenance
        (401, "UNAUTHORIZED", "its session changed under the run"),  # forgot our tokens
    ],
)
def test_a_target_that_breaks_after_the_run_started_stops_the_run(
    tmp_path: Path, status: int, code: str, says: str
) -> None:
    def break_later(handler: BaseHTTPRequestHandler) -> None:
        if not healthy_preflight(handler):
            send_json(handler, status, {"error": {"code": code, "message": "not now"}})

    with fake_target(break_later) as url:
        exit_status, output, certificate, _ = certify(url, tmp_path)
    assert_incomplete(exit_status, output, certificate, says)
    scenarios = scenario_records(tmp_path)
    assert len(scenarios) == 1 and scenarios[0]["outcome"] == "error"
    assert certificate["summary"] == {"scenarios": 1, "error": 1}
    # the operation, named: the first scenario's first call (its table: players are made
    # where a step first needs one)
    assert "create a sicbo table" in certificate["target_errors"][0]


def test_a_response_outside_the_contract_fails_the_scenario_and_is_listed(tmp_path: Path) -> None:
    def float_money(handler: BaseHTTPRequestHandler) -> None:
        if healthy_preflight(handler):
            return
        if handler.path == "/v1/players":
            send_json(
                handler, 201, {"player_id": "p", "token": "t", "balance": 1000.0, "connected": True}
            )
        elif handler.path == "/v1/tables":  # the first scenario's table and round come first
            send_json(handler, 201, {"table_id": "t1", "game": "sicbo"})
        elif handler.path == "/v1/tables/t1/rounds":
            send_json(handler, 201, {**ROUND, "state": "betting", "result": None, "bets": []})
        else:
            send_json(handler, 503, {"error": {"code": "INTERNAL", "message": "stop here"}})

    with fake_target(float_money) as url:
        status, _output, certificate, _ = certify(url, tmp_path)
    violations = certificate["contract_violations"]
    assert violations and violations[0]["operation"] == "createPlayer"
    assert "balance must be string" in violations[0]["message"]
    assert certificate["verdict"] != "compliant" and status != 0

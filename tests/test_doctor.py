"""`livecert doctor`: one line per check, FAIL with what to fix, exit 1 unless ready; read-only."""

from http.server import BaseHTTPRequestHandler

from fake_target import fake_target, healthy_preflight, send, send_json
from samples import INFO

from livecert.certify.doctor import FAIL, OK, WARN, diagnose, diagnose_reference


def statuses(diagnosis) -> list[tuple[str, str]]:
    return [(c.status, c.what) for c in diagnosis.checks]


def test_the_reference_is_ready_to_certify() -> None:
    diagnosis = diagnose_reference(timeout=10)
    assert diagnosis.healthy
    assert all(c.status == OK for c in diagnosis.checks), statuses(diagnosis)
    assert diagnosis.lines()[-1] == "livecert doctor: ready to certify"


def test_an_unreachable_target_is_one_fail_with_advice() -> None:
    diagnosis = diagnose("http://127.0.0.1:9", "op", "dealer", timeout=2)
    [check] = diagnosis.checks
    assert check.status == FAIL and "cannot connect" in check.what
    assert "check the URL" in check.advice
    assert not diagnosis.healthy


def test_html_instead_of_json_is_named() -> None:
    def html(handler: BaseHTTPRequestHandler) -> None:
        send(handler, 200, b"<html><b>Warning</b>: mysql_connect()</html>", "text/html")

    with fake_target(html) as url:
        diagnosis = diagnose(url, "op", "dealer", timeout=2)
    [check] = diagnosis.checks
    assert check.status == FAIL and "JSON" in check.what


def test_info_outside_the_contract_points_at_the_schema() -> None:
    def no_rounding(handler: BaseHTTPRequestHandler) -> None:
        send_json(handler, 200, {k: v for k, v in INFO.items() if k != "rounding"})

    with fake_target(no_rounding) as url:
        diagnosis = diagnose(url, "op", "dealer", timeout=2)
    [check] = diagnosis.checks
    assert check.status == FAIL and "rounding" in check.what
    assert "openapi.yaml" in check.advice


def test_a_refused_token_fails_and_the_declarations_are_still_read() -> None:
    def refuses_dealer(handler: BaseHTTPRequestHandler) -> None:
        if "dealer" in handler.headers.get("Authorization", ""):
            error = {"error": {"code": "UNAUTHORIZED", "message": "unknown token"}}
            send_json(handler, 401, error)
        else:
            healthy_preflight(handler)

    with fake_target(refuses_dealer) as url:
        diagnosis = diagnose(url, "op-token", "dealer-token", timeout=2)
    failed = [c for c in diagnosis.checks if c.status == FAIL]
    assert len(failed) == 1 and "dealer token" in failed[0].what
    assert any(
        c.status == OK and "rounding rule declared: down" in c.what for c in diagnosis.checks
    )


def test_missing_capabilities_and_a_wrong_rtp_are_warnings_that_name_the_clauses() -> None:
    info = {**INFO, "max_rtp": {"sicbo": "97.50"}, "capabilities": ["idempotency"]}

    def declares(handler: BaseHTTPRequestHandler) -> None:
        if handler.path == "/v1/info":
            send_json(handler, 200, info)
        else:
            healthy_preflight(handler)

    with fake_target(declares) as url:
        diagnosis = diagnose(url, "op-token", "dealer-token", timeout=2)
    assert diagnosis.healthy  # warnings only: certification can run
    warnings = {c.what: c.advice for c in diagnosis.checks if c.status == WARN}
    assert any("97.50%" in what and "97.22%" in what for what in warnings)
    [advice] = [a for w, a in warnings.items() if w.startswith("capabilities")]
    assert "TBL-MAL-01" in advice and "SB-STAT-01" in advice

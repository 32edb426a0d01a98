"""`livecert doctor`: one line per check, FAIL with what to fix, exit 1 unless ready; read-only
unless `--probe` plays one small round through every operation, checking each answer's shape."""

import os
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
import yaml
from fake_target import fake_target, healthy_preflight, redirect, send, send_json
from samples import INFO
from vendor_support import MAPPING, vendor_server

from livecert.certify import workers
from livecert.certify.doctor import (
    FAIL,
    FULL_RUN_REQUESTS,
    OK,
    WARN,
    Check,
    diagnose,
    diagnose_reference,
    slow_answers,
)
from livecert.certify.workers import advised_workers
from livecert.cli import main


def statuses(diagnosis) -> list[tuple[str, str]]:
    return [(c.status, c.what) for c in diagnosis.checks]


def test_the_reference_is_ready_to_certify() -> None:
    diagnosis = diagnose_reference(timeout=10)
    assert diagnosis.healthy
    assert all(c.status == OK for c in diagnosis.checks), statuses(diagnosis)
    assert diagnosis.lines()[-1] == "livecert doctor: ready to certify"
    assert not probed(diagnosis, "sicbo")  # without --probe nothing is written to the target


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


def login_page(handler: BaseHTTPRequestHandler) -> None:
    if handler.path == "/login":
        send(handler, 200, b"<html>Sign in</html>", "text/html")
    else:
        redirect(handler, "/login")


@pytest.mark.parametrize(
    ("behaviour", "says"),
    [
        (lambda h: send(h, 500, b"upstream down", "text/plain"), "answered 500: 'upstream down'"),
        (lambda h: redirect(h, "/v1/info"), "answered 302, redirecting in a loop (exceeded 30"),
        (login_page, "answered 302, a redirect to {url}/login, which answered 200 with a body"),
    ],
    ids=["500", "a redirect loop", "a redirect to a login page"],
)
def test_what_the_target_answered_is_named(behaviour, says: str) -> None:
    with fake_target(behaviour) as url:
        diagnosis = diagnose(url, "op", "dealer", timeout=2)
    [check] = diagnosis.checks
    assert check.status == FAIL and f"GET {url}/v1/info: {says.format(url=url)}" in check.what


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


# -- --probe: one small round per game, every answer read as certification reads it -------------


def probed(diagnosis, game: str) -> list[Check]:
    return [c for c in diagnosis.checks if c.what.startswith(f"probe {game}: ")]


def assert_probed_clean(diagnosis, *steps: str) -> None:
    """Every probe line of both games OK, and each of `steps` met in each game."""
    assert diagnosis.healthy, diagnosis.lines()
    for game in ("sicbo", "xocdia"):
        lines = probed(diagnosis, game)
        assert lines and all(c.status == OK for c in lines), statuses(diagnosis)
        for step in steps:
            assert any(step in c.what for c in lines), (game, step, statuses(diagnosis))


LIVE_STEPS = (
    "created player",
    "open a round",
    "place 1.00 on",
    "close betting",
    "read the round: round",
    "read the round as the player",
    "the bet record reads back",
)


def test_the_probe_plays_a_round_on_the_reference(capsys: pytest.CaptureFixture) -> None:
    assert_probed_clean(diagnose_reference(timeout=10, probe=True), *LIVE_STEPS)
    assert main(["doctor", "--probe"]) == 0  # the command line's flag
    assert "probe xocdia: the bet record reads back" in capsys.readouterr().out


@pytest.fixture
def vendor(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The example vendor server's URL, its passwords in the environment."""
    with vendor_server() as (url, env):
        for name in ("SAOMAI_OPS_PASSWORD", "SAOMAI_STUDIO_PASSWORD"):
            monkeypatch.setenv(name, env[name])
        yield url


def changed_mapping(folder: Path, old: str, new: str) -> Path:
    text = MAPPING.read_text(encoding="utf-8")
    assert old in text
    path = folder / "mapping.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def test_the_probe_plays_a_round_on_the_vendor_through_its_mapping(vendor: str) -> None:
    assert_probed_clean(diagnose(vendor, None, None, 5.0, str(MAPPING), probe=True), *LIVE_STEPS)


def test_the_probe_plays_the_instant_round_of_a_vendor_with_no_other(
    vendor: str, tmp_path: Path
) -> None:
    data = yaml.safe_load(MAPPING.read_text(encoding="utf-8"))
    kept = {"info", "create_player", "create_table", "balance", "bet_record", "play_round"}
    data["operations"] = {k: v for k, v in data["operations"].items() if k in kept}
    data["declares"]["capabilities"] = ["instant-round"]
    instant_only = tmp_path / "instant-only.yaml"
    instant_only.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    diagnosis = diagnose(vendor, None, None, 5.0, str(instant_only), probe=True)
    assert_probed_clean(diagnosis, "play an instant round: bet", "the bet record reads back")


def test_the_probe_finds_a_bet_shape_missing_the_outcome_path(vendor: str, tmp_path: Path) -> None:
    """The shape the 7,992 "mismatches" came from: the answers have no such path. The probe
    says so as a mapping error, at the first answer with a settled bet."""
    mapping = changed_mapping(tmp_path, "outcome: {path: res,", "outcome: {path: result,")
    diagnosis = diagnose(vendor, None, None, 5.0, str(mapping), probe=True)
    assert not diagnosis.healthy
    for game in ("sicbo", "xocdia"):
        [failed] = [c for c in probed(diagnosis, game) if c.status == FAIL]
        assert failed.what.startswith(f"probe {game}: mapping error: enter the result: ")
        assert "shapes.bet.outcome reads $.data.bets[0].result, which the answer does not" in (
            failed.what
        )
        assert "fix the path or shape" in failed.advice


def test_a_misspelt_deep_template_name_is_caught_at_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("SAOMAI_OPS_PASSWORD", "SAOMAI_STUDIO_PASSWORD"):
        monkeypatch.setenv(name, "not used: nothing is sent")
    mapping = changed_mapping(tmp_path, 'a: "${bet.stake}"', 'a: "${bet.stak}"')
    diagnosis = diagnose("http://127.0.0.1:9", None, None, 2.0, str(mapping), probe=True)
    failed = [c for c in diagnosis.checks if c.status == FAIL]
    assert failed and all("${bet.stak}" in c.what for c in failed), statuses(diagnosis)
    assert "operations.place_bets.request.form.slip.json.item.a" in failed[0].what
    assert not probed(diagnosis, "sicbo")  # nothing was sent


def test_the_probe_names_a_state_the_mapping_does_not_translate(
    vendor: str, tmp_path: Path
) -> None:
    mapping = changed_mapping(tmp_path, "DONE: settled, ", "")
    diagnosis = diagnose(vendor, None, None, 5.0, str(mapping), probe=True)
    [failed, _] = [c for c in diagnosis.checks if c.status == FAIL]
    # the reader stops at the untranslated state: a mapping error naming the field and the fix
    assert failed.what.startswith("probe sicbo: mapping error: enter the result: ")
    assert (
        "shapes.round.state reads $.data.status: 'DONE', where the harness needs a round state"
        in (failed.what)
    )
    assert "translate the target's with a value table" in failed.what


@pytest.mark.timing
def test_the_doctor_measures_the_round_trip_and_what_it_costs_a_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A target 50 ms away: the doctor's requests and a few more reads of /v1/info give the
    median, and the line says what a whole run's requests, one after another, would wait."""

    def slow(handler: BaseHTTPRequestHandler) -> None:
        time.sleep(0.05)
        healthy_preflight(handler)

    monkeypatch.setattr(os, "cpu_count", lambda: 2)  # the processes: a 2-core machine's
    monkeypatch.setattr(workers, "available_mb", lambda: 24 * 1024)
    with fake_target(slow) as url:
        diagnosis = diagnose(url, "op-token", "dl-token", 2.0)
    [line] = [c.what for c in diagnosis.checks if c.what.startswith("round trip")]
    median = float(line.split("median ")[1].split(" ms")[0])
    assert 50 <= median < 1000, line
    minutes = FULL_RUN_REQUESTS * median / 1000 / 60  # 7,831 x 0.05 s: about 6.5 minutes
    assert f"about {minutes:.1f} minutes of waiting" in line
    assert "over 8 requests" in line  # info, two whoami, five more reads of info
    advice = [c.what for c in diagnosis.checks if c.what.startswith("advice")]
    assert advice[0].startswith(f"advice: --workers {advised_workers(median)} ")
    assert advised_workers(median) >= 7  # (50 + 8) / 8 at least
    # at 50 ms the processes wait on the network: one per table, beyond the cores
    assert f"in {min(advised_workers(median), 16)} processes" in advice[0]
    [slow] = [c for c in diagnosis.checks if c.what.startswith("slow to answer")]
    assert slow.status == WARN and "TCP_NODELAY" in slow.advice  # connecting takes no 50 ms


@pytest.mark.parametrize(
    ("median_ms", "connect_ms", "slow"),
    [
        (41.0, 0.2, True),  # Nagle with delayed ACK: about 40 ms an answer, next door
        (25.0, 0.5, True),
        (15.0, 0.5, False),  # less than 20 ms above the round trip: not worth saying
        (90.0, 30.0, False),  # far away, and answering at once: the network's time
        (130.0, 30.0, True),
        (40.0, None, False),  # the connection could not be timed: nothing said
    ],
)
@pytest.mark.timing
def test_a_target_is_named_slow_only_when_its_answers_outlast_the_network(
    median_ms: float, connect_ms: float | None, slow: bool
) -> None:
    said = slow_answers(median_ms, connect_ms)
    assert (said is not None) is slow
    if said:
        assert f"a request takes {median_ms:g} ms (median)" in said

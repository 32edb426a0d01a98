"""Interrupted games (REG-INTR-01, GLI-19 §4.16) on any target: the lab's restart hook is called
mid-round, and the scenarios (features/*/interruption.feature) judge the round black-box.

The embedded reference is restarted by the harness itself; `livecert certify` on it, and the
seeded faults `interrupted-round-lost` and `interrupted-bet-lost`, are run by the self-test like
any clause (tests/test_certify_faults.py). Here: a lab's --restart-hook command against a
reference the harness did not start, a hook that fails (incomplete, never a finding), a hook
that restarts nothing (not observed: not tested, never passed), a reference that returns the
interrupted round itself at start-up (passed) or doubles a bet across it (failed), a target with
no hook (not tested, incomplete, with what to give), and the hook machinery.
"""

import argparse
import contextlib
import copy
import json
import os
import signal
import socket
import sys
import time
from pathlib import Path

import pytest
import requests
from cli_support import certify, livecert
from samples import scenario
from secret_scan import leaks

from livecert.adapters import Refused, TargetError, TargetInfo
from livecert.adapters.errors import CredentialsError, Unsupported
from livecert.adapters.evidence import ExchangeRecorder, exchanges_as_text
from livecert.adapters.mapping import MappingAdapter
from livecert.adapters.mapping.document import MappingFile
from livecert.adapters.secrets import SECRETS
from livecert.certify.certificate import build_certificate
from livecert.certify.scope import IN_SCOPE
from livecert.harness.capabilities import LAB_ABILITIES, missing_reason, skip_reason
from livecert.harness.embedded import free_port
from livecert.harness.exchange_archive import read_archive
from livecert.harness.restart import (
    CommandRestart,
    OperationRestart,
    RestartError,
    observe_restart,
    wait_until_answers,
)
from livecert.harness.restart_options import hook_problem, restart_timeout

# restart hooks and the bounded wait for a target coming back
pytestmark = pytest.mark.timing

HOOK = Path(__file__).resolve().parent / "restart_reference.py"
TOKENS = {"LIVECERT_OPERATOR_TOKEN": "op-restart-test", "LIVECERT_DEALER_TOKEN": "dl-restart-test"}


@pytest.fixture(scope="module")
def lab_reference(tmp_path_factory: pytest.TempPathFactory):
    """A reference server the lab runs (not the harness), and the state its hook reads."""
    folder = tmp_path_factory.mktemp("lab")
    state = folder / "state.json"
    port = free_port()
    state.write_text(json.dumps({"port": port, "db": str(folder / "lab.sqlite3")}))
    env = {**os.environ, **TOKENS}
    saved = dict(os.environ)
    os.environ.update(TOKENS)
    try:
        import restart_reference

        restart_reference.main(str(state), start=True)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            requests.get(url + "/v1/info", timeout=1)
            break
        except requests.RequestException:
            time.sleep(0.05)
    try:
        yield url, state, env
    finally:
        pid = json.loads(state.read_text())["pid"]
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _certify_lab(folder: Path, url: str, env: dict, *args: str) -> tuple[int, dict, str]:
    return certify(
        folder,
        "--no-html",
        "--game",
        "sicbo",
        "--clauses",
        "REG-INTR-01",
        "--target-url",
        url,
        *args,
        env=env,
    )


def test_a_labs_restart_hook_command_passes_interrupted_games(lab_reference, tmp_path) -> None:
    url, state, env = lab_reference
    hook = f"{sys.executable} {HOOK} {state}"
    status, cert, output = _certify_lab(tmp_path / "report", url, env, "--restart-hook", hook)
    assert (status, cert["verdict"]) == (0, "compliant"), output[-3000:]
    row = cert["clauses"]["REG-INTR-01"]
    assert (row["status"], row["in_scope"]) == ("passed", True), row
    assert json.loads(state.read_text())["restarts"] == 1  # the server really was restarted
    assert cert["target"]["restart_hook"] == "the lab's --restart-hook command"
    scenarios = read_archive(tmp_path / "report")  # every exchange, kept once
    runs = [x for s in scenarios for x in s["exchanges"] if x["method"] == "RUN"]
    assert [(r["role"], r["status"], r["url"]) for r in runs] == [("lab", 0, hook)]
    record = (tmp_path / "report" / "run-record.jsonl").read_text()
    assert "op-restart-test" not in record and "dl-restart-test" not in record


def test_a_failing_hook_is_incomplete_never_a_finding(lab_reference, tmp_path) -> None:
    """A hook that fails printing the run's tokens: incomplete, and the error that quotes its
    output names no token, in the terminal or any report file."""
    url, _state, env = lab_reference
    failing = "sh -c 'echo op=$LIVECERT_OPERATOR_TOKEN dl=$LIVECERT_DEALER_TOKEN; exit 4'"
    status, cert, output = _certify_lab(tmp_path / "report", url, env, "--restart-hook", failing)
    assert (status, cert["verdict"]) == (2, "incomplete"), output[-3000:]
    assert cert["clauses"]["REG-INTR-01"]["status"] == "not-tested"
    [error] = cert["harness_errors"]  # the hook's failure; no leak the guard had to mask
    assert "exited 4" in error and "op=$LIVECERT_OPERATOR_TOKEN" in error, error
    assert not any(token in output for token in TOKENS.values())
    assert leaks(tmp_path / "report", {name: token for token, name in _named_tokens()}) == []


def _named_tokens() -> list[tuple[str, str]]:
    return [(token, name) for name, token in TOKENS.items()]


def _rows_of(tmp_path: Path, url: str, env: dict, hook: str) -> tuple[int, dict, str]:
    return _certify_lab(tmp_path / "report", url, env, "--restart-hook", hook)


def test_a_hook_that_restarts_nothing_earns_nothing_and_its_output_is_masked(
    lab_reference, tmp_path
) -> None:
    """A hook that exits 0 restarting nothing (it only prints the run's tokens): the reference
    names the same instance before and after, so the restart was not seen and REG-INTR-01 is
    not tested; the tokens it printed are in no report file."""
    url, state, env = lab_reference
    restarts = json.loads(state.read_text()).get("restarts")
    hook = "sh -c 'echo op=$LIVECERT_OPERATOR_TOKEN dl=$LIVECERT_DEALER_TOKEN'"
    status, cert, output = _rows_of(tmp_path, url, env, hook)
    assert (status, cert["verdict"]) == (2, "incomplete"), output[-3000:]
    row = cert["clauses"]["REG-INTR-01"]
    assert (row["status"], row["in_scope"]) == ("not-tested", True), row
    assert "the restart could not be observed" in row["reason"], row["reason"]
    assert "serve `instance` in /v1/info" in row["reason"], row["reason"]
    assert json.loads(state.read_text()).get("restarts") == restarts  # nothing restarted
    assert cert["harness_errors"] == [], cert["harness_errors"]  # no leak had to be masked
    assert leaks(tmp_path / "report", {name: token for token, name in _named_tokens()}) == []
    scenarios = read_archive(tmp_path / "report")  # every exchange, kept once
    runs = [x for s in scenarios for x in s["exchanges"] if x["method"] == "RUN"]
    assert [r["response_body"].split() for r in runs] == [
        ["op=$LIVECERT_OPERATOR_TOKEN", "dl=$LIVECERT_DEALER_TOKEN"]
    ], runs


def test_a_round_the_target_returns_itself_at_start_up_passes(lab_reference, tmp_path) -> None:
    """The other way the rule allows: the reference, restarted with its option to cancel every
    unfinished round at start-up, returns each stake; the scenario ends judged, passed."""
    url, state, env = lab_reference
    hook = f"{sys.executable} {HOOK} {state} --return-interrupted-rounds"
    status, cert, output = _rows_of(tmp_path, url, env, hook)
    assert (status, cert["verdict"]) == (0, "compliant"), output[-3000:]
    row = cert["clauses"]["REG-INTR-01"]
    assert (row["status"], row["checks"]["held"] > 0) == ("passed", True), row
    [scenario_row] = [
        r
        for r in map(json.loads, (tmp_path / "report" / "run-record.jsonl").open())
        if r["type"] == "scenario"
    ]
    assert scenario_row["outcome"] == "passed", scenario_row
    assert "returned the interrupted round" in scenario_row["unproven"]["SB-PAY-02"]


def test_a_bet_doubled_across_the_restart_fails_interrupted_games(lab_reference, tmp_path) -> None:
    """The hook copies the player's last bet while the server is down: every placed bet is still
    there, but the round holds one more, which REG-INTR-01 does not allow."""
    url, state, env = lab_reference
    hook = f"{sys.executable} {HOOK} {state} --duplicate-last-bet"
    status, cert, output = _rows_of(tmp_path, url, env, hook)
    assert (status, cert["verdict"]) == (1, "non-compliant"), output[-3000:]
    assert cert["clauses"]["REG-INTR-01"]["status"] == "failed"
    assert "-again" in output  # the doubled bet is named in the finding


def test_without_a_hook_interrupted_games_are_not_tested_and_the_run_incomplete() -> None:
    target = {"type": "target", "url": "http://x", "max_rtp": {"sicbo": "97.22"}}
    others = [scenario(f"proves {c}", [c]) for c in IN_SCOPE["sicbo"] if c != "REG-INTR-01"]
    skipped = scenario("restart", ["REG-INTR-01"], "skipped", skip_reason=missing_reason("restart"))
    for said in ({"restart_hook": None}, {"restart_hook": "the lab's --restart-hook command"}, {}):
        cert = build_certificate([{**target, **said}, *others, skipped], ("sicbo",), {})
        row = cert["clauses"]["REG-INTR-01"]
        assert (row["status"], row["in_scope"]) == ("not-tested", True), row
        assert row["reason"] == "skipped: " + LAB_ABILITIES["restart"], row["reason"]
        assert "REG-INTR-01" in cert["scope"]["clauses_in_scope"]
        assert cert["verdict"] == "incomplete", said
        assert any("REG-INTR-01" in r for r in cert["verdict_reasons"]), cert["verdict_reasons"]
    assert LAB_ABILITIES["restart"] == (
        "no restart hook: give --restart-hook COMMAND or map a restart_target operation"
    )
    partial = build_certificate([target, skipped], ("sicbo",), {}, selected=("REG-INTR-01",))
    assert partial["verdict"] == "incomplete"  # never "compliant on the 0 selected clauses"


def test_a_scenario_needing_a_restart_says_how_to_give_one() -> None:
    reason = skip_reason(["restart"], ["restart"], None)
    assert reason and "--restart-hook" in reason and "restart_target" in reason
    both = skip_reason(["pause", "restart"], ["pause", "restart"], None)
    assert both and "'pause'" in both and "--restart-hook" in both


# -- the hook machinery ---------------------------------------------------------------------------


def test_a_command_hook_is_recorded_and_its_failures_are_restart_errors() -> None:
    recorder = ExchangeRecorder()
    CommandRestart(f"{sys.executable} -c \"print('back')\"", 10, recorder).restart()
    [done] = recorder.drain()
    assert (done.method, done.role, done.status, done.response_body.strip()) == (
        "RUN",
        "lab",
        0,
        "back",
    )
    assert done.as_curl() == f"{sys.executable} -c \"print('back')\""
    with pytest.raises(RestartError, match="exited 3"):
        CommandRestart(f"{sys.executable} -c 'exit(3)'", 10, recorder).restart()
    started = time.monotonic()
    with pytest.raises(RestartError, match=r"did not end within 0\.3 s"):
        CommandRestart(
            f"{sys.executable} -c 'import time; time.sleep(20)'", 0.3, recorder
        ).restart()
    assert time.monotonic() - started < 10
    with pytest.raises(RestartError, match="could not be run"):
        CommandRestart("/nonexistent/restart-it", 10, recorder).restart()
    assert [x.status for x in recorder.drain()] == [3, None, None]  # each attempt is evidence


def test_a_hook_that_leaves_the_server_running_in_the_background_returns_at_once() -> None:
    """A lab's hook typically starts the server and exits, the server keeping its output: the
    harness waits for the hook, not for every process it started."""
    recorder = ExchangeRecorder()
    started = time.monotonic()
    CommandRestart("sh -c 'sleep 30 & echo restarted'", 20, recorder).restart()
    assert time.monotonic() - started < 10
    [done] = recorder.drain()
    assert (done.status, done.response_body.strip()) == (0, "restarted")


def test_the_wait_after_a_restart_is_bounded_and_says_the_outage_it_saw() -> None:
    calls = []

    def comes_back() -> None:
        calls.append(1)
        if len(calls) < 3:
            raise TargetError("read the info", "cannot connect", connection_lost=True)

    seen = wait_until_answers(comes_back, 30, "the hook", sleep=lambda _: None)
    assert len(calls) == 3 and seen and "cannot connect" in seen
    assert wait_until_answers(lambda: None, 30, "the hook") is None  # up all along: no outage
    slow = iter([TargetError("read the info", "no answer within 5 s"), None])

    def slow_once() -> None:  # a timeout is not the target down: no outage seen
        error = next(slow)
        if error:
            raise error

    assert wait_until_answers(slow_once, 30, "the hook", sleep=lambda _: None) is None

    def never() -> None:
        raise TargetError("read the info", "cannot connect", connection_lost=True)

    with pytest.raises(RestartError, match=r"did not answer within 0\.05 s after the hook"):
        wait_until_answers(never, 0.05, "the hook", sleep=lambda _: time.sleep(0.01))

    def locked_out() -> None:
        raise CredentialsError("check the credentials", "401")

    with pytest.raises(RestartError, match="refuses the run's credentials"):
        wait_until_answers(locked_out, 30, "the hook", sleep=lambda _: None)


def test_an_answered_4xx_ends_the_wait_at_once() -> None:
    def unauthorised() -> None:
        raise TargetError("read the balance", "401 UNAUTHORIZED", answered=401)

    started = time.monotonic()
    with pytest.raises(RestartError, match="answered 401 to read the balance"):
        wait_until_answers(unauthorised, 30, "the hook", sleep=lambda _: time.sleep(0.01))
    assert time.monotonic() - started < 5


def test_a_mapping_restart_operation_answered_or_refused_is_a_restart_error() -> None:
    def refused() -> None:
        raise Refused("restart the target", 403, "FORBIDDEN", "no admin rights")

    with pytest.raises(RestartError, match="was refused"):
        OperationRestart(refused).restart()

    def fails() -> None:
        raise TargetError("restart the target", "500 INTERNAL", answered=500)

    with pytest.raises(RestartError, match="was answered 500"):
        OperationRestart(fails).restart()

    def drops_the_connection() -> None:  # the server going down under its own restart call
        raise TargetError("restart the target", "the connection broke", connection_lost=True)

    outage = OperationRestart(drops_the_connection).restart()
    assert outage and "connection broke" in outage  # the restart under way: an outage seen

    def times_out() -> None:
        raise TargetError("restart the target", "no answer within 5 s")

    assert OperationRestart(times_out).restart() is None  # slow is not down: nothing seen
    assert OperationRestart(lambda: None).restart() is None  # 2xx: nothing seen yet


def _info(**changed: object) -> TargetInfo:
    fields = dict(name="casino", version="1.0", contract_version="1.1.0", games=("sicbo",))
    fields |= dict(currency="EUR", minor_unit=2, rounding="down", max_rtp={}, capabilities=())
    return TargetInfo(**{**fields, **changed})  # type: ignore[arg-type]


def test_a_restart_counts_only_where_it_was_seen() -> None:
    before = _info(instance="a1")
    assert "'a1', now 'b2'" in observe_restart(before, _info(instance="b2"), None)
    with pytest.raises(Unsupported, match=r"the restart could not be observed: .*same instance"):
        observe_restart(before, _info(instance="a1"), "refused")  # the same process answers
    with pytest.raises(Unsupported, match=r"serve `instance` in /v1/info"):
        observe_restart(_info(), _info(), None)  # no instance, never seen down
    assert observe_restart(_info(), _info(), "connection refused") == "connection refused"
    for changed in ({"name": "other"}, {"version": "2.0"}, {"contract_version": "1.0.0"}):
        with pytest.raises(RestartError, match="another server answers"):
            observe_restart(before, _info(instance="b2", **changed), None)


def test_a_hooks_command_and_output_are_recorded_with_the_secrets_masked(monkeypatch) -> None:
    secret = "op-restart-secret-0123"
    SECRETS.register(secret, "$LIVECERT_OPERATOR_TOKEN")
    monkeypatch.setenv("THE_TOKEN", secret)
    recorder = ExchangeRecorder()
    hook = f"sh -c 'echo {secret} $THE_TOKEN; exit 3'"
    with pytest.raises(RestartError) as raised:
        CommandRestart(hook, 10, recorder).restart()
    [done] = recorder.drain()
    assert secret not in str(raised.value) and "$LIVECERT_OPERATOR_TOKEN" in str(raised.value)
    assert secret not in exchanges_as_text([done]) and secret not in done.as_curl()
    assert done.response_body.split() == 2 * ["$LIVECERT_OPERATOR_TOKEN"]


def test_a_restart_timeout_must_be_finite_and_above_zero() -> None:
    assert restart_timeout("2.5") == 2.5
    for bad in ("nan", "inf", "-inf", "0", "-1", "soon"):
        with pytest.raises(argparse.ArgumentTypeError, match="must be a number of seconds"):
            restart_timeout(bad)


def test_the_cli_refuses_a_restart_timeout_of_nan() -> None:
    done = livecert("certify", "--restart-timeout", "nan")
    assert done.returncode == 3, done.stderr  # a usage error, not the verdict incomplete
    assert "--restart-timeout='nan' (or LIVECERT_RESTART_TIMEOUT) must be a number of seconds" in (
        done.stderr
    )


def test_a_restart_hook_that_cannot_be_a_command_is_refused_before_the_run() -> None:
    assert hook_problem(None, lab_target=False) is None
    assert hook_problem("ssh lab 'systemctl restart casino'", lab_target=True) is None
    assert "cannot be split" in (hook_problem("ssh lab 'unclosed", lab_target=True) or "")
    assert "is empty" in (hook_problem("  ", lab_target=True) or "")
    assert "restarted by the harness itself" in (hook_problem("true", lab_target=False) or "")


def test_a_mappings_restart_target_operation_is_its_restart_hook() -> None:
    from test_mapping import BASE, scripted  # the mapping tests' target and base file

    # built as loaded, without the schema (compiling it costs seconds; tests/test_mapping.py
    # holds the operation name in it): the operator's key comes from the file's variable
    data = copy.deepcopy(BASE)
    request = {"method": "POST", "path": "/admin/restart"}
    data["operations"]["restart_target"] = {"role": "operator", "request": request}
    answers = iter([(200, {}, {}), (403, {}, {"error": {"code": "NO", "message": "not admin"}})])
    with scripted(lambda _request: next(answers)) as (url, seen):
        mapping = MappingFile(data, "restart.yaml", "0" * 64, variables={"api_key": "s3cret-key"})
        adapter = MappingAdapter(mapping, url, timeout=(2, 2))
        plain = MappingFile(copy.deepcopy(BASE), "plain.yaml", "0" * 64)
        assert adapter.can_restart() and not MappingAdapter(plain, url).can_restart()
        hook = OperationRestart(adapter.restart_target)
        hook.restart()
        with pytest.raises(RestartError, match="was refused"):
            hook.restart()
    assert [(s.method, s.path, s.headers["X-Api-Key"]) for s in seen] == 2 * [
        ("POST", "/admin/restart", "s3cret-key")
    ]
    assert "s3cret-key" not in exchanges_as_text(adapter.recorder.drain())


def test_a_mappings_info_operation_can_name_the_instance() -> None:
    """What a mapping offers to show the restart: an `instance` field of its info operation,
    read from an answer the vendor has (here a ping naming its process)."""
    from test_mapping import BASE, scripted

    data = copy.deepcopy(BASE)
    data["operations"]["info"] = {
        "request": {"method": "GET", "path": "/ping"},
        "answer": {"fields": {"version": "build", "instance": "process"}},
    }
    answers = iter([{"build": "7", "process": "p-1"}, {"build": "7", "process": "p-2"}])
    with scripted(lambda _request: (200, {}, next(answers))) as (url, _seen):
        adapter = MappingAdapter(MappingFile(data, "info.yaml", "0" * 64), url, timeout=(2, 2))
        before, after = adapter.info(), adapter.info()
    assert (before.instance, after.instance, before.version) == ("p-1", "p-2", "7")
    assert "'p-1', now 'p-2'" in observe_restart(before, after, None)


def test_only_a_refused_or_broken_connection_is_the_target_seen_down() -> None:
    """The adapter says which: a port nobody listens on is down; a server that accepts and
    never answers is slow, not down (a hook that restarts nothing on a slow target earns
    nothing)."""
    from livecert.adapters.http import HttpAdapter

    with pytest.raises(TargetError) as refused:
        HttpAdapter(f"http://127.0.0.1:{free_port()}", "op-token-x", "dl-token-x").info()
    assert refused.value.connection_lost and refused.value.answered is None
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        with pytest.raises(TargetError) as slow:
            HttpAdapter(url, "op-token-x", "dl-token-x", timeout=(0.5, 0.3)).info()
    assert not slow.value.connection_lost and slow.value.answered is None

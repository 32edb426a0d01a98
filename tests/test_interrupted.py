"""Interrupted games (REG-INTR-01, GLI-19 §4.16) on any target: the lab's restart hook is called
mid-round, and the scenarios (features/*/interruption.feature) judge the round black-box.

The embedded reference is restarted by the harness itself; `livecert certify` on it, and the
seeded faults `interrupted-round-lost` and `interrupted-bet-lost`, are run by the self-test like
any clause (tests/test_certify_faults.py). Here: a lab's --restart-hook command against a
reference the harness did not start, a hook that fails (incomplete, never a finding), a target
with no hook (not tested, outside the run's scope, with what to give), and the hook machinery.
"""

import contextlib
import copy
import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest
import requests
from cli_support import certify
from samples import scenario

from fixtures.options import restart_hook_problem
from livecert.adapters import Refused, TargetError
from livecert.adapters.errors import CredentialsError
from livecert.adapters.evidence import ExchangeRecorder, exchanges_as_text
from livecert.adapters.mapping import MappingAdapter
from livecert.adapters.mapping.document import MappingFile
from livecert.certify.certificate import build_certificate
from livecert.certify.scope import IN_SCOPE
from livecert.harness.capabilities import missing_reason, skip_reason
from livecert.harness.embedded import free_port
from livecert.harness.restart import (
    CommandRestart,
    OperationRestart,
    RestartError,
    wait_until_answers,
)

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
    exchanges = (tmp_path / "report" / "allure-results").glob("*-attachment.json")
    runs = [x for f in exchanges for x in json.loads(f.read_text()) if x["method"] == "RUN"]
    assert [(r["role"], r["status"], r["url"]) for r in runs] == [("lab", 0, hook)]
    record = (tmp_path / "report" / "run-record.jsonl").read_text()
    assert "op-restart-test" not in record and "dl-restart-test" not in record


def test_a_failing_hook_is_incomplete_never_a_finding(lab_reference, tmp_path) -> None:
    url, _state, env = lab_reference
    failing = f"{sys.executable} -c 'import sys; sys.exit(4)'"
    status, cert, output = _certify_lab(tmp_path / "report", url, env, "--restart-hook", failing)
    assert (status, cert["verdict"]) == (2, "incomplete"), output[-3000:]
    assert cert["clauses"]["REG-INTR-01"]["status"] == "not-tested"
    assert any("exited 4" in e for e in cert["harness_errors"]), cert["harness_errors"]


def test_without_a_hook_interrupted_games_are_outside_the_runs_scope_with_the_reason() -> None:
    target = {"type": "target", "url": "http://x", "max_rtp": {"sicbo": "97.22"}}
    others = [scenario(f"proves {c}", [c]) for c in IN_SCOPE["sicbo"] if c != "REG-INTR-01"]
    skipped = scenario("restart", ["REG-INTR-01"], "skipped", skip_reason=missing_reason("restart"))

    def certificate(restart_hook: dict) -> dict:
        return build_certificate([{**target, **restart_hook}, *others, skipped], ("sicbo",), {})

    without = certificate({"restart_hook": None})
    row = without["clauses"]["REG-INTR-01"]
    assert (row["status"], row["in_scope"]) == ("not-tested", False), row
    assert "--restart-hook" in row["reason"] and "restart_target" in row["reason"]
    assert "REG-INTR-01" in without["scope"]["clauses_outside_scope"]
    assert without["verdict"] == "compliant"  # on the clauses in scope, which the scope lists
    # with a hook the clause is in scope: not proven, the verdict is incomplete; so too for a
    # run record that does not say whether there was a hook (never compliant unproven)
    for said in ({"restart_hook": "the lab's --restart-hook command"}, {}):
        cert = certificate(said)
        assert "REG-INTR-01" in cert["scope"]["clauses_in_scope"]
        assert cert["verdict"] == "incomplete", said


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


def test_the_wait_after_a_restart_is_bounded() -> None:
    calls = []

    def comes_back() -> None:
        calls.append(1)
        if len(calls) < 3:
            raise TargetError("read the info", "cannot connect")

    wait_until_answers(comes_back, 30, "the hook", sleep=lambda _: None)
    assert len(calls) == 3

    def never() -> None:
        raise TargetError("read the info", "cannot connect")

    with pytest.raises(RestartError, match=r"did not answer within 0\.05 s after the hook"):
        wait_until_answers(never, 0.05, "the hook", sleep=lambda _: time.sleep(0.01))

    def locked_out() -> None:
        raise CredentialsError("check the credentials", "401")

    with pytest.raises(RestartError, match="refuses the run's credentials"):
        wait_until_answers(locked_out, 30, "the hook", sleep=lambda _: None)


def test_a_mapping_restart_operation_refused_is_a_restart_error() -> None:
    def refused() -> None:
        raise Refused("restart the target", 403, "FORBIDDEN", "no admin rights")

    with pytest.raises(RestartError, match="was refused"):
        OperationRestart(refused).restart()

    def drops_the_connection() -> None:  # the server going down under its own restart call
        raise TargetError("restart the target", "the connection broke")

    hook = OperationRestart(drops_the_connection)
    hook.restart()  # the wait that follows says whether it came back
    assert hook.broke and "connection broke" in hook.broke


def test_a_restart_hook_that_cannot_be_a_command_is_refused_before_the_run() -> None:
    assert restart_hook_problem(None) is None
    assert restart_hook_problem("ssh lab 'systemctl restart casino'") is None
    assert "cannot be split" in (restart_hook_problem("ssh lab 'unclosed") or "")
    assert "is empty" in (restart_hook_problem("  ") or "")


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

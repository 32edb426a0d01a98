"""A failed scenario's reproduction script runs as written against a fresh target: it makes its
own players and rounds, captures their ids and tokens as it goes, and meets the same defect."""

import json
import os
import subprocess
from pathlib import Path

import pytest
from cli_support import certify

from livecert.adapters.evidence import Exchange
from livecert.adapters.script import runnable_script
from livecert.harness.embedded import EmbeddedServer

FAULT = "bowl-touch-ignored"  # XD-VOID-02: the round is not cancelled when the bowl touches


def _exchange(seq, role, method, path, body, status, answer, key=None) -> Exchange:
    return Exchange(
        seq=seq, operation=f"step {seq}", role=role, method=method, url=f"http://run:1{path}",
        request_body=body, status=status, response_body=json.dumps(answer), elapsed_ms=1.0,
        idempotency_key=key,
    )  # fmt: skip


def test_ids_and_tokens_are_captured_and_written_as_variables_where_sent_later() -> None:
    exchanges = [
        _exchange(1, "operator", "POST", "/v1/players", '{"balance":"12.00"}', 201,
                  {"player_id": "p_old_1", "token": "$PLAYER_TOKEN[hmac:1a2b]"}),
        _exchange(2, "dealer", "POST", "/v1/tables/t_old_9/rounds", "{}", 201,
                  {"round_id": "r_old_5", "table_id": "t_old_9"}),
        _exchange(3, "player", "POST", "/v1/rounds/r_old_5/bets", '{"bets":[]}', 201,
                  {"bets": [{"bet_id": "b_old_7", "player_id": "p_old_1"}]}, key="k-1"),
    ]  # fmt: skip
    script = runnable_script(exchanges, "a title", "expected x\nsaw y", "http://run:1")
    assert 'PLAYER_1=$(printf "%s" "$ANSWER" | field player_id)' in script
    assert 'PLAYER_TOKEN_1=$(printf "%s" "$ANSWER" | field token)' in script
    assert '"$BASE"/v1/rounds/"${ROUND_1}"/bets' in script  # the run's round id, never sent
    assert '"Authorization: Bearer $PLAYER_TOKEN_1"' in script  # that player's own token
    assert '"Idempotency-Key: "k-1"-$RUN"' in script  # not answered from an earlier run
    assert "BET_1=$(" in script and "field bets.0.bet_id" in script
    assert "r_old_5" not in script.split("ROUND_1=")[1]  # written as the variable after
    assert '\'{"balance":"12.00"}\'' in script  # sent as it was


@pytest.fixture(scope="module")
def fault_report(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("script") / "run"
    status, certificate, output = certify(
        folder, "--no-html", "--game", "xocdia", "--clauses", "XD-VOID-02",
        "--reference-fault", FAULT,
    )  # fmt: skip
    assert status == 1, output
    return certificate


def test_the_saved_script_runs_as_written_and_meets_the_same_defect(
    fault_report: dict, tmp_path: Path
) -> None:
    [reproduction] = fault_report["reproductions"]
    script = tmp_path / "reproduce.sh"
    script.write_text(reproduction["script"], encoding="utf-8")
    assert (
        "$PLAYER_TOKEN[" not in reproduction["script"].split("set -eu")[1]
    )  # no masked token sent
    with EmbeddedServer(faults=(FAULT,)) as server:  # a fresh target: none of the run's ids
        env = {
            **os.environ,
            "LIVECERT_TARGET_URL": server.url,
            "LIVECERT_OPERATOR_TOKEN": server.operator_token,
            "LIVECERT_DEALER_TOKEN": server.dealer_token,
        }
        done = subprocess.run(["sh", str(script)], capture_output=True, text=True, env=env,
                              timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    recorded = [json.loads(x["response"]) for x in reproduction["exchanges"] if x["response"]]
    assert len(answers) == len(recorded)
    # the last answer shows the round in the state the run saw: not cancelled
    assert answers[-1].get("state") == recorded[-1].get("state") != "cancelled"


def test_nothing_a_target_chose_can_run_as_a_command_of_the_script(tmp_path: Path) -> None:
    """A mapping's request (not replayed, kept as a comment) whose path holds an id a hostile
    target chose with a newline in it, and a run's URL with shell in it: all stay text."""
    hostile = Exchange(
        seq=1, operation="open a round\ntouch INJECTED_OPERATION", role="dealer", method="POST",
        url="http://run:1/tables/T1\ntouch INJECTED_URL #/rounds", request_body=None,
        status=200, response_body="{}", elapsed_ms=1.0, headers={"X-Id": "a\ntouch INJECTED_H"},
    )  # fmt: skip
    text = runnable_script(
        [hostile], "title\ntouch INJECTED_TITLE", "said\r\ntouch INJECTED_SAID",
        'http://run:1/$(touch INJECTED_BASE)"`touch INJECTED_TICK`',
    )  # fmt: skip
    script = tmp_path / "s.sh"
    script.write_text(text, encoding="utf-8")
    subprocess.run(["sh", str(script)], cwd=tmp_path, capture_output=True, timeout=30, check=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sh"], text

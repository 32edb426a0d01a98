"""A failed scenario's reproduction script runs as written against a fresh target: it makes its
own players and rounds, captures their ids and tokens as it goes, and meets the same defect."""

import json
import os
import subprocess
from pathlib import Path

import pytest
from cli_support import certify
from hypothesis import given, settings
from hypothesis import strategies as st

from livecert.adapters.evidence import Exchange
from livecert.adapters.script import _automaton, _written, runnable_script
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


# word characters of two scripts, separators, and a lone surrogate (JSON's "\\ud800", which
# Python's reader keeps and the automaton cannot read: the regex finds those)
_ID_PIECES = st.text(alphabet="ab1_-.:/é٣ \ud800", min_size=1, max_size=6)


@settings(max_examples=400, deadline=None)
@given(
    values=st.lists(_ID_PIECES, min_size=1, max_size=6, unique=True),
    picks=st.lists(st.tuples(st.integers(0, 5), _ID_PIECES), max_size=8),
)
def test_ids_are_found_in_a_word_as_a_regex_of_whole_ids_finds_them(
    values: list[str], picks: list[tuple[int, str]]
) -> None:
    """Ids that contain one another, share ends, stand next to word characters, dots, spaces
    or other alphabets: each is written as its variable exactly where the regex alternation of
    the ids, longest first, between `(?<![\\w-])` and `(?![\\w-])`, writes it (the writer's
    own fallback, with no automaton)."""
    known = {value: f"ID_{index}" for index, value in enumerate(values)}
    text = "".join(values[index % len(values)] + between for index, between in picks)
    assert _written(text, known, _automaton(known)) == _written(text, known, None)


def test_the_longest_whole_id_at_a_place_wins_and_a_shorter_one_stands_in_when_it_is_cut() -> None:
    """Written by hand: what the automaton and the regex must both give."""
    known = {"a.b": "A", "a.b.c": "ABC", "tok-1": "T"}
    for automaton in (_automaton(known), None):
        assert _written("/x/a.b.c/y", known, automaton) == '/x/"${ABC}"/y'
        assert _written("a.b.cx", known, automaton) == '"${A}".cx'  # a.b.c runs on into x
        assert _written("tok-12 tok-1", known, automaton) == "'tok-12 '\"${T}\""


def test_a_lone_surrogate_in_an_id_or_a_word_is_still_written_as_its_variable() -> None:
    """A target's JSON may hold "\\ud800" (a lone surrogate, which Python's reader keeps) in
    an id or a body. ahocorasick-rs refuses such a text, and an automaton built with such an id
    finds nothing at all: the writer finds every id by the regex then."""
    ids = {"p-\ud800-1": "PLAYER_1", "r-0001": "ROUND_1"}
    assert _automaton(ids) is None  # built, it would not find r-0001 either
    word = "/v1/players/p-\ud800-1/rounds/r-0001"
    assert _written(word, ids, _automaton(ids)) == '/v1/players/"${PLAYER_1}"/rounds/"${ROUND_1}"'
    plain = {"r-0001": "ROUND_1"}
    assert _automaton(plain) is not None
    body = '{"note": "\udc00", "round": "r-0001"}'
    assert _written(body, plain, _automaton(plain)) == (
        '\'{"note": "\udc00", "round": "\'"${ROUND_1}"\'"}\''
    )

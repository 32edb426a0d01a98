"""Shapes a live table's mapping needs that a list-and-ids reading could not say: a one-bet
acknowledgement given as one object, a bet record of the caller's own that names no player, a
table that declares no maximum RTP, and a force hook naming its round's table. The complete
live-table example of docs/mapping.md is loaded here as written, so the copy vendors take loads.
"""

import copy
import json
import re
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest
import yaml

from livecert.adapters.errors import MappingAnswerError
from livecert.adapters.mapping import MappingAdapter, MappingError, load_mapping
from livecert.adapters.mapping.calls import Answer
from livecert.adapters.mapping.live_ops import LiveOperations
from livecert.adapters.model import PlayerHandle, TargetInfo
from livecert.harness.checks import CheckLedger
from livecert.harness.declarations import Declarations
from livecert.harness.findings import ClauseFailure
from livecert.harness.identity import IdentityFailure, IdentityGuard
from livecert.rules.paytable import load_paytable
from livecert.suite.fixtures.target import computed_max_rtp
from livecert.suite.steps.sweep import NO_DECLARED_MAX, RTP_DUTY, highest_is_declared

DOCS = Path(__file__).resolve().parents[1] / "docs" / "mapping.md"
EXAMPLE_TITLE = "### A complete live table, to copy"
ENVIRON = {"STUDIO_ACCOUNTS": "u1:pw1,u2:pw2", "STUDIO_LAB_KEY": "lab-key"}
PLAYER = PlayerHandle("p1", "token-of-p1")


def docs_example() -> dict:
    """The YAML block of docs/mapping.md's complete live-table example, parsed."""
    text = DOCS.read_text()
    section = text[text.index(EXAMPLE_TITLE) :]
    block = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert block is not None, "the example has no yaml block"
    return yaml.safe_load(block.group(1))


def load(tmp_path: Path, data: dict) -> Any:
    path = tmp_path / "mapping.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return load_mapping(path, environ=ENVIRON)


def over_http(data: dict) -> dict:
    """The example with its bets sent over HTTP (the same one-object acknowledgement), so the
    adapter's own place_bets reads it without a stream."""
    data = copy.deepcopy(data)
    place = data["operations"]["place_bets"]
    del place["emit"]
    place["request"] = {
        "method": "POST",
        "path": "/api/bet",
        "json": {"round": "${round_id}", "bets": "${bets}"},
    }
    return data


def adapter_answering(tmp_path: Path, data: dict, answers: dict[str, Any]) -> MappingAdapter:
    """An adapter whose every request is answered from `answers` by the operation's path."""
    adapter = MappingAdapter(load(tmp_path, data), "http://127.0.0.1:9")

    def perform(operation: str, spec: dict, setup: dict, values: dict, forced: Any) -> Answer:
        body = answers[spec["request"]["path"]]
        return Answer(body, body, "$", json.dumps(body))

    adapter._calls.perform = perform  # type: ignore[method-assign]
    adapter._reader.round_games["r1"] = "sicbo"
    return adapter


# -- the documented example loads ------------------------------------------------------------


def test_the_documented_live_table_loads_with_the_mapping_loader(tmp_path: Path) -> None:
    mapping = load(tmp_path, docs_example())
    assert [a.user for a in mapping.accounts] == ["u1", "u2"]
    hook = mapping.operation("enter_result")["before"][0]["request"]
    assert "${table_id}" in hook["path"]


# -- 1. a bet acknowledgement that is one object ---------------------------------------------


def test_a_one_bet_acknowledgement_given_as_one_object_is_a_list_of_one(tmp_path: Path) -> None:
    ack = {"ok": True, "bet": {"id": "b1", "selection": "BIG", "amount": 1000}}
    adapter = adapter_answering(tmp_path, over_http(docs_example()), {"/api/bet": ack})
    placed = adapter.place_bets(PLAYER, "r1", [("BIG", Decimal("10.00"))])
    assert [(b.bet_id, b.selection, b.stake) for b in placed] == [("b1", "BIG", Decimal("10.00"))]


def test_a_list_of_acknowledged_bets_still_reads_as_before(tmp_path: Path) -> None:
    ack = {"ok": True, "bet": [{"id": "b1", "selection": "BIG", "amount": 1000}]}
    adapter = adapter_answering(tmp_path, over_http(docs_example()), {"/api/bet": ack})
    placed = adapter.place_bets(PLAYER, "r1", [("BIG", Decimal("10.00"))])
    assert [b.bet_id for b in placed] == ["b1"]


@pytest.mark.parametrize("neither", [5, "b1", True])
def test_an_acknowledgement_neither_a_list_nor_an_object_names_its_path(
    tmp_path: Path, neither: Any
) -> None:
    adapter = adapter_answering(
        tmp_path, over_http(docs_example()), {"/api/bet": {"ok": True, "bet": neither}}
    )
    with pytest.raises(MappingAnswerError) as raised:
        adapter.place_bets(PLAYER, "r1", [("BIG", Decimal("10.00"))])
    assert "$.bet" in str(raised.value) and "a list" in str(raised.value)


def test_bets_keyed_by_id_are_not_misread_as_one_bet(tmp_path: Path) -> None:
    keyed = {"b1": {"id": "b1", "selection": "BIG", "amount": 1000}}
    adapter = adapter_answering(
        tmp_path, over_http(docs_example()), {"/api/bet": {"ok": True, "bet": keyed}}
    )
    with pytest.raises(MappingAnswerError) as raised:
        adapter.place_bets(PLAYER, "r1", [("BIG", Decimal("10.00"))])
    assert raised.value.path == "$.bet"
    assert "needs a list, or one object that the shape acked_bet reads" in raised.value.problem


# -- 2. the player's own bet record names no player ------------------------------------------


def _guarded(tmp_path: Path, data: dict, record: dict) -> IdentityGuard:
    """A guard over the adapter, the bet b1 placed by PLAYER in round r1 (so the record's
    bets are compared with the slip that created them)."""
    ack = {"ok": True, "bet": {"id": "b1", "selection": "BIG", "amount": 1000}}
    answers = {"/api/bet": ack, "/api/history": record}
    guard = IdentityGuard(adapter_answering(tmp_path, data, answers), contract=False)
    guard.place_bets(PLAYER, "r1", [("BIG", Decimal("10.00"))])
    return guard


OWN_BET = {"id": "b1", "round": "r1", "selection": "BIG", "amount": 1000, "status": "open"}


def test_a_record_naming_no_player_is_the_callers_own(tmp_path: Path) -> None:
    guard = _guarded(tmp_path, over_http(docs_example()), {"bets": [OWN_BET]})
    record = guard.bet_record(PLAYER, "r1")  # REG-RECALL-01's identity check holds
    assert record.player_id == PLAYER.player_id
    assert [b.player_id for b in record.bets] == [PLAYER.player_id]


def test_a_record_whose_top_names_another_player_is_still_compared(tmp_path: Path) -> None:
    data = over_http(docs_example())
    data["operations"]["bet_record"]["answer"]["fields"]["player_id"] = "owner"
    guard = _guarded(tmp_path, data, {"owner": "p2", "bets": [OWN_BET]})
    with pytest.raises(IdentityFailure) as raised:
        guard.bet_record(PLAYER, "r1")
    assert "the record is 'p2''s" in str(raised.value)
    assert list(raised.value.clauses) == ["REG-RECALL-01"]


def test_a_bet_that_names_another_player_is_still_compared(tmp_path: Path) -> None:
    data = over_http(docs_example())
    data["shapes"]["record_bet"]["player_id"] = "player"
    guard = _guarded(tmp_path, data, {"bets": [{**OWN_BET, "player": "p2"}]})
    with pytest.raises(IdentityFailure) as raised:
        guard.bet_record(PLAYER, "r1")
    assert "player_id 'p2'" in str(raised.value)


def test_a_bet_naming_no_player_in_a_round_is_unnamed_never_none(tmp_path: Path) -> None:
    adapter = adapter_answering(tmp_path, over_http(docs_example()), {})
    bet = adapter._reader.bet({"bet_id": "b1", "round_id": "r1", "selection": "BIG"})
    assert bet.player_id == ""


# -- 3. a table that declares no maximum RTP -------------------------------------------------


def test_a_mapping_may_leave_max_rtp_out_and_declares_none(tmp_path: Path) -> None:
    data = docs_example()
    del data["declares"]["max_rtp"]
    adapter = adapter_answering(tmp_path, data, {})
    info = adapter.info()
    assert info.max_rtp == {}  # never the rules' number passed off as the table's
    assert computed_max_rtp(info) == {"sicbo": load_paytable("sicbo").declared_max_rtp_percent}


def test_a_declared_max_rtp_is_kept_and_not_computed(tmp_path: Path) -> None:
    info = adapter_answering(tmp_path, docs_example(), {}).info()
    assert info.max_rtp == {"sicbo": Decimal("97.22")}
    assert computed_max_rtp(info) == {}


def _rtp_scene(declared: dict[str, Decimal]) -> SimpleNamespace:
    info = TargetInfo("t", "1", "mapping:x", ("sicbo",), "EUR", 2, "half-even", declared, ())
    clauses = ("SB-RTP-01", RTP_DUTY)
    return SimpleNamespace(
        game="sicbo",
        adapter=SimpleNamespace(),  # no mapping's selections: none held back
        target=SimpleNamespace(info=info, declared=Declarations(None)),  # nothing unread
        checks=CheckLedger(clauses),
        unproven={},
    )


class _Ledger:
    """A sweep that returned each selection's theoretical share (the paytable's own)."""

    returned: ClassVar[dict] = {(1, 2, 3): {}}

    def played(self, code: str) -> bool:
        return True

    def measured_rtp(self, code: str) -> Any:
        from livecert.rules import theoretical_rtp

        return theoretical_rtp(load_paytable("sicbo"), code)


def _judge_highest(scene: SimpleNamespace) -> None:
    facts = SimpleNamespace(write=lambda *args, **kwargs: None)
    stated = load_paytable("sicbo").declared_max_rtp_percent
    highest_is_declared(scene, stated, facts, {"sicbo": _Ledger()}, frozenset())  # type: ignore[arg-type]


def test_no_declared_maximum_leaves_the_declaration_check_not_testable() -> None:
    scene = _rtp_scene({})
    _judge_highest(scene)
    assert scene.checks.ran_for(RTP_DUTY) == 0  # nothing compared with the harness's own number
    assert scene.unproven[RTP_DUTY] == NO_DECLARED_MAX
    assert scene.checks.clauses["SB-RTP-01"].held == 1  # the measured maximum is still judged


def test_a_declared_maximum_is_still_compared() -> None:
    scene = _rtp_scene({"sicbo": Decimal("97.50")})
    with pytest.raises(ClauseFailure, match=r"declares 97\.50%"):
        _judge_highest(scene)
    assert scene.checks.clauses[RTP_DUTY].failures


# -- 4. a force hook naming its table --------------------------------------------------------


def test_table_id_is_refused_in_a_hook_of_an_operation_that_does_not_wait(tmp_path: Path) -> None:
    data = docs_example()
    del data["operations"]["enter_result"]["wait"]
    data["operations"]["enter_result"]["request"] = {"method": "POST", "path": "/x"}
    with pytest.raises(MappingError, match=r"\$\{table_id\} names nothing"):
        load(tmp_path, data)


class _WaitingTable(LiveOperations):
    """The live operations over a stream that knows round r1 was opened at table sicbo-1."""

    def __init__(self, mapping: Any) -> None:
        self.mapping, self._forced = mapping, None
        self.hooked: list[dict] = []
        self._calls = SimpleNamespace(hooks=lambda op, spec, when, v: self.hooked.append(v))
        self._reader = SimpleNamespace(rounds_seen=set())
        self._live = SimpleNamespace(  # type: ignore[assignment]
            view=lambda round_id: SimpleNamespace(table_id="sicbo-1"),
            settled=lambda round_id: "settled",
        )


def test_a_force_hook_is_given_its_rounds_table(tmp_path: Path) -> None:
    table = _WaitingTable(load(tmp_path, docs_example()))
    values = {"round_id": "r1", "game": "sicbo", "dice": [1, 2, 3]}
    assert table._waited("enter_result", "enter the result", values) == "settled"
    assert table.hooked[0]["table_id"] == "sicbo-1"


# -- a round-opening hook runs once the table's stream is joined ------------------------------


def test_a_hook_that_opens_a_round_runs_after_the_tables_stream_is_joined(tmp_path: Path) -> None:
    """A `before` hook that makes the table open a round (a deal, a start) runs only once the
    table's stream is joined, and the wait for the round starts from the log as it was before
    the hook: a round pushed while the hook runs is not missed."""
    data = docs_example()
    data["operations"]["open_round"]["before"] = [
        {"role": "operator", "request": {"method": "POST", "path": "/deal"}}
    ]
    done: list[str] = []
    table = _WaitingTable(load(tmp_path, data))
    table._calls = SimpleNamespace(hooks=lambda op, spec, when, v: done.append(f"hook {when}"))

    def joined_mark(table_id: str, game: str | None) -> int:
        done.append(f"joined {table_id}")
        return 41  # the log's mark before the hook

    def next_round(table_id: str, game: str | None, known: frozenset, after: int | None = None):
        done.append(f"waited from {after}")
        return "opened"

    table._live.joined_mark, table._live.next_round = joined_mark, next_round  # type: ignore[union-attr]
    values = {"table_id": "sicbo-1", "game": "sicbo"}
    assert table._waited("open_round", "open a round", values) == "opened"
    assert done[:3] == ["joined sicbo-1", "hook before", "waited from 41"]

"""The mapping adapter, feature by feature, against a scriptable loopback server.

Each test writes a small mapping file, answers the adapter's requests with a script, and checks
both what was sent (paths, forms, JSON, headers) and what the harness read back. The example
vendor server covers the whole flow (tests/test_vendor_server.py); these cover what it does not
use: bearer and API-key headers, JSON numbers, enum-plus-payload selections, one request per bet,
polling until a state, re-login on 401, colour names, locale amounts without decimals, net amounts,
and the clear errors of a broken mapping or target.
"""

import copy
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
import yaml

from livecert.adapters import PlayerHandle, Refused, TargetError
from livecert.adapters.errors import CredentialsError, MappingAnswerError, Unsupported
from livecert.adapters.evidence import exchanges_as_text
from livecert.adapters.mapping import MappingAdapter, MappingError, load_mapping
from livecert.adapters.mapping.document import OPERATION_CONTEXT
from livecert.adapters.mapping.names import ACCOUNT_LOGIN, PLAYER, TemplateNames
from livecert.adapters.secrets import SECRETS


@dataclass
class Seen:
    method: str
    path: str
    query: dict
    headers: dict
    body: str


Script = Callable[[Seen], tuple[int, dict, object]]


@contextmanager
def scripted(script: Script) -> Iterator[tuple[str, list[Seen]]]:
    """A loopback server answering each request with script(request); yields (url, requests)."""
    seen: list[Seen] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode()
            parts = urlsplit(self.path)
            request = Seen(
                self.command, parts.path, dict(parse_qsl(parts.query)), dict(self.headers), body
            )
            seen.append(request)
            status, headers, answer = script(request)
            payload = answer.encode() if isinstance(answer, str) else json.dumps(answer).encode()
            self.send_response(status)
            for name, value in {"Content-Type": "application/json", **headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_DELETE = _serve

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


ROUND = {"shape": "round"}
BASE: dict = {
    "mapping": 1,
    "name": "Test API",
    "declares": {
        "games": ["sicbo", "xocdia"],
        "currency": "EUR",
        "minor_unit": 2,
        "rounding": "down",
        "max_rtp": {"sicbo": "97.22", "xocdia": "98.75"},
        "capabilities": ["batch-bets"],
    },
    "variables": {"api_key": {"env": "TEST_API_KEY"}},
    "roles": {
        "operator": {"headers": {"X-Api-Key": "${vars.api_key}"}},
        "dealer": {"headers": {"Authorization": "Bearer ${vars.api_key}"}},
        "player": {"headers": {"Authorization": "Bearer ${player.token}"}},
    },
    "money": {"scale": "units", "format": "number"},
    "outcomes": {"red": "red", "white": "white"},
    "selections": {
        "sicbo": {"BIG": "big", "TOTAL_{t}": {"type": "total", "value": "{t}"}, "PAIR_{n}": None},
        "xocdia": {"EVEN": "even"},
    },
    "values": {"state": {"open": "betting", "closed": "closed", "done": "settled"}},
    "shapes": {
        "bet": {
            "bet_id": "id",
            "round_id": "round",
            "player_id": "player",
            "selection": {"path": "pick", "as": "selection"},
            "stake": {"path": "amount", "as": "money"},
            "status": "status",
            "outcome": "outcome",
            "net": {"path": "net", "as": "money"},
        },
        "round": {
            "round_id": "id",
            "table_id": "table",
            "game": "game",
            "state": {"path": "state", "values": "state"},
            "result": {"as": "result", "dice": "dice", "tokens": "tokens"},
            "bets": {"path": "bets", "shape": "bet"},
        },
    },
    "operations": {
        "create_player": {
            "role": "operator",
            "request": {"method": "POST", "path": "/players", "json": {"cash": "${balance}"}},
            "answer": {"fields": {"player_id": "id", "token": "key"}},
        },
        "create_table": {
            "role": "operator",
            "request": {"method": "POST", "path": "/tables", "json": {"game": "${game}"}},
            "answer": {"fields": {"table_id": "id"}},
        },
        "open_round": {
            "role": "dealer",
            "request": {"method": "POST", "path": "/tables/${table_id}/rounds"},
            "answer": ROUND,
        },
        "close_betting": {
            "role": "dealer",
            "request": {"method": "POST", "path": "/rounds/${round_id}/close"},
            "answer": ROUND,
        },
        "place_bets": {
            "role": "player",
            "request": {
                "method": "POST",
                "path": "/rounds/${round_id}/bets",
                "json": {
                    "bets": {
                        "each": "bets",
                        "as": "b",
                        "item": {"pick": "${b.selection}", "amount": "${b.stake}"},
                    }
                },
            },
            "answer": {"fields": {"bets": {"path": "bets", "shape": "bet"}}},
        },
        "enter_result": {
            "role": "dealer",
            "request": {
                "method": "POST",
                "path": "/rounds/${round_id}/result",
                "json": {"dice": "${dice|join(-)}", "tokens": "${tokens}"},
            },
            "answer": ROUND,
        },
        "get_round": {
            "role": "dealer",
            "request": {"method": "GET", "path": "/rounds/${round_id}"},
            "answer": ROUND,
        },
        "balance": {
            "role": "player",
            "request": {"method": "GET", "path": "/wallet"},
            "answer": {"fields": {"balance": {"path": "cash", "as": "money"}}},
        },
    },
}


def mapping_file(tmp_path: Path, change: Callable[[dict], None] | None = None) -> Path:
    data = copy.deepcopy(BASE)
    if change:
        change(data)
    path = tmp_path / "mapping.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_API_KEY", "s3cret-key")


def load_problems(tmp_path: Path, change: Callable[[dict], None]) -> list[str]:
    """What the loader says is wrong with the base mapping once `change` is made to it."""
    with pytest.raises(MappingError) as raised:
        load_mapping(mapping_file(tmp_path, change))
    return raised.value.problems


def adapter_for(tmp_path: Path, url: str, change=None) -> MappingAdapter:
    return MappingAdapter(load_mapping(mapping_file(tmp_path, change)), url, timeout=(2, 2))


def a_round(state: str = "open", **more: object) -> dict:
    """A round as the test target answers it: every path the mapping reads is there."""
    answer = {"id": "r1", "table": "t1", "game": "sicbo", "state": state, "bets": []}
    return {**answer, "dice": None, "tokens": None, **more}


# -- the mapping file itself ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda d: d.update(colour="red"), "(top level): must not contain {'colour'}"),
        (  # YAML's "\\ud800": no request could carry it
            lambda d: d["operations"]["get_round"]["request"].update(path="/rounds/\ud800"),
            "operations.get_round.request.path: holds a lone surrogate",
        ),
        (
            lambda d: d["operations"]["get_round"]["request"].update(method="FETCH"),
            "operations.get_round.request.method",
        ),
        (lambda d: d["operations"].pop("balance"), "operations.balance: missing"),
        (
            lambda d: d["operations"].pop("close_betting"),
            "operations.close_betting: missing (a live round needs all of open_round, "
            "close_betting, place_bets, get_round; a target that plays instant rounds only maps "
            "none of them",
        ),
        (
            lambda d: d["declares"]["capabilities"].append("pause"),
            "'pause' needs operations.pause_round",
        ),
        (
            lambda d: d["variables"].update(other={"env": "LIVECERT_NOT_SET_ANYWHERE"}),
            "LIVECERT_NOT_SET_ANYWHERE is not set",
        ),
        (
            lambda d: d["shapes"]["round"].update(state={"path": "state", "values": "nope"}),
            "no value table named 'nope'",
        ),
        (lambda d: d["shapes"]["bet"].update(stake={"path": "a..b"}), "cannot read the path"),
        (lambda d: d["selections"].pop("xocdia"), "selections.xocdia: missing"),
        (
            lambda d: d["roles"].update(dealer={"session": "studio"}),
            "roles.dealer.session: no session named 'studio'",
        ),
        (
            lambda d: d["operations"]["get_round"]["request"].update(path="/rounds/${round}"),
            "operations.get_round.request.path: ${round} names nothing this operation has",
        ),
        (
            lambda d: d["roles"]["dealer"].update(headers={"X-Key": "${vars.dealer_key}"}),
            "roles.dealer.X-Key: ${vars.dealer_key} names no variable 'dealer_key'",
        ),
        (
            lambda d: d["operations"]["place_bets"]["request"]["json"]["bets"].update(
                item={"pick": "${bet.selection}"}
            ),
            "${bet.selection} names nothing this operation has",
        ),
        (
            lambda d: d["roles"]["player"].update(headers={"X-Key": "${player.tokn}"}),
            "roles.player.X-Key: ${player.tokn} names nothing player has",
        ),
        (
            lambda d: d["roles"]["dealer"].update(headers={"X-Key": "${vars.api_key.x}"}),
            "roles.dealer.X-Key: ${vars.api_key.x} names a part 'x' of vars.api_key",
        ),
        (
            lambda d: d["operations"]["get_round"]["request"].update(path="/r/${round_id.id}"),
            "operations.get_round.request.path: ${round_id.id} names a part 'id' of round_id",
        ),
        (
            lambda d: d["operations"]["get_round"]["request"].update(path="/r/${captured.sid}"),
            "operations.get_round.request.path: ${captured.sid} names nothing a capture: of "
            "the mapping fills",
        ),
        (
            lambda d: d["operations"]["create_table"]["request"].update(json={"g": "${game|up}"}),
            "operations.create_table.request.json.g: ${game|up} uses an unknown filter 'up'",
        ),
        (
            lambda d: d["operations"]["place_bets"]["request"]["json"]["bets"].update(
                each="player"
            ),
            "operations.place_bets.request.json.bets.each: player is a player, not a list",
        ),
        (
            lambda d: d["operations"]["balance"].update(answer={"fields": {"cash": "cash"}}),
            "operations.balance.answer.fields: reads no balance",
        ),
    ],
)
def test_a_broken_mapping_file_is_refused_naming_where(
    tmp_path: Path, change: Callable[[dict], None], problem: str
) -> None:
    with pytest.raises(MappingError) as raised:
        load_mapping(mapping_file(tmp_path, change))
    assert problem in str(raised.value)
    assert "mapping.yaml" in str(raised.value)


def _slip_item(item: dict) -> Callable[[dict], None]:
    """The place_bets slip written with `each: bets, as: bet` and `item`."""

    def change(data: dict) -> None:
        data["operations"]["place_bets"]["request"]["json"]["bets"] = {
            "each": "bets",
            "as": "bet",
            "item": item,
        }

    return change


def test_a_misspelt_part_of_a_bet_is_refused_at_load_with_its_place(tmp_path: Path) -> None:
    """Only the name's first part was checked: `${bet.stak}` passed the load and failed the
    run at the first bet."""
    misspelt = _slip_item({"pick": "${bet.selection}", "amount": "${bet.stak}"})
    with pytest.raises(MappingError) as raised:
        load_mapping(mapping_file(tmp_path, misspelt))
    [problem] = raised.value.problems
    assert problem.startswith("operations.place_bets.request.json.bets.item.amount: ${bet.stak}")
    assert problem.endswith("it has: code, selection, stake)")  # what it could be


def test_what_each_name_holds_is_what_the_adapter_gives(tmp_path: Path) -> None:
    """The loader's idea of a player and of a slip's bet, held to what the adapter fills."""
    assert {f.name for f in fields(PlayerHandle)} == set(PLAYER.parts)
    adapter = adapter_for(tmp_path, "http://127.0.0.1:9")
    [item] = adapter._wire_slip("sicbo", [("BIG", Decimal(1))])
    slip = TemplateNames(BASE).names["bets"].items
    assert slip is not None and set(item) == set(slip.parts)


def test_correct_deep_names_load(tmp_path: Path) -> None:
    def deep(data: dict) -> None:
        _slip_item(
            {
                "kind": "${bet.selection.type}",  # TOTAL_{t} is sent as {type: total, ...}
                "value": "${bet.selection.value}",
                "ours": "${bet.code}",
                "amount": "${bet.stake|money}",
            }
        )(data)
        data["operations"]["create_player"]["capture"] = {"session": "$.session"}
        data["operations"]["balance"]["request"]["query"] = {
            "who": "${player.player_id}",
            "sid": "${captured.session.id}",  # a captured value holds whatever the answer had
        }

    mapping = load_mapping(mapping_file(tmp_path, deep))
    assert mapping.operation("place_bets")["request"]["json"]["bets"]["as"] == "bet"


def test_the_shipped_vendor_mapping_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAOMAI_OPS_PASSWORD", "ops")
    monkeypatch.setenv("SAOMAI_STUDIO_PASSWORD", "studio")
    vendor = Path(__file__).resolve().parent.parent / "examples" / "vendor_server" / "mapping.yaml"
    assert load_mapping(vendor).name == "Sao Mai Studio API v2"


def test_an_instant_only_mapping_loads_and_its_live_operations_are_not_testable(
    tmp_path: Path,
) -> None:
    def instant_only(data: dict) -> None:
        for name in ("open_round", "close_betting", "place_bets", "get_round", "enter_result"):
            data["operations"].pop(name)
        data["declares"]["capabilities"] = ["instant-round"]
        data["operations"]["play_round"] = {
            "role": "player",
            "request": {"method": "POST", "path": "/instant", "json": {"dice": "${dice}"}},
            "answer": ROUND,
        }

    adapter = adapter_for(tmp_path, "http://127.0.0.1:9", instant_only)
    with pytest.raises(Unsupported, match="plays instant rounds only") as raised:
        adapter.open_round("t1")
    # the skip reason names the live-round operations the mapping lacks
    assert "its mapping has no open_round, close_betting, place_bets, get_round" in str(
        raised.value
    )
    with pytest.raises(Unsupported, match="cannot be told a live round's result"):
        adapter.enter_result("r1", (1, 2, 3))


def test_each_operation_is_given_exactly_the_names_its_templates_may_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loader checks every `${name}` against OPERATION_CONTEXT; the adapter fills templates
    from the values each method passes. The two lists are kept in two places, so this holds
    them together: a name allowed but never given would pass the load and fail mid-run."""
    given: dict[str, set[str]] = {}
    calls: list[str] = []

    def record(self, name: str, operation: str, values: dict, none_yet: bool = False) -> dict:
        given[name] = set(values)
        calls.append(name)
        token = f"k{len(calls)}"  # each login its own session
        answer = {"round_id": "r1", "table_id": "t1", "player_id": "p1", "token": token}
        return {**answer, "state": "betting", "balance": Decimal("1"), "bets": []}

    def everything(data: dict) -> None:
        for name in OPERATION_CONTEXT:
            data["operations"].setdefault(name, {"request": {"method": "GET", "path": "/x"}})
        data["declares"]["capabilities"] = ["instant-round"]
        history = {"rounds": {"path": "rounds", "shape": "history_round"}, "next": "next"}
        data["operations"]["round_history"]["answer"] = {"fields": history}
        data["shapes"]["history_round"] = {"round_id": "id", "state": "state", "time": "at"}
        data["shapes"]["history_round"]["result"] = {"as": "result", "dice": "dice"}

    monkeypatch.setattr(MappingAdapter, "_run", record)
    adapter = adapter_for(tmp_path, "http://127.0.0.1:9", everything)
    player = PlayerHandle("p1", "k")
    adapter.info()
    adapter.create_player(Decimal("10.00"))
    adapter.create_table("sicbo")
    adapter.open_round("t1", 800)
    adapter.close_betting("r1")
    adapter.get_round("r1")
    adapter.get_round("r1", player)
    for action in ("pause", "resume", "cancel", "void"):
        adapter.dealer_action("r1", action, "a reason")
    adapter.record_reshake("r1", "a die on its edge")
    adapter.record_event("r1", "bowl_opened")
    adapter.enter_result("r1", (1, 2, 3))
    adapter.place_bets(player, "r1", [("BIG", Decimal("1.00"))], "key-1")
    adapter.balance(player)
    adapter.connect(player)
    adapter.disconnect(player)
    adapter.withdraw_bet(player, "b1")
    adapter.bet_record(player, "r1")
    adapter.statistics("t1")
    adapter.restart_target()
    adapter.play_round(player, "t1", [("BIG", Decimal("1.00"))], (1, 2, 3))
    adapter.round_history("t1", "c1", 10)
    # where the file lists accounts: create_player is a login of one, and a session ends
    monkeypatch.setenv("LENT_ACCOUNTS", "alice:pw")
    lent = adapter_for(
        tmp_path,
        "http://127.0.0.1:9",
        lambda d: (
            everything(d),
            d.update(accounts={"env": "LENT_ACCOUNTS", "logins_at_once": 2}),
            d["operations"]["create_player"]["request"].update(json={"u": "${account.user}"}),
        ),
    )
    normal = given.pop("create_player")
    lent.expired_credential(lent.create_player(Decimal("1.00")))
    assert given.pop("create_player") == ACCOUNT_LOGIN
    given["create_player"] = normal
    assert set(given) == set(OPERATION_CONTEXT)
    differ = [
        f"{name}: given {sorted(given[name])}, allowed {sorted(OPERATION_CONTEXT[name])}"
        for name in sorted(given)
        if given[name] != OPERATION_CONTEXT[name]
    ]
    assert not differ, "\n".join(differ)


def test_a_mapping_file_that_is_not_yaml_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("mapping: [1\n", encoding="utf-8")
    with pytest.raises(MappingError, match="not valid YAML"):
        load_mapping(path)


# -- requests and answers ------------------------------------------------------------------------


def test_headers_json_numbers_and_captured_credentials(tmp_path: Path) -> None:
    def script(request: Seen):
        if request.path == "/players":
            return 200, {}, {"id": 7, "key": "player-key"}
        return 200, {}, {"cash": 10.5}

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url)
        player = adapter.create_player(Decimal("10.50"))
        balance = adapter.balance(player)
    assert player == PlayerHandle("7", "player-key")
    assert seen[0].headers["X-Api-Key"] == "s3cret-key"
    assert seen[0].body == '{"cash":10.50}'  # an exact JSON number, never through float
    assert seen[1].headers["Authorization"] == "Bearer player-key"
    assert balance == Decimal("10.5") and isinstance(balance, Decimal)


def test_a_player_key_holding_a_lone_surrogate_is_a_target_error_and_stays_masked(
    tmp_path: Path,
) -> None:
    """JSON's "\\ud800" in the key an answer gives a player: not valid Unicode, so it can be
    sent nowhere. The key is masked (registered first) and the error names only the character."""

    def script(request: Seen):
        return 200, {}, '{"id": 7, "key": "player-key-4f2a\\ud800"}'  # the JSON as written

    with scripted(script) as (url, _seen):
        adapter = adapter_for(tmp_path, url)
        with pytest.raises(TargetError) as raised:
            adapter.create_player(Decimal("10.50"))
    assert "lone surrogate" in str(raised.value) and "4f2a" not in str(raised.value)
    assert "4f2a" not in SECRETS.mask('{"key": "player-key-4f2a\\ud800"}')


def test_an_id_holding_a_lone_surrogate_is_the_target_s_error_when_sent_back(
    tmp_path: Path,
) -> None:
    """JSON's "\\ud800" in a round's id (read as it is): not valid Unicode, so no URL, query,
    form or header can carry it back. Sending it would stop the run on an encoding error, the
    harness's fault in the certificate; it is the target's error naming the character, and
    nothing is sent."""
    odd = '"r1\\ud800"'  # the JSON as written

    def script(request: Seen):
        return 200, {}, json.dumps(a_round()).replace('"r1"', odd)

    def by_query(data: dict) -> None:  # the round's id sent back in a query and a form
        data["operations"]["get_round"]["request"] = {
            "method": "POST", "path": "/round", "query": {"id": "${round_id}"},
        }  # fmt: skip
        data["operations"]["close_betting"]["request"] = {
            "method": "POST", "path": "/close", "form": {"round": "${round_id}"},
        }  # fmt: skip

    def by_header(data: dict) -> None:  # the round's id sent back in a header only
        for operation, path in (("get_round", "/round"), ("close_betting", "/close")):
            data["operations"][operation]["request"] = {
                "method": "POST", "path": path, "headers": {"X-Round": "${round_id}"},
            }  # fmt: skip

    for change in (None, by_query, by_header):
        with scripted(script) as (url, seen):
            adapter = adapter_for(tmp_path, url, change)
            shown = adapter.open_round("t1")
            assert shown.round_id == "r1\ud800"
            for action in (adapter.get_round, adapter.close_betting):
                with pytest.raises(TargetError) as raised:
                    action(shown.round_id)
                assert "would carry \\ud800" in str(raised.value)
                if change is by_header:
                    assert "header X-Round would carry \\ud800" in str(raised.value)
                elif action == adapter.get_round:  # the request as it would go, shown visibly
                    assert "r1\\ud800" in str(raised.value)
        assert len(seen) == 1  # the round opened; nothing was sent back


def test_an_id_a_header_cannot_carry_is_the_target_s_error_when_sent_back(tmp_path: Path) -> None:
    """A round's id past Latin-1, which a header cannot carry (it stopped the run with requests'
    own encoding error): the target's error naming the header and the character."""

    def script(request: Seen):
        return 200, {}, {**a_round(), "id": "r-\u5f20"}

    def by_header(data: dict) -> None:
        data["operations"]["get_round"]["request"]["headers"] = {"X-Round": "${round_id}"}

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, by_header)
        shown = adapter.open_round("t1")
        with pytest.raises(TargetError, match="header X-Round would carry \u5f20, which a header"):
            adapter.get_round(shown.round_id)
    assert len(seen) == 1


def test_a_variable_holding_a_byte_that_is_not_utf8_is_the_lab_s_to_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python reads a byte that is not UTF-8 in the environment as a lone surrogate: a request
    could not carry it, and the run would name it the target's. The file is refused at load,
    naming the variable and the byte."""
    monkeypatch.setenv("TEST_API_KEY", "s3cret-\udc80")
    with pytest.raises(MappingError) as raised:
        load_mapping(mapping_file(tmp_path))
    assert raised.value.problems == [
        "variables.api_key: the environment variable TEST_API_KEY holds the byte 0x80, which is "
        "not UTF-8: no request can carry it"
    ]


def test_selections_translate_both_ways_and_a_missing_one_is_not_offered(tmp_path: Path) -> None:
    def script(request: Seen):
        if request.path.endswith("/bets"):
            sent = json.loads(request.body)["bets"]
            bets = [
                {"id": f"b{i}", "round": "r1", "player": "7", "status": "open", **bet}
                for i, bet in enumerate(sent)
            ]
            return 200, {}, {"bets": bets}
        return 200, {}, a_round()

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url)
        adapter.open_round("t1")
        player = PlayerHandle("7", "k")
        placed = adapter.place_bets(player, "r1", [("BIG", Decimal("1")), ("TOTAL_10", Decimal(2))])
        with pytest.raises(Unsupported, match="does not offer the selection PAIR_3"):
            adapter.place_bets(player, "r1", [("PAIR_3", Decimal("1"))])
    assert json.loads(seen[1].body)["bets"] == [
        {"pick": "big", "amount": 1},
        {"pick": {"type": "total", "value": 10}, "amount": 2},
    ]
    assert [b.selection for b in placed] == ["BIG", "TOTAL_10"]
    assert len(seen) == 2  # the selection not offered was never sent


def test_without_batch_bets_each_bet_is_its_own_request(tmp_path: Path) -> None:
    def script(request: Seen):
        if request.path.endswith("/bets"):
            return 200, {}, {"bets": []}
        return 200, {}, a_round()

    def one_per_bet(data: dict) -> None:
        data["declares"]["capabilities"] = []

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, one_per_bet)
        adapter.open_round("t1")
        adapter.place_bets(PlayerHandle("7", "k"), "r1", [("BIG", Decimal(1)), ("BIG", Decimal(2))])
        with pytest.raises(Unsupported):
            adapter.place_bets(PlayerHandle("7", "k"), "r1", [])
    assert [len(json.loads(s.body)["bets"]) for s in seen[1:]] == [1, 1]


def test_success_is_the_predicate_not_the_status(tmp_path: Path) -> None:
    def predicate(data: dict) -> None:
        data["responses"] = {
            "success": {"path": "$.ok", "equals": True},
            "data": "$.data",
            "error": {"code": "$.err.no", "message": "$.err.text"},
        }

    def script(request: Seen):
        if request.path == "/tables":
            return 200, {}, {"ok": False, "err": {"no": 4711, "text": "table limit reached"}}
        return 200, {}, {"ok": True, "data": {"id": 1, "key": "k"}}

    with scripted(script) as (url, _):
        adapter = adapter_for(tmp_path, url, predicate)
        assert adapter.create_player(Decimal(1)).player_id == "1"
        with pytest.raises(Refused) as refused:
            adapter.create_table("sicbo")
    assert (refused.value.status, refused.value.code) == (200, "4711")
    assert refused.value.message == "table limit reached"


@pytest.mark.parametrize(
    ("status", "headers", "body", "words"),
    [
        (500, {}, {"error": "boom"}, "answered 500"),
        (200, {"Content-Type": "text/html"}, "<b>Warning</b>: mysql_connect()", "not JSON"),
        (302, {"Location": "/maintenance.html"}, "", "redirecting to '/maintenance.html'"),
    ],
)
def test_a_broken_answer_is_a_target_error_naming_the_operation(
    tmp_path: Path, status: int, headers: dict, body: object, words: str
) -> None:
    with scripted(lambda _: (status, headers, body)) as (url, _):
        adapter = adapter_for(tmp_path, url)
        with pytest.raises(TargetError) as raised:
            adapter.create_table("sicbo")
    assert raised.value.operation == "create a sicbo table"
    assert words in str(raised.value) and "POST" in raised.value.request


@pytest.mark.timing
def test_a_target_that_hangs_past_the_timeout_is_a_target_error(tmp_path: Path) -> None:
    def slow(_: Seen):
        time.sleep(2)
        return 200, {}, {"id": 1}

    with scripted(slow) as (url, _):
        adapter = MappingAdapter(load_mapping(mapping_file(tmp_path)), url, timeout=(1, 0.3))
        started = time.monotonic()
        with pytest.raises(TargetError, match=r"no answer within 0.3 s"):
            adapter.create_table("sicbo")
    assert time.monotonic() - started < 1.9


def test_polling_until_the_round_reaches_a_state(tmp_path: Path) -> None:
    reads = []

    def script(request: Seen):
        if request.method == "GET":
            reads.append(1)
            return 200, {}, a_round("closed" if len(reads) >= 3 else "closing")
        return 200, {}, a_round("closing")

    def poll(data: dict) -> None:
        data["operations"]["close_betting"]["poll"] = {
            "until": {"state": ["closed"]},
            "interval_ms": 5,
            "timeout_ms": 2000,
        }

    with scripted(script) as (url, _):
        adapter = adapter_for(tmp_path, url, poll)
        assert adapter.close_betting("r1").state == "closed"
    assert len(reads) == 3


def test_polling_gives_up_with_a_target_error(tmp_path: Path) -> None:
    def poll(data: dict) -> None:
        data["operations"]["close_betting"]["poll"] = {
            "while": {"state": ["closing"]},
            "interval_ms": 5,
            "timeout_ms": 50,
        }

    with scripted(lambda _: (200, {}, a_round("closing"))) as (url, _):
        adapter = adapter_for(tmp_path, url, poll)
        with pytest.raises(TargetError, match="stayed 'closing' for 50 ms"):
            adapter.close_betting("r1")


def _table_opens_its_own_rounds(data: dict) -> None:
    """A table that opens rounds on its own: "open a round" reads its current round until one
    the run has not met yet is taking bets."""
    data["operations"]["open_round"] = {
        "role": "dealer",
        "request": {"method": "GET", "path": "/tables/${table_id}/current"},
        "answer": ROUND,
        "poll": {
            "new_round": True,
            "until": {"state": ["betting"]},
            "interval_ms": 5,
            "timeout_ms": 2000,
        },
    }


def test_a_hook_secret_that_is_no_capture_is_the_only_problem_named(tmp_path: Path) -> None:
    """The check of a command hook's secrets must not lose which operation polls (the loop's
    name once overwrote it, adding a false "only open_round waits" and "no operation")."""

    def with_hook(data: dict) -> None:
        _table_opens_its_own_rounds(data)
        data["operations"]["open_round"]["before"] = [
            {"command": ["true"], "capture": {"password": "$.pw"}, "secret": ["pass"]}
        ]

    with pytest.raises(MappingError) as raised:
        load_mapping(mapping_file(tmp_path, with_hook))
    assert raised.value.problems == [
        "operations.open_round (hook 1).secret: 'pass' is not one of its captures"
    ]


def test_polling_until_the_table_opens_a_new_round(tmp_path: Path) -> None:
    """The table shows nothing, then the round the run already settled, then a new round still
    closed, then the new round taking bets: only that last one is the opened round."""
    shown = [None, a_round("done", id="r1"), a_round("done", id="r1")]
    answers = iter([*shown, a_round("closed", id="r2"), a_round("open", id="r2")])
    reads: list[str] = []

    def script(request: Seen):
        if request.path == "/rounds/r1/close":
            return 200, {}, a_round("closed", id="r1")
        reads.append(request.path)
        return 200, {}, next(answers)

    with scripted(script) as (url, _):
        adapter = adapter_for(tmp_path, url, _table_opens_its_own_rounds)
        adapter.close_betting("r1")  # the run has met round r1
        opened = adapter.open_round("t1")
    assert (opened.round_id, opened.state) == ("r2", "betting")
    assert reads == ["/tables/t1/current"] * 5


def test_waiting_for_a_new_round_that_never_comes_stops_the_run(tmp_path: Path) -> None:
    def script(request: Seen):
        return 200, {}, a_round("done", id="r1")

    def short(data: dict) -> None:
        _table_opens_its_own_rounds(data)
        data["operations"]["open_round"]["poll"]["timeout_ms"] = 50

    with scripted(script) as (url, _):
        adapter = adapter_for(tmp_path, url, short)
        adapter.close_betting("r1")
        with pytest.raises(TargetError, match=r"still round r1 \('settled'\), met before for 50"):
            adapter.open_round("t1")


def test_a_polled_request_may_use_only_what_the_polling_operation_has(tmp_path: Path) -> None:
    def bad(data: dict) -> None:
        _table_opens_its_own_rounds(data)
        data["operations"]["open_round"]["poll"]["operation"] = "get_round"

    with pytest.raises(MappingError, match=r"open_round.poll \(get_round\).*round_id"):
        load_mapping(mapping_file(tmp_path, bad))


def _cookie_session(data: dict, secure_over_http: bool = True) -> None:
    data["variables"]["password"] = {"env": "TEST_API_KEY"}
    data["sessions"] = {
        "staff": {
            "login": {
                "method": "POST",
                "path": "/login",
                "json": {"user": "ops", "password": "${vars.password}"},
            },
            "logged_in": {"cookie": "SID"},
            "secure_cookies_over_http": secure_over_http,
            "expired": {"status": [401]},
        }
    }
    data["roles"]["operator"] = {"session": "staff"}


def test_a_session_logs_in_again_when_the_target_answers_401(tmp_path: Path) -> None:
    logins: list[str] = []

    def script(request: Seen):
        if request.path == "/login":
            logins.append(request.body)
            cookie = f"SID=s{len(logins)}; Path=/; Secure; HttpOnly"
            return 200, {"Set-Cookie": cookie}, {}
        if request.headers.get("Cookie") != f"SID=s{len(logins)}" or len(logins) == 1:
            return 401, {}, {"error": "session expired"}
        return 200, {}, {"id": 3}

    with scripted(script) as (url, _):
        adapter = adapter_for(tmp_path, url, _cookie_session)
        adapter.check_credentials()
        assert adapter.create_table("sicbo") == "3"
    assert len(logins) == 2  # the first API call met a 401, logged in again, and was re-sent
    recorded = [e for e in adapter.recorder.snapshot() if e.operation.startswith("log in")]
    assert all("s3cret-key" not in (e.request_body or "") for e in recorded)
    assert "$TEST_API_KEY" in recorded[0].request_body
    assert "s3cret-key" not in recorded[0].as_curl()


def test_a_session_that_expires_again_at_once_stops_the_run(tmp_path: Path) -> None:
    def script(request: Seen):
        if request.path == "/login":
            return 200, {"Set-Cookie": "SID=x; Path=/"}, {}
        return 401, {}, {"error": "no"}

    with scripted(script) as (url, _):
        adapter = adapter_for(tmp_path, url, _cookie_session)
        with pytest.raises(TargetError, match="session changed under the run"):
            adapter.create_table("sicbo")


def test_a_refused_login_is_a_credentials_error(tmp_path: Path) -> None:
    with scripted(lambda _: (200, {"Content-Type": "text/html"}, "<p>wrong password</p>")) as (
        url,
        _,
    ):
        adapter = adapter_for(tmp_path, url, _cookie_session)
        with pytest.raises(CredentialsError, match="set no SID cookie"):
            adapter.check_credentials()


def test_a_login_answering_200_with_an_error_body_and_a_cookie_is_refused(tmp_path: Path) -> None:
    """`logged_in.body` judges a login by what its body says: a target that answers a wrong
    password with 200, an error and a fresh session cookie has not logged anyone in."""
    answers = {"body": {"ok": False, "error": "wrong password"}}

    def script(request: Seen):
        if request.path == "/login":
            return 200, {"Set-Cookie": "SID=s1; Path=/"}, answers["body"]
        return 200, {}, {"id": 7}

    def judged_by_body(data: dict) -> None:
        _cookie_session(data)
        data["sessions"]["staff"]["logged_in"]["body"] = {"path": "$.ok", "equals": True}

    with scripted(script) as (url, _):
        adapter = adapter_for(tmp_path, url, judged_by_body)
        with pytest.raises(CredentialsError, match=r"body's \$\.ok is False, not True"):
            adapter.check_credentials()
        answers["body"] = {"ok": True}
        assert adapter_for(tmp_path, url, judged_by_body).create_table("sicbo") == "7"
        # without the rule the cookie alone would have been taken as a session
        answers["body"] = {"ok": False, "error": "wrong password"}
        assert adapter_for(tmp_path, url, _cookie_session).create_table("sicbo") == "7"

    def bad_path(data: dict) -> None:
        judged_by_body(data)
        data["sessions"]["staff"]["logged_in"]["body"]["path"] = "$..["

    with pytest.raises(MappingError, match=r"sessions\.staff\.logged_in\.body\.path"):
        load_mapping(mapping_file(tmp_path, bad_path))


def test_a_secure_cookie_is_not_sent_over_http_unless_the_mapping_says_so(tmp_path: Path) -> None:
    def script(request: Seen):
        if request.path == "/login":
            return 200, {"Set-Cookie": "SID=s1; Path=/; Secure"}, {}
        return 200, {}, {"id": request.headers.get("Cookie", "none")}

    with scripted(script) as (url, _):
        strict = adapter_for(tmp_path, url, lambda d: _cookie_session(d, False))
        assert strict.create_table("sicbo") == "none"
        lab = adapter_for(tmp_path, url, _cookie_session)
        assert lab.create_table("sicbo") == "SID=s1"


def test_results_colour_names_sorted_dice_and_net_amounts(tmp_path: Path) -> None:
    def script(request: Seen):
        body = json.loads(request.body or "{}")
        if "tokens" in body:
            game = {"game": "xocdia", "tokens": ["white", "red", "red", "white"]}
            return 200, {}, a_round("done", **game)
        bet = {
            "id": "b1",
            "round": "r1",
            "player": "7",
            "pick": "big",
            "amount": 10,
            "status": "settled",
            "outcome": "win",
            "net": 10,
        }
        return 200, {}, a_round("done", dice="1-2-6", bets=[bet])

    def sorted_dice(data: dict) -> None:
        data["outcomes"]["dice_order"] = "sorted"

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, sorted_dice)
        settled = adapter.enter_result("r1", [6, 2, 1])
        tokens = adapter.enter_result("r2", ["w", "r", "r", "w"])
    assert json.loads(seen[0].body) == {"dice": "6-2-1"}
    assert json.loads(seen[1].body) == {"tokens": ["white", "red", "red", "white"]}
    assert settled.result == {"dice": [6, 2, 1], "total": 9}  # the same dice, as entered
    assert tokens.result == {"tokens": ["w", "r", "r", "w"], "red": 2, "white": 2}
    bet = settled.bets[0]
    assert (bet.win, bet.returned) == (Decimal(10), Decimal(20))  # net 10 on a stake of 10


def test_sorted_dice_that_are_other_dice_are_shown_as_the_vendor_sent_them(tmp_path: Path) -> None:
    def sorted_dice(data: dict) -> None:
        data["outcomes"]["dice_order"] = "sorted"

    with scripted(lambda _: (200, {}, a_round("done", dice="1-2-5"))) as (url, _):
        shown = adapter_for(tmp_path, url, sorted_dice).enter_result("r1", [6, 2, 1])
    assert shown.result == {"dice": [1, 2, 5], "total": 8}


def test_locale_amounts_without_decimals(tmp_path: Path) -> None:
    def dong(data: dict) -> None:
        data["declares"]["minor_unit"] = 0
        data["money"] = {"scale": "units", "format": "locale", "thousands": ".", "decimal": ","}

    def script(request: Seen):
        if request.path == "/players":
            return 200, {}, {"id": 1, "key": "k", "echo": json.loads(request.body)}
        return 200, {}, {"cash": "1.234.000"}

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, dong)
        adapter.create_player(Decimal(1234000))
        assert adapter.balance(PlayerHandle("1", "k")) == Decimal(1234000)
        adapter.create_player(Decimal("0.5"))  # sent as it is: the target must refuse it
    assert json.loads(seen[0].body) == {"cash": "1.234.000"}
    assert json.loads(seen[2].body) == {"cash": "0,5"}


def test_an_operation_the_mapping_lacks_is_not_testable(tmp_path: Path) -> None:
    with scripted(lambda _: (200, {}, {})) as (url, seen):
        adapter = adapter_for(tmp_path, url)
        with pytest.raises(Unsupported, match="no operation statistics"):
            adapter.statistics("t1")
        with pytest.raises(Unsupported, match="no operation pause_round"):
            adapter.dealer_action("r1", "pause", "check")
    assert not seen


def test_hooks_run_before_and_after_with_captured_values(tmp_path: Path) -> None:
    def top_up(data: dict) -> None:
        op = data["operations"]["create_player"]
        op["request"]["json"] = {}
        op["capture"] = {"new_id": "id"}
        op["then"] = [
            {
                "request": {
                    "method": "POST",
                    "path": "/players/${captured.new_id}/deposit",
                    "form": {"amount": "${balance}"},
                }
            }
        ]

    def script(request: Seen):
        return 200, {}, {"id": 42, "key": "k"}

    with scripted(script) as (url, seen):
        adapter_for(tmp_path, url, top_up).create_player(Decimal("5.00"))
    assert [s.path for s in seen] == ["/players", "/players/42/deposit"]
    assert seen[1].body == "amount=5.00"
    assert seen[1].headers["Content-Type"] == "application/x-www-form-urlencoded"


def test_outcome_forcing_and_settle_now_hooks_around_the_roll(tmp_path: Path) -> None:
    """A target whose rounds roll their own dice: a test endpoint forces the next result before
    the roll (with a seed header as well), and a "settle now" call follows it."""

    def forced(data: dict) -> None:
        op = data["operations"]["enter_result"]
        op["request"] = {
            "method": "POST",
            "path": "/rounds/${round_id}/roll",
            "headers": {"X-Test-Seed": "${dice|join()}"},
        }
        op["before"] = [
            {
                "role": "operator",
                "request": {
                    "method": "PUT",
                    "path": "/test/next-result",
                    "json": {"dice": "${dice|join(,)}"},
                },
            }
        ]
        op["then"] = [{"request": {"method": "POST", "path": "/rounds/${round_id}/settle"}}]

    def script(request: Seen):
        return 200, {}, a_round("done", result={"dice": [6, 5, 4]})

    with scripted(script) as (url, seen):
        adapter_for(tmp_path, url, forced).enter_result("r1", (4, 5, 6))
    assert [(s.method, s.path) for s in seen] == [
        ("PUT", "/test/next-result"),
        ("POST", "/rounds/r1/roll"),
        ("POST", "/rounds/r1/settle"),
    ]
    assert json.loads(seen[0].body) == {"dice": "4,5,6"}
    assert seen[0].headers["X-Api-Key"] == "s3cret-key"  # the hook's own role
    assert seen[1].headers["X-Test-Seed"] == "456"


def _from_balance(data: dict) -> None:
    data["operations"]["enter_result"]["settlement"] = "from-balance"
    data["money"] = {"scale": "units", "format": "string"}


def test_settlement_derived_from_the_balance_change(tmp_path: Path) -> None:
    """A target that reports no settlement per bet: the adapter reads the balance before and
    after the result and attributes the change to the player's one bet in the round."""
    wallet = {"cash": Decimal("100")}

    def script(request: Seen):
        if request.path.endswith("/bets"):
            sent = json.loads(request.body)["bets"]
            wallet["cash"] -= sum(Decimal(b["amount"]) for b in sent)
            round_id = request.path.split("/")[2]
            bets = [
                {"id": f"b{i}", "round": round_id, "player": "7", "status": "open", **b}
                for i, b in enumerate(sent)
            ]
            return 200, {}, {"bets": bets}
        if request.path == "/wallet":
            return 200, {}, {"cash": str(wallet["cash"])}
        if request.path.endswith("/result"):
            wallet["cash"] += 20  # Big won 1:1: the stake and 10 back; no bet in the answer
        return 200, {}, a_round("done")

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, _from_balance)
        adapter.open_round("t1")
        player = PlayerHandle("7", "k")
        adapter.place_bets(player, "r1", [("BIG", Decimal(10))])
        [bet] = adapter.enter_result("r1", [6, 5, 4]).bets
        adapter.place_bets(player, "r2", [("BIG", Decimal(1)), ("BIG", Decimal(1))])
        with pytest.raises(Unsupported, match="cannot be told apart"):
            adapter.enter_result("r2", [6, 5, 4])
    assert (bet.outcome, bet.returned, bet.win) == ("win", Decimal(20), Decimal(10))
    assert [s.path for s in seen[2:5]] == ["/wallet", "/rounds/r1/result", "/wallet"]


def test_access_checks_send_another_roles_credentials_or_none(tmp_path: Path) -> None:
    with scripted(lambda _: (200, {}, {"id": 1})) as (url, seen):
        adapter = adapter_for(tmp_path, url)
        adapter.as_role("dealer").create_table("sicbo")
        adapter.with_credential("forged-token").create_table("sicbo")
        adapter.with_credential("").create_table("sicbo")
        adapter.as_role("player").create_table("sicbo")  # no player in this call: nothing
    auth = [(s.headers.get("Authorization"), s.headers.get("X-Api-Key")) for s in seen]
    assert auth == [
        ("Bearer s3cret-key", None),
        ("Bearer forged-token", None),
        (None, None),
        (None, None),
    ]


def _cents(data: dict) -> None:
    data["money"] = {"scale": "minor", "format": "integer"}


def test_a_stake_given_as_text_goes_out_in_the_wire_format(tmp_path: Path) -> None:
    """A refusal check's stake that is an amount ("90.01" above the balance, "-1.00", "0") is
    written as the target writes money, so the target judges the amount, not its spelling;
    text that is no amount is sent as written; an amount the format cannot write is not
    testable."""

    def script(request: Seen):
        if request.path.endswith("/bets"):
            return 200, {}, {"bets": []}
        return 200, {}, a_round()

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, _cents)
        adapter.open_round("t1")
        player = PlayerHandle("7", "k")
        for stake in ("90.01", "-1.00", "0", "abc", "1e3", "+10.00"):
            adapter.place_bets(player, "r1", [("BIG", stake)])
        with pytest.raises(Unsupported, match="not a whole number of minor units"):
            adapter.place_bets(player, "r1", [("BIG", "1.001")])
    sent = [json.loads(s.body)["bets"][0]["amount"] for s in seen[1:]]
    assert sent == [9001, -100, 0, "abc", "1e3", "+10.00"]


def test_acting_as_another_role_logs_that_role_in_again_when_its_session_expired(
    tmp_path: Path,
) -> None:
    logins: list[int] = []

    def script(request: Seen):
        if request.path == "/login":
            logins.append(1)
            return 200, {"Set-Cookie": f"SID=s{len(logins)}; Path=/"}, {}
        if request.headers.get("Cookie") == "SID=s1":
            return 401, {}, {"error": "expired"}
        return 200, {}, {"id": 9}

    with scripted(script) as (url, _):
        adapter = adapter_for(tmp_path, url, _cookie_session)
        adapter.check_credentials()
        # the operator's session expired: an access check acting as the operator must not
        # read the login page as a refusal
        assert adapter.as_role("operator").create_table("sicbo") == "9"
    assert len(logins) == 2


def _errors_in_the_body(data: dict) -> None:
    _cookie_session(data)
    data["sessions"]["staff"]["expired"] = {"status": [401], "error_code": ["NO_SESSION"]}
    data["responses"] = {
        "success": {"path": "$.ok", "equals": True},
        "error": {"code": "$.err", "message": "$.text"},
    }


def test_a_session_logs_in_again_when_its_error_body_says_it_expired(tmp_path: Path) -> None:
    """A vendor that answers an expired session with 200 and its usual error body: the error
    code the session lists means "log in again", not a refusal the scenario would judge."""
    logins: list[int] = []

    def script(request: Seen):
        if request.path == "/login":
            logins.append(1)
            return 200, {"Set-Cookie": f"SID=s{len(logins)}; Path=/"}, {}
        if request.headers.get("Cookie") == "SID=s1":
            return 200, {}, {"ok": False, "err": "NO_SESSION", "text": "who are you?"}
        return 200, {}, {"ok": True, "id": 9}

    with scripted(script) as (url, _):
        adapter = adapter_for(tmp_path, url, _errors_in_the_body)
        adapter.check_credentials()
        assert adapter.as_role("operator").create_table("sicbo") == "9"
    assert len(logins) == 2


def test_an_error_body_that_says_expired_again_after_a_login_stops_the_run(
    tmp_path: Path,
) -> None:
    def script(request: Seen):
        if request.path == "/login":
            return 200, {"Set-Cookie": "SID=x; Path=/"}, {}
        return 200, {}, {"ok": False, "err": "NO_SESSION", "text": "who are you?"}

    with scripted(script) as (url, _):
        adapter = adapter_for(tmp_path, url, _errors_in_the_body)
        with pytest.raises(TargetError, match=r"NO_SESSION right after .* session changed"):
            adapter.create_table("sicbo")


def test_other_refusals_of_a_session_are_not_read_as_expiry(tmp_path: Path) -> None:
    logins: list[int] = []

    def script(request: Seen):
        if request.path == "/login":
            logins.append(1)
            return 200, {"Set-Cookie": "SID=x; Path=/"}, {}
        return 200, {}, {"ok": False, "err": "FORBIDDEN", "text": "not you"}

    with scripted(script) as (url, _):
        adapter = adapter_for(tmp_path, url, _errors_in_the_body)
        with pytest.raises(Refused, match="FORBIDDEN"):
            adapter.create_table("sicbo")
    assert len(logins) == 1


def _forced_outcome_hook(data: dict) -> None:
    data["operations"]["enter_result"]["before"] = [
        {"role": "operator", "request": {"method": "PUT", "path": "/test/next-result"}}
    ]


def test_an_access_check_judges_the_operation_not_its_setup_hooks(tmp_path: Path) -> None:
    """A player trying to enter the result: the outcome-forcing hook is the run's own setup,
    sent with the operator's key; only the judged request carries the player's token."""

    def script(request: Seen):
        if request.path == "/test/next-result":
            return 200, {}, {}
        return 403, {}, {"error": "not you"}

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, _forced_outcome_hook)
        with pytest.raises(Refused):
            adapter.with_credential("player-key").enter_result("r1", (1, 2, 3))
    hook, judged = seen
    assert hook.headers["X-Api-Key"] == "s3cret-key"
    assert judged.path == "/rounds/r1/result"
    assert judged.headers["Authorization"] == "Bearer player-key"


def test_a_refused_hook_is_a_target_error_not_the_operation_refused(tmp_path: Path) -> None:
    """Were a hook's refusal read as the operation's, an access check would pass without the
    judged request ever being sent."""

    def script(request: Seen):
        return 403, {}, {"error": "forcing is switched off"}

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, _forced_outcome_hook)
        with pytest.raises(TargetError, match=r"hook PUT /test/next-result was refused \(403"):
            adapter.with_credential("player-key").enter_result("r1", (1, 2, 3))
    assert [s.path for s in seen] == ["/test/next-result"]


def test_who_may_open_a_round_is_not_asked_of_a_table_that_opens_its_own(tmp_path: Path) -> None:
    with scripted(lambda _: (200, {}, a_round("open", id="r2"))) as (url, seen):
        adapter = adapter_for(tmp_path, url, _table_opens_its_own_rounds)
        with pytest.raises(Unsupported, match="opens its own rounds"):
            adapter.as_role("player").open_round("t1")
    assert not seen


def test_a_role_refused_again_after_a_fresh_login_is_a_refusal(tmp_path: Path) -> None:
    """Acting as the operator where the target says NO_SESSION: one fresh login, and a second
    NO_SESSION is the operator being refused (what the access check asks), not a broken run."""
    logins: list[int] = []

    def script(request: Seen):
        if request.path == "/login":
            logins.append(1)
            return 200, {"Set-Cookie": f"SID=s{len(logins)}; Path=/"}, {}
        return 200, {}, {"ok": False, "err": "NO_SESSION", "text": "not for you"}

    with scripted(script) as (url, _):
        adapter = adapter_for(tmp_path, url, _errors_in_the_body)
        with pytest.raises(Refused, match="NO_SESSION"):
            adapter.as_role("operator").create_table("sicbo")
    assert len(logins) == 2


def test_polling_reads_the_round_asked_for(tmp_path: Path) -> None:
    reads: list[str] = []

    def script(request: Seen):
        if request.method == "GET":
            reads.append(request.path)
            return 200, {}, a_round("closed", id="r1")
        return 200, {}, a_round("closing", id="r9")  # the close names another round

    def poll(data: dict) -> None:
        data["operations"]["close_betting"]["poll"] = {"until": {"state": ["closed"]}}

    with scripted(script) as (url, _):
        assert adapter_for(tmp_path, url, poll).close_betting("r1").round_id == "r1"
    assert reads == ["/rounds/r1"]


def test_a_new_round_must_be_a_read_on_open_round(tmp_path: Path) -> None:
    def on_close(data: dict) -> None:
        data["operations"]["close_betting"]["poll"] = {"new_round": True}

    def posted(data: dict) -> None:
        _table_opens_its_own_rounds(data)
        data["operations"]["open_round"]["request"]["method"] = "POST"

    with pytest.raises(MappingError, match="only open_round waits for a new round"):
        load_mapping(mapping_file(tmp_path, on_close))
    with pytest.raises(MappingError, match="must be a read"):
        load_mapping(mapping_file(tmp_path, posted))


def test_a_player_placeholder_on_the_dealers_read_is_left_out(tmp_path: Path) -> None:
    """get_round may name the reading player; when the dealer reads there is none, and the
    placeholder vanishes instead of failing mid-run."""

    def with_player(data: dict) -> None:
        request = data["operations"]["get_round"]["request"]
        request["query"] = {"as": "${player.token}"}

    with scripted(lambda _: (200, {}, a_round("open"))) as (url, seen):
        adapter = adapter_for(tmp_path, url, with_player)
        adapter.get_round("r1")
        adapter.get_round("r1", PlayerHandle("7", "pk"))
    assert [s.query for s in seen] == [{}, {"as": "pk"}]


def test_a_forged_credential_reaches_every_template(tmp_path: Path) -> None:
    def token_in_body(data: dict) -> None:
        data["operations"]["balance"]["request"] = {
            "method": "POST",
            "path": "/wallet",
            "form": {"ticket": "${player.token}"},
        }

    with scripted(lambda _: (200, {}, {"cash": "1"})) as (url, seen):
        adapter = adapter_for(tmp_path, url, token_in_body)
        adapter.with_credential("forged").balance(PlayerHandle("7", "real-token"))
        adapter.as_role("operator").balance(PlayerHandle("7", "real-token"))
    assert [s.body for s in seen] == ["ticket=forged", "ticket="]
    assert all("real-token" not in str(s.headers) for s in seen)


def test_one_request_per_bet_gets_one_idempotency_key_each(tmp_path: Path) -> None:
    def keyed(data: dict) -> None:
        data["declares"]["capabilities"] = []
        data["operations"]["place_bets"]["request"]["headers"] = {"X-Key": "${idempotency_key}"}

    def script(request: Seen):
        return 200, {}, {"bets": []} if request.path.endswith("/bets") else a_round()

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, keyed)
        adapter.open_round("t1")
        bets = [("BIG", Decimal(1)), ("BIG", Decimal(2))]
        adapter.place_bets(PlayerHandle("7", "k"), "r1", bets, idempotency_key="slip-1")
    assert [s.headers["X-Key"] for s in seen[1:]] == ["slip-1-0", "slip-1-1"]


def test_settlement_from_balance_only_for_a_settled_round_and_keeps_the_targets_outcome(
    tmp_path: Path,
) -> None:
    state = {"round": "closed", "outcome": None}

    def script(request: Seen):
        if request.path.endswith("/bets"):
            bet = {"id": "b1", "round": "r1", "player": "7", "pick": "big", "amount": 10}
            return 200, {}, {"bets": [{**bet, "status": "open"}]}
        if request.path == "/wallet":
            return 200, {}, {"cash": "90"}  # never credited
        bet = {"id": "b1", "round": "r1", "player": "7", "pick": "big", "amount": 10}
        reported = {**bet, "status": "settled", "outcome": state["outcome"]}
        return 200, {}, a_round(state["round"], bets=[reported] if state["outcome"] else [])

    with scripted(script) as (url, _):
        adapter = adapter_for(tmp_path, url, _from_balance)
        adapter.open_round("t1")
        adapter.place_bets(PlayerHandle("7", "k"), "r1", [("BIG", Decimal(10))])
        unsettled = adapter.enter_result("r1", [6, 5, 4])
        state.update(round="done", outcome="win")
        settled = adapter.enter_result("r1", [6, 5, 4])
    assert unsettled.state == "closed" and unsettled.bets == ()  # nothing made up
    [bet] = settled.bets
    # the target says win but credited nothing: shown as such, so the check fails it
    assert (bet.outcome, bet.returned) == ("win", Decimal(0))


def test_a_success_path_alone_must_hold_a_true_value(tmp_path: Path) -> None:
    def predicate(data: dict) -> None:
        data["responses"] = {"success": {"path": "$.ok"}, "error": {"message": "$.why"}}

    answers = iter([{"ok": 1, "id": 2}, {"id": 3}, {"ok": False, "why": "no"}])
    with scripted(lambda _: (200, {}, next(answers))) as (url, _):
        adapter = adapter_for(tmp_path, url, predicate)
        assert adapter.create_table("sicbo") == "2"
        for _ in range(2):
            with pytest.raises(Refused):
                adapter.create_table("sicbo")


def test_secrets_in_forms_and_urls_stay_out_of_the_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_API_KEY", "p w+d/key")

    def in_query_and_form(data: dict) -> None:
        data["operations"]["create_table"]["request"] = {
            "method": "POST",
            "path": "/tables",
            "query": {"key": "${vars.api_key}"},
            "form": {"key": "${vars.api_key}"},
        }

    with scripted(lambda _: (500, {}, {"error": "p w+d/key"})) as (url, seen):
        adapter = adapter_for(tmp_path, url, in_query_and_form)
        with pytest.raises(TargetError) as raised:
            adapter.create_table("sicbo")
    assert "p+w%2Bd" in seen[0].body  # it was sent
    [exchange] = adapter.recorder.snapshot()
    shown = exchange.as_curl() + exchange.url + (exchange.request_body or "") + str(raised.value)
    assert "w+d" not in shown and "p+w%2Bd" not in shown and "w%2Bd" not in shown
    assert "$TEST_API_KEY" in exchange.url and "$TEST_API_KEY" in exchange.request_body


def test_a_json_form_field_keeps_exact_numbers(tmp_path: Path) -> None:
    def number_slip(data: dict) -> None:
        data["operations"]["place_bets"]["request"] = {
            "method": "POST",
            "path": "/bets",
            "form": {"slip": {"json": {"each": "bets", "as": "b", "item": {"a": "${b.stake}"}}}},
        }

    def script(request: Seen):
        return 200, {}, {"bets": []} if request.path == "/bets" else a_round()

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, number_slip)
        adapter.open_round("t1")
        adapter.place_bets(PlayerHandle("7", "k"), "r1", [("BIG", Decimal("10.5"))])
    assert dict(parse_qsl(seen[1].body)) == {"slip": '[{"a":10.5}]'}  # a number, exact


# -- answers the mapping cannot read: a mapping error, never a finding against the target --------


_LEFT_OUT = object()  # a key the answer leaves out


def _settled_bet(**change: object) -> dict:
    """A settled bet as the test target answers it (the BASE bet shape reads every key)."""
    bet = {
        "id": "b1",
        "round": "r1",
        "player": "7",
        "pick": "big",
        "amount": 10,
        "status": "settled",
        "outcome": "win",
        "net": 10,
    }
    return {k: v for k, v in {**bet, **change}.items() if v is not _LEFT_OUT}


def test_a_settled_bet_without_its_outcome_path_is_a_mapping_error(tmp_path: Path) -> None:
    """A bet answer missing the path the mapping reads its outcome from was read as a bet with
    no outcome, and every settlement check then failed against the target."""
    answer = a_round("done", dice=[6, 5, 4], bets=[_settled_bet(outcome=_LEFT_OUT)])
    with scripted(lambda _: (200, {}, answer)) as (url, _):
        adapter = adapter_for(tmp_path, url)
        with pytest.raises(MappingAnswerError) as raised:
            adapter.enter_result("r1", (6, 5, 4))
    error = raised.value
    assert not isinstance(error, TargetError | Refused)
    assert (error.operation, error.path) == ("enter the result", "$.bets[0].outcome")
    assert str(error).startswith("mapping error: enter the result: shapes.bet.outcome reads ")
    assert '"pick": "big"' in error.answer and str(error).endswith(error.answer)


def test_an_open_bet_may_leave_its_settlement_out(tmp_path: Path) -> None:
    """The mapping's own rules: a bet not settled yet has no outcome and no payout."""
    placed = _settled_bet(status="open", outcome=_LEFT_OUT, net=_LEFT_OUT)

    def script(request: Seen):
        return 200, {}, {"bets": [placed]} if request.path.endswith("/bets") else a_round()

    with scripted(script) as (url, _):
        adapter = adapter_for(tmp_path, url)
        adapter.open_round("t1")
        [bet] = adapter.place_bets(PlayerHandle("7", "k"), "r1", [("BIG", Decimal(10))])
    assert (bet.status, bet.outcome, bet.win, bet.returned) == ("open", None, None, None)


def test_a_round_may_leave_its_result_out_until_it_is_settled(tmp_path: Path) -> None:
    def script(request: Seen):
        state = "done" if request.path.endswith("/result") else "open"
        return 200, {}, {k: v for k, v in a_round(state).items() if k != "dice"}

    with scripted(script) as (url, _):
        adapter = adapter_for(tmp_path, url)
        assert adapter.open_round("t1").result is None
        with pytest.raises(MappingAnswerError) as raised:
            adapter.enter_result("r1", (6, 5, 4))
    assert raised.value.path == "$.dice"
    assert "shapes.round.result.dice reads $.dice" in str(raised.value)


def test_a_default_lets_the_answer_leave_its_path_out(tmp_path: Path) -> None:
    def table_default(data: dict) -> None:
        data["shapes"]["round"]["table_id"] = {"path": "table", "default": "t0"}

    without_table = {k: v for k, v in a_round().items() if k != "table"}
    with scripted(lambda _: (200, {}, without_table)) as (url, _):
        assert adapter_for(tmp_path, url, table_default).open_round("t1").table_id == "t0"
        with pytest.raises(MappingAnswerError, match=r"shapes.round.table_id reads \$.table"):
            adapter_for(tmp_path, url).open_round("t1")


@pytest.mark.parametrize(
    ("bet", "path", "words"),
    [
        (_settled_bet(amount="ten"), "$.bets[0].amount", "as an amount"),
        (_settled_bet(id={"no": 1}), "$.bets[0].id", "where the harness needs an id"),
        (_settled_bet(id=None), "$.bets[0].id", "null, where the harness needs an id"),
        (_settled_bet(outcome="push"), "$.bets[0].outcome", "'push', where the harness needs an"),
        (_settled_bet(status=None), "$.bets[0].status", "null, where the harness needs a status"),
    ],
)
def test_a_value_that_does_not_parse_is_a_mapping_error(
    tmp_path: Path, bet: dict, path: str, words: str
) -> None:
    answer = a_round("done", dice=[6, 5, 4], bets=[bet])
    with (
        scripted(lambda _: (200, {}, answer)) as (url, _),
        pytest.raises(MappingAnswerError) as raised,
    ):
        adapter_for(tmp_path, url).get_round("r1")
    assert (raised.value.operation, raised.value.path) == ("read the round", path)
    assert words in str(raised.value)


def test_bets_that_are_not_a_list_and_a_balance_that_is_no_amount(tmp_path: Path) -> None:
    def script(request: Seen):
        if request.path == "/wallet":
            return 200, {}, {"cash": "lots"}
        return 200, {}, a_round(bets={"b1": _settled_bet()})

    with scripted(script) as (url, _):
        adapter = adapter_for(tmp_path, url)
        with pytest.raises(MappingAnswerError, match="where the harness needs a list") as bets:
            adapter.get_round("r1")
        with pytest.raises(MappingAnswerError, match="'lots' is not a plain decimal") as cash:
            adapter.balance(PlayerHandle("7", "k"))
    assert bets.value.path == "$.bets"
    assert (cash.value.operation, cash.value.path) == ("read the balance", "$.cash")


def test_the_data_root_is_needed_only_where_the_mapping_reads_from_it(tmp_path: Path) -> None:
    def under_data(data: dict) -> None:
        data["responses"] = {"data": "$.data"}
        data["operations"]["connect"] = {
            "role": "player",
            "request": {"method": "POST", "path": "/presence"},
        }
        data["declares"]["capabilities"].append("disconnect")
        data["operations"]["disconnect"] = data["operations"]["connect"]

    with scripted(lambda _: (200, {}, {"ok": True})) as (url, _):
        adapter = adapter_for(tmp_path, url, under_data)
        adapter.connect(PlayerHandle("7", "k"))  # reads nothing: no data is fine
        with pytest.raises(MappingAnswerError, match=r"responses.data reads \$.data") as raised:
            adapter.create_table("sicbo")
    assert raised.value.operation == "create a sicbo table"


def test_a_table_showing_a_round_with_no_id_yet_is_waited_through(tmp_path: Path) -> None:
    answers = iter([{"id": None}, a_round("open", id="r2")])
    with scripted(lambda _: (200, {}, next(answers))) as (url, _):
        opened = adapter_for(tmp_path, url, _table_opens_its_own_rounds).open_round("t1")
    assert opened.round_id == "r2"


def test_a_round_state_outside_the_contract_is_a_mapping_error(tmp_path: Path) -> None:
    """A state the value table does not translate is the mapping's gap, not the target's round
    state: `incomplete` with the mapping error, never a finding. A state the mapping's poll waits
    through is the target's own, taken while waiting."""
    with scripted(lambda _: (200, {}, a_round("stopping"))) as (url, _):
        adapter = adapter_for(tmp_path, url)
        with pytest.raises(MappingAnswerError, match="needs a round state: betting, closed"):
            adapter.close_betting("r1")
    reads = []

    def script(request: Seen):
        if request.method == "GET":
            reads.append(1)
            return 200, {}, a_round("closed" if len(reads) >= 2 else "stopping")
        return 200, {}, a_round("stopping")

    def poll(data: dict) -> None:
        data["operations"]["close_betting"]["poll"] = {
            "while": {"state": ["stopping"]},
            "interval_ms": 5,
            "timeout_ms": 2000,
        }

    with scripted(script) as (url, _):
        assert adapter_for(tmp_path, url, poll).close_betting("r1").state == "closed"


def test_a_misread_new_player_answer_never_quotes_the_players_token(tmp_path: Path) -> None:
    """The adapter masks a player's token once the player exists; when the mapping cannot read
    the answer that creates the player, the mapping error (which reaches the certificate's
    harness errors) must not quote the token either."""
    answer = {"id": {"nested": "not an id"}, "key": "tok-9f3a-secret"}
    with scripted(lambda _: (200, {}, answer)) as (url, _):
        adapter = adapter_for(tmp_path, url)
        with pytest.raises(MappingAnswerError) as raised:
            adapter.create_player(Decimal("10.00"))
    said = str(raised.value)
    assert "create a test player" in said and "player_id" in said
    assert "tok-9f3a-secret" not in said and "$PLAYER_TOKEN" in said


def test_a_new_players_token_is_masked_in_the_exchange_that_created_it(tmp_path: Path) -> None:
    with scripted(lambda _: (200, {}, {"id": 5, "key": "tok-77aa-live"})) as (url, _):
        adapter = adapter_for(tmp_path, url)
        assert adapter.create_player(Decimal("10.00")).token == "tok-77aa-live"
    bodies = [e.response_body or "" for e in adapter.recorder.drain()]
    assert bodies and not any("tok-77aa-live" in b for b in bodies)
    assert any("$PLAYER_TOKEN" in b for b in bodies)


def _instant_only(data: dict, key_header: bool = True) -> None:
    for name in ("open_round", "close_betting", "place_bets", "get_round", "enter_result"):
        data["operations"].pop(name)
    data["declares"]["capabilities"] = ["instant-round", "idempotency"]
    request: dict = {"method": "POST", "path": "/instant", "json": {"dice": "${dice}"}}
    if key_header:
        request["headers"] = {"X-Request-Id": "${idempotency_key}"}
    data["operations"]["play_round"] = {"role": "player", "request": request, "answer": ROUND}


def test_idempotency_on_instant_rounds_only_needs_play_round_to_send_the_key(
    tmp_path: Path,
) -> None:
    def script(request: Seen):
        return 200, {}, a_round("settled", dice=[1, 2, 3])

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, _instant_only)
        adapter.play_round(PlayerHandle("7", "k"), "t1", [("BIG", Decimal(1))], (1, 2, 3), "k-1")
        adapter.play_round(PlayerHandle("7", "k"), "t1", [("BIG", Decimal(1))], (1, 2, 3))
    assert seen[0].headers["X-Request-Id"] == "k-1"
    assert seen[1].headers["X-Request-Id"].startswith("livecert-")  # a fresh key otherwise


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            lambda d: _instant_only(d, key_header=False),
            "'idempotency' needs operations.play_round.request to send ${idempotency_key}",
        ),
        (
            lambda d: (
                _instant_only(d),
                d["operations"].pop("play_round"),
                d["declares"].update(capabilities=["idempotency"]),
            ),
            "'idempotency' needs operations.place_bets or operations.play_round",
        ),
    ],
)
def test_a_declared_idempotency_needs_a_bet_operation_that_sends_the_key(
    tmp_path: Path, change, problem: str
) -> None:
    problems = load_problems(tmp_path, change)
    assert any(problem in p for p in problems), problems


def test_declared_limits_are_read_exactly_and_checked_at_load(tmp_path: Path) -> None:
    def limits(data: dict) -> None:
        data["declares"]["limits"] = {"sicbo": {"min_bet": "0.10", "max_bet": "5000"}}

    adapter = adapter_for(tmp_path, "http://127.0.0.1:9", limits)
    declared = adapter.info().limits["sicbo"]
    assert (declared.min_bet, declared.max_bet, declared.max_slip) == (
        Decimal("0.10"),
        Decimal("5000"),
        None,
    )

    def impossible(data: dict) -> None:
        data["declares"]["limits"] = {"xocdia": {"min_bet": "10.00", "max_bet": "5.00"}}

    with pytest.raises(MappingError) as raised:
        load_mapping(mapping_file(tmp_path, impossible))
    assert "declares.limits.xocdia: min_bet 10.00 is above max_bet 5.00" in raised.value.problems


# -- a casino with cookie sessions and no player or table API ------------------------------------


def _cookie_casino(data: dict) -> None:
    """Players log in with a form and are known by their PHPSESSID cookie; tables are fixed."""
    data["operations"]["create_player"] = {
        "role": "anonymous",
        "request": {"method": "POST", "path": "/login.php", "form": {"user": "u${balance}"}},
        "answer": {"fields": {"player_id": "$.user", "token": {"cookie": "PHPSESSID"}}},
    }
    data["operations"]["create_table"] = {"fixed": {"sicbo": "sb-1", "xocdia": "xd-1"}}
    data["roles"]["player"] = {"cookies": {"PHPSESSID": "${player.token}"}}


def test_a_player_is_known_by_the_cookie_their_login_set(tmp_path: Path) -> None:
    def script(request: Seen):
        if request.path == "/login.php":
            return 200, {"Set-Cookie": "PHPSESSID=sess-42; Path=/; HttpOnly"}, {"user": "u7"}
        return 200, {}, {"cash": "10.00"}

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, _cookie_casino)
        player = adapter.create_player(Decimal("10.00"))
        assert (player.player_id, player.token) == ("u7", "sess-42")
        assert adapter.balance(player) == Decimal("10.00")
        # access cases: another player's cookie, a forged one, none
        adapter.with_credential("sess-other").balance(player)
        adapter.with_credential("forged-cookie").balance(player)
        adapter.with_credential("").balance(player)
    assert seen[1].headers["Cookie"] == "PHPSESSID=sess-42"
    assert [s.headers.get("Cookie") for s in seen[2:]] == [
        "PHPSESSID=sess-other",
        "PHPSESSID=forged-cookie",
        None,
    ]
    # the session cookie is a credential: the evidence shows it masked
    shown = exchanges_as_text(adapter.recorder.snapshot())
    assert "sess-42" not in shown and "PHPSESSID=$PLAYER_TOKEN" in shown


def test_a_fixed_table_is_used_without_a_request(tmp_path: Path) -> None:
    with scripted(lambda _: (200, {}, {})) as (url, seen):
        adapter = adapter_for(tmp_path, url, _cookie_casino)
        assert (adapter.create_table("sicbo"), adapter.create_table("xocdia")) == ("sb-1", "xd-1")
    assert seen == []


def test_a_login_that_sets_no_cookie_is_a_mapping_answer_error(tmp_path: Path) -> None:
    with scripted(lambda _: (200, {}, {"user": "u7"})) as (url, _):
        adapter = adapter_for(tmp_path, url, _cookie_casino)
        with pytest.raises(MappingAnswerError, match="reads the cookie PHPSESSID"):
            adapter.create_player(Decimal("10.00"))


def test_a_fixed_table_must_name_every_declared_game(tmp_path: Path) -> None:
    def one_table(data: dict) -> None:
        _cookie_casino(data)
        data["operations"]["create_table"] = {"fixed": {"sicbo": "sb-1"}}

    with pytest.raises(MappingError) as raised:
        load_mapping(mapping_file(tmp_path, one_table))
    assert any("names no table for xocdia" in p for p in raised.value.problems)


def _seeded(data: dict) -> None:
    """Outcome forcing through an RNG seed per outcome, looked up in a `values` table."""
    for name in ("open_round", "close_betting", "place_bets", "get_round", "enter_result"):
        data["operations"].pop(name)
    data["declares"]["capabilities"] = ["instant-round", "batch-bets"]  # a slip: one request
    data["values"] = {**data.get("values", {}), "seeds": {"1,2,3": "9041", "6,6,6": "77"}}
    data["operations"]["play_round"] = {
        "role": "player",
        "request": {
            "method": "POST",
            "path": "/play",
            "form": {"seed": "${dice|join(,)|lookup(seeds)}"},
        },
        "answer": ROUND,
    }


def test_a_lookup_table_fills_a_request(tmp_path: Path) -> None:
    with scripted(lambda _: (200, {}, a_round("settled", dice=[1, 2, 3]))) as (url, seen):
        adapter = adapter_for(tmp_path, url, _seeded)
        adapter.play_round(PlayerHandle("7", "k"), "t1", [("BIG", Decimal(1))], (1, 2, 3))
        with pytest.raises(MappingError, match=r"values\.seeds has no row '2,2,2'"):
            adapter.play_round(PlayerHandle("7", "k"), "t1", [("BIG", Decimal(1))], (2, 2, 2))
    assert seen[0].body == "seed=9041"


def test_a_lookup_of_a_table_the_mapping_lacks_is_refused_at_load(tmp_path: Path) -> None:
    def unknown(data: dict) -> None:
        _seeded(data)
        data["operations"]["play_round"]["request"]["form"] = {"seed": "${dice|lookup(seedz)}"}

    with pytest.raises(MappingError) as raised:
        load_mapping(mapping_file(tmp_path, unknown))
    assert any(
        "looks up 'seedz', which is no table of `values`" in p for p in raised.value.problems
    )


def _logged(data: dict) -> None:
    """An instant table that writes each bet's result in a text: `small (Won 10.00); big (Lost)`
    (the net win, and no stake: the stake is the slip's)."""
    _seeded(data)
    data["selections"]["sicbo"]["SMALL"] = "small"
    data["values"]["logged"] = {"Won": "win", "Lost": "lose", "Push": "refund"}
    data["shapes"]["logged_bet"] = {
        "selection": {"path": "code", "as": "selection"},
        "outcome": {"path": "result", "values": "logged"},
        "win": {"path": "win", "as": "money", "default": "0"},
    }
    data["shapes"]["logged_round"] = {
        **data["shapes"]["round"],
        "bets": {
            "path": "log",
            "pattern": r"(?P<code>\w+) \((?P<result>Won|Lost|Push)(?: (?P<win>[\d.]+))?\)",
            "split": "; ",
            "shape": "logged_bet",
        },
    }
    data["operations"]["play_round"]["answer"] = {"shape": "logged_round"}


def test_each_bets_settlement_is_read_from_a_text_and_its_stake_from_the_slip(
    tmp_path: Path,
) -> None:
    answer = a_round("settled", dice=[1, 2, 3], log="small (Won 10.00); big (Lost)")
    with scripted(lambda _: (200, {}, answer)) as (url, _):
        adapter = adapter_for(tmp_path, url, _logged)
        slip = [("SMALL", Decimal("10.00")), ("BIG", Decimal("5.00"))]
        settled = adapter.play_round(PlayerHandle("7", "k"), "t1", slip, (1, 2, 3))
    small, big = settled.bets
    assert (small.selection, small.stake, small.outcome, small.win, small.returned) == (
        "SMALL",
        Decimal("10.00"),
        "win",
        Decimal("10.00"),
        Decimal("20.00"),
    )
    assert (big.selection, big.stake, big.outcome, big.returned) == (
        "BIG",
        Decimal("5.00"),
        "lose",
        Decimal(0),
    )


def test_a_settlement_text_the_pattern_does_not_match_is_a_mapping_answer_error(
    tmp_path: Path,
) -> None:
    answer = a_round("settled", dice=[1, 2, 3], log="small (Gewonnen 10.00)")
    with scripted(lambda _: (200, {}, answer)) as (url, _):
        adapter = adapter_for(tmp_path, url, _logged)
        with pytest.raises(MappingAnswerError, match="does not match"):
            adapter.play_round(PlayerHandle("7", "k"), "t1", [("SMALL", Decimal(1))], (1, 2, 3))


def _provisioned(data: dict) -> None:
    """No player API: the lab's own command creates an account, and the player logs in."""
    _cookie_casino(data)
    make_account = (
        "import json, sys; print(json.dumps({'user': 'u-' + sys.argv[1], "
        "'password': 'pw-' + sys.argv[1][::-1]}))"
    )
    data["operations"]["create_player"] = {
        "role": "anonymous",
        "before": [
            {
                "command": [sys.executable, "-c", make_account, "${balance}"],
                "capture": {"user": "user", "password": "password"},
                "secret": ["password"],
            }
        ],
        "request": {
            "method": "POST",
            "path": "/login.php",
            "form": {"user": "${captured.user}", "password": "${captured.password}"},
        },
        "answer": {"fields": {"player_id": "$.user", "token": {"cookie": "PHPSESSID"}}},
    }


def test_a_lab_command_creates_the_account_a_player_logs_in_to(tmp_path: Path) -> None:
    def script(request: Seen):
        user = dict(parse_qsl(request.body)).get("user")
        return 200, {"Set-Cookie": "PHPSESSID=sess-9; Path=/"}, {"user": user}

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, _provisioned)
        player = adapter.create_player(Decimal("25.00"))
    assert (player.player_id, player.token) == ("u-25.00", "sess-9")
    assert dict(parse_qsl(seen[0].body)) == {"user": "u-25.00", "password": "pw-00.52"}
    shown = exchanges_as_text(adapter.recorder.snapshot())
    assert "RUN" in shown and "pw-00.52" not in shown and "$CAPTURED_PASSWORD" in shown


def test_a_failing_lab_command_is_a_target_error_naming_it(tmp_path: Path) -> None:
    def failing(data: dict) -> None:
        _provisioned(data)
        data["operations"]["create_player"]["before"][0]["command"] = [
            sys.executable,
            "-c",
            "import sys; sys.exit('no such database')",
        ]

    with scripted(lambda _: (200, {}, {})) as (url, seen):
        adapter = adapter_for(tmp_path, url, failing)
        with pytest.raises(TargetError, match="exited 1: 'no such database"):
            adapter.create_player(Decimal("25.00"))
    assert seen == []  # the login was never tried


@pytest.mark.parametrize("odd", ["\\u0000", "\\ud800"])
def test_a_captured_value_no_command_line_can_hold_is_a_target_error(
    tmp_path: Path, odd: str
) -> None:
    """A command's output (JSON) gives a value holding a NUL or a lone surrogate, which the next
    command is given: no command line can hold either. It stopped the run with the harness's
    own ValueError; it is a target error naming the command."""

    def chained(data: dict) -> None:
        _provisioned(data)
        written = '{"user": "u' + odd + '"}'  # JSON's escape, as the command prints it
        first = f"import sys; sys.stdout.write({written!r})"
        data["operations"]["create_player"]["before"] = [
            {"command": [sys.executable, "-c", first], "capture": {"user": "user"}},
            {
                "command": ["echo", "${captured.user}"],
                "capture": {"user": "user", "password": "password"},
            },
        ]

    with scripted(lambda _: (200, {}, {})) as (url, seen):
        adapter = adapter_for(tmp_path, url, chained)
        with pytest.raises(TargetError, match=r"its set-up command .*echo.* cannot be run"):
            adapter.create_player(Decimal("25.00"))
    assert seen == []


def test_a_secret_capture_must_be_one_of_the_commands_captures(tmp_path: Path) -> None:
    def wrong(data: dict) -> None:
        _provisioned(data)
        data["operations"]["create_player"]["before"][0]["secret"] = ["pasword"]

    with pytest.raises(MappingError) as raised:
        load_mapping(mapping_file(tmp_path, wrong))
    assert any("'pasword' is not one of its captures" in p for p in raised.value.problems)


def test_an_unknown_code_the_target_reads_as_one_of_its_bets_is_not_sent(tmp_path: Path) -> None:
    """ "big" is not one of our codes, but it is the target's own code for BIG: sent unchanged it
    would be a valid bet, so the bad-input row cannot be tried through this mapping."""

    def script(request: Seen):
        return 200, {}, {"bets": []} if request.path.endswith("/bets") else a_round()

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url)
        adapter.open_round("t1")  # a Sic Bo round: its bets are read with the Sic Bo rows
        with pytest.raises(Unsupported, match="the target's own code for BIG"):
            adapter.place_bets(PlayerHandle("7", "k"), "r1", [("big", Decimal(1))])
        adapter.place_bets(PlayerHandle("7", "k"), "r1", [("FOUR_RED", Decimal(1))])
    assert len(seen) == 2  # a code that means nothing to the target is still sent


# -- one operation, a request per game; constant answer fields -----------------------------------


def _per_game_bets(data: dict) -> None:
    """One bet operation whose request differs per game: Sic Bo posts a form to /sicbo.php
    (`bets`, `seed`), Xoc Dia JSON with its own field names to /xocdia.php."""
    data["operations"]["place_bets"]["request"] = {
        "per_game": {
            "sicbo": {
                "method": "POST",
                "path": "/sicbo.php",
                "form": {
                    "round": "${round_id}",
                    "bets": {
                        "json": {
                            "each": "bets",
                            "as": "b",
                            "item": {"pick": "${b.selection}", "amount": "${b.stake}"},
                        }
                    },
                    "seed": "${idempotency_key}",
                },
            },
            "xocdia": {
                "method": "POST",
                "path": "/xocdia.php",
                "headers": {"X-Request-Id": "${idempotency_key}"},
                "json": {
                    "van": "${round_id}",
                    "cuoc": {
                        "each": "bets",
                        "as": "b",
                        "item": {"cua": "${b.selection}", "tien": "${b.stake}"},
                    },
                },
            },
        }
    }


def test_one_operation_sends_the_request_of_the_calls_game(tmp_path: Path) -> None:
    rounds = {"/tables/t1/rounds": ("r1", "sicbo"), "/tables/t2/rounds": ("r2", "xocdia")}
    rounds["/tables/t3/rounds"] = ("r3", "SB")  # a game the round shape does not translate

    def script(request: Seen):
        if request.path.endswith(".php"):
            return 200, {}, {"bets": []}
        round_id, game = rounds[request.path]
        return 200, {}, a_round(id=round_id, game=game)

    player = PlayerHandle("7", "k")
    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, _per_game_bets)
        for table in ("t1", "t2", "t3"):
            adapter.open_round(table)
        adapter.place_bets(player, "r1", [("BIG", Decimal("1.50"))], "key-1")
        adapter.place_bets(player, "r2", [("EVEN", Decimal("2.00"))], "key-2")
        sent = len(seen)
        # a round no answer has shown: its game is unknown, so no request can be chosen
        with pytest.raises(Unsupported, match=r"request\.per_game sends a request per game"):
            adapter.place_bets(player, "never-opened", [("BIG", Decimal(1))])
        with pytest.raises(MappingError, match=r"has no request for 'SB' \(it has: sicbo, xoc"):
            adapter.place_bets(player, "r3", [("BIG", Decimal(1))])
        assert len(seen) == sent  # neither was sent
    sicbo, xocdia = seen[3:5]
    assert (sicbo.path, dict(parse_qsl(sicbo.body))) == (
        "/sicbo.php",
        {"round": "r1", "bets": '[{"pick":"big","amount":1.50}]', "seed": "key-1"},
    )
    assert (xocdia.path, json.loads(xocdia.body, parse_float=Decimal)) == (
        "/xocdia.php",
        {"van": "r2", "cuoc": [{"cua": "even", "tien": Decimal("2.00")}]},
    )
    assert xocdia.headers["X-Request-Id"] == "key-2" and "X-Request-Id" not in sicbo.headers
    # the evidence is the request each game really sent
    recorded = [(e.method, e.url, e.request_body) for e in adapter.recorder.snapshot()[3:]]
    assert recorded == [
        ("POST", f"{url}/sicbo.php", sicbo.body),
        ("POST", f"{url}/xocdia.php", xocdia.body),
    ]


def _per_game(name: str, sicbo: dict, xocdia: dict) -> Callable[[dict], None]:
    return lambda d: d["operations"][name].update(
        request={"per_game": {"sicbo": sicbo, "xocdia": xocdia}}
    )


def _per_game_bets_and(change: Callable[[dict], None]) -> Callable[[dict], None]:
    return lambda d: (_per_game_bets(d), change(d))


_WALLET = {"method": "GET", "path": "/wallet"}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            _per_game("balance", _WALLET, _WALLET),
            "operations.balance.request.per_game: balance is not given the game, so it cannot "
            "choose a request per game",
        ),
        (
            _per_game_bets_and(
                lambda d: d["operations"]["place_bets"]["request"]["per_game"].pop("xocdia")
            ),
            "operations.place_bets.request.per_game: names no request for xocdia, which "
            "declares.games lists",
        ),
        (
            _per_game_bets_and(lambda d: d["declares"].update(games=["sicbo"])),
            "operations.place_bets.request.per_game.xocdia: xocdia is not a game declares.games "
            "lists",
        ),
        (
            _per_game_bets_and(
                lambda d: d["operations"]["place_bets"]["request"]["per_game"]["xocdia"].update(
                    path="/xocdia.php?van=${round}"
                )
            ),
            "operations.place_bets.request.per_game.xocdia.path: ${round} names nothing this "
            "operation has",
        ),
        (
            _per_game_bets_and(
                lambda d: d["operations"]["place_bets"]["request"]["per_game"]["sicbo"].update(
                    json={"seed": "${idempotency_key}"}
                )
            ),
            "operations.place_bets.request.per_game.sicbo: must NOT match",  # json and form
        ),
        (
            _per_game_bets_and(
                lambda d: d["operations"]["place_bets"]["request"]["per_game"]["sicbo"].update(
                    method="SEND"
                )
            ),
            "operations.place_bets.request.per_game.sicbo.method: must be one of",
        ),
        (
            _per_game_bets_and(
                lambda d: d["operations"]["place_bets"]["request"].update(method="POST")
            ),
            "operations.place_bets.request: must not contain {'method'}",
        ),
        (
            lambda d: (
                _table_opens_its_own_rounds(d),
                _per_game(
                    "open_round",
                    {"method": "GET", "path": "/tables/${table_id}/current"},
                    {"method": "POST", "path": "/tables/${table_id}/next"},
                )(d),
            ),
            "operations.open_round.poll.new_round: it sends open_round again and again, which "
            "must be a read",
        ),
        # a constant answer field reads nothing, and is never absent
        (
            lambda d: d["shapes"]["round"].update(game={"const": "sicbo", "path": "game"}),
            "shapes.round.game: const is the value as given, so it cannot have path too",
        ),
        (
            lambda d: d["operations"]["balance"]["answer"]["fields"].update(
                balance={"const": "5.00", "default": "0", "as": "money"}
            ),
            "operations.balance.answer.fields.balance: const is the value as given, so it cannot "
            "have default too",
        ),
    ],
)
def test_a_request_per_game_and_a_constant_are_checked_at_load_naming_where(
    tmp_path: Path, change: Callable[[dict], None], problem: str
) -> None:
    problems = load_problems(tmp_path, change)
    assert any(problem in p for p in problems), problems


def test_a_declared_idempotency_needs_the_key_in_every_games_request(tmp_path: Path) -> None:
    def idempotent(data: dict) -> None:
        _per_game_bets(data)
        data["declares"]["capabilities"].append("idempotency")

    load_mapping(mapping_file(tmp_path, idempotent))  # each game's request sends the key

    def xocdia_without(data: dict) -> None:
        idempotent(data)
        data["operations"]["place_bets"]["request"]["per_game"]["xocdia"].pop("headers")

    with pytest.raises(MappingError) as raised:
        load_mapping(mapping_file(tmp_path, xocdia_without))
    [problem] = raised.value.problems
    assert problem.startswith(
        "declares.capabilities: 'idempotency' needs operations.place_bets.request.per_game.xocdia"
        " to send ${idempotency_key}"
    )


def _constants(data: dict) -> None:
    """A Sic Bo API whose round never says its game; its bets go to /sicbo.php (a request per
    game)."""
    _per_game_bets(data)
    data["shapes"]["round"]["game"] = {"const": "sicbo"}


def test_constant_fields_are_taken_as_given_and_read_like_values(tmp_path: Path) -> None:
    bet = {"id": "b1", "round": "r1", "player": "7", "pick": "big", "outcome": "win", "net": 10}
    bet |= {"status": "done", "amount": 10}
    answer = {k: v for k, v in a_round("done", dice=[4, 5, 6], bets=[bet]).items() if k != "game"}

    def script(request: Seen):
        return 200, {}, {"bets": []} if request.path == "/sicbo.php" else answer

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, _constants)
        shown = adapter.get_round("r1")
        adapter.place_bets(PlayerHandle("7", "k"), "r1", [("BIG", Decimal(1))])
    assert (shown.game, shown.result) == ("sicbo", {"dice": [4, 5, 6], "total": 15})
    [read] = shown.bets
    assert (read.selection, read.returned) == (
        "BIG",  # read with the Sic Bo table: the constant game was read first
        Decimal("20"),
    )
    assert seen[1].path == "/sicbo.php"  # the round's constant game chose the request


@pytest.mark.parametrize(
    ("shape", "field", "spec"),
    [
        ("round", "state", {"const": "settled"}),
        ("round", "table_id", {"const": "t1"}),
        ("bet", "status", {"const": "settled"}),
        ("bet", "stake", {"const": "10.00", "as": "money"}),
        ("bet", "player_id", {"const": "7"}),
    ],
)
def test_a_constant_is_refused_where_the_harness_judges_the_field(
    tmp_path: Path, shape: str, field: str, spec: dict
) -> None:
    """A constant state, status, id or amount would make its check hold by construction."""

    def constant(data: dict) -> None:
        data["shapes"][shape][field] = spec

    with pytest.raises(MappingError) as raised:
        load_mapping(mapping_file(tmp_path, constant))
    assert any(
        p.startswith(f"shapes.{shape}.{field}: a constant {field} would make")
        for p in raised.value.problems
    ), raised.value.problems


def test_a_number_of_the_file_matches_an_answers_decimal_as_written() -> None:
    """Answers and stream messages read numbers with a fraction as Decimals, the file's YAML as
    floats: `equals: 0.1` holds for an answer's 0.1 (and 0.10), not for 0.11 or 0.1 as text."""
    from livecert.adapters.jsonpath import holds

    assert holds({"equals": 0.1}, Decimal("0.1")) and holds({"equals": 0.1}, Decimal("0.10"))
    assert not holds({"equals": 0.1}, Decimal("0.11")) and not holds({"equals": 0.1}, "0.1")
    assert holds({"in": [0.5, 2]}, Decimal("0.5")) and holds({"in": [0.5, 2]}, 2)
    assert holds({"equals": 0.1}, 0.1) and not holds({"in": [0.5]}, Decimal("0.25"))


def test_a_slip_refused_midway_names_the_bets_it_had_taken(tmp_path: Path) -> None:
    """One request per bet, the second refused: the refusal carries the first bet (the
    target's now), and the adapter holds it for the player as a bet of the round."""

    def per_bet(data: dict) -> None:
        data["declares"]["capabilities"] = []

    def script(request: Seen):
        if not request.path.endswith("/bets"):
            return 200, {}, a_round()
        if sum(1 for s in seen if s.path.endswith("/bets")) > 1:
            return 409, {}, {"error": {"code": "CLOSED", "message": "betting is closed"}}
        bet = {"id": "b1", "round": "r1", "player": "7", "pick": "big", "amount": 1}
        return 200, {}, {"bets": [{**bet, "status": "open"}]}

    with scripted(script) as (url, seen):
        adapter = adapter_for(tmp_path, url, per_bet)
        adapter.open_round("t1")
        bets = [("BIG", Decimal(1)), ("BIG", Decimal(2))]
        with pytest.raises(Refused) as refused:
            adapter.place_bets(PlayerHandle("7", "k"), "r1", bets)
    assert [bet.bet_id for bet in refused.value.taken] == ["b1"]
    assert [bet.bet_id for bet in adapter._holdings["r1"]["7"][1]] == ["b1"]

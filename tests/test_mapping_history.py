"""A table's history of finished rounds through a mapping file (livecert/adapters/mapping/
history.py), the outcomes the fairness battery tests (REG-FAIR-01, REG-FAIR-02).

The example vendor's back office lists a table's finished rounds on an audit page of its own
shape (`items`, `gameId`, `DONE`/`VOIDED`/`CANCELLED`, dice as "1,3,6" sorted, tokens as
"1011", `nextCursor`); its mapping's `round_history` reads them back a page at a time in the
contract's words. A path the file names that the answer lacks is a mapping error naming the
file's key, and a file without the operation has no history to read.
"""

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from vendor_support import MAPPING, vendor_server

from livecert.adapters.errors import MappingAnswerError, TargetError
from livecert.adapters.mapping import MappingAdapter, MappingError, load_mapping
from livecert.adapters.mapping.names import OPERATION_CONTEXT
from livecert.adapters.model import HistoryPage, HistoryRound

VENDOR = yaml.safe_load(MAPPING.read_text(encoding="utf-8"))
HISTORY = "read the table's history of rounds"


@dataclass
class Played:
    """The vendor server, and what was played on it: each table's finished rounds in order,
    as (round id, state, outcome entered or None)."""

    url: str
    env: dict
    sicbo: str
    xocdia: str
    sicbo_rounds: list[tuple[str, str, tuple | None]]
    xocdia_rounds: list[tuple[str, str, tuple | None]]


def _sicbo(adapter: MappingAdapter, table: str, dice: tuple | None, end: str = "") -> str:
    """A live Sic Bo round: opened, closed, then given `dice` or ended by the dealer (`end`)."""
    round_id = adapter.open_round(table, 60_000).round_id
    adapter.close_betting(round_id)
    if dice:
        adapter.enter_result(round_id, dice)
    else:
        adapter.dealer_action(round_id, end, "a test of the history")
    return round_id


def _xocdia(adapter: MappingAdapter, table: str, tokens: tuple, early: bool = False) -> str:
    """A live Xoc Dia round: shaken, then the bowl lifted (after betting; before it ends with
    `early`, which voids it with its tokens shown)."""
    round_id = adapter.open_round(table, 60_000).round_id
    adapter.record_event(round_id, "shake")
    if not early:
        adapter.close_betting(round_id)
    adapter.enter_result(round_id, tokens)
    return round_id


@pytest.fixture(scope="module")
def played() -> Iterator[Played]:
    with vendor_server() as (url, env):
        adapter = MappingAdapter(load_mapping(MAPPING, env), url)
        sicbo, xocdia = adapter.create_table("sicbo"), adapter.create_table("xocdia")
        player = adapter.create_player(Decimal("100.00"))
        first = adapter.open_round(sicbo, 60_000).round_id
        adapter.place_bets(player, first, [("BIG", Decimal("10.00"))])
        adapter.close_betting(first)
        adapter.enter_result(first, (6, 1, 3))
        sicbo_rounds: list[tuple[str, str, tuple | None]] = [(first, "settled", (6, 1, 3))]
        for dice, end in [((2, 2, 5), ""), (None, "cancel"), ((4, 4, 4), ""), (None, "void")]:
            state = {"cancel": "cancelled", "void": "void"}.get(end, "settled")
            sicbo_rounds.append((_sicbo(adapter, sicbo, dice, end), state, dice))
        instant = adapter.play_round(player, sicbo, [("SMALL", Decimal("1.00"))], (3, 1, 2))
        sicbo_rounds.append((instant.round_id, "settled", (3, 1, 2)))
        sicbo_rounds.append((_sicbo(adapter, sicbo, (5, 6, 1)), "settled", (5, 6, 1)))
        adapter.open_round(sicbo, 60_000)  # not finished: in no history
        xocdia_rounds: list[tuple[str, str, tuple | None]] = [
            (_xocdia(adapter, xocdia, ("r", "w", "r", "r")), "settled", ("r", "w", "r", "r")),
            (
                _xocdia(adapter, xocdia, ("w", "w", "r", "w"), early=True),
                "void",
                ("w", "w", "r", "w"),
            ),
        ]
        touched = adapter.open_round(xocdia, 60_000).round_id
        adapter.record_event(touched, "shake")
        adapter.record_event(touched, "bowl-touched-token")
        xocdia_rounds.append((touched, "cancelled", None))
        xocdia_rounds.append(
            (_xocdia(adapter, xocdia, ("w", "w", "w", "w")), "settled", ("w", "w", "w", "w"))
        )
        adapter.close()
        yield Played(url, env, sicbo, xocdia, sicbo_rounds, xocdia_rounds)


def _adapter(played: Played, tmp_path: Path, change: Callable[[dict], None] | None = None):
    """A new adapter (it has met none of the rounds) through the vendor's mapping, changed."""
    data = copy.deepcopy(VENDOR)
    if change:
        change(data)
    path = tmp_path / "mapping.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return MappingAdapter(load_mapping(path, played.env), played.url)


def _all_pages(adapter: MappingAdapter, table: str, limit: int) -> list[HistoryPage]:
    pages = [adapter.round_history(table, limit=limit)]
    while pages[-1].next is not None:
        assert len(pages) < 20, "the pages do not end"
        pages.append(adapter.round_history(table, after=pages[-1].next, limit=limit))
    return pages


def _result(outcome: tuple | None) -> dict | None:
    """An outcome in the contract's shape of a result."""
    if outcome is None:
        return None
    if isinstance(outcome[0], int):
        return {"dice": list(outcome), "total": sum(outcome)}
    red = outcome.count("r")
    return {"tokens": list(outcome), "red": red, "white": 4 - red}


# -- reading the history back --------------------------------------------------------------------


@pytest.mark.parametrize("game", ["sicbo", "xocdia"])
def test_every_finished_round_comes_back_once_oldest_first_in_the_contracts_words(
    played: Played, tmp_path: Path, game: str
) -> None:
    adapter = _adapter(played, tmp_path)
    table = played.sicbo if game == "sicbo" else played.xocdia
    expected = played.sicbo_rounds if game == "sicbo" else played.xocdia_rounds
    pages = _all_pages(adapter, table, limit=3)
    assert len(pages) == -(-len(expected) // 3)  # full pages, then the rest
    assert all(len(page.rounds) <= 3 for page in pages)
    assert all(page.next for page in pages[:-1]) and pages[-1].next is None
    rounds = [r for page in pages for r in page.rounds]
    # each round once, in the order played; the unfinished round and the other table's not
    assert [r.round_id for r in rounds] == [round_id for round_id, _, _ in expected]
    assert [r.state for r in rounds] == [state for _, state, _ in expected]
    for found, (_, _, outcome) in zip(rounds, expected, strict=True):
        assert isinstance(found, HistoryRound)
        wanted = _result(outcome)
        if game == "sicbo" and wanted is not None:
            # the vendor sorts its dice and says so: not in the order thrown
            wanted["dice"] = sorted(wanted["dice"])
            assert found.in_order is False
        if game == "xocdia":
            assert found.in_order is True  # the tokens by their place in the bowl
        assert found.result == wanted, found
        assert found.time and found.time.endswith("Z")
        assert (found.shaker, found.dealer) == (
            f"{'SB' if game == 'sicbo' else 'XD'}-{table}",
            "studio",
        )
    # the first page is asked for with no cursor, every other after the last page's
    asked = [e.url for e in adapter.recorder.snapshot() if e.operation == HISTORY]
    assert "cursor=" not in asked[0] and "size=3" in asked[0]
    assert all(
        f"cursor={page.next}" in url for page, url in zip(pages[:-1], asked[1:], strict=True)
    )


def test_the_adapter_that_entered_the_dice_shows_them_in_the_order_entered(
    played: Played,
) -> None:
    """The vendor sorts its dice (outcomes.dice_order: sorted): the result reading shows the
    order entered where they are the same dice, in the history as in a round read."""
    adapter = MappingAdapter(load_mapping(MAPPING, played.env), played.url)
    first, _, dice = played.sicbo_rounds[0]
    adapter._reader.entered[first] = dice
    page = adapter.round_history(played.sicbo)  # 1000 asked; the vendor pages by 200 at most
    assert page.next is None and len(page.rounds) == len(played.sicbo_rounds)
    assert page.rounds[0].result == {"dice": [6, 1, 3], "total": 10}
    assert page.rounds[0].in_order is False


def test_a_table_with_no_finished_round_has_an_empty_history(
    played: Played, tmp_path: Path
) -> None:
    adapter = _adapter(played, tmp_path)
    assert adapter.round_history(adapter.create_table("sicbo")) == HistoryPage((), None)


def test_constants_for_what_the_vendor_does_not_say(played: Played, tmp_path: Path) -> None:
    def constants(data: dict) -> None:
        shape = data["shapes"]["history_round"]
        shape.update(in_order={"const": True}, time={"const": None})
        del shape["shaker"], shape["dealer"]

    page = _adapter(played, tmp_path, constants).round_history(played.xocdia, limit=1)
    [found] = page.rounds
    assert (found.in_order, found.time, found.shaker, found.dealer) == (True, None, None, None)


def test_without_the_game_read_a_table_this_run_did_not_create_is_a_mapping_error(
    played: Played, tmp_path: Path
) -> None:
    def no_game(data: dict) -> None:
        del data["shapes"]["history_round"]["game"]

    adapter = _adapter(played, tmp_path, no_game)
    with pytest.raises(MappingAnswerError, match=r"shapes\.history_round reads no game"):
        adapter.round_history(played.sicbo)
    assert not [e for e in adapter.recorder.snapshot() if e.operation == HISTORY]
    adapter._table_games[played.sicbo] = "sicbo"  # as if this run had created it
    assert adapter.round_history(played.sicbo, limit=1).rounds[0].result["total"] == 10


# -- what the file names and the answer lacks: mapping errors naming the key ---------------------


def _rounds_at(path: str) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        data["operations"]["round_history"]["answer"]["fields"]["rounds"]["path"] = path

    return change


def _field(key: str, spec: object) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        data["shapes"]["history_round"][key] = spec

    return change


def _next(spec: object) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        data["operations"]["round_history"]["answer"]["fields"]["next"] = spec

    return change


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (
            _rounds_at("rows"),
            "operations.round_history.answer.fields.rounds reads $.data.rows, which the answer "
            "does not have; $.data holds: items, nextCursor",
        ),
        (_next("cursor"), "operations.round_history.answer.fields.next reads $.data.cursor"),
        (_field("time", "endedAt"), "shapes.history_round.time reads $.data.items[0].endedAt"),
        (_field("round_id", "id"), "shapes.history_round.round_id reads $.data.items[0].id"),
        (
            _field("result", {"as": "result", "dice": "roll", "tokens": "tokens"}),
            "shapes.history_round.result.dice reads $.data.items[0].roll",
        ),
        # the round's value table has no VOIDED: the vendor's word stays, and is no state
        (
            _field("state", {"path": "status", "values": "round_state"}),
            "shapes.history_round.state reads $.data.items[4].status: 'VOIDED', where the "
            "harness needs a round state",
        ),
        (
            _field("in_order", "gameId"),
            "shapes.history_round.in_order reads 'rd-",
        ),
        (_field("dealer", "asThrown"), "shapes.history_round.dealer reads False in round rd-"),
        (_next("items"), "operations.round_history.answer.fields.next reads [{"),
    ],
)
def test_a_path_or_value_the_mapping_cannot_read_is_a_mapping_error_naming_its_key(
    played: Played, tmp_path: Path, change: Callable[[dict], None], says: str
) -> None:
    adapter = _adapter(played, tmp_path, change)
    with pytest.raises(MappingAnswerError) as raised:
        _all_pages(adapter, played.sicbo, limit=5)
    assert says in str(raised.value)
    assert raised.value.operation == HISTORY
    assert not isinstance(raised.value, TargetError)  # the mapping's mistake, not the target's


def test_a_next_cursor_the_file_lets_the_answer_leave_out_ends_the_history(
    played: Played, tmp_path: Path
) -> None:
    """Only a `default` lets the cursor's path be absent: a misspelt path would otherwise read
    the first page as the whole history."""
    adapter = _adapter(played, tmp_path, _next({"path": "cursor", "default": None}))
    page = adapter.round_history(played.sicbo, limit=2)
    assert (len(page.rounds), page.next) == (2, None)


# -- a file without the operation, and what the loader checks ------------------------------------


def test_a_mapping_without_round_history_has_no_history(played: Played, tmp_path: Path) -> None:
    def without(data: dict) -> None:
        del data["operations"]["round_history"]
        data["declares"]["capabilities"].remove("round-history")

    adapter = _adapter(played, tmp_path, without)
    # the harness asks hasattr(adapter, "round_history"): there only where the file maps it
    assert not hasattr(adapter, "round_history")
    assert "round-history" not in adapter.info().capabilities
    with pytest.raises(AttributeError, match="the mapping has no round_history") as raised:
        adapter.round_history(played.sicbo)
    assert "REG-FAIR-01" in str(raised.value)
    assert not [e for e in adapter.recorder.snapshot() if e.operation == HISTORY]
    mapped = _adapter(played, tmp_path)
    assert hasattr(mapped, "round_history")
    assert "round-history" in mapped.info().capabilities
    # an access check's clone keeps it
    assert hasattr(mapped.as_role("dealer"), "round_history")


def _load_problems(tmp_path: Path, change: Callable[[dict], None]) -> list[str]:
    data = copy.deepcopy(VENDOR)
    change(data)
    path = tmp_path / "mapping.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    env = {"SAOMAI_OPS_PASSWORD": "ops", "SAOMAI_STUDIO_PASSWORD": "studio"}
    with pytest.raises(MappingError) as raised:
        load_mapping(path, env)
    return raised.value.problems


def _op(change: Callable[[dict], None]) -> Callable[[dict], None]:
    return lambda data: change(data["operations"]["round_history"])


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            lambda d: d["operations"].pop("round_history"),
            "declares.capabilities: 'round-history' needs operations.round_history, which is "
            "missing",
        ),
        (
            _op(lambda op: op["answer"]["fields"].pop("rounds")),
            "operations.round_history.answer.fields: reads no rounds (the harness needs the "
            "page's rounds",
        ),
        (
            _op(lambda op: op["answer"]["fields"].pop("next")),
            "operations.round_history.answer.fields: reads no next (the harness needs the next "
            "page's cursor",
        ),
        (
            _op(lambda op: op.update(answer={"shape": "history_round"})),
            "operations.round_history.answer.fields: missing (a history reads rounds, next)",
        ),
        (
            _op(lambda op: op["answer"]["fields"].update(rounds="items")),
            "operations.round_history.answer.fields.rounds: reads no shape",
        ),
        (
            _op(lambda op: op["answer"]["fields"]["rounds"].update(shape="history")),
            "operations.round_history.answer.fields.rounds.shape: no shape named 'history'",
        ),
        (
            lambda d: d["shapes"]["history_round"].pop("state"),
            "shapes.history_round: reads no state (a history round needs round_id, state, "
            "result, time",
        ),
        (
            lambda d: d["shapes"]["history_round"].pop("time"),
            "shapes.history_round: reads no time",
        ),
        (
            lambda d: d["shapes"]["history_round"].update(state={"const": "settled"}),
            "shapes.history_round.state: a constant state would make the harness's check",
        ),
        (
            _op(lambda op: op["request"]["query"].update(cursor="${cursor}")),
            "operations.round_history.request.query.cursor: ${cursor} names nothing this "
            "operation has (it has: after, game, limit, table_id)",
        ),
        (
            lambda d: d["shapes"]["history_round"].update(state={"path": "st", "values": "st"}),
            "shapes.history_round.state.values: no value table named 'st'",
        ),
    ],
)
def test_a_broken_round_history_is_refused_at_load_naming_where(
    tmp_path: Path, change: Callable[[dict], None], problem: str
) -> None:
    problems = _load_problems(tmp_path, change)
    assert any(problem in p for p in problems), problems


def test_a_request_per_game_is_allowed_since_the_history_knows_its_tables_game(
    tmp_path: Path,
) -> None:
    def per_game(data: dict) -> None:
        request = data["operations"]["round_history"]["request"]
        data["operations"]["round_history"]["request"] = {
            "per_game": {"sicbo": request, "xocdia": {**request, "path": "/xd/${table_id}"}}
        }

    data = copy.deepcopy(VENDOR)
    per_game(data)
    path = tmp_path / "mapping.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    env = {"SAOMAI_OPS_PASSWORD": "ops", "SAOMAI_STUDIO_PASSWORD": "studio"}
    assert load_mapping(path, env).operation("round_history")["request"]["per_game"]


# -- the adapter's side, without a target --------------------------------------------------------


def _answering(
    monkeypatch: pytest.MonkeyPatch,
    fields: dict,
    given: dict | None = None,
    mapping: Path = MAPPING,
) -> MappingAdapter:
    """An adapter whose mapping operations answer `fields` (and record the names given)."""

    def run(self, name: str, operation: str, values: dict, none_yet: bool = False) -> dict:
        if given is not None:
            given[name] = dict(values)
        return fields

    monkeypatch.setattr(MappingAdapter, "_run", run)
    env = {"SAOMAI_OPS_PASSWORD": "ops", "SAOMAI_STUDIO_PASSWORD": "studio"}
    return MappingAdapter(load_mapping(mapping, env), "http://127.0.0.1:9")


def test_round_history_is_given_exactly_the_names_its_templates_may_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    given: dict[str, dict] = {}
    adapter = _answering(monkeypatch, {"rounds": [], "next": None}, given)
    assert adapter.round_history("t1", "c9", 25) == HistoryPage((), None)
    assert set(given["round_history"]) == OPERATION_CONTEXT["round_history"]
    assert given["round_history"] == {"table_id": "t1", "game": None, "after": "c9", "limit": 25}


def test_a_fixed_tables_game_is_known_without_reading_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    data = copy.deepcopy(VENDOR)
    data["operations"]["create_table"] = {"fixed": {"sicbo": "11", "xocdia": "12"}}
    del data["shapes"]["history_round"]["game"]
    path = tmp_path / "mapping.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    given: dict[str, dict] = {}
    adapter = _answering(monkeypatch, {"rounds": [], "next": ""}, given, path)
    assert adapter.round_history("12") == HistoryPage((), None)  # an empty cursor: the last page
    assert given["round_history"]["game"] == "xocdia"


def _round(**change: object) -> dict:
    """A history round as reading.py hands it over."""
    found = {"round_id": "r1", "game": "sicbo", "state": "settled", "time": "2026-01-01T00:00Z"}
    return {**found, "result": {"dice": [1, 2, 3], "total": 6}, "in_order": False, **change}


@pytest.mark.parametrize(
    ("fields", "error", "says"),
    [
        (
            {"rounds": [_round(state="betting")], "next": None},
            TargetError,
            "round r1 of table t1 is 'betting' in the table's history, which lists finished "
            "rounds only",
        ),
        (
            {"rounds": [], "next": "c1"},
            TargetError,
            "the next page's cursor 'c1' is the one this page was asked after",
        ),
        (
            {"rounds": [_round(time=1767225600)], "next": None},
            MappingAnswerError,
            "shapes.history_round.time reads 1767225600 in round r1 (number 1 of the page), "
            "where the harness needs a time as text",
        ),
        (
            {"rounds": [_round(in_order="yes")], "next": None},
            MappingAnswerError,
            "shapes.history_round.in_order reads 'yes'",
        ),
        (
            {"rounds": [_round(shaker=True)], "next": None},
            MappingAnswerError,
            "shapes.history_round.shaker reads True",
        ),
    ],
)
def test_what_a_history_needs_of_each_round_and_of_the_cursor(
    monkeypatch: pytest.MonkeyPatch, fields: dict, error: type, says: str
) -> None:
    adapter = _answering(monkeypatch, fields)
    with pytest.raises(error) as raised:
        adapter.round_history("t1", after="c1")
    assert says in str(raised.value)


def test_a_cursor_may_be_a_number_and_in_order_a_translated_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rounds = [_round(in_order="true", shaker=7, dealer=None), _round(round_id="r2", in_order=None)]
    adapter = _answering(monkeypatch, {"rounds": rounds, "next": 42})
    page = adapter.round_history("t1")
    assert page.next == "42"
    assert [(r.round_id, r.in_order, r.shaker, r.dealer) for r in page.rounds] == [
        ("r1", True, "7", None),
        ("r2", False, None, None),
    ]
    assert adapter.round_history("t1", "9", 5).next == "42"
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="a page holds at least one round"):
            adapter.round_history("t1", limit=bad)

"""A live table's round as its stream showed it (livecert/adapters/mapping/live.py `view`): a
result shown is final, so a table that pushed its result before its close never has a forced
outcome asked of it (the force hook would be refused, and the run stop on a target error)."""

from pathlib import Path

import pytest

from livecert.adapters.errors import Unsupported
from livecert.adapters.mapping import MappingAdapter, load_mapping
from livecert.adapters.mapping.live import _Round

# live tables running rounds on their own clock
pytestmark = pytest.mark.timing

MAPPING = Path(__file__).parent.parent / "examples/socketio_table/mapping.yaml"
TABLE = "table sicbo-1"


def _adapter() -> MappingAdapter:
    mapping = load_mapping(MAPPING, environ={"SOCKETIO_TABLE_ADMIN_TOKEN": "a-lab-token"})
    adapter = MappingAdapter(mapping, "http://127.0.0.1:9")
    assert adapter._live is not None
    adapter._live._rounds["R1"] = _Round("R1", "sicbo-1", "sicbo", TABLE, 1)
    return adapter


CLOSE = ("round:close", {"round": "R1"})
RESULT = ("round:result", {"round": "R1", "dice": [1, 2, 3]})


@pytest.mark.parametrize(
    ("pushed", "state"),
    [
        ([], "betting"),
        ([CLOSE], "closed"),
        ([CLOSE, RESULT], "settled"),
        ([RESULT, CLOSE], "settled"),  # shown early: the close after it opens nothing again
    ],
)
def test_the_round_is_as_its_last_news_says_and_a_result_is_final(pushed, state: str) -> None:
    adapter = _adapter()
    live = adapter._live
    for event, body in pushed:
        live.log.add(TABLE, "in", event, {**body, "table": "sicbo-1"})
    assert live.view("R1").state == state


def test_no_outcome_is_forced_on_a_round_whose_result_came_before_its_close() -> None:
    adapter = _adapter()
    live = adapter._live
    live.log.add(TABLE, "in", "round:result", {"round": "R1", "dice": [6, 6, 6]})
    live.log.add(TABLE, "in", "round:close", {"round": "R1"})
    with pytest.raises(Unsupported, match="the round is settled"):
        adapter._forcible("R1", (1, 2, 3))

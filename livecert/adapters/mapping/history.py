"""A table's history of finished rounds through a mapping file, a page at a time: the outcomes
the fairness battery tests (REG-FAIR-01, REG-FAIR-02).

The optional operation `round_history` is sent with the table's id, the cursor of the page
(`after`, absent for the first page) and the page size (`limit`). Its answer's `fields` read
`rounds`, the list of rounds with a shape of the file's (each round's `round_id`, `state`,
`result` and `time`; optionally `game`, `shaker`, `dealer` and `in_order`), and `next`, the
cursor of the next page (null or empty on the last one). `reading.py` reads the rounds as it
reads every answer (value tables, the dice or tokens of a result, a path the answer lacks a
`MappingAnswerError`); this module checks what only a history needs, and makes the page.
The mixin needs the adapter's `_run`, `_table_games` and `mapping`.
"""

from collections.abc import Callable
from typing import Any

from livecert.adapters.errors import MappingAnswerError, TargetError
from livecert.adapters.model import HistoryPage, HistoryRound

NAME = "round_history"
OPERATION = "read the table's history of rounds"
# what the operation's absence means (the doctor's warning, and why the adapter has no
# round_history then)
ABSENT = (
    "the table's history of finished rounds cannot be read (the mapping has no round_history): "
    "the fairness battery (REG-FAIR-01, REG-FAIR-02) needs it"
)
FINISHED = ("settled", "void", "cancelled")  # the states a history round may be in
ROUND_NEEDS = ("round_id", "state", "result", "time")  # what a history round's shape reads
ANSWER_NEEDS = {
    "rounds": "the page's rounds, oldest first: {path: PATH, shape: NAME}",
    "next": "the next page's cursor, null or empty on the last page; with default: null where "
    "the answer leaves it out there",
}


def history_problems(data: dict) -> list[str]:
    """What keeps the file's round_history from reading a page: the rounds, read with a shape
    that reads what a history round needs, and the next page's cursor."""
    operation = data["operations"].get(NAME)
    if operation is None:
        return []
    where = f"operations.{NAME}.answer.fields"
    fields = (operation.get("answer") or {}).get("fields")
    if fields is None:
        return [f"{where}: missing (a history reads {', '.join(ANSWER_NEEDS)})"]
    problems = [
        f"{where}: reads no {key} (the harness needs {why})"
        for key, why in ANSWER_NEEDS.items()
        if key not in fields
    ]
    rounds = fields.get("rounds")
    shape = rounds.get("shape") if isinstance(rounds, dict) else None
    if "rounds" in fields and shape is None:
        problems.append(
            f"{where}.rounds: reads no shape (each round is read with one of the file's shapes: "
            "{path: PATH, shape: history_round})"
        )
        return problems
    shapes = data.get("shapes") or {}
    if shape is not None and shape not in shapes:
        problems.append(f"{where}.rounds.shape: no shape named {shape!r}")
    elif shape is not None:
        problems += [
            f"shapes.{shape}: reads no {key} (a history round needs {', '.join(ROUND_NEEDS)}; "
            "a target that writes no time maps time: {const: null})"
            for key in ROUND_NEEDS
            if key not in shapes[shape]
        ]
    return problems


def _text(value: Any) -> str | None:
    """An id, a name or a cursor as text; None for anything else (null, a boolean, a list)."""
    if isinstance(value, str | int) and not isinstance(value, bool):
        return str(value)
    return None


def _in_order(value: Any) -> bool | None:
    """Whether the dice are in the order thrown: a boolean, or true/false after a value table;
    null where the target does not say (not in order). None: not a boolean."""
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    return {"true": True, "false": False}.get(value) if isinstance(value, str) else None


class Page:
    """The fields a round_history answer read, made a HistoryPage: each round checked as a
    history needs it (finished, a time as text, a boolean in_order, names as text)."""

    def __init__(self, mapping: Any, table_id: str, after: str | None) -> None:
        rounds = mapping.operation(NAME)["answer"]["fields"]["rounds"]
        self.shape = f"shapes.{rounds['shape']}"
        self.table_id, self.after = table_id, after

    def read(self, fields: dict) -> HistoryPage:
        rounds = tuple(
            self._round(index, found) for index, found in enumerate(fields.get("rounds") or [])
        )
        return HistoryPage(rounds, self._next(fields))

    def _wrong(self, key: str, found: dict, index: int, needs: str) -> MappingAnswerError:
        place = f"{self.shape}.{key}"
        shown = "null" if found.get(key) is None else repr(found.get(key))
        return MappingAnswerError(
            OPERATION,
            place,
            f"{place} reads {shown} in round {found.get('round_id')} (number {index + 1} of the "
            f"page), where the harness needs {needs}",
            repr(found),
        )

    def _round(self, index: int, found: dict) -> HistoryRound:
        if found.get("round_id") in (None, ""):
            raise TargetError(
                OPERATION,
                f"round number {index + 1} of a page of table {self.table_id}'s history has no id",
            )
        round_id = str(found["round_id"])
        if found.get("state") not in FINISHED:
            raise TargetError(
                OPERATION,
                f"round {round_id} of table {self.table_id} is {found.get('state')!r} in the "
                f"table's history, which lists finished rounds only ({', '.join(FINISHED)})",
            )
        time = found.get("time")
        if time is not None and not isinstance(time, str):
            raise self._wrong("time", found, index, "a time as text (ISO 8601), or null")
        names = {}
        for key in ("shaker", "dealer"):
            names[key] = _text(found.get(key))
            if found.get(key) is not None and names[key] is None:
                raise self._wrong(key, found, index, "a name or an id, or null")
        in_order = _in_order(found.get("in_order"))
        if in_order is None:
            raise self._wrong("in_order", found, index, "true or false (a path or a constant)")
        return HistoryRound(
            round_id=round_id,
            state=found["state"],
            result=found.get("result"),
            time=time,
            shaker=names["shaker"],
            dealer=names["dealer"],
            in_order=in_order,
        )

    def _next(self, fields: dict) -> str | None:
        value = fields.get("next")
        if value is None or value == "":
            return None  # the last page
        cursor = _text(value)
        if cursor is None:
            place = f"operations.{NAME}.answer.fields.next"
            raise MappingAnswerError(
                OPERATION,
                place,
                f"{place} reads {value!r}, where the harness needs the next page's cursor (a "
                "text or a number; null or empty on the last page)",
                repr({"next": value}),
            )
        if cursor == self.after:
            raise TargetError(
                OPERATION,
                f"the next page's cursor {cursor!r} is the one this page was asked after: the "
                f"pages of table {self.table_id}'s history would never end",
            )
        return cursor


class RoundHistory:
    """`round_history` of the mapping adapter (capability `round-history`): there only where the
    mapping has the operation, so that `hasattr(adapter, "round_history")` says whether a
    table's history can be read, as it does of any adapter."""

    mapping: Any
    _table_games: dict[str, str]

    @property
    def round_history(self) -> Callable[..., HistoryPage]:
        """The operation where the mapping has it; AttributeError (with why) where not."""
        if self.mapping.operation(NAME) is None:
            raise AttributeError(f"round_history: {ABSENT}")
        return self._round_history

    def _round_history(
        self, table_id: str, after: str | None = None, limit: int = 1000
    ) -> HistoryPage:
        """One page of the table's finished rounds, oldest first, as the target reports them:
        the rounds after the cursor `after` (from the first, without it), at most `limit`, and
        the next page's cursor (None on the last page)."""
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit={limit!r}: a page holds at least one round")
        spec = self.mapping.operation(NAME)
        game = self._game_of(table_id)
        shape = spec["answer"]["fields"]["rounds"]["shape"]
        if game is None and "game" not in self.mapping.data["shapes"][shape]:
            # the mapping's shortfall (a harness error), never the target's
            raise MappingAnswerError(
                OPERATION,
                f"shapes.{shape}.game",
                f"the game of table {table_id} is not known (a table this run did not create "
                f"and create_table.fixed does not name), and shapes.{shape} reads no game, so "
                "its results cannot be read as dice or tokens: read the game in the shape",
                "(nothing sent)",
            )
        values = {"table_id": table_id, "game": game, "after": after, "limit": limit}
        fields = self._run(NAME, OPERATION, values)
        return Page(self.mapping, table_id, after).read(fields)

    def _game_of(self, table_id: str) -> str | None:
        """The table's game: one this run created, or one the mapping fixes."""
        fixed = (self.mapping.operation("create_table") or {}).get("fixed") or {}
        found = (game for game, table in fixed.items() if str(table) == str(table_id))
        return self._table_games.get(table_id) or next(found, None)

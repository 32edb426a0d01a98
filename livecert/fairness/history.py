"""A table's history of outcomes, read and checked row by row, for the fairness battery.

A lab gets a history as a file (CSV or JSON lines) or reads it from the target page by page.
Every row is checked (dice 1-6, four tokens r/w, no round id twice, a known status); a bad row is
an error naming its line, never dropped: a battery run over a silently thinned history would
certify outcomes nobody looked at. Which rows the battery then uses is decided here too, and
counted: cancelled and void rounds and the rounds the harness itself entered are left out, by
round id.
"""

import csv
import io
import json
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import product
from pathlib import Path
from typing import NamedTuple

import numpy as np

GAMES = ("sicbo", "xocdia")
COLUMNS = ("round_id", "time", "result", "in_order", "shaker", "dealer", "status")
COUNTED = ("settled", "reshaken")  # a re-shaken round counts by its final result
LEFT_OUT = ("void", "cancelled")
TRUE, FALSE = ("true", "1", "yes"), ("false", "0", "no", "")
MAX_ROUND_ID = 200


class HistoryError(ValueError):
    """A history that cannot be read as given: the message names the line and what to fix."""


class HistoryDisorder(HistoryError):
    """A history whose rounds repeat or go back in time. A lab's file is only unreadable so; a
    history read from the target breaks the promise of its round-history operation (every
    finished round once, oldest first): the target's finding (livecert.certify.outcomes)."""


class Row(NamedTuple):
    """One round of the history, checked (a tuple: a million are read in seconds)."""

    line: int
    round_id: str
    time: str
    outcome: tuple  # three dice 1-6, or four tokens "r"/"w"
    in_order: bool
    shaker: str
    dealer: str
    status: str


@dataclass
class History:
    """The rounds the battery tests, as arrays, and what was left out and why."""

    game: str
    source: str
    round_ids: list[str]
    outcomes: np.ndarray  # Sic Bo: n x 3 dice (int8); Xoc Dia: n x 4, 1 for red (int8)
    in_order: bool  # every round gives its dice as thrown (its tokens by position)
    parts: np.ndarray  # the part of each round (same shaker and dealer), an index into keys
    part_keys: list[tuple[str, str]]
    stretches: np.ndarray  # contiguous rounds of one part share a stretch number
    rows_read: int
    left_out: dict[str, int] = field(default_factory=dict)  # why -> rounds

    def __len__(self) -> int:
        return len(self.round_ids)

    def part(self, index: int) -> "History":
        """The rounds of one part (one shaker and dealer), in their order."""
        keep = self.parts == index
        return History(
            self.game,
            self.source,
            [r for r, k in zip(self.round_ids, keep, strict=True) if k],
            self.outcomes[keep],
            self.in_order,
            np.zeros(int(keep.sum()), dtype=np.int32),
            [self.part_keys[index]],
            self.stretches[keep],
            self.rows_read,
            dict(self.left_out),
        )


def _flag(value: object, where: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower() if value is not None else ""
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise HistoryError(f"{where}: in_order={value!r} is not true or false")


_FACES = frozenset("123456")


def _dice(items: list, where: str) -> tuple[int, ...]:
    if len(items) != 3:
        raise HistoryError(f"{where}: a Sic Bo result has three dice, this one {len(items)}")
    dice = []
    for item in items:
        text = str(item).strip()
        if isinstance(item, bool) or text not in _FACES:  # ASCII 1-6 only: not "²", not "١"
            raise HistoryError(f"{where}: die {item!r} is not a whole number from 1 to 6")
        dice.append(int(text))
    return tuple(dice)


def _tokens(items: list, where: str) -> tuple[str, ...]:
    if len(items) != 4:
        raise HistoryError(f"{where}: a Xoc Dia result has four tokens, this one {len(items)}")
    tokens = tuple(str(t).strip().lower() for t in items)
    for token in tokens:
        if token not in ("r", "w"):
            raise HistoryError(f"{where}: token {token!r} is not r (red) or w (white)")
    return tokens


# every result as a history usually writes it ("3 1 6", "r w w r"): read by one lookup
_WRITTEN: dict[str, tuple] = {
    **{" ".join(map(str, dice)): dice for dice in product(range(1, 7), repeat=3)},
    **{" ".join(tokens): tokens for tokens in product("rw", repeat=4)},
}


def _result_items(value: object, where: str) -> list:
    """The result as a list: `3 1 6`, `3,1,6`, `rwwr`, a JSON list, or the contract's object."""
    if isinstance(value, dict):
        for key in ("dice", "tokens"):
            if key in value:
                return _result_items(value[key], where)
        raise HistoryError(f"{where}: the result object has neither dice nor tokens")
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        text = value.strip()
        parts = text.replace(",", " ").split()
        if len(parts) == 1 and len(text) == 4 and text.isalpha():  # tokens written together
            return list(text)
        return parts
    raise HistoryError(f"{where}: result={value!r} is not dice or tokens")


def _game_of(items: list, where: str = "") -> str:
    if len(items) not in (3, 4):
        raise HistoryError(
            f"{where}: a result is three dice or four tokens, this one has {len(items)} items"
        )
    return "sicbo" if len(items) == 3 else "xocdia"


def check_row(raw: dict, line: int, game: str | None, where: str) -> Row:
    """One row checked; `game` None reads it from the row's result (three dice or four tokens)."""
    at = f"{where}:{line}"
    status = str(raw.get("status") or "settled").strip().lower()
    if status not in COUNTED + LEFT_OUT:
        raise HistoryError(f"{at}: status={status!r} is not one of {', '.join(COUNTED + LEFT_OUT)}")
    if raw.get("round_id") in (None, ""):
        raise HistoryError(f"{at}: round_id is missing")
    round_id = str(raw["round_id"]).strip()
    if not round_id or len(round_id) > MAX_ROUND_ID:
        raise HistoryError(f"{at}: round_id must be 1 to {MAX_ROUND_ID} characters")
    outcome: tuple = ()  # a void or cancelled round may have no result: it is left out anyway
    written = _WRITTEN.get(raw["result"]) if isinstance(raw.get("result"), str) else None
    if written is not None and (game is None or len(written) == (3 if game == "sicbo" else 4)):
        outcome = written
    elif raw.get("result") not in (None, ""):
        items = _result_items(raw["result"], at)
        game = game or _game_of(items, at)
        outcome = _dice(items, at) if game == "sicbo" else _tokens(items, at)
    elif status not in LEFT_OUT:
        raise HistoryError(f"{at}: result is missing")
    return Row(
        line=line,
        round_id=round_id,
        time=str(raw.get("time") or ""),
        outcome=outcome,
        in_order=_flag(raw.get("in_order"), at),
        shaker=str(raw.get("shaker") or ""),
        dealer=str(raw.get("dealer") or ""),
        status=status,
    )


def _csv_rows(text: str, where: str) -> Iterator[tuple[int, dict]]:
    reader = csv.DictReader(io.StringIO(text))
    try:
        header = reader.fieldnames or []
        missing = [c for c in ("round_id", "result") if c not in header]
        if missing:
            raise HistoryError(
                f"{where}:1: the header lacks {', '.join(missing)} (columns: {', '.join(COLUMNS)})"
            )
        for raw in reader:
            if None in raw:
                raise HistoryError(f"{where}:{reader.line_num}: more fields than the header names")
            yield reader.line_num, raw
    except csv.Error as error:  # a field past csv's limit, a stray quote
        raise HistoryError(f"{where}:{reader.line_num}: not CSV ({error})") from None


def _json_rows(text: str, where: str) -> Iterator[tuple[int, dict]]:
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as error:
            raise HistoryError(f"{where}:{number}: not JSON ({error.msg})") from None
        except ValueError as error:  # an integer past Python's digit limit
            raise HistoryError(f"{where}:{number}: not JSON ({error})") from None
        if not isinstance(raw, dict):
            raise HistoryError(f"{where}:{number}: a row is a JSON object")
        yield number, raw


def read_history_file(path: Path, game: str | None = None) -> list[Row]:
    """Every row of a CSV or JSON lines file, checked (the format told by its first character)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise HistoryError(f"{path}: cannot be read ({error})") from None
    first = text.lstrip()[:1]
    if first == "[":
        raise HistoryError(
            f"{path}: a JSON array; write one JSON object a line (JSON lines), or CSV"
        )
    rows = _json_rows(text, str(path)) if first == "{" else _csv_rows(text, str(path))
    return checked_rows(((n, raw) for n, raw in rows), game, str(path))


def _time(text: str, where: str) -> datetime:
    """An ISO 8601 time; one without a zone is taken as UTC (a history keeps one clock)."""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise HistoryError(f"{where}: time={text!r} is not an ISO 8601 time") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def checked_rows(rows: Iterable[tuple[int, dict]], game: str | None, where: str) -> list[Row]:
    """Rows checked one by one, and together: one game, no round id twice."""
    checked: list[Row] = []
    seen: dict[str, int] = {}
    last: tuple[datetime, int] | None = None  # the latest time so far, and its line
    for line, raw in rows:
        row = check_row(raw, line, game, where)
        if row.time:
            when = _time(row.time, f"{where}:{line}")
            if last is not None and when < last[0]:
                raise HistoryDisorder(
                    f"{where}:{line}: time {row.time} is before line {last[1]}'s: a history is "
                    "read oldest first (the runs and serial correlation follow its order)"
                )
            last = (when, line)
        if row.outcome:
            game = game or _game_of(list(row.outcome))
        if row.round_id in seen:
            raise HistoryDisorder(
                f"{where}:{line}: round {row.round_id!r} is also on line {seen[row.round_id]}"
            )
        seen[row.round_id] = line
        checked.append(row)
    if not any(row.outcome for row in checked):
        raise HistoryError(f"{where}: no round with a result in the history")
    return checked


def build_history(
    rows: list[Row], game: str, source: str, harness_rounds: Collection[str] = ()
) -> History:
    """The rounds the battery tests: counted statuses only, the harness's own rounds left out
    (by round id), split into parts where the shaker or dealer changes."""
    left_out: Counter[str] = Counter()
    kept: list[Row] = []
    for row in rows:
        if row.status in LEFT_OUT:
            left_out[f"{row.status} rounds"] += 1
        elif row.round_id in harness_rounds:
            left_out["rounds whose result the harness entered"] += 1
        else:
            kept.append(row)
    keys: dict[tuple[str, str], int] = {}
    parts, stretches, stretch, last = [], [], -1, None
    for row in kept:
        key = (row.shaker, row.dealer)
        parts.append(keys.setdefault(key, len(keys)))
        if key != last:
            stretch, last = stretch + 1, key
        stretches.append(stretch)
    if game == "sicbo":
        outcomes = np.array([r.outcome for r in kept], dtype=np.int8).reshape(-1, 3)
    else:
        red = {t: tuple(int(c == "r") for c in t) for t in product("rw", repeat=4)}
        outcomes = np.array([red[r.outcome] for r in kept], dtype=np.int8).reshape(-1, 4)
    return History(
        game=game,
        source=source,
        round_ids=[r.round_id for r in kept],
        outcomes=outcomes,
        in_order=bool(kept) and all(r.in_order for r in kept),
        parts=np.array(parts, dtype=np.int32),
        part_keys=list(keys),
        stretches=np.array(stretches, dtype=np.int32),
        rows_read=len(rows),
        left_out=dict(left_out),
    )


def game_of(rows: list[Row]) -> str:
    """The game of checked rows: three dice or four tokens, read from the first result."""
    first = next(row.outcome for row in rows if row.outcome)
    return _game_of(list(first))

"""A table's round history (the optional `round-history` operation): its finished rounds, oldest
first, a page at a time, for the fairness battery (REG-FAIR-01, REG-FAIR-02).

The cursor `next` is the id of the page's last round: opaque to the caller, checked here (a
finished round of this table), and turned into its row number for a keyset read, so the last
page of a long history costs what the first does.
"""

from __future__ import annotations

import json
import re

from livecert.reference.base import Identity, ServicePart
from livecert.reference.errors import not_found, validation
from livecert.reference.games import GAMES
from livecert.reference.rounds import FINISHED
from livecert.reference.views import Json, iso

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
_DIGITS = re.compile(r"[0-9]{1,7}")
_SHOWN = 64  # characters of a refused cursor repeated in the refusal


def _one(values: list[str], name: str) -> str | None:
    """A query parameter given at most once."""
    if len(values) > 1:
        raise validation(f"`{name}` is given {len(values)} times; give it once")
    return values[0] if values else None


def _limit(values: list[str]) -> int:
    text = _one(values, "limit")
    if text is None:
        return DEFAULT_LIMIT
    if not _DIGITS.fullmatch(text) or not 1 <= int(text) <= MAX_LIMIT:
        raise validation(f"`limit` must be an integer from 1 to {MAX_LIMIT}")
    return int(text)


class History(ServicePart):
    """The operator reads a table's finished rounds: drawn ones and those the dealer played."""

    def round_history(self, ident: Identity, tid: str, after: list[str], limit: list[str]) -> Json:
        """One page: `after` and `limit` are the query's values (a list: each may be repeated)."""
        self.require(ident, "operator")
        size = _limit(limit)
        cursor = _one(after, "after")
        with self.store.reading():
            table = self.store.table(tid)
            if table is None:
                raise not_found(f"no table {tid!r}")
            after_seq = 0
            if cursor is not None:
                row = self.store.round(cursor)
                if row is None or row["table_id"] != tid or row["state"] not in FINISHED:
                    raise validation(
                        f"`after` {cursor[:_SHOWN]!r} is not a cursor of this table's history "
                        "(give the `next` of the page before, or nothing for the first page)"
                    )
                after_seq = row["seq"]
            rows = self._page_rows(tid, after_seq, size)
            misshown = self._misshown(tid)
        game = GAMES[table["game"]]
        page = rows[:size]
        return {
            "rounds": [
                {
                    "round_id": row["id"],
                    "state": row["state"],
                    "result": None
                    if row["result"] is None
                    else game.result_view(
                        _shown_result(json.loads(row["result"]), row["id"] == misshown),
                        self.faults,
                    ),
                    "settled_at": iso(
                        row["settled_at"] if row["settled_at"] is not None else row["finished_at"]
                    ),
                    "shaker": row["shaker"],
                    "dealer": row["dealer"],
                    "in_order": bool(row["in_order"]),
                }
                for row in page
            ],
            "next": page[-1]["id"] if len(rows) > size else None,
        }

    def _page_rows(self, tid: str, after_seq: int, size: int) -> list:
        """The page's rows and one more (which says a next page exists)."""
        if after_seq and self._from_depth(tid, "history-repeats-round", after_seq):
            # FAULT history-repeats-round: the cursor's own round opens the page again
            return self.store.history_page(tid, after_seq - 1, size + 1)
        if after_seq and self._from_depth(tid, "history-skips-round", after_seq):
            # FAULT history-skips-round: the round after the cursor is left out
            return self.store.history_page(tid, after_seq, size + 2)[1:]
        return self.store.history_page(tid, after_seq, size + 1)

    def _from_depth(self, tid: str, fault: str, after_seq: int) -> bool:
        """Whether `fault` runs and the cursor is at the table's D-th finished round or later."""
        if fault not in self.faults:
            return False
        depth = self.faults.number(fault)
        first = self.store.history_page(tid, 0, depth)
        return len(first) == depth and after_seq >= first[-1]["seq"]

    def _misshown(self, tid: str) -> str | None:
        """The round whose result the history shows wrong, under its fault."""
        if "history-shows-wrong-result" not in self.faults:
            return None
        depth = self.faults.number("history-shows-wrong-result")
        newest = self.store.settled_rounds(tid, depth)  # FAULT history-shows-wrong-result
        return newest[-1]["id"] if len(newest) == depth else None


def _shown_result(result: list, wrong: bool) -> tuple:
    """The stored result, or under its fault another one: the first die one higher (6 to 1),
    the first token turned over."""
    if not wrong:
        return tuple(result)
    first = result[0]
    other = first % 6 + 1 if isinstance(first, int) else ("w" if first == "r" else "r")
    return (other, *result[1:])

"""The vendor's audit page of a table's finished rounds, the way its back office lists them.

`GET /api/v2/admin/tables/{table_no}/history?cursor=&size=` (the operator's session) answers
`{"items": [...], "nextCursor": ...}`: the table's finished rounds oldest first, each as
`{"gameId", "game", "status": DONE | VOIDED | CANCELLED, "dice": "1,3,6" (sorted, as the
vendor writes dice everywhere) or "tokens": "1011", "asThrown", "finishedAt", "shaker",
"dealer"}`, at most `size` of them (50 unless asked, 200 at most), after the round `cursor`
names. `nextCursor` is the last round of the page when more follow, null on the last page.
The cursor is a key, not an offset: rounds finished later come after it.
"""

import re
from typing import TYPE_CHECKING, Any

from examples.second_server.entities import stamp

from .errors import VendorError

if TYPE_CHECKING:
    from .app import Studio

PATH = re.compile(r"/api/v2/admin/tables/([^/]+)/history")
STATUS = {"settled": "DONE", "void": "VOIDED", "cancelled": "CANCELLED"}
DEFAULT_SIZE, MAX_SIZE = 50, 200
DEALER = "studio"  # the one dealer account that runs every table of this studio


def item(game: str, rnd: Any) -> dict:
    """One finished round as the audit page lists it."""
    result = rnd.result or {}
    dice = result.get("dice")
    tokens = result.get("tokens")
    return {
        "gameId": rnd.id,
        "game": game.upper(),
        "status": STATUS[rnd.phase],
        "dice": ",".join(str(d) for d in sorted(dice)) if dice else None,
        "tokens": "".join("1" if t == "r" else "0" for t in tokens) if tokens else None,
        "asThrown": game == "xocdia",  # tokens by their place in the bowl; dice sorted
        "finishedAt": stamp(rnd.finished_at),
        "shaker": f"{'SB' if game == 'sicbo' else 'XD'}-{rnd.table_id}",
        "dealer": DEALER,
    }


def table_history(studio: "Studio", table_no: str, query: dict, role: str | None) -> dict:
    """A page of the table's finished rounds, after the cursor's round."""
    if role != "operator":
        raise VendorError(1003, "only the back office reads a table's history", "FORBIDDEN")
    table = studio.casino.tables.get(table_no)
    if table is None:
        raise VendorError(1004, f"no table {table_no!r}", "E_NOTABLE")
    size_text = query.get("size", str(DEFAULT_SIZE))
    if not re.fullmatch(r"\d{1,6}", size_text) or int(size_text) < 1:
        raise VendorError(1022, "size is a whole number of rounds, at least 1")
    size = min(int(size_text), MAX_SIZE)
    finished = [
        rnd
        for rnd in studio.casino.rounds.values()  # in the order they were opened
        if rnd.table_id == table.id and rnd.finished_at is not None and rnd.phase in STATUS
    ]
    start = 0
    if query.get("cursor"):
        ids = [rnd.id for rnd in finished]
        if query["cursor"] not in ids:
            raise VendorError(1022, f"cursor {query['cursor']!r} is no round of this table")
        start = ids.index(query["cursor"]) + 1
    page = finished[start : start + size]
    more = len(finished) > start + size
    return {
        "items": [item(table.game, rnd) for rnd in page],
        "nextCursor": page[-1].id if more else None,
    }

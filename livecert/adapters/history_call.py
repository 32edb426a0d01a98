"""A table's round history read through the contract's optional `getRoundHistory` (capability
`round-history`), for the fairness battery (REG-FAIR-01, REG-FAIR-02).

Kept apart from `HttpAdapter`, which keeps a thin `round_history`, so the adapter's module stays
about the operations every certification uses; the request goes through the adapter's own
`_call` (its session, bounds, evidence and contract check).
"""

from collections.abc import Callable
from typing import Any

from livecert.adapters.model import HistoryPage, HistoryRound


def read_round_history(
    call: Callable[..., Any], table_id: str, after: str | None, limit: int
) -> HistoryPage:
    """One page of the table's finished rounds, oldest first; `after` is the `next` of the page
    before (None for the first page)."""
    params = {"limit": str(limit)}
    if after is not None:
        params["after"] = after
    raw = call(
        "read the table's history of rounds",
        "GET",
        f"/v1/tables/{table_id}/rounds",
        role="operator",
        params=params,
    )
    rounds = tuple(
        HistoryRound(
            round_id=entry["round_id"],
            state=entry["state"],
            result=entry.get("result"),
            time=entry.get("settled_at"),
            shaker=entry.get("shaker"),
            dealer=entry.get("dealer"),
            in_order=bool(entry.get("in_order", False)),
        )
        for entry in raw["rounds"]
    )
    return HistoryPage(rounds, raw["next"])

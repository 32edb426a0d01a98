"""How the service shows its rows in answers: times, amounts, bets and players."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from livecert.reference.money import format_amount
from livecert.reference.store import Row

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

Json = dict[str, Any]


@lru_cache(maxsize=8192)
def iso(ms: int | None) -> str | None:
    """Epoch milliseconds as ISO 8601 UTC with milliseconds: 2026-11-29T19:33:25.123Z.

    Cached: every bet of a slip shares its placed_at and every bet of a round its settled_at.
    """
    if ms is None:
        return None
    moment = _EPOCH + timedelta(milliseconds=ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


@lru_cache(maxsize=8192)
def _money(minor: int | None) -> str | None:
    """Minor units (or None while open) as a Money string; cached, stakes repeat a lot."""
    return None if minor is None else format_amount(minor)


def _bet_view(row: Row, *, hide_stake: bool = False) -> Json:
    return {
        "bet_id": row["id"],
        "round_id": row["round_id"],
        "table_id": row["table_id"],
        "player_id": row["player_id"],
        "game": row["game"],
        "selection": row["selection"],
        "stake": _money(0 if hide_stake else row["stake"]),
        "placed_at": iso(row["placed_at"]),
        "status": row["status"],
        "outcome": row["outcome"],
        "win": _money(row["win"]),
        "returned": _money(row["returned"]),
        "settled_at": iso(row["settled_at"]),
    }


def _player_view(row: Row) -> Json:
    return {
        "player_id": row["id"],
        "name": row["name"],
        "balance": format_amount(row["balance"]),
        "connected": bool(row["connected"]),
    }

"""The certificate's sections read straight from the run record: the reproductions of failed
scenarios, the latency of the requests, the RTP tables and the sweep's coverage."""

from typing import Any

from livecert.adapters.evidence import latency_by_operation
from livecert.rules import load_paytable

OUTCOMES_PER_GAME = {"sicbo": 216, "xocdia": 16}


def reproductions(records: list[dict], limit: int = 50) -> list[dict]:
    """What reproduces each failed scenario: its message (expected versus actual) and its
    requests as curl commands with what came back (the first `limit` failures)."""
    return [
        {k: r.get(k) for k in ("nodeid", "name", "message", "exchanges", "script", "stream_script")}
        for r in records
        if r["type"] == "reproduction"
    ][:limit]


def latency(records: list[dict]) -> dict[str, Any] | None:
    """The requests the run sent the target and how long they took, every process's samples
    together (one per worker of a run over workers), and how many it answered 429 (too many
    requests: waited for and sent again where safe); None when it never connected."""
    found = [r for r in records if r["type"] == "latency"]
    if not found:
        return None
    merged: dict[str, list[float]] = {}
    for record in found:
        for operation, times in record.get("samples", {}).items():
            merged.setdefault(operation, []).extend(times)
    throttled = sum(record.get("throttled", 0) for record in found)
    return {**latency_by_operation(merged), "throttled": throttled}


def rtp(records: list[dict], games: tuple[str, ...], target: dict) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for game in games:
        rows = next(
            (r for r in reversed(records) if r["type"] == "rtp" and r["game"] == game), None
        )
        best = next(
            (r for r in reversed(records) if r["type"] == "rtp_max" and r["game"] == game), None
        )
        if rows is None and best is None:
            continue
        table = load_paytable(game)
        result[game] = {
            "stated_max_percent": table.declared_max_rtp_percent,
            "declared_max_percent": (target.get("max_rtp") or {}).get(game),
            "measured_max_percent": best.get("measured") if best else None,
            "rolls": rows["rolls"] if rows else None,
            "selections": {
                r["code"]: {
                    k: r[k]
                    for k in (
                        "clause",
                        "theoretical",
                        "measured",
                        "theoretical_percent",
                        "measured_percent",
                    )
                }
                for r in (rows["rows"] if rows else [])
            },
        }
    return result


def sweep(records: list[dict], games: tuple[str, ...]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for game in games:
        rounds = {
            tuple(r["outcome"]): r for r in records if r["type"] == "sweep" and r["game"] == game
        }
        if not rounds:
            continue
        result[game] = {
            "outcomes_possible": OUTCOMES_PER_GAME[game],
            "outcomes_played": len(rounds),
            "selections": max(r["selections"] for r in rounds.values()),
            "settlements_checked": sum(r["checked"] for r in rounds.values()),
            "mismatches": sum(r["mismatches"] for r in rounds.values()),
            "mismatched_outcomes": [list(o) for o, r in rounds.items() if r["mismatches"]],
        }
    return result
